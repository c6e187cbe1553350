// SPDX-License-Identifier: Apache-2.0
// `attnscope metrics`: the metric table every report, gate and view reads (vocab/metric.hpp), as a person
// reads it: key, unit, level, how it is measured, whether the model predicts it, and the accuracy target.
// `--markdown` writes the form docs/metrics.md holds.
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "attnscope/vocab/metric.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"

namespace attnscope::cli {
namespace {

std::string target_text(const vocab::MetricInfo& m) {
  return m.target ? fmt::format("{:.0f} % / {:.0f} %", 100 * m.target->median, 100 * m.target->worst) : "-";
}

std::string metrics_markdown() {
  std::string out =
      "| key | what | unit | level | measured by | modeled | accuracy target (median / worst) |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const vocab::MetricInfo& m : vocab::kMetrics) {
    const std::string measured =
        m.not_measured.empty() ? std::string(m.formula) : fmt::format("not measured: {}", m.not_measured);
    const std::string modeled = m.modeled ? "yes" : fmt::format("no: {}", m.not_modeled);
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", m.key, m.label, vocab::to_string(m.unit),
                       vocab::to_string(m.level), measured, modeled, target_text(m));
  }
  return out;
}

std::string metrics_text() {
  std::string out;
  for (const vocab::MetricInfo& m : vocab::kMetrics) {
    out += fmt::format("{:<13} {} [{}], {}; target {}\n", m.key, m.label, vocab::to_string(m.unit),
                       vocab::to_string(m.level), target_text(m));
    out += fmt::format("    measured: {}\n", m.not_measured.empty() ? std::string(m.formula)
                                                                    : "no: " + std::string(m.not_measured));
    out += fmt::format("    modeled:  {}\n",
                       m.modeled ? std::string("yes") : "no: " + std::string(m.not_modeled));
  }
  return out;
}

}  // namespace

void add_metrics_command(CLI::App& app, int* exit_code) {
  auto markdown = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("metrics", "the metric table: keys, units, counter formulas, targets");
  cmd->add_flag("--markdown", *markdown, "print the Markdown table docs/metrics.md holds");
  cmd->callback([markdown, exit_code] {
    std::fputs((*markdown ? metrics_markdown() : metrics_text()).c_str(), stdout);
    *exit_code = kOk;
  });
}

}  // namespace attnscope::cli
