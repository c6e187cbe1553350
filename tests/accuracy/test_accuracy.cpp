// SPDX-License-Identifier: Apache-2.0
// The accuracy gate: the model against every committed benchmark measurement must not drift past the accuracy
// targets (the metric table's, profiler/accuracy.hpp) or the recorded baseline (tests/accuracy/baseline.json,
// written by scripts/accuracy_table.sh), and a model constant set wrong must make the same check fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attnscope/profiler/accuracy.hpp"
#include "attnscope/profiler/model_cache.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/gpu_spec.hpp"

namespace attnscope::profiler {
namespace {

namespace fs = std::filesystem;
using vocab::Metric;

std::vector<fs::path> benchmark_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(ATTNSCOPE_DATA_DIR) / "bench")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("kernels_", 0) != 0 || e.path().extension() != ".json") continue;
    out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The committed benchmark files with only the benchmarks whose label `keep` accepts, written to a scratch
// folder: cases_from_benchmarks models every case it reads, and the checks below need only some of them.
std::vector<fs::path> benchmark_files_with(const std::string& scratch,
                                           const std::function<bool(const std::string& label)>& keep) {
  const fs::path dir = fs::temp_directory_path() / ("attnscope_accuracy_test_" + scratch);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<fs::path> out;
  for (const fs::path& file : benchmark_files()) {
    std::ifstream in(file);
    nlohmann::json doc = nlohmann::json::parse(in);
    auto& benchmarks = doc["benchmarks"];
    benchmarks.erase(std::remove_if(benchmarks.begin(), benchmarks.end(),
                                    [&](const nlohmann::json& b) { return !keep(b.value("label", "")); }),
                     benchmarks.end());
    out.push_back(dir / file.filename());
    std::ofstream(out.back()) << doc.dump();
  }
  return out;
}

// Every case of `files`, modeled on `models`' GPU (two threads: CI has two cores).
std::vector<AccuracyCase> cases_of(const std::vector<fs::path>& files, ModelCache& models) {
  std::vector<AccuracyCase> cases;
  for (const fs::path& file : files) {
    auto c = cases_from_benchmarks(file, models, 2);
    cases.insert(cases.end(), c.begin(), c.end());
  }
  return cases;
}

std::vector<BaselineRow> committed_baseline() {
  return read_baseline(fs::path(ATTNSCOPE_DATA_DIR) / ".." / "accuracy" / "baseline.json");
}

std::vector<std::string> check(const std::vector<AccuracyCase>& cases) {
  return check_against_baseline(accuracy_table(points_of(cases)), committed_baseline());
}

bool label_has(const std::string& label, const std::string& token) {
  return (" " + label + " ").find(" " + token + " ") != std::string::npos;
}

TEST(Accuracy, CommittedMeasurementsParse) {
  ModelCache models(sim::load_gpu_spec("h200"));
  const auto cases = cases_of(benchmark_files(), models);
  ASSERT_GE(cases.size(), 70u);  // 32 + 46 median rows with a label in the two committed files
  const auto training =
      std::count_if(cases.begin(), cases.end(), [](const AccuracyCase& c) { return c.training; });
  EXPECT_GT(training, 10);
  EXPECT_LT(training, static_cast<long>(cases.size()) / 2);  // most cases validate
  for (const AccuracyCase& c : cases) {
    ASSERT_EQ(c.points.count(Metric::time), 1u) << c.id;
    EXPECT_GT(c.points.at(Metric::time).measured, 0.0) << c.id;
    EXPECT_GT(c.points.at(Metric::time).modeled, 0.0) << c.id;  // the model ran for every case
    EXPECT_EQ(c.points.size(), 1u) << c.id;                    // benchmarks measure time only
  }
}

// The model holding its baseline on ALL committed measurements (benchmarks and CUPTI profile reports) is
// checked by the CTest `accuracy_check`, which runs `attnscope accuracy --check` (tests/accuracy/CMakeLists.txt).

// The gate bites: half the mma.sync rate (tiled kernels are compute bound) must fail the check.
TEST(Accuracy, HalvedTensorRateFailsTheCheck) {
  sim::GpuSpec gpu = sim::load_gpu_spec("h200");
  gpu.mma_sync_efficiency *= 0.5;
  ModelCache models(gpu);
  const auto files = benchmark_files_with(
      "tensor", [](const std::string& label) { return label.rfind("tiled ", 0) == 0 && label_has(label, "N=4096"); });
  auto cases = cases_of(files, models);
  fs::remove_all(files.front().parent_path());
  ASSERT_FALSE(cases.empty());
  for (const AccuracyCase& c : cases) EXPECT_TRUE(c.kernel == "tiled" && c.workload.seq_q == 4096) << c.id;
  const auto failures = check(cases);
  ASSERT_FALSE(failures.empty());
  EXPECT_NE(failures.front().find("tiled"), std::string::npos) << failures.front();
}

// ... and half the HBM bandwidth (naive kernels are memory bound) too.
TEST(Accuracy, HalvedHbmBandwidthFailsTheCheck) {
  sim::GpuSpec gpu = sim::load_gpu_spec("h200");
  gpu.hbm_bandwidth *= 0.5;
  ModelCache models(gpu);
  const auto files =
      benchmark_files_with("hbm", [](const std::string& label) { return label.rfind("naive", 0) == 0; });
  auto cases = cases_of(files, models);
  fs::remove_all(files.front().parent_path());
  ASSERT_FALSE(cases.empty());
  for (const AccuracyCase& c : cases) EXPECT_NE(c.kernel, "tiled") << c.id;
  EXPECT_FALSE(check(cases).empty());
}

AccuracyRow row(Metric metric, double median, double worst) {
  AccuracyRow r;
  r.metric = metric;
  r.kernel = "tiled";
  r.n = 3;
  r.median = median;
  r.worst = worst;
  r.target = target_for(metric);
  return r;
}

TEST(Accuracy, RatchetRules) {
  // time: 10 % median / 20 % worst.
  const std::vector<BaselineRow> met{{"time", "tiled", 0.05, 0.12, true}};
  EXPECT_TRUE(check_against_baseline({row(Metric::time, 0.09, 0.19)}, met).empty());   // still within target
  EXPECT_EQ(check_against_baseline({row(Metric::time, 0.11, 0.19)}, met).size(), 1u);  // drifted past it
  const std::vector<BaselineRow> missed{{"time", "tiled", 0.30, 0.50, false}};
  EXPECT_TRUE(check_against_baseline({row(Metric::time, 0.25, 0.50)}, missed).empty());   // better: passes
  EXPECT_EQ(check_against_baseline({row(Metric::time, 0.31, 0.50)}, missed).size(), 1u);  // worse median
  EXPECT_EQ(check_against_baseline({row(Metric::time, 0.30, 0.51)}, missed).size(), 1u);  // worse worst case
  AccuracyRow none = row(Metric::time, 0, 0);
  none.n = 0;
  none.median.reset();
  none.worst.reset();
  EXPECT_TRUE(check_against_baseline({none}, missed).empty());  // no measurement: nothing to hold
}

TEST(Accuracy, TableSaysNoMeasurementWhereThereIsNone) {
  const auto rows = accuracy_table({AccuracyPoint{"a", "tiled", Metric::time, 1.0, 1.05, false},
                                    AccuracyPoint{"b", "tiled", Metric::time, 1.0, 0.80, true}});
  const auto time = std::find_if(rows.begin(), rows.end(), [](const AccuracyRow& r) {
    return r.metric == AccuracyMetric{Metric::time} && r.kernel == "tiled";
  });
  ASSERT_NE(time, rows.end());
  EXPECT_EQ(time->n, 2);
  EXPECT_EQ(time->n_training, 1);
  EXPECT_NEAR(*time->median, 0.125, 1e-12);  // median of 5 % and 20 %
  EXPECT_NEAR(*time->worst, 0.20, 1e-12);
  EXPECT_NEAR(*time->median_validation, 0.05, 1e-12);
  EXPECT_FALSE(time->meets());  // worst 20 % is at the limit... and the median 12.5 % is past 10 %
  const std::string md = accuracy_markdown(rows);
  EXPECT_NE(md.find("no measurement"), std::string::npos);
}

// Rows are named by the metric table's keys, and the lone tile windows' bytes by "tile_bytes" (no metric).
TEST(Accuracy, MetricNamesOfTheTable) {
  EXPECT_EQ(accuracy_metric_name(Metric::dram_write), "dram_write");
  EXPECT_EQ(accuracy_metric_name(std::nullopt), "tile_bytes");
  EXPECT_EQ(parse_accuracy_metric("l2_read_lts"), AccuracyMetric{Metric::l2_read_lts});
  ASSERT_TRUE(parse_accuracy_metric("tile_bytes").has_value());
  EXPECT_FALSE(parse_accuracy_metric("tile_bytes")->has_value());
  EXPECT_FALSE(parse_accuracy_metric("l2_reads").has_value());
  EXPECT_EQ(target_for(std::nullopt)->median, 0.05);
  EXPECT_FALSE(target_for(std::nullopt)->worst.has_value());
  EXPECT_FALSE(target_for(Metric::flops).has_value());  // no accuracy target
}

TEST(Accuracy, BadBenchmarkFileGetsAClearError) {
  ModelCache models(sim::load_gpu_spec("h200"));
  EXPECT_THROW(cases_from_benchmarks(fs::path(ATTNSCOPE_DATA_DIR) / "bench" / "missing.json", models),
               sim::InvalidInput);
  EXPECT_THROW(read_baseline(fs::path(ATTNSCOPE_DATA_DIR) / "reports" / "malformed.json"), sim::InvalidInput);
}

}  // namespace
}  // namespace attnscope::profiler
