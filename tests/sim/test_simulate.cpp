// SPDX-License-Identifier: Apache-2.0
// Covers sim/src/simulate.cpp and kernel_engine.cpp: closed forms with L2 reuse off, per-tile records summing
// to the totals, causal tile work, L2 state across kernels, warm starts, bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "attnscope/sim/address_map.hpp"
#include "attnscope/sim/dataflow.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"

namespace attnscope::sim {
namespace {

using ::testing::HasSubstr;
using u64 = std::uint64_t;

Workload shape(std::int64_t b, std::int64_t h, std::int64_t nq, std::int64_t nkv, std::int64_t d,
               bool causal = false) {
  Workload w;
  w.batch = b;
  w.heads = h;
  w.seq_q = nq;
  w.seq_kv = nkv;
  w.head_dim = d;
  w.causal = causal;
  return w;
}

class Simulate : public ::testing::Test {
 protected:
  GpuSpec gpu = load_gpu_spec("h200");
};

SimOptions no_reuse() {
  SimOptions o;
  o.l2_reuse = false;
  return o;
}

TEST_F(Simulate, TiledWithoutReuseIsTheClosedForm) {
  const std::int64_t b = 2, h = 4, n = 1024, e = 2;
  for (std::int64_t d : {64, 128}) {
    for (int br : {64, 128}) {
      TileConfig t;
      t.br = br;
      t.warps = br / 16;
      t.bc = 64;
      const SimResult r = simulate(gpu, shape(b, h, n, n, d), KernelKind::tiled, t, no_reuse());
      ASSERT_EQ(r.kernels.size(), 1u);
      const LevelBytes& x = r.kernels[0].totals;
      const std::int64_t q_tiles = n / br;
      const u64 reads = u64(b * h * (n * d * e + q_tiles * 2 * n * d * e));
      const u64 writes = u64(b * h * (n * d * e + n * 4));
      EXPECT_EQ(x.l2_read, reads);
      EXPECT_EQ(x.l2_write, writes);
      EXPECT_EQ(x.hbm_read, reads);
      EXPECT_EQ(x.hbm_write, writes);
      EXPECT_EQ(x.l2_hit, 0u);
      EXPECT_EQ(r.kernels[0].l2_resident_end, 0u);
    }
  }
}

// Rows of S that are not 16-byte aligned (Nkv % 8 != 0) are stored 2 bytes a lane: each warp store covers
// 64 contiguous bytes of a row of a 128-column tile, and L2 counts the sectors of each store, so a sector two
// stores share is counted twice (the H200's naive.qk at Nkv = 2931: 1.47x the bytes of S). The sectors are
// counted here independently of the model, row by row, tile by tile, store by store.
TEST_F(Simulate, UnalignedNaiveQkWritesSOneWarpStoreAtATime) {
  const std::int64_t b = 1, h = 2, n = 300, d = 64, e = 2, tile_cols = 128, store_bytes = 64;
  const Workload w = shape(b, h, n, n, d);
  const AddressMap map(w);
  u64 sectors = 0;
  for (std::int64_t bh = 0; bh < b * h; ++bh)
    for (std::int64_t row = 0; row < n; ++row)
      for (std::int64_t c0 = 0; c0 < n; c0 += tile_cols) {
        const u64 start = map.address(Tensor::s, bh / h, bh % h, row, c0);
        const u64 end = start + u64(std::min(tile_cols, n - c0) * e);
        for (u64 a = start; a < end; a += store_bytes)
          sectors += (std::min(a + store_bytes, end) - 1) / 32 - a / 32 + 1;
      }
  ASSERT_GT(sectors * 32, u64(b * h * n * n * e) * 5 / 4);  // the shared sectors do count twice
  SimOptions o;
  o.only = KernelId::naive_qk;
  const SimResult r = simulate(gpu, w, KernelKind::naive, TileConfig{}, o);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].totals.l2_write, sectors * 32);
  // The path's store instructions and its split sectors' DRAM traffic are not modeled, and the result says
  // so.
  EXPECT_NE(r.kernels[0].not_modeled.find("2 bytes a lane"), std::string::npos);
  EXPECT_EQ(expected_bytes(KernelId::naive_qk, w, TileConfig{}).l2_write, sectors * 32);
  // Aligned rows: 16-byte stores of whole rows of the tile, S once.
  const Workload aligned = shape(b, h, 304, 304, d);
  const SimResult a = simulate(gpu, aligned, KernelKind::naive, TileConfig{}, o);
  EXPECT_EQ(a.kernels[0].totals.l2_write, u64(b * h * 304 * 304 * e));
  EXPECT_TRUE(a.kernels[0].not_modeled.empty());
}

// naive.pv with unaligned rows of P loads each row's 64-byte slice of a step with 2-byte loads; the sector a
// slice shares with the previous step's slice of the same row came into L1 with that step, so L2 sees it once
// (the H200's unaligned fresh points: L2 reads 0.78-0.84 of a count that asked for it again). Counted here
// row by row and step by step, independently of the model, plus V's rows once per row block.
TEST_F(Simulate, UnalignedNaivePvAsksL2OnceForTheSectorTwoStepsShare) {
  const std::int64_t n = 300, d = 64, e = 2, bk = 32, bm = 128;
  const Workload w = shape(1, 1, n, n, d);
  const AddressMap map(w);
  u64 p_sectors = 0, p_asked_again = 0;
  for (std::int64_t row = 0; row < n; ++row)
    for (std::int64_t k0 = 0; k0 < n; k0 += bk) {
      const u64 start = map.address(Tensor::s, 0, 0, row, k0);
      const u64 end = start + u64(std::min(bk, n - k0) * e);
      p_asked_again += (end - 1) / 32 - start / 32 + 1;
      u64 first = start;
      if (k0 > 0) first = std::min(end, (start + 31) / 32 * 32);  // the shared sector is in L1
      if (end > first) p_sectors += (end - 1) / 32 - first / 32 + 1;
    }
  ASSERT_LT(p_sectors * 10, p_asked_again * 9);  // the shared sectors are a tenth of them or more
  const u64 row_blocks = u64((n + bm - 1) / bm);
  const u64 v_bytes = row_blocks * u64(n * d * e);
  SimOptions o;
  o.only = KernelId::naive_pv;
  const SimResult r = simulate(gpu, w, KernelKind::naive, TileConfig{}, o);
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].totals.l2_read, p_sectors * 32 + v_bytes);
  EXPECT_EQ(expected_bytes(KernelId::naive_pv, w, TileConfig{}).l2_read, p_sectors * 32 + v_bytes);
}

// Progress: the caller hears of each kernel before it is modeled, a warm start's first pass included.
TEST_F(Simulate, EachKernelIsAnnouncedBeforeItIsModeled) {
  std::vector<std::string> seen;
  SimOptions o = no_reuse();
  o.l2_start = L2Start::warm;
  o.on_kernel_start = [&](const std::string& kernel, int index, int count) {
    EXPECT_EQ(index, static_cast<int>(seen.size()));
    EXPECT_EQ(count, 6);
    seen.push_back(kernel);
  };
  const SimResult r = simulate(gpu, shape(1, 2, 256, 256, 64), KernelKind::naive, TileConfig{}, o);
  ASSERT_EQ(r.kernels.size(), 3u);
  const std::vector<std::string> expected{"naive.qk", "naive.softmax", "naive.pv",
                                          "naive.qk", "naive.softmax", "naive.pv"};
  EXPECT_EQ(seen, expected);
}

TEST_F(Simulate, NaiveWithoutReuseMovesSAndPAsTheClosedFormSays) {
  const std::int64_t b = 1, h = 2, n = 1024, d = 64, e = 2, blocks = n / 128;
  const SimResult r = simulate(gpu, shape(b, h, n, n, d), KernelKind::naive, TileConfig{}, no_reuse());
  ASSERT_EQ(r.kernels.size(), 3u);
  const u64 s_bytes = u64(b * h * n * n * e);
  EXPECT_EQ(r.kernels[0].name, "naive.qk");
  EXPECT_EQ(r.kernels[0].totals.hbm_write, s_bytes);  // S written once
  EXPECT_EQ(r.kernels[0].totals.hbm_read,
            u64(b * h * (blocks / 4 + blocks) * n * d * e));  // Q per CTA, K per tile
  EXPECT_EQ(r.kernels[1].totals.hbm_read, s_bytes);           // S read
  EXPECT_EQ(r.kernels[1].totals.hbm_write, s_bytes);          // P written in place
  EXPECT_EQ(r.kernels[2].totals.hbm_read, s_bytes + u64(b * h * blocks * n * d * e));  // P, V per row block
  EXPECT_EQ(r.kernels[2].totals.hbm_write, u64(b * h * n * d * e));                    // O
  // Rows longer than the register limit are read twice.
  const SimResult longrows =
      simulate(gpu, shape(1, 1, 128, 16384, 64), KernelKind::naive, TileConfig{}, no_reuse());
  EXPECT_EQ(longrows.kernels[1].totals.hbm_read, u64{2 * 128 * 16384 * 2});
  EXPECT_EQ(longrows.kernels[1].totals.hbm_write, u64{128 * 16384 * 2});
}

TEST_F(Simulate, PvPrefetchHintTurnsLaterPPiecesIntoHitsWithoutMoreHbmBytes) {
  // P [512 x 512] per head is read once, 64 bytes of each row per step: without the hint every piece misses;
  // with the 256-byte hint the first piece of each aligned 256-byte block misses and fetches the block, and
  // the next three steps' pieces hit. HBM reads are the same bytes (everything fits in L2).
  const std::int64_t h = 2, n = 512, e = 2;
  TileConfig plain;
  plain.gemm_pv_l2_fetch_bytes = 0;
  SimOptions o;
  o.only = KernelId::naive_pv;  // cold L2: P is not left resident by the softmax
  const SimResult with = simulate(gpu, shape(1, h, n, n, 64), KernelKind::naive, TileConfig{}, o);
  const SimResult without = simulate(gpu, shape(1, h, n, n, 64), KernelKind::naive, plain, o);
  const LevelBytes& a = with.kernels.back().totals;
  const LevelBytes& b = without.kernels.back().totals;
  ASSERT_EQ(with.kernels.back().name, "naive.pv");
  EXPECT_EQ(a.l2_read, b.l2_read);  // the fetched sectors are not requests
  EXPECT_EQ(a.hbm_read, b.hbm_read);
  EXPECT_EQ(a.l2_hit - b.l2_hit, u64(h * n * n * e * 3 / 4));
}

void expect_tiles_sum_to_totals(const SimResult& r) {
  LevelBytes all;
  double all_flops = 0;
  for (const KernelResult& k : r.kernels) {
    SCOPED_TRACE(k.name);
    LevelBytes sum;
    double flops = 0;
    for (const TileRecord& t : k.tiles) {
      sum += t.bytes;
      flops += t.flops;
      EXPECT_LE(t.start_cycle, t.end_cycle);
      EXPECT_LE(t.end_cycle, k.cycles);
    }
    EXPECT_EQ(sum, k.totals);
    EXPECT_EQ(flops, k.flops);
    all += k.totals;
    all_flops += k.flops;
  }
  EXPECT_EQ(all, r.totals);
  EXPECT_EQ(all_flops, r.flops);
}

TEST_F(Simulate, TileRecordsSumExactlyToTotals) {
  // Odd sizes (partial tiles, unaligned rows) and an L2 small enough to evict dirty lines.
  GpuSpec tiny = gpu;
  tiny.l2_bytes = 128 * 16 * 2 * 256;  // 1 MiB
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal);
    const Workload w = shape(2, 3, 700, 900, 64, causal);
    expect_tiles_sum_to_totals(simulate(tiny, w, KernelKind::tiled, TileConfig{}));
    expect_tiles_sum_to_totals(simulate(tiny, w, KernelKind::naive, TileConfig{}));
  }
  const SimResult r = simulate(tiny, shape(2, 3, 700, 900, 64), KernelKind::naive, TileConfig{});
  EXPECT_GT(r.kernels[1].totals.hbm_write, 0u);  // dirty S evicted during softmax
}

TEST_F(Simulate, OneRecordPerTileAsTheDataflowSays) {
  const Workload w = shape(1, 2, 512, 512, 64);
  const SimResult tiled = simulate(gpu, w, KernelKind::tiled, TileConfig{});
  EXPECT_EQ(tiled.kernels[0].tiles.size(), 2u * 4 * 8);  // (CTA, kv step) pairs
  EXPECT_EQ(tiled.kernels[0].ctas, 2 * 4);
  const SimResult naive = simulate(gpu, w, KernelKind::naive, TileConfig{});
  EXPECT_EQ(naive.kernels[0].tiles.size(), 2u * 4 * 4);  // one per S tile
  EXPECT_EQ(naive.kernels[1].tiles.size(), 2u * 512 / 8);
  EXPECT_EQ(naive.kernels[2].tiles.size(), 2u * 4);
  SimOptions quiet;
  quiet.record_tiles = false;
  const SimResult q = simulate(gpu, w, KernelKind::tiled, TileConfig{}, quiet);
  EXPECT_TRUE(q.kernels[0].tiles.empty());
  EXPECT_EQ(q.totals, tiled.totals);
}

TEST_F(Simulate, CausalHalvesTiledWorkExactlyByTileCount) {
  const std::int64_t n = 2048;
  TileConfig t;
  t.br = 64;
  t.bc = 64;
  t.warps = 4;
  const std::int64_t tiles = n / 64;
  const SimResult full = simulate(gpu, shape(1, 2, n, n, 64), KernelKind::tiled, t);
  const SimResult causal = simulate(gpu, shape(1, 2, n, n, 64, true), KernelKind::tiled, t);
  EXPECT_EQ(full.kernels[0].tiles.size(), u64(2 * tiles * tiles));
  EXPECT_EQ(causal.kernels[0].tiles.size(), u64(2 * tiles * (tiles + 1) / 2));
  EXPECT_DOUBLE_EQ(causal.flops / full.flops, static_cast<double>(tiles + 1) / (2.0 * tiles));
  // Time halves only when there are enough CTAs to balance the short and long ones over the SMs: with one
  // wave the longest CTA (a full row of tiles) sets the time either way.
  EXPECT_NEAR(causal.time_s, full.time_s, 0.02 * full.time_s);
  SimOptions quiet;
  quiet.record_tiles = false;
  const SimResult many = simulate(gpu, shape(4, 16, n, n, 64), KernelKind::tiled, t, quiet);
  const SimResult many_causal = simulate(gpu, shape(4, 16, n, n, 64, true), KernelKind::tiled, t, quiet);
  EXPECT_LT(many_causal.time_s, 0.6 * many.time_s);
  EXPECT_GT(many_causal.time_s, 0.4 * many.time_s);
}

TEST_F(Simulate, ReuseCutsHbmTrafficAndLeavesDirtyLinesForTheNextKernel) {
  const Workload w = shape(1, 8, 2048, 2048, 64);
  const SimResult cold = simulate(gpu, w, KernelKind::tiled, TileConfig{});
  const LevelBytes x = cold.kernels[0].totals;
  EXPECT_EQ(x.l2_read, expected_bytes(KernelId::tiled, w, TileConfig{}).l2_read);
  // K and V fit in L2: each comes from HBM once (compulsory), however many q-tiles read it.
  EXPECT_EQ(x.hbm_read, u64{8 * 3 * 2048 * 64 * 2});
  EXPECT_EQ(x.hbm_write, 0u);  // O and LSE stay dirty in L2 at kernel end
  EXPECT_EQ(cold.kernels[0].l2_dirty_end, u64{8 * (2048 * 64 * 2 + 2048 * 4)});
  EXPECT_EQ(x.l2_hit, x.l2_read - x.hbm_read);  // every read after the first hits; first writes miss
  // Warm start: the previous identical run left Q, K, V resident.
  SimOptions warm;
  warm.l2_start = L2Start::warm;
  const SimResult again = simulate(gpu, w, KernelKind::tiled, TileConfig{}, warm);
  EXPECT_EQ(again.kernels[0].totals.hbm_read, 0u);
  EXPECT_LT(again.time_s, cold.time_s);
}

TEST_F(Simulate, NaiveSTrafficSpillsFromL2WhenSIsLarge) {
  const Workload w = preset("llm-4k");
  SimOptions o;
  o.record_tiles = false;
  o.only = KernelId::naive_softmax;
  const SimResult r = simulate(gpu, w, KernelKind::naive, TileConfig{}, o);
  ASSERT_EQ(r.kernels.size(), 1u);
  const u64 s_bytes = u64{32} * 4096 * 4096 * 2;
  EXPECT_EQ(r.kernels[0].totals.hbm_read, s_bytes);  // 1 GiB of S does not fit in 50 MB
  EXPECT_GE(r.kernels[0].totals.hbm_write,
            s_bytes - u64(gpu.l2_bytes));  // what L2 cannot hold is written back
  EXPECT_LE(r.kernels[0].l2_resident_end, u64(gpu.l2_bytes));
}

TEST_F(Simulate, TimeRespectsPeakBandwidthAndMath) {
  for (KernelKind kind : {KernelKind::tiled, KernelKind::naive}) {
    const SimResult r = simulate(gpu, shape(1, 16, 2048, 2048, 64), kind, TileConfig{});
    for (const KernelResult& k : r.kernels) {
      SCOPED_TRACE(k.name);
      // The CTAs' time alone (time_s less the launch cost) already respects the peaks; cycles count it.
      const double ctas_s = k.time_s - k.launch_s;
      EXPECT_DOUBLE_EQ(k.launch_s, gpu.launch_overhead_ns * 1e-9);
      EXPECT_GE(ctas_s, static_cast<double>(k.totals.hbm_read + k.totals.hbm_write) / gpu.hbm_bandwidth);
      EXPECT_GE(ctas_s, k.flops / gpu.tensor_flops_fp16);
      EXPECT_NEAR(static_cast<double>(k.cycles), ctas_s * gpu.sm_clock_hz, 1.0);
      EXPECT_GE(k.waves, 1);
    }
  }
}

TEST_F(Simulate, DeterministicAcrossRuns) {
  const Workload w = shape(2, 4, 1000, 1000, 128, true);
  const SimResult a = simulate(gpu, w, KernelKind::tiled, TileConfig{});
  const SimResult b = simulate(gpu, w, KernelKind::tiled, TileConfig{});
  EXPECT_EQ(a.totals, b.totals);
  EXPECT_EQ(a.kernels[0].cycles, b.kernels[0].cycles);
  ASSERT_EQ(a.kernels[0].tiles.size(), b.kernels[0].tiles.size());
  for (std::size_t i = 0; i < a.kernels[0].tiles.size(); ++i)
    ASSERT_EQ(a.kernels[0].tiles[i].end_cycle, b.kernels[0].tiles[i].end_cycle);
}

TEST_F(Simulate, WindowPredictsOnlyItsTiles) {
  const Workload w = shape(1, 2, 1024, 1024, 64);
  SimOptions o;
  o.window = TileWindow{1, 2, 0, -1};
  o.l2_reuse = false;
  const SimResult r = simulate(gpu, w, KernelKind::tiled, TileConfig{}, o);
  EXPECT_EQ(r.kernels[0].ctas, 2);
  EXPECT_EQ(r.kernels[0].totals.l2_read, expected_bytes(KernelId::tiled, w, TileConfig{}, o.window).l2_read);
  o.only = KernelId::tiled;
  EXPECT_NO_THROW(simulate(gpu, w, KernelKind::tiled, TileConfig{}, o));
  o.only = KernelId::naive_qk;
  EXPECT_THROW(simulate(gpu, w, KernelKind::tiled, TileConfig{}, o), InvalidInput);
}

TEST_F(Simulate, OccupancyFollowsSharedMemoryAndRegisters) {
  TileConfig t;
  t.br = 64;
  t.bc = 64;
  t.warps = 4;
  SimOptions o;
  o.registers_per_thread[static_cast<std::size_t>(KernelId::tiled)] = 64;  // not register-bound
  const Workload w = shape(1, 4, 1024, 1024, 128);
  const SimResult r = simulate(gpu, w, KernelKind::tiled, t, o);
  const std::int64_t smem = (64 + 2 * 2 * 64) * 128 * 2;
  EXPECT_EQ(r.kernels[0].smem_per_cta, smem);
  EXPECT_EQ(r.kernels[0].ctas_per_sm, static_cast<int>(gpu.smem_per_sm / (smem + gpu.smem_reserved_per_cta)));
  EXPECT_EQ(r.kernels[0].occupancy_limiter, "shared memory");
  o.registers_per_thread[static_cast<std::size_t>(KernelId::tiled)] = 255;
  const SimResult regs = simulate(gpu, w, KernelKind::tiled, t, o);
  EXPECT_EQ(regs.kernels[0].ctas_per_sm, 65536 / (256 * 32 * 4));
  EXPECT_EQ(regs.kernels[0].occupancy_limiter, "registers");
  // 512 threads at the estimated ~232 registers do not fit an SM; the compiled kernel's real count may.
  TileConfig wide;
  wide.br = 512;
  wide.warps = 16;
  const Workload w64 = shape(1, 4, 1024, 1024, 64);
  EXPECT_THROW(simulate(gpu, w64, KernelKind::tiled, wide), InvalidInput);
  SimOptions given;
  given.registers_per_thread[static_cast<std::size_t>(KernelId::tiled)] = 64;
  EXPECT_EQ(simulate(gpu, w64, KernelKind::tiled, wide, given).kernels[0].ctas_per_sm, 2);
  given.registers_per_thread[0] = 300;
  EXPECT_THROW(simulate(gpu, w64, KernelKind::tiled, wide, given), InvalidInput);
}

TEST_F(Simulate, BadInputGetsAClearError) {
  const auto message = [&](const Workload& w, KernelKind k, const TileConfig& t) -> std::string {
    try {
      simulate(gpu, w, k, t);
    } catch (const InvalidInput& e) {
      return e.what();
    }
    return "(accepted)";
  };
  const TileConfig t;
  EXPECT_THAT(message(shape(0, 1, 128, 128, 64), KernelKind::tiled, t), HasSubstr("batch must be positive"));
  EXPECT_THAT(message(shape(1, 1, -5, 128, 64), KernelKind::naive, t), HasSubstr("seq_q"));
  EXPECT_THAT(message(shape(1, 1, 128, 128, 80), KernelKind::tiled, t),
              HasSubstr("head_dim 80 is not supported"));
  Workload fp32 = shape(1, 1, 128, 128, 64);
  fp32.dtype = DType::fp32;
  EXPECT_THAT(message(fp32, KernelKind::tiled, t), HasSubstr("fp32"));
  EXPECT_THAT(message(fp32, KernelKind::naive, t), HasSubstr("(accepted)"));
  TileConfig big;
  big.br = 256;
  big.warps = 16;
  big.bc = 256;
  big.stages = 3;
  EXPECT_THAT(message(shape(1, 1, 1024, 1024, 128), KernelKind::tiled, big), HasSubstr("shared memory"));
  GpuSpec a100 = load_gpu_spec("a100");
  TileConfig fits_h200;
  fits_h200.br = 128;
  fits_h200.bc = 128;
  fits_h200.stages = 3;  // (128 + 768) * 128 * 2 = 224 KB: fits 227 KB, not the A100's 163 KB
  EXPECT_NO_THROW(check_config(gpu, shape(1, 1, 1024, 1024, 128), KernelKind::tiled, fits_h200));
  EXPECT_THROW(check_config(a100, shape(1, 1, 1024, 1024, 128), KernelKind::tiled, fits_h200), InvalidInput);
}

TEST_F(Simulate, EdgeShapesKeepTheInvariants) {
  struct Case {
    Workload w;
    TileWindow window;
  };
  std::vector<Case> cases = {
      {shape(1, 1, 1, 1, 64), {}},
      {shape(1, 1, 1, 5000, 128, true), {}},
      {shape(2, 1, 300, 50, 64, true), {}},               // Nq > Nkv: the first rows see no key
      {shape(1, 2, 1024, 1024, 64, true), {0, 2, 3, 5}},  // kv window past the diagonal of q-tile 0
      {shape(3, 5, 77, 131, 128), {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.w.seq_q << "x" << c.w.seq_kv << " d" << c.w.head_dim);
    SimOptions o;
    o.window = c.window;
    for (KernelKind kind : {KernelKind::tiled, KernelKind::naive}) {
      if (kind == KernelKind::naive && !c.window.is_all()) continue;  // window units differ per kernel
      const SimResult r = simulate(gpu, c.w, kind, TileConfig{}, o);
      expect_tiles_sum_to_totals(r);
      for (const KernelResult& k : r.kernels) {
        EXPECT_GT(k.time_s, 0);
        EXPECT_GT(k.totals.l2_write, 0u);  // every kernel writes its output
      }
    }
  }
  // Rows that see no key still write O and LSE: the CTA of q-tile 0 (rows 0..127 of 300, Nkv = 50) has no
  // kv step and one record for its stores.
  const SimResult r = simulate(gpu, shape(1, 1, 300, 50, 64, true), KernelKind::tiled, TileConfig{});
  ASSERT_FALSE(r.kernels[0].tiles.empty());
  EXPECT_EQ(r.kernels[0].tiles[0].q_tile, 0);
  EXPECT_EQ(r.kernels[0].tiles[0].bytes.l2_read, 0u);
  EXPECT_EQ(r.kernels[0].tiles[0].bytes.l2_write, u64{128 * 64 * 2 + 128 * 4});
}

TEST_F(Simulate, PresetsRunOnEveryBuiltinGpu) {
  SimOptions o;
  o.record_tiles = false;
  for (const auto& name : builtin_gpu_names()) {
    const GpuSpec g = load_gpu_spec(name);
    const SimResult r = simulate(g, preset("vit-b16"), KernelKind::tiled, TileConfig{}, o);
    EXPECT_GT(r.time_s, 0) << name;
    EXPECT_GT(r.tflops_achieved(), 0) << name;
    EXPECT_GT(r.hbm_bandwidth_achieved(), 0) << name;
  }
}

}  // namespace
}  // namespace attnscope::sim
