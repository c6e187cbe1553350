// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/overview.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attnscope/reports/units.hpp"

namespace attnscope::reports {

bool is_headline(Metric m) {
  switch (m) {
    case Metric::dram_read:
    case Metric::dram_write:
    case Metric::l2_read:
    case Metric::l2_read_lts:
    case Metric::l2_write:
    case Metric::smem_read:
    case Metric::smem_write:
    case Metric::time:
      return true;
    default:
      return false;
  }
}

namespace {

OverviewCell make_cell(Metric m, const Value& v) {
  OverviewCell c{m, v, v.relative_error(), CellStatus::no_target};
  const vocab::MetricInfo& info = vocab::info(m);
  if (v.measured && !v.modeled && !info.modeled) {
    c.status = CellStatus::not_modeled;
  } else if (!v.measured) {
    c.status = CellStatus::not_measured;
  } else if (c.error && info.target) {
    const double a = std::fabs(*c.error);
    c.status = a <= info.target->median ? CellStatus::meets
               : a <= info.target->worst ? CellStatus::near
                                         : CellStatus::misses;
  }
  return c;
}

std::string pct(double fraction) {
  return fmt::format("{:+.1f} %", 100 * fraction);
}

}  // namespace

std::string targets_text() {
  std::string out, last;
  for (const vocab::MetricInfo& m : vocab::kMetrics) {
    if (!m.target) continue;
    std::string_view level = vocab::to_string(m.level);
    const std::string entry =
        fmt::format("{} {:.0f} % / {:.0f} %", level, 100 * m.target->median, 100 * m.target->worst);
    if (entry == last) continue;  // metrics of one level share their target
    out += (out.empty() ? "" : ", ") + entry;
    last = entry;
  }
  return out;
}

std::string cell_text(const OverviewCell& c) {
  switch (c.status) {
    case CellStatus::not_modeled:
      return "not modeled";
    case CellStatus::not_measured:
      return "not measured";
    default:
      return c.error ? pct(*c.error) : "–";
  }
}

std::vector<KernelOverview> overview(const Report& report) {
  std::vector<KernelOverview> out;
  for (const KernelEntry& k : report.kernels) {
    KernelOverview o;
    o.kernel = k.name;
    int targets = 0, missed = 0, near = 0;
    bool any_measured = false;
    std::vector<const OverviewCell*> misses;
    for (const auto& [metric, value] : k.metrics) o.cells.push_back(make_cell(metric, value));
    for (const OverviewCell& c : o.cells) {
      any_measured = any_measured || c.value.measured.has_value();
      const auto& target = vocab::info(c.metric).target;
      if (!target || !c.error) continue;
      ++targets;
      o.worst_ratio = std::max(o.worst_ratio, std::fabs(*c.error) / target->worst);
      if (c.status == CellStatus::misses) ++missed, misses.push_back(&c);
      if (c.status == CellStatus::near) ++near, misses.push_back(&c);
    }
    std::stable_sort(misses.begin(), misses.end(), [](const OverviewCell* a, const OverviewCell* b) {
      return std::fabs(*a->error) / vocab::info(a->metric).target->worst >
             std::fabs(*b->error) / vocab::info(b->metric).target->worst;
    });
    if (!any_measured) {
      o.verdict = "model only: nothing measured to compare with";
      o.worst_ratio = -1;
    } else if (targets == 0) {
      // A kernel measured before it changed (profiler::remodel_report's "kernel_changed" note) says so.
      const auto changed = k.notes.find("kernel_changed");
      o.verdict = changed != k.notes.end() ? "measured only: " + changed->second
                                           : "no metric with an accuracy target was both measured and modeled";
    } else if (misses.empty()) {
      o.verdict = fmt::format("meets all {} targets", targets);
    } else {
      const auto list = [](const std::vector<const OverviewCell*>& cells, CellStatus status) {
        std::string text;
        for (const OverviewCell* c : cells) {
          if (c->status != status) continue;
          const auto& t = *vocab::info(c->metric).target;
          text += fmt::format("{}{} {} (target {:.0f} % / {:.0f} %)", text.empty() ? "" : ", ", vocab::key(c->metric),
                             pct(*c->error), 100 * t.median, 100 * t.worst);
        }
        return text;
      };
      const std::string beyond = list(misses, CellStatus::misses), nearly = list(misses, CellStatus::near);
      if (missed > 0)
        o.verdict = fmt::format("misses {} of {} targets: {}", missed, targets, beyond);
      else
        o.verdict = fmt::format("within every worst-case target; {} of {} beyond the median target", near, targets);
      if (missed > 0 && near > 0) o.verdict += fmt::format("; beyond the median target only: {}", nearly);
      else if (missed == 0) o.verdict += ": " + nearly;
    }
    out.push_back(std::move(o));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const KernelOverview& a, const KernelOverview& b) { return a.worst_ratio > b.worst_ratio; });
  return out;
}

std::string tile_coverage(const KernelEntry& k) {
  if (k.tiles.empty()) return "";
  const auto n = static_cast<std::int64_t>(k.tiles.size());
  std::string kept;
  switch (k.tiles_kept) {
    case TileSubset::all:
      kept = "";
      break;
    case TileSubset::head0:
      kept = " (batch 0 / head 0)";
      break;
    case TileSubset::measured:
      kept = " (measured tiles only)";
      break;
    case TileSubset::windows:
      kept = " (measured windows only)";
      break;
  }
  if (k.tiles_total > 0 && n >= k.tiles_total) return "";
  if (k.tiles_total <= 0) return kept.empty() ? "" : fmt::format("{} tiles{}", n, kept);
  return fmt::format("{} of {} tiles{}", format_count(static_cast<double>(n)),
                     format_count(static_cast<double>(k.tiles_total)), kept);
}

}  // namespace attnscope::reports
