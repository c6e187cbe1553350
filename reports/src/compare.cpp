// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "attnscope/reports/units.hpp"
#include "text_util.hpp"

namespace attnscope::reports {

std::size_t ReportComparison::regressions() const {
  return static_cast<std::size_t>(std::count_if(changes.begin(), changes.end(), [](const MetricChange& c) {
    return c.kind == ChangeKind::regression;
  }));
}

namespace {

MetricChange value_change(const std::string& kernel, Metric metric, const std::string& field,
                          const std::string& unit, std::optional<double> a, std::optional<double> b,
                          double threshold, bool lower_better) {
  MetricChange c{kernel, metric, field, unit, a, b, std::nullopt, ChangeKind::unchanged};
  if (!a || !b) {
    c.kind = (a.has_value() != b.has_value()) ? ChangeKind::neutral : ChangeKind::unchanged;
    return c;
  }
  // From a value so small (or to one so large) that the ratio overflows, there is no percentage to print.
  if (*a != 0)
    if (const double rel = (*b - *a) / std::fabs(*a); std::isfinite(rel)) c.relative_change = rel;
  const double rel = c.relative_change ? *c.relative_change : (*b == *a ? 0.0 : std::copysign(1.0, *b - *a));
  if (std::fabs(rel) <= threshold) return c;
  if (!lower_better)
    c.kind = ChangeKind::neutral;
  else
    c.kind = rel > 0 ? ChangeKind::regression : ChangeKind::improvement;
  return c;
}

}  // namespace

ReportComparison compare_reports(const Report& old_report, const Report& new_report, double threshold) {
  ReportComparison out;
  const std::string wa = detail::workload_summary(old_report.workload),
                    wb = detail::workload_summary(new_report.workload);
  if (wa != wb) out.notes.push_back("the workloads differ: " + wa + " vs " + wb);
  if (old_report.tiles.label() != new_report.tiles.label())
    out.notes.push_back("the tiles differ: " + old_report.tiles.label() + " vs " + new_report.tiles.label());
  if (old_report.provenance.gpu_name != new_report.provenance.gpu_name)
    out.notes.push_back("the GPUs differ: " + old_report.provenance.gpu_name + " vs " +
                        new_report.provenance.gpu_name);
  for (const auto& k : old_report.kernels)
    if (!find_kernel(new_report, k.name))
      out.notes.push_back("kernel " + k.name + " is only in the old report");
  for (const auto& kb : new_report.kernels) {
    const KernelEntry* ka = find_kernel(old_report, kb.name);
    if (!ka) {
      out.notes.push_back("kernel " + kb.name + " is only in the new report");
      continue;
    }
    for (const auto& [key, a] : ka->metrics)
      if (!kb.metrics.contains(key))
        out.notes.push_back(fmt::format("metric {}.{} is only in the old report", kb.name, vocab::key(key)));
    for (const auto& [key, b] : kb.metrics) {
      const Value* found = ka->metrics.find(key);
      if (found == nullptr) {
        out.notes.push_back(fmt::format("metric {}.{} is only in the new report", kb.name, vocab::key(key)));
        continue;
      }
      const Value& a = *found;
      const bool lower = vocab::lower_is_better(key);
      const std::string unit(vocab::to_string(vocab::info(key).unit));
      out.changes.push_back(
          value_change(kb.name, key, "measured", unit, a.measured, b.measured, threshold, lower));
      out.changes.push_back(
          value_change(kb.name, key, "modeled", unit, a.modeled, b.modeled, threshold, lower));
      const auto ea = a.relative_error(), eb = b.relative_error();
      if (ea && eb) {
        MetricChange c{
            kb.name, key, "|error|", "", std::fabs(*ea), std::fabs(*eb), std::nullopt, ChangeKind::unchanged};
        const double delta = std::fabs(*eb) - std::fabs(*ea);  // percentage points, as a fraction
        c.relative_change = delta;
        if (std::fabs(delta) > threshold)
          c.kind = delta > 0 ? ChangeKind::regression : ChangeKind::improvement;
        out.changes.push_back(c);
      }
    }
  }
  // Drop pairs where neither side has a value.
  out.changes.erase(std::remove_if(out.changes.begin(), out.changes.end(),
                                   [](const MetricChange& c) { return !c.old_value && !c.new_value; }),
                    out.changes.end());
  auto rank = [](ChangeKind k) { return static_cast<int>(k); };
  std::stable_sort(out.changes.begin(), out.changes.end(), [&](const MetricChange& x, const MetricChange& y) {
    if (rank(x.kind) != rank(y.kind)) return rank(x.kind) < rank(y.kind);
    const double mx = x.relative_change ? std::fabs(*x.relative_change) : 0.0;
    const double my = y.relative_change ? std::fabs(*y.relative_change) : 0.0;
    return mx > my;
  });
  return out;
}

namespace {

std::string side(const std::optional<double>& v, const MetricChange& c) {
  if (!v) return "-";
  if (c.field == "|error|") return fmt::format("{:.2f}%", *v * 100);
  return format_value(*v, c.unit);
}

std::string change_text(const MetricChange& c) {
  if (!c.relative_change) {
    if (!c.old_value || !c.new_value) return "(one side missing)";
    return *c.old_value == 0 ? "(from 0)" : "(too large a ratio)";
  }
  if (c.field == "|error|") return fmt::format("{:+.2f} pts", *c.relative_change * 100);
  return format_percent(*c.relative_change);
}

constexpr const char* kKindNames[] = {"REGRESSION", "improvement", "changed", "unchanged"};

}  // namespace

std::string to_text(const ReportComparison& cmp, bool show_unchanged) {
  std::string out;
  for (const auto& n : cmp.notes) out += "note: " + n + "\n";
  std::size_t shown = 0;
  out += fmt::format("{:<12} {:<16} {:<12} {:<9} {:>14} {:>14} {:>12}\n", "", "kernel", "metric", "field",
                     "old", "new", "change");
  for (const auto& c : cmp.changes) {
    if (c.kind == ChangeKind::unchanged && !show_unchanged) continue;
    out +=
        fmt::format("{:<12} {:<16} {:<12} {:<9} {:>14} {:>14} {:>12}\n", kKindNames[static_cast<int>(c.kind)],
                    c.kernel, vocab::key(c.metric), c.field, side(c.old_value, c), side(c.new_value, c), change_text(c));
    ++shown;
  }
  if (shown == 0) out += "no change beyond the threshold\n";
  out += fmt::format("{} regression(s)\n", cmp.regressions());
  return detail::terminal_safe(out);
}

std::string to_markdown(const ReportComparison& cmp) {
  std::string out = fmt::format("### attnscope compare: {} regression(s)\n\n", cmp.regressions());
  for (const auto& n : cmp.notes) out += "- " + detail::md_cell(n) + "\n";
  if (!cmp.notes.empty()) out += "\n";
  out += "| | Kernel | Metric | Field | Old | New | Change |\n|---|---|---|---|---:|---:|---:|\n";
  for (const auto& c : cmp.changes) {
    if (c.kind == ChangeKind::unchanged) continue;
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n",
                       c.kind == ChangeKind::regression    ? "❌"
                       : c.kind == ChangeKind::improvement ? "✅"
                                                           : "·",
                       detail::md_cell(c.kernel), vocab::key(c.metric), c.field, side(c.old_value, c),
                       side(c.new_value, c), change_text(c));
  }
  return out;
}

}  // namespace attnscope::reports
