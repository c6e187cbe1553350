// SPDX-License-Identifier: Apache-2.0
// The table `attnscope report` prints on a terminal.
#include <algorithm>

#include "attnscope/reports/sweep_analysis.hpp"
#include "attnscope/reports/units.hpp"
#include "attnscope/reports/writers.hpp"
#include "text_util.hpp"

namespace attnscope::reports {

std::string to_text_table(const Report& report) {
  struct Row {
    std::string kernel, metric, measured, modeled, error;
  };
  std::vector<Row> rows{{"kernel", "metric", "measured", "modeled", "error"}};
  for (const auto& k : report.kernels)
    for (const auto& key : ordered_metric_keys(k.metrics)) {
      const Value& v = k.metrics.at(key);
      const auto e = v.relative_error();
      rows.push_back({k.name, key, v.measured ? format_value(*v.measured, v.unit) : "-",
                      v.modeled ? format_value(*v.modeled, v.unit) : "-", e ? format_percent(*e) : "-"});
    }
  std::size_t w[5] = {0, 0, 0, 0, 0};
  for (const auto& r : rows) {
    w[0] = std::max(w[0], r.kernel.size());
    w[1] = std::max(w[1], r.metric.size());
    w[2] = std::max(w[2], r.measured.size());
    w[3] = std::max(w[3], r.modeled.size());
    w[4] = std::max(w[4], r.error.size());
  }
  const auto& p = report.provenance;
  std::string out = fmt::format("{} report, {}\n", report.kind, detail::workload_summary(report.workload));
  out += fmt::format("tiles {}, GPU {}{}, attnscope {} (git {}), {}\n\n", report.tiles.label(),
                     p.gpu_name.empty() ? "-" : p.gpu_name,
                     p.gpu_spec.empty() ? "" : " [model " + p.gpu_spec + "]", p.tool_version, p.git_revision,
                     p.date);
  if (report.kernels.empty()) rows.clear();  // a sweep report: no kernel table, the summary below
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    out += fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {:>{}}\n", r.kernel, w[0], r.metric, w[1], r.measured,
                       w[2], r.modeled, w[3], r.error, w[4]);
    if (i == 0) out += std::string(w[0] + w[1] + w[2] + w[3] + w[4] + 8, '-') + "\n";
  }
  if (!report.sweep.empty()) {
    std::size_t feasible = 0;
    for (const auto& point : report.sweep) feasible += point.feasible ? 1 : 0;
    const auto groups = group_by_problem(report);
    out += fmt::format("{}sweep: {} points ({} feasible) in {} problem(s); best tile (least modeled time):\n",
                       rows.empty() ? "" : "\n", report.sweep.size(), feasible, groups.size());
    for (const auto& g : groups) {
      const SweepPoint* best = best_point(g.points);
      if (!best) {
        out += fmt::format("  {}: no feasible tile\n", g.label);
        continue;
      }
      out += fmt::format("  {}: {} (time {}, HBM {}, smem/CTA {})\n", g.label, best->tiles.label(),
                         format_seconds(modeled_metric(*best, "time")), format_bytes(hbm_bytes(*best)),
                         format_bytes_binary(modeled_metric(*best, "smem_per_cta")));
    }
  }
  return out;
}

std::vector<std::filesystem::path> WrittenFiles::all() const {
  std::vector<std::filesystem::path> out;
  for (const auto* p : {&json, &html, &markdown, &totals_csv, &tiles_csv, &sweep_csv, &trace, &junit})
    if (!p->empty()) out.push_back(*p);
  return out;
}

}  // namespace attnscope::reports
