// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/report.hpp"

#include <bit>
#include <cmath>

namespace attnscope::reports {

std::optional<double> Value::relative_error() const {
  if (!measured || !modeled || *measured == 0.0) return std::nullopt;
  // A measured value so small that the ratio overflows has no error to speak of (no "inf%").
  const double e = (*modeled - *measured) / *measured;
  if (!std::isfinite(e)) return std::nullopt;
  return e;
}

std::size_t Metrics::size() const {
  return static_cast<std::size_t>(std::popcount(present_));
}

std::optional<double> measured_of(const Metrics& metrics, Metric m) {
  const Value* v = metrics.find(m);
  return v ? v->measured : std::nullopt;
}
std::optional<double> modeled_of(const Metrics& metrics, Metric m) {
  const Value* v = metrics.find(m);
  return v ? v->modeled : std::nullopt;
}

std::string_view to_string(TileSubset s) {
  switch (s) {
    case TileSubset::all:
      return "all";
    case TileSubset::head0:
      return "head0";
    case TileSubset::measured:
      return "measured";
    case TileSubset::windows:
      return "windows";
  }
  return "?";
}
std::optional<TileSubset> parse_tile_subset(std::string_view s) {
  if (s == "all") return TileSubset::all;
  if (s == "head0") return TileSubset::head0;
  if (s == "measured") return TileSubset::measured;
  if (s == "windows") return TileSubset::windows;
  return std::nullopt;
}

const KernelEntry* find_kernel(const Report& report, std::string_view name) {
  for (const auto& k : report.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

std::string tiles_label(const Report& report) {
  if (find_kernel(report, "hopper") == nullptr) return report.tiles.label();
  for (const auto& k : report.kernels)
    if (k.name != "hopper") return report.tiles.label() + ", " + report.tiles.hopper_label();
  return report.tiles.hopper_label();
}

std::string tiles_label(const SweepPoint& p) {
  switch (p.kind) {
    case sim::KernelKind::tiled:
      switch (p.workload.pass) {
        case sim::Pass::fwd:
          return p.tiles.label();
        case sim::Pass::bwd:
          return p.tiles.bwd_label(p.workload.head_dim);
        case sim::Pass::both:
          return p.tiles.label() + ", " + p.tiles.bwd_label(p.workload.head_dim);
      }
      return p.tiles.label();
    case sim::KernelKind::hopper:
      return p.tiles.hopper_label();
    case sim::KernelKind::naive:
      return "-";
  }
  return "-";
}

}  // namespace attnscope::reports
