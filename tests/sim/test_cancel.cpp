// SPDX-License-Identifier: Apache-2.0
// SimOptions::cancel: a run asked to stop throws sim::Cancelled (from the same or another thread), a sweep
// reports its points as cancelled, and a flag left false changes nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/sim/sweep.hpp"

namespace attnscope::sim {
namespace {

TEST(Cancel, ARaisedFlagStopsTheRun) {
  const GpuSpec gpu = load_gpu_spec("h200");
  std::atomic<bool> cancel{true};
  SimOptions o;
  o.cancel = &cancel;
  EXPECT_THROW(simulate(gpu, preset("llm-4k"), KernelKind::tiled, TileConfig{}, o), Cancelled);
}

TEST(Cancel, AnotherThreadStopsARunInFlight) {
  const GpuSpec gpu = load_gpu_spec("h200");
  std::atomic<bool> cancel{false};
  SimOptions o;
  o.cancel = &cancel;
  std::jthread stopper([&cancel] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    cancel = true;
  });
  // The naive kernels at llm-4k take far longer than 20 ms, so the flag always arrives mid-run.
  EXPECT_THROW(simulate(gpu, preset("llm-4k"), KernelKind::naive, TileConfig{}, o), Cancelled);
}

TEST(Cancel, AFlagLeftDownChangesNothing) {
  const GpuSpec gpu = load_gpu_spec("h200");
  std::atomic<bool> cancel{false};
  SimOptions with;
  with.cancel = &cancel;
  const SimResult a = simulate(gpu, preset("vit-b16"), KernelKind::tiled, TileConfig{}, with);
  const SimResult b = simulate(gpu, preset("vit-b16"), KernelKind::tiled, TileConfig{}, {});
  EXPECT_EQ(a.totals, b.totals);
  EXPECT_EQ(a.time_s, b.time_s);
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  EXPECT_EQ(a.kernels[0].tiles.size(), b.kernels[0].tiles.size());
}

TEST(Cancel, SweepPointsComeBackCancelled) {
  std::atomic<bool> cancel{true};
  SimOptions o;
  o.cancel = &cancel;
  SweepJob j;
  j.workload = preset("llm-4k");
  j.gpu = load_gpu_spec("h200");
  const auto out = run_sweep({j, j}, o, 1);
  ASSERT_EQ(out.size(), 2u);
  for (const auto& p : out) {
    EXPECT_FALSE(p.result.has_value());
    EXPECT_EQ(p.error, "cancelled");
  }
}

}  // namespace
}  // namespace attnscope::sim
