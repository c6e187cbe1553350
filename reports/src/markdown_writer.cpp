// SPDX-License-Identifier: Apache-2.0
// A short Markdown summary for a CI job's summary page: gates first (what a reviewer looks for), then the
// kernel x metric table, then for sweeps the best tile per problem.
#include <cmath>

#include "attnscope/reports/overview.hpp"
#include "attnscope/reports/pass_totals.hpp"
#include "attnscope/reports/sweep_analysis.hpp"
#include "attnscope/reports/units.hpp"
#include "attnscope/reports/writers.hpp"
#include "text_util.hpp"

namespace attnscope::reports {

using detail::md_cell;

namespace {

std::string cell(const std::optional<double>& v, Metric metric) {
  return v ? format_metric(*v, metric) : "–";
}

}  // namespace

std::string to_markdown(const Report& report, const std::vector<GateResult>& gates) {
  const auto& p = report.provenance;
  std::string out = fmt::format("## attnscope {}: {}\n\n", report.kind, md_cell(report.workload.name));
  out += fmt::format("- **Workload**: {}\n", md_cell(detail::workload_summary(report.workload)));
  if (report.kind != "sweep") out += fmt::format("- **Tiles**: {}\n", tiles_label(report));
  out += fmt::format("- **GPU**: {}{}{}\n", md_cell(p.gpu_name.empty() ? "-" : p.gpu_name),
                     p.gpu_spec.empty() ? "" : fmt::format(" (model spec `{}`)", detail::md_code(p.gpu_spec)),
                     p.driver.empty() ? "" : fmt::format(", driver {}", md_cell(p.driver)));
  out += fmt::format("- **Tool**: attnscope {} (git `{}`), {}\n\n", md_cell(p.tool_version),
                     detail::md_code(p.git_revision), md_cell(p.date));

  if (!gates.empty()) {
    std::size_t failed = 0;
    for (const auto& g : gates) failed += g.passed ? 0 : 1;
    out += fmt::format("### Gates: {} of {} passed\n\n| Gate | Result | Detail |\n|---|---|---|\n",
                       gates.size() - failed, gates.size());
    for (const auto& g : gates)
      out += fmt::format("| `{}` | {} | {} |\n", detail::md_code(g.gate.text),
                         g.passed ? "✅ pass" : "❌ **FAIL**", md_cell(g.message));
    out += '\n';
  }

  if (!report.kernels.empty()) {
    // First the overview the terminal shows: verdict per kernel, worst first.
    const auto kernels = overview(report);
    out += "### Model vs measurement\n\n";
    for (const auto& k : kernels) out += fmt::format("- **{}**: {}\n", md_cell(k.kernel), md_cell(k.verdict));
    out += "\n| Kernel | Metric | Measured | Modeled | Error |\n|---|---|---:|---:|---:|\n";
    for (const auto& k : kernels)
      for (const auto& c : k.cells) {
        if (!is_headline(c.metric)) continue;
        out += fmt::format("| {} | {} | {} | {} | {} |\n", md_cell(k.kernel), vocab::key(c.metric),
                           cell(c.value.measured, c.metric), cell(c.value.modeled, c.metric), cell_text(c));
      }
    out += '\n';
    // What the model leaves out at this workload, where the counters showed it matters (sim::KernelResult).
    for (const auto& k : report.kernels)
      if (const auto it = k.notes.find("model.not_modeled"); it != k.notes.end())
        out += fmt::format("> **{} model**: {}\n\n", md_cell(k.name), md_cell(it->second));
    out += "Other metrics, raw counters and tiles: see the JSON or HTML report.\n\n";
  }
  if (const std::string passes = pass_totals_text(report); !passes.empty()) {
    out += "### Per pass\n\n";
    for (std::size_t at = 0, end; (end = passes.find('\n', at)) != std::string::npos; at = end + 1)
      out += "- " + md_cell(passes.substr(at, end - at)) + "\n";
    out += '\n';
  }

  if (!report.sweep.empty()) {
    std::size_t feasible = 0;
    for (const auto& pt : report.sweep) feasible += pt.feasible ? 1 : 0;
    out += fmt::format("### Sweep: {} points ({} feasible)\n\n", report.sweep.size(), feasible);
    if (report.sweep_definition.fidelity == vocab::SweepFidelity::two)
      out += fmt::format(
          "Two-fidelity: the sweep's {} points were priced by the closed-form bound; the {} listed here "
          "(each "
          "problem's top K and the bounds' Pareto front) by the cycle model, which produced their "
          "numbers.\n\n",
          report.sweep_definition.total_points, report.sweep.size());
    out += "| Problem | Best tile | smem/CTA | Modeled time | HBM bytes |\n|---|---|---:|---:|---:|\n";
    for (const auto& group : group_by_problem(report)) {
      const SweepPoint* best = best_point(group.points);
      if (!best) {
        out += fmt::format("| {} | no feasible tile | | | |\n", md_cell(group.label));
        continue;
      }
      out += fmt::format("| {} | {} | {} | {} | {} |\n", md_cell(group.label), tiles_label(*best),
                         format_bytes_binary(modeled_metric(*best, Metric::smem_per_cta)),
                         format_seconds(modeled_metric(*best, Metric::time)), format_bytes(hbm_bytes(*best)));
    }
    out += '\n';
  }
  return out;
}

}  // namespace attnscope::reports
