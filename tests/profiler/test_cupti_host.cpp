// SPDX-License-Identifier: Apache-2.0
// CUPTI's host side for the H200's chip (GH100), offline: metric names, configuration image and passes need
// the CUPTI and nvperf_host libraries but no GPU.
#include <gtest/gtest.h>

#include "attnscope/profiler/metric_set.hpp"
#include "metric_config.hpp"

using namespace attnscope::profiler;

TEST(CuptiHost, StandardMetricsAreKnownOnGH100AndNeedFewPasses) {
  cuda::MetricConfig config("GH100", {});
  std::vector<std::string> metrics;
  for (const auto& m : standard_counters()) {
    EXPECT_TRUE(config.supported(m)) << m;
    metrics.push_back(m);
  }
  EXPECT_FALSE(config.supported("bogus__not_a_counter.sum"));
  config.set_metrics(metrics);
  EXPECT_FALSE(config.config_image().empty());
  // Every pass is one more replay of each measured kernel (with its buffers saved and restored): the set was
  // 7 passes until the load pipe's own L2 byte count (4 passes alone) gave way to the crossbar's total and
  // a counter nobody read was dropped; keep it there.
  EXPECT_GE(config.passes(), 1u);
  EXPECT_LE(config.passes(), 5u);
  std::printf("standard set on GH100: %zu metrics, %zu passes\n", metrics.size(), config.passes());
}
