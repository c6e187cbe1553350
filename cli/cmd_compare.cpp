// SPDX-License-Identifier: Apache-2.0
// `attnscope compare OLD.json NEW.json [--threshold 2%] [--fail-on-regression]`: what changed per kernel and
// metric, regressions first.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "attnscope/reports/compare.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/units.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"

namespace attnscope::cli {

namespace {

struct CompareOptions {
  std::string old_path, new_path;
  std::string threshold = "2%";
  bool fail_on_regression = false;
  bool all = false;
  std::string markdown;
};

int run_compare(const CompareOptions& o) {
  double threshold = 0;
  try {
    const reports::Quantity q = reports::parse_quantity(o.threshold);
    if (q.dimension != reports::Dimension::fraction && q.dimension != reports::Dimension::none)
      throw std::invalid_argument("'" + o.threshold + "' is not a percentage (e.g. 2%)");
    threshold = q.value;
    if (threshold < 0) throw std::invalid_argument("the threshold must not be negative");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "attnscope compare: --threshold: %s\n", e.what());
    return kBadInput;
  }
  reports::Report a, b;
  try {
    a = reports::read_report(o.old_path);
    b = reports::read_report(o.new_path);
  } catch (const reports::ReportError& e) {
    std::fprintf(stderr, "attnscope compare: %s\n", e.what());
    return kMalformedReport;
  }
  const auto cmp = reports::compare_reports(a, b, threshold);
  std::printf("%s -> %s (threshold %s)\n", o.old_path.c_str(), o.new_path.c_str(), o.threshold.c_str());
  std::fputs(reports::to_text(cmp, o.all).c_str(), stdout);
  if (!o.markdown.empty()) {
    try {
      reports::write_file_atomic(o.markdown, reports::to_markdown(cmp));
    } catch (const reports::ReportError& e) {
      std::fprintf(stderr, "attnscope compare: %s\n", e.what());
      return kIoError;
    }
  }
  if (o.fail_on_regression && cmp.regressions() > 0) {
    std::fprintf(stderr, "attnscope compare: %zu regression(s) beyond %s\n", cmp.regressions(),
                 o.threshold.c_str());
    return kGateFailed;
  }
  return kOk;
}

}  // namespace

void add_compare_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("compare", "what changed between two reports, regressions first");
  auto o = std::make_shared<CompareOptions>();
  cmd->add_option("old", o->old_path, "the baseline report")->required();
  cmd->add_option("new", o->new_path, "the report to check")->required();
  cmd->add_option("--threshold,-t", o->threshold, "relative change below which a value counts as unchanged")
      ->capture_default_str();
  cmd->add_flag("--fail-on-regression", o->fail_on_regression,
                "exit 3 when any regression exceeds the threshold");
  cmd->add_flag("--all", o->all, "also list unchanged values");
  cmd->add_option("--markdown,--md", o->markdown, "write the comparison as Markdown");
  cmd->footer("Regressions: more bytes, more time or cycles, or a larger |modeled - measured| error.");
  cmd->callback([o, exit_code] { *exit_code = run_compare(*o); });
}

}  // namespace attnscope::cli
