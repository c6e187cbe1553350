// SPDX-License-Identifier: Apache-2.0
// Covers reports/src/trace_writer.cpp's counter track: a measured kernel's PM samples become a "DRAM
// throughput" counter ("ph": "C") in the measured process, in GB/s, on the kernels' shared time axis, and
// fall to zero where the sampling ends. Run on a real H200 report profiled with --pm-sampling.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/pm_samples.hpp"
#include "attnscope/reports/writers.hpp"

namespace attnscope::reports {
namespace {

const std::filesystem::path kPmReport =
    std::filesystem::path(ATTNSCOPE_DATA_DIR) / "h200" / "h200-20261203T015245Z" / "llm-4k-pm-sampling.json";

TEST(ChromeTrace, PmSamplesBecomeADramCounterTrack) {
  const Report r = read_report(kPmReport);
  std::size_t samples = 0;
  for (const auto& k : r.kernels) {
    const std::optional<double> duration = measured_of(k.metrics, vocab::Metric::time);
    ASSERT_TRUE(duration.has_value()) << k.name;
    const auto aligned = dram_throughput(k, duration);
    // The idle lead-in and tail are cut: what is left starts at the first DRAM bytes and ends within one
    // sample of the kernel's measured time.
    ASSERT_FALSE(aligned.empty()) << k.name;
    EXPECT_LT(aligned.size(), k.samples.size()) << k.name;
    EXPECT_EQ(aligned.front().start_s, 0.0);
    EXPECT_NEAR(aligned.back().end_s, *duration, 5e-6) << k.name;
    samples += aligned.size();
  }
  const auto trace = nlohmann::json::parse(to_chrome_trace(r));
  std::size_t counters = 0;
  double peak_gbps = 0, last_ts = -1;
  for (const auto& e : trace.at("traceEvents")) {
    if (e.at("ph") != "C") continue;
    ++counters;
    EXPECT_EQ(e.at("name"), "DRAM throughput");
    EXPECT_EQ(e.at("pid"), 2);                     // the measured process
    EXPECT_GE(e.at("ts").get<double>(), last_ts);  // kernels in launch order, samples in time order
    last_ts = e.at("ts").get<double>();
    const double gbps =
        e.at("args").at("read GB/s").get<double>() + e.at("args").at("write GB/s").get<double>();
    EXPECT_GE(gbps, 0);
    peak_gbps = std::max(peak_gbps, gbps);
  }
  // One event per kept sample and one closing zero per kernel with samples.
  EXPECT_EQ(counters, samples + 4);
  // The H200's HBM peaks at 4.8 TB/s: a plausible track, not bytes mistaken for bytes per second.
  EXPECT_GT(peak_gbps, 100);
  EXPECT_LT(peak_gbps, 6000);
}

TEST(ChromeTrace, NoSamplesNoCounterTrack) {
  Report r = read_report(kPmReport);
  for (auto& k : r.kernels) k.samples.clear();
  const auto trace = nlohmann::json::parse(to_chrome_trace(r));
  for (const auto& e : trace.at("traceEvents")) EXPECT_NE(e.at("ph"), "C");
}

}  // namespace
}  // namespace attnscope::reports
