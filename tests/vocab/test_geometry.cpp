// SPDX-License-Identifier: Apache-2.0
// Each kernel's geometry (attnscope/vocab/geometry.hpp) against values worked out by hand for the llm-4k
// workload (B 1, H 32, Nq = Nkv = 4096, d 64, fp16) and a few edges. Most checks are static_asserts: the
// formulas are constexpr, and the kernels rely on exactly that.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "attnscope/vocab/backward.hpp"
#include "attnscope/vocab/dtype.hpp"
#include "attnscope/vocab/geometry.hpp"
#include "attnscope/vocab/kernel.hpp"
#include "attnscope/vocab/tile_config.hpp"

namespace attnscope::vocab {
namespace {

constexpr std::int64_t kBatch = 1, kHeads = 32, kSeq = 4096, kHeadDim = 64;
constexpr TiledConfig kTiled{};  // the compiled default: Br 128, Bc 64, 4 warps, 2 stages
constexpr NaiveTiling kNaive{};

// The default tiled configuration.
static_assert(kTiled.br == 128 && kTiled.bc == 64 && kTiled.warps == 4 && kTiled.stages == 2);
static_assert(tiled_threads_per_cta(kTiled) == 128);
static_assert(tiled_rows_per_warp(kTiled) == 32);
// (Q 128 + K and V 2 x 2 x 64 rows) x 64 x 2 bytes = 48 KiB.
static_assert(tiled_smem_bytes(kTiled, kHeadDim, DType::fp16) == 49152);
static_assert(tiled_smem_bytes(kTiled, 128, DType::bf16) == 98304);
static_assert(tiled_min_blocks_per_sm(kTiled, kHeadDim) == 2);  // 32 rows per warp
static_assert(tiled_q_tiles(kTiled, kSeq) == 32 && tiled_kv_tiles(kTiled, kSeq) == 64);

constexpr bool same(const Dim3& a, const Dim3& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}
static_assert(same(tiled_grid(tiled_q_tiles(kTiled, kSeq), kHeads, kBatch), Dim3{32, 32, 1}));

// 8 warps of 16 rows: two CTAs only at d = 64 with Bc <= 64.
constexpr TiledConfig kEightWarps{128, 64, 8, 3};
static_assert(tiled_min_blocks_per_sm(kEightWarps, 64) == 2);
static_assert(tiled_min_blocks_per_sm(kEightWarps, 128) == 1);
static_assert(tiled_min_blocks_per_sm(TiledConfig{128, 128, 8, 2}, 64) == 1);

// Causal visibility (bottom-right aligned): q tile i of a square problem sees kv tiles [0, 2i + 2).
static_assert(tiled_visible_kv_tiles(kTiled, kSeq, kSeq, Mask::none, 0) == 64);
static_assert(tiled_visible_kv_tiles(kTiled, kSeq, kSeq, Mask::causal, 0) == 2);
static_assert(tiled_visible_kv_tiles(kTiled, kSeq, kSeq, Mask::causal, 31) == 64);
// More queries than keys: the first rows see nothing.
static_assert(tiled_visible_kv_tiles(kTiled, 1000, 100, Mask::causal, 0) == 0);
static_assert(visible_keys(899, 1000, 100, Mask::causal) == 0);
static_assert(visible_keys(900, 1000, 100, Mask::causal) == 1);
static_assert(visible_keys(5, 1000, 100, Mask::none) == 100);
// More keys than queries: the last row sees them all.
static_assert(tiled_visible_kv_tiles(kTiled, 100, 1000, Mask::causal, 0) == 16);

// The naive kernels.
static_assert(naive_gemm_threads_per_cta(kNaive) == 256 && naive_softmax_threads_per_cta(kNaive) == 256);
// Q row block 128 x 64 + 4 K slices 128 x 32 + the S tile 128 x 128, 2 bytes each: 80 KiB (96 at d 128).
static_assert(naive_qk_smem_bytes(kNaive, 64, DType::fp16) == 81920);
static_assert(naive_qk_smem_bytes(kNaive, 128, DType::fp16) == 98304);
// 2 stages of P 128 x 32 + V 32 x 64.
static_assert(naive_pv_smem_bytes(kNaive, 64, DType::fp16) == 24576);
// 8 rows of 4096 keys; rows pad to whole 16-byte chunks; past 8192 keys the two-pass kernel needs none.
static_assert(naive_softmax_smem_bytes(kNaive, 4096, DType::fp16) == 65536);
static_assert(naive_softmax_smem_bytes(kNaive, 197, DType::fp16) == 8 * 200 * 2);
static_assert(naive_softmax_smem_bytes(kNaive, 8192, DType::fp16) == 131072);
static_assert(naive_softmax_smem_bytes(kNaive, 8193, DType::fp16) == 0);
static_assert(naive_qk_min_blocks_per_sm() == 2);
static_assert(naive_pv_min_blocks_per_sm(64, naive_rows_aligned(4096)) == 4);
static_assert(naive_pv_min_blocks_per_sm(64, naive_rows_aligned(197)) == 2);
static_assert(naive_pv_min_blocks_per_sm(128, true) == 2);

static_assert(same(naive_qk_grid(kNaive, naive_qk_column_blocks(kNaive, kSeq),
                                 naive_qk_row_blocks(kNaive, kSeq), kBatch* kHeads),
                   Dim3{8, 32, 32}));  // 32 column blocks in CTAs of 4
static_assert(same(naive_qk_grid(kNaive, 5, 1, 1),
                   Dim3{2, 1, 1}));  // the last CTA of a row computes one tile
static_assert(same(naive_softmax_grid(naive_softmax_row_blocks(kNaive, kSeq), kBatch* kHeads),
                   Dim3{512, 32, 1}));
static_assert(same(naive_pv_grid(naive_pv_row_blocks(kNaive, kSeq), kBatch* kHeads), Dim3{32, 32, 1}));
static_assert(naive_pv_steps(kNaive, kSeq) == 128);

// Tile windows and timeline records of the whole problem.
constexpr std::int64_t records(KernelId k) {
  const WindowTiles t = window_tiles(k, kTiled, kNaive, kSeq, kSeq);
  return records_per_window(k, t.q, t.kv, kBatch * kHeads);
}
static_assert(records(KernelId::tiled) == 65536);  // 32 q tiles x 64 kv tiles x 32 heads
static_assert(records(KernelId::naive_qk) == 32768);
static_assert(records(KernelId::naive_softmax) == 16384);
static_assert(records(KernelId::naive_pv) == 1024);
// The backward kernels at llm-4k, default backward tile at d 64 (Bc 128, Br 64): tiled_bwd one record per CTA
// step (32 kv tiles x 64 q steps x 32 heads, an upper bound when causal), naive_bwd.dp one per dP tile, the
// others one per CTA; pre and post 4096 padded rows in CTAs of 256 / (64 / 8) = 32 rows.
static_assert(records(KernelId::tiled_bwd) == 65536);
static_assert(records(KernelId::tiled_bwd_pre) == 128 * 32);
static_assert(records(KernelId::tiled_bwd_post) == 128 * 32);
static_assert(records(KernelId::naive_bwd_dp) == 32 * 32 * 32);
static_assert(records(KernelId::naive_bwd_dv) == 32 * 32);
static_assert(records(KernelId::naive_bwd_ds) == 512 * 32);
static_assert(
    window_tiles(KernelId::tiled_bwd_pre, kTiled, kNaive, kSeq, kSeq, default_tiled_bwd_config(128), 128).q ==
    4096 / 16);  // 256 / (128 / 8) = 16 rows per CTA at d 128

// The Hopper kernel (hopper_*): one producer and `consumers` consumer warpgroups, 1024-byte barrier block.
constexpr HopperConfig kHopper{};  // Br 128, Bc 128, 2 consumers, stages 2, serial
static_assert(kHopper.br == 128 && kHopper.bc == 128 && kHopper.consumers == 2 && kHopper.stages == 2 &&
              !kHopper.overlap && !kHopper.pingpong);
static_assert(hopper_threads_per_cta(kHopper) == 384);
static_assert(hopper_threads_per_cta(HopperConfig{192, 64, 3, 2}) == 512);
// (Q 128 + K and V 2 x 2 x 128 rows) x 64 x 2 bytes = 80 KiB, plus the barriers (7 x 8 bytes -> 1 KiB).
static_assert(hopper_barrier_bytes(kHopper) == 1024);
static_assert(hopper_smem_bytes(kHopper, 64, DType::fp16) == 81920 + 1024);
// d 128, stages 3: (128 + 6 x 128) x 256 + 1024 = 230400 bytes, under the 232448 one CTA may hold.
static_assert(hopper_smem_bytes(HopperConfig{128, 128, 2, 3}, 128, DType::bf16) == 230400);
static_assert(hopper_config_valid(HopperConfig{128, 128, 2, 3}, 128, DType::bf16));
static_assert(!hopper_config_valid(HopperConfig{128, 128, 2, 4}, 128, DType::fp16));  // 295 936 bytes
static_assert(!hopper_config_valid(HopperConfig{128, 128, 3, 2}, 64, DType::fp16));   // Br != 64 x consumers
static_assert(!hopper_config_valid(HopperConfig{192, 64, 3, 3, true, true}, 64,
                                   DType::fp16));  // ping-pong: 2
static_assert(hopper_config_valid(HopperConfig{128, 64, 2, 4, true, true}, 128, DType::fp16));
static_assert(!hopper_config_valid(kHopper, 64, DType::fp32));
// Persistent: two Q buffers, and 2 + 4 x stages barriers (O full per buffer, K and V empty apart): d 128
// fits at 2 stages ((2 x 128 + 4 x 128) x 256 + 1024 = 197632 bytes), not at 3 (263168).
static_assert(hopper_smem_bytes(HopperConfig{128, 128, 2, 2, true, true, true}, 128, DType::fp16) == 197632);
static_assert(!hopper_config_valid(HopperConfig{128, 128, 2, 3, true, true, true}, 128, DType::fp16));
static_assert(hopper_config_valid(HopperConfig{192, 128, 3, 3, true, false, true}, 64, DType::fp16));
// The persistent grid: one CTA per SM, never more CTAs than tiles; every other round backwards.
static_assert(hopper_persistent_ctas(1024, 132) == 132 && hopper_persistent_ctas(5, 132) == 5);
static_assert(hopper_persistent_tile(0, 0, 132) == 0 && hopper_persistent_tile(0, 1, 132) == 263 &&
              hopper_persistent_tile(131, 1, 132) == 132 && hopper_persistent_tile(3, 2, 132) == 267);
static_assert(!hopper_config_valid(HopperConfig{128, 120, 2, 2}, 64, DType::fp16));  // Bc % 16
// Registers after setmaxnreg within 64 K per CTA: 128 x 24 + 256 x 240 and 128 x 24 + 384 x 160.
static_assert(kWarpgroupThreads * hopper_producer_registers() +
                  kWarpgroupThreads * kHopper.consumers * hopper_consumer_registers(kHopper) <=
              65536);
static_assert(kWarpgroupThreads * hopper_producer_registers() +
                  kWarpgroupThreads * 3 * hopper_consumer_registers(HopperConfig{192, 64, 3, 2}) <=
              65536);
static_assert(hopper_q_tiles(kHopper, kSeq) == 32 && hopper_kv_tiles(kHopper, kSeq) == 32);
static_assert(same(hopper_grid(kHopper, 1000, kHeads, 2), Dim3{8, 32, 2}));
// Causal, Nq = Nkv = 4096: q tile 0 sees 1 kv tile, the last all 32; Nq > Nkv: the first tile sees none.
static_assert(hopper_visible_kv_tiles(kHopper, kSeq, kSeq, Mask::causal, 0) == 1);
static_assert(hopper_visible_kv_tiles(kHopper, kSeq, kSeq, Mask::causal, 31) == 32);
static_assert(hopper_visible_kv_tiles(kHopper, 1000, 300, Mask::causal, 0) == 0);
static_assert(hopper_visible_kv_tiles(kHopper, 1000, 300, Mask::none, 0) == 3);

TEST(VocabKernel, NamesRoundTrip) {
  for (KernelId k : kAllKernelIds) EXPECT_EQ(parse_kernel_id(to_string(k)), k);
  EXPECT_EQ(to_string(KernelId::naive_qk), "naive.qk");
  EXPECT_FALSE(parse_kernel_id("naive_qk").has_value());
  EXPECT_EQ(kind_of(KernelId::naive_pv), KernelKind::naive);
  EXPECT_EQ(kind_of(KernelId::tiled_bwd_post), KernelKind::tiled);
  EXPECT_EQ(kind_of(KernelId::naive_bwd_ds), KernelKind::naive);
  EXPECT_EQ(pass_of(KernelId::tiled), Pass::fwd);
  EXPECT_EQ(pass_of(KernelId::naive_bwd_dk), Pass::bwd);
  EXPECT_TRUE(runs_in(KernelId::tiled_bwd, Pass::both));
  EXPECT_FALSE(runs_in(KernelId::tiled_bwd, Pass::fwd));
  EXPECT_EQ(parse_kernel_kind("flash"), KernelKind::tiled);
  EXPECT_EQ(parse_dtype("bfloat16"), DType::bf16);
  EXPECT_EQ(bytes_of(DType::fp32), 4u);
}

TEST(VocabGeometry, WindowTilesPerKernel) {
  const WindowTiles tiled = window_tiles(KernelId::tiled, kTiled, kNaive, 1000, 197);
  EXPECT_EQ(tiled.q, 8);   // ceil(1000 / 128)
  EXPECT_EQ(tiled.kv, 4);  // ceil(197 / 64)
  const WindowTiles softmax = window_tiles(KernelId::naive_softmax, kTiled, kNaive, 1000, 197);
  EXPECT_EQ(softmax.q, 125);
  EXPECT_EQ(softmax.kv, 1);
  const WindowTiles pv = window_tiles(KernelId::naive_pv, kTiled, kNaive, 1000, 197);
  EXPECT_EQ(pv.kv, 7);  // ceil(197 / 32) reduction steps
  // A causal row of tiles sums to the lower triangle: 2 + 4 + ... + 64 kv tiles over 32 q tiles.
  std::int64_t visited = 0;
  for (std::int64_t q = 0; q < 32; ++q)
    visited += tiled_visible_kv_tiles(kTiled, kSeq, kSeq, Mask::causal, q);
  EXPECT_EQ(visited, 32 * 33);
}

// Every tile of a persistent launch is run by exactly one CTA, whatever the tile count against the CTAs.
TEST(VocabGeometry, PersistentTilesCoverEveryTileOnce) {
  for (const std::int64_t sms : {1, 7, 132}) {
    for (const std::int64_t tiles : {1, 5, 131, 132, 133, 263, 264, 265, 1024, 4097}) {
      const std::int64_t ctas = hopper_persistent_ctas(tiles, sms);
      ASSERT_LE(ctas, sms);
      ASSERT_LE(ctas, tiles);
      std::vector<int> runs(static_cast<std::size_t>(tiles), 0);
      for (std::int64_t c = 0; c < ctas; ++c) {
        for (std::int64_t round = 0; round * ctas < tiles; ++round) {
          const std::int64_t t = hopper_persistent_tile(c, round, ctas);
          ASSERT_GE(t, 0);
          if (t < tiles) ++runs[static_cast<std::size_t>(t)];
        }
      }
      for (std::int64_t t = 0; t < tiles; ++t)
        EXPECT_EQ(runs[static_cast<std::size_t>(t)], 1)
            << "tile " << t << " of " << tiles << ", " << ctas << " CTAs";
    }
  }
}

}  // namespace
}  // namespace attnscope::vocab
