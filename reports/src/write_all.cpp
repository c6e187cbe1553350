// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/writers.hpp"

namespace attnscope::reports {

WrittenFiles write_all(const Report& report, const std::filesystem::path& out_dir,
                       const std::vector<GateResult>& gates, const std::string& stem) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw ReportError("cannot create directory " + out_dir.string() + ": " + ec.message());
  WrittenFiles f;
  f.json = out_dir / (stem + ".json");
  write_report_json(report, f.json);
  f.html = out_dir / (stem + ".html");
  write_file_atomic(f.html, to_html(report, gates));
  f.markdown = out_dir / (stem + ".md");
  write_file_atomic(f.markdown, to_markdown(report, gates));
  f.totals_csv = out_dir / (stem + "-totals.csv");
  write_file_atomic(f.totals_csv, totals_csv(report));
  f.tiles_csv = out_dir / (stem + "-tiles.csv");
  write_file_atomic(f.tiles_csv, tiles_csv(report));
  if (!report.sweep.empty()) {
    f.sweep_csv = out_dir / (stem + "-sweep.csv");
    write_file_atomic(f.sweep_csv, sweep_csv(report));
  }
  f.trace = out_dir / (stem + "-trace.json");
  write_file_atomic(f.trace, to_chrome_trace(report));
  if (!gates.empty()) {
    f.junit = out_dir / (stem + "-junit.xml");
    write_file_atomic(f.junit, to_junit(report, gates));
  }
  return f;
}

}  // namespace attnscope::reports
