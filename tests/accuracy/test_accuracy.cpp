// SPDX-License-Identifier: Apache-2.0
// The accuracy gate: the model against every committed benchmark measurement must not drift past the accuracy
// targets (sim/accuracy.hpp) or the recorded baseline (tests/accuracy/baseline.json, written by scripts/accuracy_table.sh), and
// a model constant set wrong must make the same check fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "attnscope/sim/accuracy.hpp"
#include "attnscope/sim/error.hpp"

namespace attnscope::sim {
namespace {

namespace fs = std::filesystem;

std::vector<AccuracyCase> committed_cases() {
  std::vector<AccuracyCase> cases;
  for (const auto& e : fs::directory_iterator(fs::path(ATTNSCOPE_DATA_DIR) / "bench")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("kernels_", 0) != 0 || e.path().extension() != ".json") continue;
    auto c = load_benchmark_cases(e.path());
    cases.insert(cases.end(), c.begin(), c.end());
  }
  return cases;
}

std::vector<BaselineRow> committed_baseline() {
  return read_baseline(fs::path(ATTNSCOPE_DATA_DIR) / ".." / "accuracy" / "baseline.json");
}

std::vector<std::string> check(const GpuSpec& gpu, const std::vector<AccuracyCase>& cases) {
  return check_against_baseline(accuracy_table(evaluate_cases(gpu, cases, 2)), committed_baseline());
}

TEST(Accuracy, CommittedMeasurementsParse) {
  const auto cases = committed_cases();
  ASSERT_GE(cases.size(), 70u);  // 32 + 46 median rows with a label in the two committed files
  const auto training =
      std::count_if(cases.begin(), cases.end(), [](const AccuracyCase& c) { return c.training; });
  EXPECT_GT(training, 10);
  EXPECT_LT(training, static_cast<long>(cases.size()) / 2);  // most cases validate
  for (const AccuracyCase& c : cases) {
    ASSERT_EQ(c.measured.count("time"), 1u) << c.id;
    EXPECT_GT(c.measured.at("time"), 0.0) << c.id;
  }
}

// The model holding its baseline on ALL committed measurements (benchmarks and CUPTI profile reports) is
// checked by the CTest `accuracy_check`, which runs `attnscope accuracy --check` (tests/accuracy/CMakeLists.txt).

// The gate bites: half the mma.sync rate (tiled kernels are compute bound) must fail the check.
TEST(Accuracy, HalvedTensorRateFailsTheCheck) {
  GpuSpec gpu = load_gpu_spec("h200");
  gpu.mma_sync_efficiency *= 0.5;
  auto cases = committed_cases();
  std::erase_if(cases, [](const AccuracyCase& c) { return c.kernel != "tiled" || c.workload.seq_q != 4096; });
  const auto failures = check(gpu, cases);
  ASSERT_FALSE(failures.empty());
  EXPECT_NE(failures.front().find("tiled"), std::string::npos) << failures.front();
}

// ... and half the HBM bandwidth (naive kernels are memory bound) too.
TEST(Accuracy, HalvedHbmBandwidthFailsTheCheck) {
  GpuSpec gpu = load_gpu_spec("h200");
  gpu.hbm_bandwidth *= 0.5;
  auto cases = committed_cases();
  std::erase_if(cases, [](const AccuracyCase& c) { return c.kernel == "tiled"; });
  ASSERT_FALSE(cases.empty());
  EXPECT_FALSE(check(gpu, cases).empty());
}

AccuracyRow row(const std::string& metric, double median, double worst) {
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
  EXPECT_TRUE(check_against_baseline({row("time", 0.09, 0.19)}, met).empty());   // still within target
  EXPECT_EQ(check_against_baseline({row("time", 0.11, 0.19)}, met).size(), 1u);  // drifted past it
  const std::vector<BaselineRow> missed{{"time", "tiled", 0.30, 0.50, false}};
  EXPECT_TRUE(check_against_baseline({row("time", 0.25, 0.50)}, missed).empty());   // better: passes
  EXPECT_EQ(check_against_baseline({row("time", 0.31, 0.50)}, missed).size(), 1u);  // worse median
  EXPECT_EQ(check_against_baseline({row("time", 0.30, 0.51)}, missed).size(), 1u);  // worse worst case
  AccuracyRow none = row("time", 0, 0);
  none.n = 0;
  none.median.reset();
  none.worst.reset();
  EXPECT_TRUE(check_against_baseline({none}, missed).empty());  // no measurement: nothing to hold
}

TEST(Accuracy, TableSaysNoMeasurementWhereThereIsNone) {
  const auto rows = accuracy_table({AccuracyPoint{"a", "tiled", "time", 1.0, 1.05, false},
                                    AccuracyPoint{"b", "tiled", "time", 1.0, 0.80, true}});
  const auto time = std::find_if(rows.begin(), rows.end(), [](const AccuracyRow& r) {
    return r.metric == "time" && r.kernel == "tiled";
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

TEST(Accuracy, BadBenchmarkFileGetsAClearError) {
  EXPECT_THROW(load_benchmark_cases(fs::path(ATTNSCOPE_DATA_DIR) / "bench" / "missing.json"), InvalidInput);
  EXPECT_THROW(read_baseline(fs::path(ATTNSCOPE_DATA_DIR) / "reports" / "malformed.json"), InvalidInput);
}

}  // namespace
}  // namespace attnscope::sim
