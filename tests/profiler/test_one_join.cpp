// SPDX-License-Identifier: Apache-2.0
// One join: for every committed recording under tests/data/h200, the rows a user reads (the report that
// `attnscope run` and `attnscope report` show: remodel_report) and the accuracy table's points for the same
// case (`attnscope accuracy`: cases_from_recording) are the same numbers, measured and modeled, value for
// value; and every report row with an error (measured and modeled: vocab::comparable) is a point of the
// table.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "attnscope/profiler/accuracy.hpp"
#include "attnscope/profiler/remodel.hpp"
#include "attnscope/reports/json_io.hpp"

namespace attnscope::profiler {
namespace {

namespace fs = std::filesystem;

struct Checked {
  std::size_t reports = 0, points = 0, tile_points = 0;
};

// Compares one recording, counting what it compared in `n`. Failures name the file.
void check_recording(const reports::Report& recorded, const std::string& shown, ModelCache& models,
                     Checked& n) {
  const reports::Report seen = remodel_report(recorded, models);  // what the user reads
  const std::vector<AccuracyCase> cases = cases_from_recording(recorded, shown, models);
  ++n.reports;
  for (const reports::KernelEntry& k : seen.kernels) {
    const auto c =
        std::find_if(cases.begin(), cases.end(), [&](const AccuracyCase& x) { return x.kernel == k.name; });
    for (const auto& [metric, v] : k.metrics) {
      const bool in_table = vocab::comparable(metric) && v.measured && v.modeled && *v.measured > 0;
      if (!in_table) continue;
      ASSERT_NE(c, cases.end()) << shown << ": kernel " << k.name << " has report rows but no accuracy case";
      const auto p = c->points.find(metric);
      ASSERT_NE(p, c->points.end()) << shown << ": " << k.name << "." << vocab::key(metric)
                                    << " is in the report but not in the accuracy table";
      EXPECT_EQ(p->second.measured, *v.measured) << shown << ": " << k.name << "." << vocab::key(metric);
      EXPECT_EQ(p->second.modeled, *v.modeled) << shown << ": " << k.name << "." << vocab::key(metric);
      ++n.points;
    }
    if (c == cases.end()) continue;
    // (A loop, not std::count_if: Metrics::const_iterator has no iterator_traits.)
    std::size_t rows_with_error = 0;
    for (const auto& [m, v] : k.metrics)
      if (vocab::comparable(m) && v.measured && v.modeled && *v.measured > 0) ++rows_with_error;
    EXPECT_EQ(c->points.size(), rows_with_error)
        << shown << ": " << k.name << ": the accuracy table has points the report does not show";
    // Lone windows: the same tile-level values, in the same order.
    std::vector<std::pair<double, double>> rows;
    for (const reports::TileEntry& t : k.tiles)
      if (t.lone_window)
        for (const auto& [metric, v] : t.metrics)
          if (vocab::info(metric).tile_level && v.measured && v.modeled && *v.measured > 0)
            rows.emplace_back(*v.measured, *v.modeled);
    ASSERT_EQ(rows.size(), c->tile_points.size()) << shown << ": " << k.name << " tile windows";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].first, c->tile_points[i].measured) << shown << ": " << c->tile_points[i].case_id;
      EXPECT_EQ(rows[i].second, c->tile_points[i].modeled) << shown << ": " << c->tile_points[i].case_id;
    }
    n.tile_points += rows.size();
  }
}

TEST(OneJoin, EveryCommittedReportShowsTheAccuracyTablesNumbers) {
  const fs::path data = fs::path(ATTNSCOPE_DATA_DIR);
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(data / "h200"))
    if (e.is_regular_file() &&
        (e.path().extension() == ".json" || e.path().filename().string().ends_with(".json.gz")))
      files.push_back(e.path());  // large reports are kept gzip'd
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 100u);
  ModelCache models(sim::load_gpu_spec("h200"));
  std::atomic<std::size_t> next{0};
  std::mutex total_mutex;
  Checked total;
  const auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < files.size();) {
      reports::Report r;
      try {
        r = reports::read_report(files[i]);
      } catch (const reports::ReportError&) {
        continue;  // not a report (ncu comparison tables, logs)
      }
      if (r.kind != "profile") continue;
      Checked n;
      check_recording(r, fs::relative(files[i], data).string(), models, n);
      std::lock_guard lock(total_mutex);
      total.reports += n.reports, total.points += n.points, total.tile_points += n.tile_points;
    }
  };
  auto second = std::async(std::launch::async, work);
  work();
  second.get();
  // The committed data: hundreds of recordings, thousands of kernel rows and tile windows.
  EXPECT_GT(total.reports, 300u);
  EXPECT_GT(total.points, 1000u);
  EXPECT_GT(total.tile_points, 100u);
  std::printf("compared %zu recordings: %zu kernel rows, %zu tile-window rows, all equal\n", total.reports,
              total.points, total.tile_points);
}

}  // namespace
}  // namespace attnscope::profiler
