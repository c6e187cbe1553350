// SPDX-License-Identifier: Apache-2.0
// `attnscope report RUN.json [--gate EXPR]... [--html F] [--junit F] [--markdown F] [--csv PREFIX] [--trace
// F] [--remodel GPU]`: prints the report's first screen and tables, checks gates (exit 3 naming each failed
// one) and writes other formats; --remodel re-runs this build's model on a recorded profile first.
#include <cstdio>
#include <string>
#include <vector>

#include "attnscope/profiler/profile.hpp"
#include "attnscope/profiler/remodel.hpp"
#include "attnscope/reports/gate.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/output.hpp"
#include "attnscope/reports/writers.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/version.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"

namespace attnscope::cli {

namespace {

struct ReportOptions {
  std::string input;
  std::vector<std::string> gates;
  std::string html, junit, markdown, csv_prefix, trace;
  std::string with_sweep;
  std::string remodel;     // GPU spec: re-run this build's model on a profile report
  std::string keep_tiles;  // all, head0, measured, windows: which tile records the --json copy keeps
  std::string json;        // write the report (after --remodel and --keep-tiles) as JSON
  bool quiet = false;
};

int run_report(const ReportOptions& o) {
  reports::Report report;
  try {
    report = reports::read_report(o.input);
  } catch (const reports::ReportError& e) {
    std::fprintf(stderr, "attnscope report: %s\n", e.what());
    return kMalformedReport;
  }
  if (!o.remodel.empty()) {
    if (report.kind != "profile") {
      std::fprintf(stderr, "attnscope report: --remodel needs a profile report (this one is a %s report)\n",
                   report.kind.c_str());
      return kBadInput;
    }
    try {
      report = profiler::remodel_report(report, sim::load_gpu_spec(o.remodel));
    } catch (const sim::InvalidInput& e) {
      std::fprintf(stderr, "attnscope report: --remodel: %s\n", e.what());
      return kBadInput;
    }
  } else if (report.kind == "profile" && report.provenance.git_revision != kGitRevision && !o.quiet) {
    std::printf(
        "note: modeled values as recorded by attnscope git %s; `--remodel %s` re-runs this build's model "
        "under "
        "the recording's cache protocol (the numbers `attnscope accuracy` compares)\n\n",
        report.provenance.git_revision.c_str(),
        report.provenance.gpu_spec.empty() ? "h200" : report.provenance.gpu_spec.c_str());
  }
  if (!o.keep_tiles.empty()) {
    if (o.json.empty()) {
      std::fprintf(stderr, "attnscope report: --keep-tiles shapes the --json copy; give --json FILE\n");
      return kBadInput;
    }
    try {
      profiler::keep_tiles(report, o.keep_tiles);
    } catch (const sim::InvalidInput& e) {
      std::fprintf(stderr, "attnscope report: %s\n", e.what());
      return kBadInput;
    }
  }
  if (!o.with_sweep.empty()) {
    // Render a sweep's curves beside this run (e.g. a block-size study of the same workload).
    try {
      const reports::Report sweep = reports::read_report(o.with_sweep);
      if (sweep.sweep.empty()) {
        std::fprintf(stderr, "attnscope report: --with-sweep %s has no sweep points\n", o.with_sweep.c_str());
        return kBadInput;
      }
      report.sweep = sweep.sweep;
      report.sweep_definition = sweep.sweep_definition;
    } catch (const reports::ReportError& e) {
      std::fprintf(stderr, "attnscope report: %s\n", e.what());
      return kMalformedReport;
    }
  }
  std::vector<reports::GateResult> results;
  try {
    results = reports::evaluate_gates(o.gates, report);
  } catch (const reports::GateError& e) {
    std::fprintf(stderr, "attnscope report: %s\n", e.what());
    return kBadInput;
  }
  if (!o.quiet) std::fputs(reports::to_text_table(report).c_str(), stdout);
  std::size_t failed = 0;
  if (!results.empty()) std::printf("\ngates:\n");
  for (const auto& g : results) {
    std::printf("  %s  %s: %s\n", g.passed ? "pass" : "FAIL", reports::terminal_text(g.gate.text).c_str(),
                reports::terminal_text(g.message).c_str());
    failed += g.passed ? 0 : 1;
  }
  try {
    // One batch: every output is staged before any is replaced.
    reports::OutputBatch batch;
    if (!o.json.empty())
      batch.add(o.json, reports::to_json_string(report, reports::default_json_indent(report)));
    if (!o.html.empty()) batch.add(o.html, reports::to_html(report, results));
    if (!o.junit.empty()) batch.add(o.junit, reports::to_junit(report, results));
    if (!o.markdown.empty()) batch.add(o.markdown, reports::to_markdown(report, results));
    if (!o.trace.empty()) batch.add(o.trace, reports::to_chrome_trace(report));
    if (!o.csv_prefix.empty()) {
      batch.add(o.csv_prefix + "-totals.csv", reports::totals_csv(report));
      batch.add(o.csv_prefix + "-tiles.csv", reports::tiles_csv(report));
      if (!report.sweep.empty()) batch.add(o.csv_prefix + "-sweep.csv", reports::sweep_csv(report));
    }
    batch.commit();
  } catch (const reports::ReportError& e) {
    std::fprintf(stderr, "attnscope report: %s\n", e.what());
    return kIoError;
  }
  if (failed > 0) {
    std::fprintf(stderr, "attnscope report: %zu of %zu gate(s) failed:\n", failed, results.size());
    for (const auto& g : results)
      if (!g.passed)
        std::fprintf(stderr, "  FAILED %s: %s\n", reports::terminal_text(g.gate.text).c_str(),
                     reports::terminal_text(g.message).c_str());
    return kGateFailed;
  }
  return kOk;
}

}  // namespace

void add_report_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "report", "read a report, print measured vs modeled, check gates, write other formats");
  auto o = std::make_shared<ReportOptions>();
  cmd->add_option("report", o->input, "report JSON (from profile, simulate, sweep or run)")->required();
  cmd->add_option(
      "--gate,-g", o->gates,
      "gate such as 'tiled.dram_read.error < 5%', 'tiled.time < 0.6ms', 'naive.qk.dram_write.measured <= "
      "1.2GB' (repeatable; exit 3 when one fails)");
  cmd->add_option("--html", o->html, "write a self-contained HTML report");
  cmd->add_option("--junit", o->junit, "write JUnit XML, one testcase per gate");
  cmd->add_option("--markdown,--md", o->markdown, "write a Markdown summary (CI job summary)");
  cmd->add_option("--csv", o->csv_prefix,
                  "write PREFIX-totals.csv and PREFIX-tiles.csv (and PREFIX-sweep.csv)");
  cmd->add_option("--trace", o->trace, "write Chrome trace-event JSON of the tile timelines (Perfetto)");
  cmd->add_option("--with-sweep", o->with_sweep,
                  "add the points of a sweep report (attnscope sweep -o) to the outputs, for its curves");
  cmd->add_flag("--quiet,-q", o->quiet, "do not print the table");
  cmd->add_option(
      "--remodel", o->remodel,
      "re-run this build's model (GPU spec, e.g. h200) on a profile report, under its cache protocol");
  cmd->add_option(
      "--json", o->json,
      "write the report as JSON (after --remodel and --keep-tiles), e.g. a smaller copy to commit");
  cmd->add_option("--keep-tiles", o->keep_tiles,
                  "tile records the --json copy keeps: all, head0 (batch 0, head 0), measured (with measured "
                  "times), windows (the lone tile windows); totals and counters are kept whole");
  cmd->footer(
      "Exit codes: 0 all gates pass, 2 bad gate, 3 a gate failed, 4 unreadable report, 15 cannot write.");
  cmd->callback([o, exit_code] { *exit_code = run_report(*o); });
}

}  // namespace attnscope::cli
