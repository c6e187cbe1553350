// SPDX-License-Identifier: Apache-2.0
// Every output a report can be turned into. Each writer returns text (so tests compare it with golden
// files); write_all() writes the usual set into a directory atomically.
//
//   Report r = read_report("run.json");
//   auto gates = evaluate_gates({"tiled.dram_read.error < 5%"}, r);
//   write_file_atomic("run.html", to_html(r, gates));
//   auto written = write_all(r, "out/", gates);   // report.json, .html, .md, -totals.csv, -tiles.csv, ...
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/reports/gate.hpp"
#include "attnscope/reports/report.hpp"

namespace attnscope::reports {

// Self-contained HTML (inline SVG/CSS/JS, works offline): error table, bytes per memory level per kernel,
// per-tile heatmaps (measured, modeled, difference), tile timelines per SM, sweep curves, gates.
std::string to_html(const Report& report, const std::vector<GateResult>& gates = {});
// A summary for a CI job's summary page (GitHub-flavoured Markdown).
std::string to_markdown(const Report& report, const std::vector<GateResult>& gates = {});
// JUnit XML, one testcase per gate (failures carry the gate's message).
std::string to_junit(const Report& report, const std::vector<GateResult>& gates);
// CSV: one row per (kernel, metric); one row per tile (metric columns <key>_measured, <key>_modeled);
// one row per sweep point.
std::string totals_csv(const Report& report);
std::string tiles_csv(const Report& report);
std::string sweep_csv(const Report& report);
// Chrome trace-event JSON (chrome://tracing, Perfetto): pid 1 = modeled, pid 2 = measured, tid = SM.
std::string to_chrome_trace(const Report& report);
// The plain-text table `attnscope report` prints: kernel x metric with measured, modeled, error.
std::string to_text_table(const Report& report);
// Its parts: provenance (workload, tiles, GPU, protocol, every recording joined) and the first screen (the
// kernel x metric relative-error overview against the targets, worst first, a verdict per kernel).
std::string provenance_text(const Report& report);
std::string overview_text(const Report& report);
// Text from a report made safe to print on a terminal: control characters (escape sequences) shown as
// \xNN. The three functions above apply it already.
std::string terminal_text(std::string_view text);

struct WrittenFiles {
  std::filesystem::path json, html, markdown, totals_csv, tiles_csv, sweep_csv, trace, junit;
  std::vector<std::filesystem::path> all() const;  // the ones written, in this order
};
// Writes <stem>.json, <stem>.html, <stem>.md, <stem>-totals.csv, <stem>-tiles.csv, <stem>-trace.json (and
// <stem>-sweep.csv for sweeps, <stem>-junit.xml when gates are given) into out_dir, creating it.
// Throws ReportError when a file cannot be written.
WrittenFiles write_all(const Report& report, const std::filesystem::path& out_dir,
                       const std::vector<GateResult>& gates = {}, const std::string& stem = "report");

}  // namespace attnscope::reports
