// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/request.hpp"

#include "attnscope/sim/dataflow.hpp"
#include "attnscope/vocab/kernel.hpp"

namespace attnscope::profiler {

std::optional<FlushMethod> parse_flush_method(std::string_view s) {
  if (s == "read-discard") return FlushMethod::read_discard;
  if (s == "read") return FlushMethod::read;
  return std::nullopt;
}
std::string_view to_string(FlushMethod m) {
  return m == FlushMethod::read_discard ? "read-discard" : "read";
}

std::optional<TileMode> parse_tile_mode(std::string_view s) {
  if (s == "none") return TileMode::none;
  if (s == "sample") return TileMode::sample;
  if (s == "row") return TileMode::row;
  if (s == "all") return TileMode::all;
  return std::nullopt;
}
std::string_view to_string(TileMode m) {
  switch (m) {
    case TileMode::none:
      return "none";
    case TileMode::sample:
      return "sample";
    case TileMode::row:
      return "row";
    case TileMode::all:
      return "all";
  }
  return "?";
}

std::vector<std::string> kernel_names(sim::KernelKind kind, sim::Pass pass) {
  std::vector<std::string> out;
  for (const sim::KernelId id : sim::kernels_of(kind, pass)) out.emplace_back(vocab::to_string(id));
  return out;
}

}  // namespace attnscope::profiler
