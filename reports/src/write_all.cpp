// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/output.hpp"
#include "attnscope/reports/writers.hpp"

namespace attnscope::reports {

WrittenFiles write_all(const Report& report, const std::filesystem::path& out_dir,
                       const std::vector<GateResult>& gates, const std::string& stem) {
  // One batch: every file is rendered and staged before any is replaced, so a failure (or a signal) leaves
  // the folder as the previous run left it, or says which files were written.
  OutputBatch batch;
  WrittenFiles f;
  f.json = out_dir / (stem + ".json");
  batch.add(f.json, to_json_string(report, default_json_indent(report)));
  f.html = out_dir / (stem + ".html");
  batch.add(f.html, to_html(report, gates));
  f.markdown = out_dir / (stem + ".md");
  batch.add(f.markdown, to_markdown(report, gates));
  f.totals_csv = out_dir / (stem + "-totals.csv");
  batch.add(f.totals_csv, totals_csv(report));
  f.tiles_csv = out_dir / (stem + "-tiles.csv");
  batch.add(f.tiles_csv, tiles_csv(report));
  if (!report.sweep.empty()) {
    f.sweep_csv = out_dir / (stem + "-sweep.csv");
    batch.add(f.sweep_csv, sweep_csv(report));
  }
  f.trace = out_dir / (stem + "-trace.json");
  batch.add(f.trace, to_chrome_trace(report));
  if (!gates.empty()) {
    f.junit = out_dir / (stem + "-junit.xml");
    batch.add(f.junit, to_junit(report, gates));
  }
  batch.commit();
  return f;
}

}  // namespace attnscope::reports
