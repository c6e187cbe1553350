// SPDX-License-Identifier: Apache-2.0
// Covers sim/src/tile_bound.cpp: the closed form is a lower bound on simulate()'s time for every tiling of
// small shapes (causal and not, both head dims, three GPUs, partial tiles), its exact byte counts equal the
// model's, and it refuses what simulate() refuses.
#include <gtest/gtest.h>

#include <string>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/sim/tile_bound.hpp"

namespace attnscope::sim {
namespace {

TEST(TileBound, IsBelowTheCycleModelAndItsExactCountsMatch) {
  SimOptions o;
  o.record_tiles = false;
  int checked = 0;
  double tightest = 0;  // largest bound / model ratio seen: the test also shows the bound is not vacuous
  // A quarter of the H200's SMs: the per-SM floors (L2 port, shared memory) limit more often.
  GpuSpec few_sms = load_gpu_spec("h200");
  few_sms.sm_count = 33;
  for (const GpuSpec& gpu : {load_gpu_spec("h200"), load_gpu_spec("a100"), few_sms}) {
    const std::string name = gpu.short_name + (gpu.sm_count == 33 ? " 33 SMs" : "");
    for (std::int64_t seq : {200, 1024})
      for (std::int64_t d : {64, 128})
        for (bool causal : {false, true})
          for (int br : {16, 64, 128})
            for (int bc : {16, 64, 128})
              for (int warps : {1, 4})
                for (int stages : {1, 2, 3}) {
                  Workload w;
                  w.batch = 1;
                  w.heads = 8;
                  w.seq_q = w.seq_kv = seq;
                  w.head_dim = d;
                  w.causal = causal;
                  TileConfig t;
                  t.br = br;
                  t.bc = bc;
                  t.warps = warps;
                  t.stages = stages;
                  const std::string what = name + " N" + std::to_string(seq) + " d" + std::to_string(d) +
                                           (causal ? " causal " : " ") + t.label();
                  SCOPED_TRACE(what);
                  TileBound b;
                  try {
                    b = tiled_forward_bound(gpu, w, t);
                  } catch (const InvalidInput& e) {
                    EXPECT_THROW(simulate(gpu, w, KernelKind::tiled, t, o), InvalidInput) << e.what();
                    continue;
                  }
                  const SimResult r = simulate(gpu, w, KernelKind::tiled, t, o);
                  EXPECT_LE(b.time_s, r.time_s) << "limited by " << to_string(b.limiter);
                  EXPECT_DOUBLE_EQ(b.flops, r.flops);
                  EXPECT_DOUBLE_EQ(b.smem_read, static_cast<double>(r.totals.smem_read));
                  EXPECT_DOUBLE_EQ(b.smem_write, static_cast<double>(r.totals.smem_write));
                  // The model counts 32-byte sectors: LSE rows of fewer than 8 floats round up.
                  EXPECT_LE(b.l2_read, static_cast<double>(r.totals.l2_read));
                  EXPECT_GE(b.l2_read, static_cast<double>(r.totals.l2_read) * 0.999);
                  EXPECT_LE(b.l2_write, static_cast<double>(r.totals.l2_write));
                  EXPECT_LE(b.hbm_read_min, static_cast<double>(r.totals.hbm_read));
                  EXPECT_LE(b.hbm_write_min, static_cast<double>(r.totals.hbm_write));
                  EXPECT_EQ(b.smem_per_cta, r.kernels.front().smem_per_cta);
                  EXPECT_EQ(b.ctas_per_sm, r.kernels.front().ctas_per_sm);
                  tightest = std::max(tightest, b.time_s / r.time_s);
                  ++checked;
                }
  }
  EXPECT_GT(checked, 500);
  EXPECT_GT(tightest, 0.5);
}

TEST(TileBound, RefusesTheBackwardPassAndTilesThatDoNotFit) {
  const GpuSpec gpu = load_gpu_spec("h200");
  Workload w;
  w.pass = Pass::bwd;
  EXPECT_THROW(tiled_forward_bound(gpu, w, TileConfig{}), InvalidInput);
  w.pass = Pass::fwd;
  TileConfig huge;
  huge.br = 256;
  huge.bc = 256;
  huge.warps = 8;
  huge.stages = 8;
  w.head_dim = 128;
  EXPECT_THROW(tiled_forward_bound(gpu, w, huge), InvalidInput);
}

}  // namespace
}  // namespace attnscope::sim
