// SPDX-License-Identifier: Apache-2.0
// Covers sim/src/sweep.cpp: results in job order, equal to serial runs, errors per point, progress reported.
#include <gtest/gtest.h>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/sweep.hpp"

namespace attnscope::sim {
namespace {

TEST(Sweep, MatchesSerialRunsInJobOrderAndReportsBadPoints) {
  const GpuSpec gpu = load_gpu_spec("h200");
  std::vector<SweepJob> jobs;
  for (int br : {64, 128})
    for (int bc : {32, 64, 128}) {
      SweepJob j;
      j.workload = preset("vit-b16");
      j.tiles.br = br;
      j.tiles.warps = br / 16;
      j.tiles.bc = bc;
      j.gpu = gpu;
      jobs.push_back(j);
    }
  SweepJob bad = jobs.front();
  bad.workload.head_dim = 96;
  jobs.push_back(bad);
  SweepJob naive = jobs.front();
  naive.kind = KernelKind::naive;
  jobs.push_back(naive);

  SimOptions o;
  o.record_tiles = false;
  std::size_t calls = 0, last_done = 0;
  const auto out = run_sweep(jobs, o, 2, [&](std::size_t done, std::size_t total) {
    ++calls;
    EXPECT_EQ(total, jobs.size());
    EXPECT_GT(done, last_done);
    last_done = done;
  });
  ASSERT_EQ(out.size(), jobs.size());
  EXPECT_EQ(calls, jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    SCOPED_TRACE(i);
    if (i == 6) {
      EXPECT_FALSE(out[i].result.has_value());
      EXPECT_NE(out[i].error.find("head_dim 96"), std::string::npos) << out[i].error;
      continue;
    }
    ASSERT_TRUE(out[i].result.has_value()) << out[i].error;
    const SimResult serial = simulate(jobs[i].gpu, jobs[i].workload, jobs[i].kind, jobs[i].tiles, o);
    EXPECT_EQ(out[i].result->totals, serial.totals);
    EXPECT_EQ(out[i].result->time_s, serial.time_s);
    EXPECT_EQ(out[i].result->tiles.br, jobs[i].tiles.br);
  }
  EXPECT_EQ(out.back().result->kernels.size(), 3u);
}

TEST(Sweep, CancelStopsHandingOutJobs) {
  std::vector<SweepJob> jobs(5);
  for (auto& j : jobs) {
    j.workload = preset("vit-b16");
    j.gpu = load_gpu_spec("h100");
  }
  std::atomic<bool> cancel{true};
  const auto out = run_sweep(jobs, SimOptions{}, 1, {}, &cancel);
  for (const auto& o : out) EXPECT_EQ(o.error, "cancelled");
  EXPECT_THROW(run_sweep(jobs, SimOptions{}, -1), InvalidInput);
}

}  // namespace
}  // namespace attnscope::sim
