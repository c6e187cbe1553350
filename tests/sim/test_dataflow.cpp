// SPDX-License-Identifier: Apache-2.0
// Covers sim/src/dataflow.cpp, tiling_rules.cpp, address_map.cpp: CTA programs, windows, shared memory,
// and the request-level bytes the profiler will compare tile windows against.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "attnscope/sim/dataflow.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/tiling_rules.hpp"

namespace attnscope::sim {
namespace {

using ::testing::HasSubstr;
using u64 = std::uint64_t;

Workload shape(std::int64_t b, std::int64_t h, std::int64_t nq, std::int64_t nkv, std::int64_t d,
               DType t = DType::fp16, bool causal = false) {
  Workload w;
  w.batch = b;
  w.heads = h;
  w.seq_q = nq;
  w.seq_kv = nkv;
  w.head_dim = d;
  w.dtype = t;
  w.causal = causal;
  return w;
}

TEST(Dataflow, SharedMemoryPerCtaIsTheSharedStorageFormula) {
  for (int br : {64, 128})
    for (int bc : {32, 64, 128})
      for (int d : {64, 128})
        for (int stages : {2, 3}) {
          TileConfig t;
          t.br = br;
          t.bc = bc;
          t.warps = br / 16;
          t.stages = stages;
          const Workload w = shape(1, 1, 256, 256, d);
          EXPECT_EQ(smem_bytes_per_cta(KernelId::tiled, w, t), (br + 2 * stages * bc) * d * 2);
          EXPECT_EQ(KernelDataflow(KernelId::tiled, w, t).smem_per_cta(), (br + 2 * stages * bc) * d * 2);
        }
  const Workload w = shape(1, 1, 256, 256, 64);
  const TileConfig t;
  // naive.qk: the Q row block, a 4-slot K ring, the S staging tile (80 KB at d 64, as the kernel's
  // static_assert).
  EXPECT_EQ(smem_bytes_per_cta(KernelId::naive_qk, w, t), (128 * 64 + 4 * 128 * 32 + 128 * 128) * 2);
  EXPECT_EQ(smem_bytes_per_cta(KernelId::naive_qk, shape(1, 1, 256, 256, 128), t), 96 * 1024);
  EXPECT_EQ(smem_bytes_per_cta(KernelId::naive_pv, w, t), 2 * (128 * 32 + 32 * 64) * 2);
  // Softmax: each of the 8 warps copies its row (padded to 16-byte chunks) into shared memory up to 8192
  // keys; longer rows stream through two passes with none.
  EXPECT_EQ(smem_bytes_per_cta(KernelId::naive_softmax, w, t), 8 * 256 * 2);
  EXPECT_EQ(smem_bytes_per_cta(KernelId::naive_softmax, shape(1, 1, 256, 197, 64), t), 8 * 200 * 2);
  EXPECT_EQ(smem_bytes_per_cta(KernelId::naive_softmax, shape(1, 1, 256, 8192, 64), t), 8 * 8192 * 2);
  EXPECT_EQ(smem_bytes_per_cta(KernelId::naive_softmax, shape(1, 1, 256, 8200, 64), t), 0);
}

TEST(Dataflow, AddressMapLaysOutAlignedRowMajorRegions) {
  const Workload w = shape(2, 3, 100, 70, 64);
  const AddressMap m(w);
  for (Tensor t : {Tensor::q, Tensor::k, Tensor::v, Tensor::o, Tensor::lse, Tensor::s})
    EXPECT_EQ(m.base(t) % AddressMap::kAlignment, 0u);
  EXPECT_EQ(m.bytes(Tensor::q), u64{2 * 3 * 100 * 64 * 2});
  EXPECT_EQ(m.bytes(Tensor::k), u64{2 * 3 * 70 * 64 * 2});
  EXPECT_EQ(m.bytes(Tensor::lse), u64{2 * 3 * 100 * 4});
  EXPECT_EQ(m.bytes(Tensor::s), u64{2 * 3 * 100 * 70 * 2});
  EXPECT_GE(m.base(Tensor::k), m.base(Tensor::q) + m.bytes(Tensor::q));
  // Element (b=1, h=2, row 5, col 3) of Q: ((1*3 + 2) * 100 + 5) * 64 + 3 elements in.
  EXPECT_EQ(m.address(Tensor::q, 1, 2, 5, 3), m.base(Tensor::q) + u64{((1 * 3 + 2) * 100 + 5) * 64 + 3} * 2);
  EXPECT_EQ(m.address(Tensor::lse, 1, 2, 5, 0), m.base(Tensor::lse) + u64{(1 * 3 + 2) * 100 + 5} * 4);
}

TEST(Dataflow, TiledCtasInLaunchOrderWithQTileFastest) {
  const Workload w = shape(2, 3, 512, 512, 64);
  const TileConfig t;  // Br 128, Bc 64
  const KernelDataflow f(KernelId::tiled, w, t);
  ASSERT_EQ(f.cta_count(), 4 * 3 * 2);
  CtaProgram p;
  f.program(0, p);
  EXPECT_EQ(p.records.front().q_tile, 0);
  f.program(1, p);
  EXPECT_EQ(p.records.front().q_tile, 1);
  EXPECT_EQ(p.records.front().head, 0);
  f.program(4, p);
  EXPECT_EQ(p.records.front().q_tile, 0);
  EXPECT_EQ(p.records.front().head, 1);
  f.program(12, p);
  EXPECT_EQ(p.records.front().batch, 1);
  // One record per kv step; Q loaded with the first step only, O and LSE stored with the last only.
  ASSERT_EQ(p.steps.size(), 8u);
  EXPECT_EQ(p.steps.front().load_count, 3);
  EXPECT_EQ(p.steps.front().loads[0].tensor, Tensor::q);
  for (std::size_t j = 1; j < p.steps.size(); ++j) EXPECT_EQ(p.steps[j].load_count, 2);
  EXPECT_EQ(p.steps.back().store_count, 2);
  for (std::size_t j = 0; j + 1 < p.steps.size(); ++j) EXPECT_EQ(p.steps[j].store_count, 0);

  TileConfig hf = t;
  hf.order = LaunchOrder::head_fastest;
  KernelDataflow(KernelId::tiled, w, hf).program(1, p);
  EXPECT_EQ(p.records.front().q_tile, 0);
  EXPECT_EQ(p.records.front().head, 1);
}

TEST(Dataflow, CausalStopsAtTheDiagonalBottomRightAligned) {
  TileConfig t;
  t.br = 64;
  t.bc = 64;
  t.warps = 4;
  // Square: q-tile i visits tiles 0..i.
  const Workload sq = shape(1, 1, 512, 512, 64, DType::fp16, true);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(tiled_kv_tiles_visited(sq, t, i), i + 1);
  // Nkv > Nq: the mask shifts right by Nkv - Nq = 128 keys (two tiles).
  const Workload wide = shape(1, 1, 256, 384, 64, DType::fp16, true);
  EXPECT_EQ(tiled_kv_tiles_visited(wide, t, 0), 3);
  EXPECT_EQ(tiled_kv_tiles_visited(wide, t, 3), 6);
  // Nq > Nkv: the first rows see no key at all.
  const Workload tall = shape(1, 1, 384, 128, 64, DType::fp16, true);
  EXPECT_EQ(tiled_kv_tiles_visited(tall, t, 0), 0);
  EXPECT_EQ(tiled_kv_tiles_visited(tall, t, 4), 1);
  EXPECT_EQ(tiled_kv_tiles_visited(tall, t, 5), 2);
}

TEST(Dataflow, TiledExpectedBytesAreTheClosedForm) {
  const std::int64_t b = 2, h = 3, n = 1024, d = 64, e = 2;
  TileConfig t;  // Br 128, Bc 64
  const LevelBytes x = expected_bytes(KernelId::tiled, shape(b, h, n, n, d), t);
  const std::int64_t q_tiles = n / t.br;
  EXPECT_EQ(x.l2_read, u64(b * h * (n * d * e + q_tiles * 2 * n * d * e)));  // Q once, K and V per q-tile
  EXPECT_EQ(x.l2_write, u64(b * h * (n * d * e + n * 4)));                   // O once, LSE once
  EXPECT_EQ(x.hbm_read, x.l2_read);
  EXPECT_EQ(x.hbm_write, x.l2_write);
  EXPECT_EQ(x.l2_hit, 0u);
}

TEST(Dataflow, UnalignedRowsCountEverySectorTouched) {
  // LSE of 100 rows per slice: slices start 400 bytes apart, so some slices straddle extra sectors.
  TileConfig t;
  const Workload w = shape(1, 2, 100, 100, 64);
  const LevelBytes x = expected_bytes(KernelId::tiled, w, t);
  const AddressMap m(w);
  u64 lse_sectors = 0;
  for (int s = 0; s < 2; ++s) {
    const u64 a = m.address(Tensor::lse, 0, s, 0, 0);
    lse_sectors += (a + 400 - 1) / 32 - a / 32 + 1;
  }
  EXPECT_EQ(x.l2_write, u64{2 * 100 * 64 * 2} + lse_sectors * 32);
}

TEST(Dataflow, NaiveExpectedBytesFollowTheGemmTiling) {
  const std::int64_t b = 1, h = 2, n = 512, d = 64, e = 2;
  const Workload w = shape(b, h, n, n, d);
  const TileConfig t;
  const std::int64_t blocks = n / 128;
  const LevelBytes qk = expected_bytes(KernelId::naive_qk, w, t);
  // Q once per CTA of 4 column blocks (one CTA per row block here), K once per row block.
  EXPECT_EQ(qk.l2_read, u64(b * h * (blocks / 4 + blocks) * n * d * e));
  EXPECT_EQ(qk.l2_write, u64(b * h * n * n * e));  // S once
  const LevelBytes sm = expected_bytes(KernelId::naive_softmax, w, t);
  EXPECT_EQ(sm.l2_read, u64(b * h * n * n * e));
  EXPECT_EQ(sm.l2_write, u64(b * h * n * n * e));
  const LevelBytes pv = expected_bytes(KernelId::naive_pv, w, t);
  EXPECT_EQ(pv.l2_read, u64(b * h * (n * n * e + blocks * n * d * e)));  // P once, V per row block
  EXPECT_EQ(pv.l2_write, u64(b * h * n * d * e));
}

TEST(Dataflow, NaiveQkCtaComputesConsecutiveTilesOfOneRowBlock) {
  // 9 column blocks: CTAs of 4, 4 and 1 tiles per row block; Q loaded by each CTA's first step only.
  const Workload w = shape(1, 1, 256, 9 * 128, 64);
  const TileConfig t;
  const KernelDataflow flow(KernelId::naive_qk, w, t);
  EXPECT_EQ(flow.cta_count(), 3 * 2);
  EXPECT_EQ(flow.pipeline_stages(), 4);
  CtaProgram p;
  std::vector<int> tiles_per_cta;
  for (std::int64_t c = 0; c < flow.cta_count(); ++c) {
    flow.program(c, p);
    tiles_per_cta.push_back(static_cast<int>(p.records.size()));
    ASSERT_EQ(p.step_count, static_cast<int>(p.records.size()) * 2);  // d 64 = 2 slices of 32 per tile
    int q_loads = 0, stores = 0;
    for (std::size_t j = 0; j < p.steps.size(); ++j) {
      const CtaStep& s = p.steps[j];
      EXPECT_EQ(s.record, static_cast<int>(j / 2));
      for (int i = 0; i < s.load_count; ++i)
        q_loads += s.loads[static_cast<std::size_t>(i)].tensor == Tensor::q;
      stores += s.store_count;
    }
    EXPECT_EQ(q_loads, 1);
    EXPECT_EQ(stores, static_cast<int>(p.records.size()));
    for (std::size_t r = 1; r < p.records.size(); ++r)
      EXPECT_EQ(p.records[r].kv_tile, p.records[r - 1].kv_tile + 1);
  }
  EXPECT_EQ(tiles_per_cta, (std::vector<int>{4, 4, 1, 4, 4, 1}));
  // A window of column blocks [2, 7) groups from its own start: tiles 2..5, then 6.
  TileWindow win;
  win.kv_tile_begin = 2;
  win.kv_tile_end = 7;
  const KernelDataflow part(KernelId::naive_qk, w, t, win);
  ASSERT_EQ(part.cta_count(), 2 * 2);
  part.program(1, p);
  ASSERT_EQ(p.records.size(), 1u);
  EXPECT_EQ(p.records[0].kv_tile, 6);
}

TEST(Dataflow, NaivePvPCopiesCarryThePrefetchHintOnlyOnAlignedRows) {
  const TileConfig t;
  CtaProgram p;
  KernelDataflow(KernelId::naive_pv, shape(1, 1, 128, 512, 64), t).program(0, p);
  EXPECT_EQ(p.steps[0].loads[0].tensor, Tensor::s);
  EXPECT_EQ(p.steps[0].loads[0].l2_fetch_bytes, 256);
  EXPECT_EQ(p.steps[0].loads[1].l2_fetch_bytes, 0);  // V: no hint
  KernelDataflow(KernelId::naive_pv, shape(1, 1, 128, 197, 64), t).program(0, p);
  EXPECT_EQ(p.steps[0].loads[0].l2_fetch_bytes, 0);  // rows of 394 bytes: 2-byte loads, no hint
}

TEST(Dataflow, SoftmaxReadsLongRowsTwice) {
  const Workload w = shape(1, 1, 8, 16384, 64);
  const LevelBytes sm = expected_bytes(KernelId::naive_softmax, w, TileConfig{});
  EXPECT_EQ(sm.l2_read, u64{2 * 8 * 16384 * 2});
  EXPECT_EQ(sm.l2_write, u64{8 * 16384 * 2});
  const LevelBytes short_rows =
      expected_bytes(KernelId::naive_softmax, shape(1, 1, 8, 8192, 64), TileConfig{});
  EXPECT_EQ(short_rows.l2_read, u64{8 * 8192 * 2});
}

// Rows kept in shared memory are copied in once and read three times (max, sum, output); the measured
// naive.softmax at llm-4k (2026-12-03) moved 1.07 GB in and 3.61 GB out (wavefront upper bound).
TEST(Dataflow, SoftmaxKeepsShortRowsInSharedMemory) {
  const LevelBytes short_rows = expected_bytes(KernelId::naive_softmax, shape(1, 1, 8, 4096, 64), TileConfig{});
  EXPECT_EQ(short_rows.smem_write, u64{8 * 4096 * 2});
  EXPECT_EQ(short_rows.smem_read, u64{3 * 8 * 4096 * 2});
  const LevelBytes long_rows = expected_bytes(KernelId::naive_softmax, shape(1, 1, 8, 16384, 64), TileConfig{});
  EXPECT_EQ(long_rows.smem_write, 0u);  // past the shared-memory row limit the row streams from L2 twice
  EXPECT_EQ(long_rows.smem_read, 0u);
  const std::int64_t n = 256;  // causal: the copy holds the visible keys; the output pass reads whole rows
  const LevelBytes causal =
      expected_bytes(KernelId::naive_softmax, shape(1, 1, n, n, 64, DType::fp16, true), TileConfig{});
  u64 visible = 0;
  for (std::int64_t i = 0; i < n; ++i) visible += u64((i + 1) * 2);
  EXPECT_EQ(causal.smem_write, visible);
  EXPECT_EQ(causal.smem_read, 2 * visible + u64(n * n * 2));
}

TEST(Dataflow, CausalSoftmaxReadsVisibleKeysAndWritesWholeRows) {
  const std::int64_t n = 256;
  const LevelBytes sm =
      expected_bytes(KernelId::naive_softmax, shape(1, 1, n, n, 64, DType::fp16, true), TileConfig{});
  u64 visible_sectors = 0;  // row i reads keys [0, i], 2 bytes each, rows 512 bytes apart (sector-aligned)
  for (std::int64_t i = 0; i < n; ++i) visible_sectors += u64((i + 1) * 2 + 31) / 32;
  EXPECT_EQ(sm.l2_read, visible_sectors * 32);
  EXPECT_EQ(sm.l2_write, u64(n * n * 2));
}

TEST(Dataflow, WindowLaunchesOnlyItsTiles) {
  const Workload w = shape(1, 2, 1024, 1024, 64);
  TileConfig t;  // 8 q-tiles of 128, 16 kv-tiles of 64
  TileWindow one{3, 4, 5, 6};
  const KernelDataflow f(KernelId::tiled, w, t, one);
  ASSERT_EQ(f.cta_count(), 2);  // one per head
  CtaProgram p;
  f.program(0, p);
  ASSERT_EQ(p.steps.size(), 1u);
  EXPECT_EQ(p.records[0].q_tile, 3);
  EXPECT_EQ(p.records[0].kv_tile, 5);
  EXPECT_EQ(p.steps[0].load_count, 3);   // Q, K_5, V_5
  EXPECT_EQ(p.steps[0].store_count, 2);  // O, LSE
  const LevelBytes x = expected_bytes(KernelId::tiled, w, t, one);
  EXPECT_EQ(x.l2_read, u64{2 * (128 * 64 * 2 + 2 * 64 * 64 * 2)});
  EXPECT_EQ(x.l2_write, u64{2 * (128 * 64 * 2 + 128 * 4)});
  // A row of tiles: Q once, every K/V tile once.
  const LevelBytes row = expected_bytes(KernelId::tiled, w, t, TileWindow{2, 3, 0, -1});
  EXPECT_EQ(row.l2_read, u64{2 * (128 * 64 * 2 + 2 * 1024 * 64 * 2)});
  // naive.pv window over reduction steps of 32 columns.
  const LevelBytes pv = expected_bytes(KernelId::naive_pv, w, t, TileWindow{0, 1, 4, 8});
  EXPECT_EQ(pv.l2_read, u64{2 * (128 * 4 * 32 * 2 + 4 * 32 * 64 * 2)});
}

TEST(Dataflow, BadWindowsAndTilingsAreRejected) {
  const Workload w = shape(1, 1, 512, 512, 64);
  const TileConfig t;
  EXPECT_THROW(KernelDataflow(KernelId::tiled, w, t, TileWindow{4, -1, 0, -1}), InvalidInput);  // 4 q-tiles
  EXPECT_THROW(KernelDataflow(KernelId::tiled, w, t, TileWindow{2, 2, 0, -1}), InvalidInput);
  EXPECT_THROW(KernelDataflow(KernelId::tiled, w, t, TileWindow{0, -1, 8, -1}), InvalidInput);
  EXPECT_THROW(KernelDataflow(KernelId::tiled, w, t, TileWindow{-1, -1, 0, -1}), InvalidInput);
  TileConfig odd = t;
  odd.br = 100;
  EXPECT_THROW(KernelDataflow(KernelId::tiled, w, odd), InvalidInput);
  odd = t;
  odd.warps = 3;
  EXPECT_THROW(KernelDataflow(KernelId::tiled, w, odd), InvalidInput);
  odd = t;
  odd.stages = 0;
  EXPECT_THROW(KernelDataflow(KernelId::tiled, w, odd), InvalidInput);
  try {
    KernelDataflow(KernelId::tiled, shape(1, 1, 512, 512, 96), t);
    FAIL() << "head_dim 96 accepted";
  } catch (const InvalidInput& e) {
    EXPECT_THAT(e.what(), HasSubstr("head_dim 96 is not supported"));
  }
  try {
    KernelDataflow(KernelId::tiled, shape(1, 1, 512, 512, 64, DType::fp32), t);
    FAIL() << "fp32 accepted";
  } catch (const InvalidInput& e) {
    EXPECT_THAT(e.what(), HasSubstr("fp32"));
  }
  EXPECT_NO_THROW(KernelDataflow(KernelId::naive_qk, shape(1, 1, 512, 512, 96), t));  // naive takes any d % 8
  EXPECT_THROW(KernelDataflow(KernelId::naive_qk, shape(1, 1, 512, 512, 0), t), InvalidInput);
  EXPECT_THROW(KernelDataflow(KernelId::naive_qk, shape(0, 1, 512, 512, 64), t), InvalidInput);
  EXPECT_THROW(KernelDataflow(KernelId::naive_qk, shape(1, -2, 512, 512, 64), t), InvalidInput);
}

TEST(Dataflow, KernelIdNamesRoundTrip) {
  for (KernelId k : {KernelId::tiled, KernelId::naive_qk, KernelId::naive_softmax, KernelId::naive_pv})
    EXPECT_EQ(parse_kernel_id(to_string(k)), k);
  EXPECT_FALSE(parse_kernel_id("naive").has_value());
  EXPECT_EQ(kernels_of(KernelKind::naive).size(), 3u);
}

}  // namespace
}  // namespace attnscope::sim
