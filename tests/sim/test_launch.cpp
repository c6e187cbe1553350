// SPDX-License-Identifier: Apache-2.0
// The launch cost (GpuSpec::launch_overhead_ns): added once per kernel launch to the CTAs' time, so a kernel
// of one tiny CTA costs about the launch and a large kernel moves by exactly the launch; the CTAs' own
// timing (cycles, tile records, bytes) does not change.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/sim/tile_bound.hpp"

namespace attnscope::sim {
namespace {

using ::testing::HasSubstr;

Workload shape(std::int64_t b, std::int64_t h, std::int64_t n, std::int64_t d) {
  Workload w;
  w.batch = b;
  w.heads = h;
  w.seq_q = w.seq_kv = n;
  w.head_dim = d;
  return w;
}

TileConfig tiles_64() {
  TileConfig t;
  t.br = 64;
  t.bc = 64;
  t.warps = 4;
  return t;
}

class Launch : public ::testing::Test {
 protected:
  GpuSpec gpu = load_gpu_spec("h200");
  GpuSpec free_launch = [] {
    GpuSpec g = load_gpu_spec("h200");
    g.launch_overhead_ns = 0;
    return g;
  }();
  double launch() const { return gpu.launch_overhead_ns * 1e-9; }
};

TEST_F(Launch, TheBuiltInSpecsCarryIt) {
  for (const std::string& name : builtin_gpu_names())
    EXPECT_GT(load_gpu_spec(name).launch_overhead_ns, 0.0) << name;
  // The H200's value is the microbenchmark's (sim/gpus/h200.json: cta_dispatch, 5.933 us).
  EXPECT_DOUBLE_EQ(gpu.launch_overhead_ns, 5933.0);
}

TEST_F(Launch, OneTinyCtaCostsAboutTheLaunch) {
  // One CTA, one step of 64 x 64 at d 64: its loads' HBM latency and a few hundred cycles of math.
  const Workload w = shape(1, 1, 64, 64);
  const SimResult r = simulate(gpu, w, KernelKind::tiled, tiles_64());
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelResult& k = r.kernels[0];
  EXPECT_EQ(k.ctas, 1);
  EXPECT_DOUBLE_EQ(k.launch_s, launch());
  EXPECT_GE(k.time_s, launch());
  EXPECT_LT(k.time_s, 1.5 * launch()) << "the CTA's own time is a fraction of the launch";
  // The CTA's time is what it was without a launch cost; the launch comes on top.
  const SimResult bare = simulate(free_launch, w, KernelKind::tiled, tiles_64());
  EXPECT_EQ(bare.kernels[0].launch_s, 0.0);
  EXPECT_NEAR(k.time_s - bare.kernels[0].time_s, launch(), 1e-15);
  EXPECT_EQ(k.cycles, bare.kernels[0].cycles);
}

TEST_F(Launch, ALargeKernelMovesByExactlyTheLaunch) {
  const Workload w = shape(1, 16, 4096, 64);
  const SimResult with = simulate(gpu, w, KernelKind::tiled, tiles_64());
  const SimResult without = simulate(free_launch, w, KernelKind::tiled, tiles_64());
  const KernelResult& a = with.kernels[0];
  const KernelResult& b = without.kernels[0];
  EXPECT_NEAR(a.time_s - b.time_s, launch(), 1e-15);
  EXPECT_GT(b.time_s, 20 * launch()) << "large: the launch is a few percent of it at most";
  // Nothing inside the kernel moves: cycles, bytes and every tile record are the same.
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.totals, b.totals);
  ASSERT_EQ(a.tiles.size(), b.tiles.size());
  for (std::size_t i = 0; i < a.tiles.size(); ++i) {
    EXPECT_EQ(a.tiles[i].start_cycle, b.tiles[i].start_cycle);
    EXPECT_EQ(a.tiles[i].end_cycle, b.tiles[i].end_cycle);
  }
}

TEST_F(Launch, OncePerLaunch) {
  // The naive kind is three launches (qk, softmax, pv); the backward adds its own.
  const Workload w = shape(1, 2, 256, 64);
  const SimResult with = simulate(gpu, w, KernelKind::naive, TileConfig{});
  const SimResult without = simulate(free_launch, w, KernelKind::naive, TileConfig{});
  ASSERT_EQ(with.kernels.size(), 3u);
  for (std::size_t i = 0; i < with.kernels.size(); ++i)
    EXPECT_NEAR(with.kernels[i].time_s - without.kernels[i].time_s, launch(), 1e-15) << with.kernels[i].name;
  EXPECT_NEAR(with.time_s - without.time_s, 3 * launch(), 1e-14);
  Workload both = shape(1, 2, 256, 64);
  both.pass = Pass::both;
  const SimResult step = simulate(gpu, both, KernelKind::tiled, tiles_64());
  const SimResult step_bare = simulate(free_launch, both, KernelKind::tiled, tiles_64());
  ASSERT_GT(step.kernels.size(), 1u);
  EXPECT_NEAR(step.time_s - step_bare.time_s, static_cast<double>(step.kernels.size()) * launch(), 1e-14);
  EXPECT_NEAR(step.backward.time_s - step_bare.backward.time_s,
              static_cast<double>(step.backward.kernels) * launch(), 1e-14);
}

TEST_F(Launch, TheTileBoundCountsItToo) {
  const Workload w = shape(1, 8, 2048, 64);
  const TileBound with = tiled_forward_bound(gpu, w, tiles_64());
  const TileBound without = tiled_forward_bound(free_launch, w, tiles_64());
  EXPECT_NEAR(with.time_s - without.time_s, launch(), 1e-15);
  EXPECT_LE(with.time_s, simulate(gpu, w, KernelKind::tiled, tiles_64()).time_s);
}

TEST(LaunchSpec, OptionalPositiveAndInNanoseconds) {
  // A minimal spec without the field, then with it, good and bad.
  const auto with_field = [](const std::string& value) {
    std::string text = R"({"name": "t", "short_name": "t",
      "sm_count": {"value": 4, "source": "estimate"}, "sm_clock_hz": {"value": 1e9, "source": "estimate"},
      "smem_per_sm": {"value": 65536, "source": "estimate"}, "smem_per_block": {"value": 65536, "source": "estimate"},
      "smem_reserved_per_cta": {"value": 1024, "source": "estimate"}, "regs_per_sm": {"value": 65536, "source": "estimate"},
      "max_threads_per_sm": {"value": 2048, "source": "estimate"}, "max_ctas_per_sm": {"value": 32, "source": "estimate"},
      "hbm_bandwidth": {"value": 1e12, "source": "estimate"}, "hbm_efficiency": {"value": 0.9, "source": "estimate"},
      "hbm_latency_ns": {"value": 500, "source": "estimate"}, "hbm_channels": {"value": 8, "source": "estimate"},
      "l2_bytes": {"value": 1048576, "source": "estimate"}, "l2_line_bytes": {"value": 128, "source": "estimate"},
      "l2_sector_bytes": {"value": 32, "source": "estimate"}, "l2_ways": {"value": 16, "source": "estimate"},
      "l2_partitions": {"value": 2, "source": "estimate"}, "l2_bandwidth": {"value": 1e12, "source": "estimate"},
      "l2_latency_ns": {"value": 200, "source": "estimate"}, "sm_l2_bytes_per_cycle": {"value": 64, "source": "estimate"},
      "tensor_flops_fp16": {"value": 1e14, "source": "estimate"}, "tensor_flops_fp32": {"value": 5e13, "source": "estimate"},
      "fp32_flops": {"value": 1e13, "source": "estimate"}, "sfu_exp_per_s": {"value": 1e12, "source": "estimate"},
      "mma_sync_efficiency": {"value": 1.0, "source": "estimate"})";
    if (!value.empty())
      text += R"(, "launch_overhead_ns": {"value": )" + value + R"(, "source": "estimate"})";
    return text + "}";
  };
  EXPECT_EQ(parse_gpu_spec(with_field(""), "absent").launch_overhead_ns, 0.0);
  EXPECT_EQ(parse_gpu_spec(with_field("4000"), "given").launch_overhead_ns, 4000.0);
  EXPECT_THROW(parse_gpu_spec(with_field("-1"), "negative"), InvalidInput);
  try {
    parse_gpu_spec(with_field("5e9"), "seconds as ns");
    ADD_FAILURE() << "a launch of 5 s was accepted";
  } catch (const InvalidInput& e) {
    EXPECT_THAT(e.what(), HasSubstr("launch_overhead_ns"));
  }
}

}  // namespace
}  // namespace attnscope::sim
