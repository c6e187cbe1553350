// SPDX-License-Identifier: Apache-2.0
// The asymptotics the model must reproduce (FlashAttention, Theorem 2), measured at the HBM level with L2
// reuse off, as the theorem counts accesses:
//   tiled: Theta(N^2 d^2 / M) across a sweep of shared memory M (via Br), for fixed N and d;
//   naive: Theta(N d + N^2), independent of M.
#include <gtest/gtest.h>

#include <cmath>

#include "attnscope/sim/simulate.hpp"

namespace attnscope::sim {
namespace {

// Least-squares slope of log(y) against log(x).
double log_log_slope(const std::vector<double>& x, const std::vector<double>& y) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const auto n = static_cast<double>(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

Workload one_head(std::int64_t n, std::int64_t d) {
  Workload w;
  w.batch = 1;
  w.heads = 1;
  w.seq_q = w.seq_kv = n;
  w.head_dim = d;
  return w;
}

SimOptions at_hbm() {
  SimOptions o;
  o.l2_reuse = false;
  o.record_tiles = false;
  return o;
}

double hbm_bytes(const SimResult& r) {
  return static_cast<double>(r.totals.hbm_read + r.totals.hbm_write);
}

TEST(Scaling, TiledHbmAccessesFallAsOneOverSharedMemory) {
  const GpuSpec gpu = load_gpu_spec("h200");
  const std::int64_t n = 8192, d = 64;
  std::vector<double> m, accesses, normalised;
  for (int br : {128, 256, 512, 1024}) {
    TileConfig t;
    t.br = br;
    t.warps = br / 128;  // 128 rows per warp keeps the CTA small in threads
    t.bc = 16;
    t.stages = 1;
    const double smem = static_cast<double>(smem_bytes_per_cta(one_head(n, d), KernelKind::tiled, t));
    const double bytes = hbm_bytes(simulate(gpu, one_head(n, d), KernelKind::tiled, t, at_hbm()));
    m.push_back(smem);
    accesses.push_back(bytes);
    normalised.push_back(bytes * smem / (static_cast<double>(n * n) * static_cast<double>(d * d)));
  }
  const double slope = log_log_slope(m, accesses);
  EXPECT_GT(slope, -1.15) << "HBM accesses vs M";
  EXPECT_LT(slope, -0.85) << "HBM accesses vs M";
  // Theta: N^2 d^2 / M times a bounded constant across the sweep.
  const auto [lo, hi] = std::minmax_element(normalised.begin(), normalised.end());
  EXPECT_LT(*hi / *lo, 1.3);
}

TEST(Scaling, TiledHbmAccessesGrowAsNSquaredAtFixedTiles) {
  const GpuSpec gpu = load_gpu_spec("h200");
  std::vector<double> ns, bytes;
  for (std::int64_t n : {2048, 4096, 8192, 16384}) {
    ns.push_back(static_cast<double>(n));
    bytes.push_back(hbm_bytes(simulate(gpu, one_head(n, 64), KernelKind::tiled, TileConfig{}, at_hbm())));
  }
  const double slope = log_log_slope(ns, bytes);
  EXPECT_GT(slope, 1.8);
  EXPECT_LT(slope, 2.05);
}

TEST(Scaling, NaiveHbmAccessesAreNdPlusNSquaredWhateverTheSharedMemory) {
  const GpuSpec gpu = load_gpu_spec("h200");
  // Independent of the tiled kernel's M: the naive kernels never use it.
  TileConfig small, large;
  large.br = 64;
  large.warps = 4;
  large.bc = 128;
  const double a = hbm_bytes(simulate(gpu, one_head(2048, 64), KernelKind::naive, small, at_hbm()));
  const double b = hbm_bytes(simulate(gpu, one_head(2048, 64), KernelKind::naive, large, at_hbm()));
  EXPECT_EQ(a, b);
  // Against N: the S/P term (N^2) dominates, plus operand traffic of order N d (times N/128 GEMM tiles).
  std::vector<double> ns, bytes;
  for (std::int64_t n : {1024, 2048, 4096, 8192}) {
    ns.push_back(static_cast<double>(n));
    const double total = hbm_bytes(simulate(gpu, one_head(n, 64), KernelKind::naive, TileConfig{}, at_hbm()));
    bytes.push_back(total);
    // The N^2 part alone: S written, read and written by the softmax, read by PV = 4 N^2 e.
    EXPECT_GT(total, 4.0 * static_cast<double>(n * n) * 2);
    EXPECT_LT(total, 4.0 * static_cast<double>(n * n) * 2 * 1.5);
  }
  const double slope = log_log_slope(ns, bytes);
  EXPECT_GT(slope, 1.9);
  EXPECT_LT(slope, 2.05);
}

}  // namespace
}  // namespace attnscope::sim
