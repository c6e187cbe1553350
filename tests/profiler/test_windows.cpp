// SPDX-License-Identifier: Apache-2.0
// Which tile windows are planned, and the lone-launch workload the model simulates for each.
#include <gtest/gtest.h>

#include "attnscope/profiler/windows.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"

using namespace attnscope;
using namespace attnscope::profiler;

namespace {
sim::Workload small(bool causal) {
  sim::Workload w;
  w.batch = 2;
  w.heads = 4;
  w.seq_q = w.seq_kv = 1024;
  w.head_dim = 64;
  w.causal = causal;
  return w;
}
}  // namespace

TEST(Windows, GridInEachKernelsOwnUnits) {
  const sim::Workload w = small(false);
  sim::TileConfig t;  // Br 128, Bc 64
  EXPECT_EQ(tile_grid(w, t, "tiled").q_tiles, 8);
  EXPECT_EQ(tile_grid(w, t, "tiled").kv_tiles, 16);
  EXPECT_EQ(tile_grid(w, t, "naive.qk").kv_tiles, 8);
  EXPECT_EQ(tile_grid(w, t, "naive.softmax").q_tiles, 128);
  EXPECT_EQ(tile_grid(w, t, "naive.softmax").kv_tiles, 1);
  EXPECT_EQ(tile_grid(w, t, "naive.pv").q_tiles, 8);
}

TEST(Windows, CausalSkipsTilesPastTheDiagonal) {
  const sim::Workload w = small(true);
  sim::TileConfig t;
  EXPECT_TRUE(tile_visited(w, t, "tiled", 0, 0));
  EXPECT_TRUE(tile_visited(w, t, "tiled", 0, 1));  // rows 0..127 see keys up to 127: kv tile 1 = keys 64..127
  EXPECT_FALSE(tile_visited(w, t, "tiled", 0, 2));  // keys 128..191
  EXPECT_TRUE(tile_visited(w, t, "tiled", 7, 15));
  const auto all = plan_windows(w, sim::KernelKind::tiled, t, TileMode::all);
  // q tile i visits 2(i+1) kv tiles: 2 + 4 + ... + 16 = 72.
  EXPECT_EQ(all.size(), 72u);
  for (const auto& win : all) EXPECT_TRUE(tile_visited(w, t, "tiled", win.q_tile, win.kv_tile));
}

TEST(Windows, SampleAndRowModes) {
  const sim::Workload w = small(false);
  sim::TileConfig t;
  EXPECT_TRUE(plan_windows(w, sim::KernelKind::tiled, t, TileMode::none).empty());
  // Rows {0, 4, 7} x kv {0, 15}.
  EXPECT_EQ(plan_windows(w, sim::KernelKind::tiled, t, TileMode::sample).size(), 6u);
  EXPECT_EQ(plan_windows(w, sim::KernelKind::tiled, t, TileMode::row).size(), 3u * 16u);
  // Naive: qk rows {0,4,7} x {0,7}; softmax rows {0,64,127}; pv rows {0,4,7}.
  const auto naive = plan_windows(w, sim::KernelKind::naive, t, TileMode::sample);
  EXPECT_EQ(naive.size(), 6u + 3u + 3u);
  EXPECT_EQ(naive.front().kernel, "naive.qk");
  EXPECT_EQ(naive.back().kernel, "naive.pv");
}

TEST(Windows, LoneLaunchWorkloadIsOneSliceOneTile) {
  sim::Workload w = small(false);
  w.seq_q = w.seq_kv = 1000;  // last tiles are partial
  sim::TileConfig t;
  const auto tiled = window_workload(w, t, WindowSpec{"tiled", 1, 3, 7, 15});
  EXPECT_EQ(tiled.batch, 1);
  EXPECT_EQ(tiled.heads, 1);
  EXPECT_EQ(tiled.seq_q, 1000 - 7 * 128);
  EXPECT_EQ(tiled.seq_kv, 1000 - 15 * 64);
  EXPECT_DOUBLE_EQ(tiled.effective_scale(), w.effective_scale());
  const auto softmax = window_workload(w, t, WindowSpec{"naive.softmax", 0, 0, 2, 0});
  EXPECT_EQ(softmax.seq_q, 8);
  EXPECT_EQ(softmax.seq_kv, 1000);  // whole rows of S
  EXPECT_THROW(window_workload(w, t, WindowSpec{"tiled", 0, 0, 8, 0}), sim::InvalidInput);
}

TEST(Windows, ModelOfALoneTiledTileLoadsQKVAndStoresO) {
  const sim::Workload w = small(false);
  sim::TileConfig t;
  const auto gpu = sim::load_gpu_spec("h200");
  const auto k = model_window(gpu, w, sim::KernelKind::tiled, t, WindowSpec{"tiled", 0, 0, 3, 5});
  EXPECT_EQ(k.name, "tiled");
  EXPECT_EQ(k.ctas, 1);
  // One CTA, one kv step: Q tile (128x64), K and V tiles (64x64 each) in, O tile out, 2 bytes each.
  const std::uint64_t q = 128 * 64 * 2, kv = 2 * 64 * 64 * 2;
  EXPECT_GE(k.totals.l2_read, q + kv);
  EXPECT_GE(k.totals.l2_write, q);
}

TEST(Windows, LoneNaiveWindowsStartFromAFlushedL2) {
  // The real lone launch of naive.pv (or softmax) finds nothing in L2: the model of it must not first run the
  // kernels before it, whose S and P would be L2 hits. P rows [128 x 1024] and all of V [1024 x 64] come from
  // HBM.
  const sim::Workload w = small(false);  // the window takes one (batch, head) slice: 1024 x 1024, d 64
  const sim::TileConfig t;
  const auto gpu = sim::load_gpu_spec("h200");
  const auto pv = model_window(gpu, w, sim::KernelKind::naive, t, WindowSpec{"naive.pv", 0, 0, 2, 0});
  EXPECT_EQ(pv.name, "naive.pv");
  EXPECT_EQ(pv.totals.hbm_read, std::uint64_t{128 * 1024 * 2 + 1024 * 64 * 2});
  const auto softmax =
      model_window(gpu, w, sim::KernelKind::naive, t, WindowSpec{"naive.softmax", 0, 0, 5, 0});
  EXPECT_EQ(softmax.totals.hbm_read, std::uint64_t{8 * 1024 * 2});  // 8 rows of S, none left by naive.qk
}

TEST(Request, ModesParseAndPrintBack) {
  for (auto m : {CacheMode::flush, CacheMode::sequence, CacheMode::warm})
    EXPECT_EQ(parse_cache_mode(to_string(m)), m);
  for (auto m : {TileMode::none, TileMode::sample, TileMode::row, TileMode::all})
    EXPECT_EQ(parse_tile_mode(to_string(m)), m);
  for (auto m : {ReplayMode::user, ReplayMode::kernel}) EXPECT_EQ(parse_replay_mode(to_string(m)), m);
  for (auto m : {FlushMethod::read_discard, FlushMethod::read})
    EXPECT_EQ(parse_flush_method(to_string(m)), m);
  EXPECT_EQ(parse_flush_method("read-discard"), FlushMethod::read_discard);
  EXPECT_FALSE(parse_flush_method("invalidate"));
  EXPECT_FALSE(parse_cache_mode("cold"));
  EXPECT_EQ(kernel_names(sim::KernelKind::naive).size(), 3u);
}

// A lone tile is a workload of its own rows and keys, which cannot put a sliding window or an ALiBi bias at
// the tile's place along the diagonal: under those masks no window is planned (whole kernels are measured).
TEST(Windows, SlidingWindowAndAlibiPlanNoWindows) {
  sim::Workload w = small(true);
  const sim::TileConfig t;
  ASSERT_FALSE(plan_windows(w, sim::KernelKind::tiled, t, TileMode::sample).empty());
  w.window = 256;
  EXPECT_TRUE(plan_windows(w, sim::KernelKind::tiled, t, TileMode::sample).empty());
  EXPECT_TRUE(plan_windows(w, sim::KernelKind::naive, t, TileMode::all).empty());
  w.window = 0;
  w.alibi = true;
  EXPECT_TRUE(plan_windows(w, sim::KernelKind::tiled, t, TileMode::row).empty());
}
