// SPDX-License-Identifier: Apache-2.0
// Sliding window and ALiBi in the model: the tiles each kernel visits are exactly those holding a visible
// (row, key) pair (checked by brute force over every pair), the requested bytes follow those tiles, and the
// FLOP convention counts the visible pairs.
#include <gtest/gtest.h>

#include <cstdint>

#include "attnscope/sim/dataflow.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/sim/tiling_rules.hpp"
#include "attnscope/vocab/backward.hpp"
#include "attnscope/vocab/geometry.hpp"

namespace attnscope::sim {
namespace {

using u64 = std::uint64_t;

Workload windowed(std::int64_t nq, std::int64_t nkv, std::int64_t window, bool alibi = false) {
  Workload w;
  w.batch = 1;
  w.heads = 2;
  w.seq_q = nq;
  w.seq_kv = nkv;
  w.head_dim = 64;
  w.causal = true;
  w.window = window;
  w.alibi = alibi;
  return w;
}

bool visible(const Workload& w, std::int64_t row, std::int64_t key) {
  const std::int64_t rel = row + w.seq_kv - w.seq_q - key;
  return key < w.seq_kv && (!w.causal || rel >= 0) && (w.window <= 0 || rel < w.window);
}

// Whether the block rows [r0, r1) x keys [k0, k1) holds a visible pair.
bool any_visible(const Workload& w, std::int64_t r0, std::int64_t r1, std::int64_t k0, std::int64_t k1) {
  for (std::int64_t i = r0; i < r1; ++i)
    for (std::int64_t j = k0; j < k1; ++j)
      if (visible(w, i, j)) return true;
  return false;
}

// Shapes with Nq = Nkv, Nq < Nkv and Nq > Nkv, windows narrower and wider than a tile, unaligned lengths.
const Workload kShapes[] = {windowed(512, 512, 1),   windowed(512, 512, 100), windowed(500, 700, 64),
                            windowed(700, 500, 200), windowed(333, 333, 129), windowed(256, 256, 1000)};

TEST(Masks, ForwardVisitsExactlyTheTilesWithAVisiblePair) {
  TileConfig t;  // Br 128, Bc 64
  for (const Workload& w : kShapes) {
    const auto q_tiles = static_cast<int>(vocab::ceil_div(w.seq_q, t.br));
    const auto kv_tiles = static_cast<int>(vocab::ceil_div(w.seq_kv, t.bc));
    for (int q = 0; q < q_tiles; ++q) {
      const TileRange r = tiled_kv_tile_range(w, t, q);
      const std::int64_t r0 = std::int64_t{q} * t.br, r1 = std::min<std::int64_t>(r0 + t.br, w.seq_q);
      for (int j = 0; j < kv_tiles; ++j) {
        const std::int64_t k0 = std::int64_t{j} * t.bc, k1 = std::min<std::int64_t>(k0 + t.bc, w.seq_kv);
        EXPECT_EQ(j >= r.first && j < r.end, any_visible(w, r0, r1, k0, k1))
            << "Nq " << w.seq_q << " Nkv " << w.seq_kv << " window " << w.window << " q tile " << q
            << " kv tile " << j;
      }
    }
  }
}

TEST(Masks, BackwardVisitsExactlyTheTilesWithAVisiblePair) {
  TileConfig t;  // the backward's default tile: Bc 128, Br 64 at d 64
  const vocab::TiledBwdConfig c = t.tiled_bwd(64);
  for (const Workload& w : kShapes) {
    const auto kv_tiles = static_cast<int>(vocab::ceil_div(w.seq_kv, c.bc));
    const auto q_tiles = static_cast<int>(vocab::ceil_div(w.seq_q, c.br));
    for (int j = 0; j < kv_tiles; ++j) {
      const TileRange r = tiled_bwd_q_tile_range(w, t, j);
      const std::int64_t k0 = std::int64_t{j} * c.bc, k1 = std::min<std::int64_t>(k0 + c.bc, w.seq_kv);
      for (int q = 0; q < q_tiles; ++q) {
        const std::int64_t r0 = std::int64_t{q} * c.br, r1 = std::min<std::int64_t>(r0 + c.br, w.seq_q);
        EXPECT_EQ(q >= r.first && q < r.end, any_visible(w, r0, r1, k0, k1))
            << "Nq " << w.seq_q << " Nkv " << w.seq_kv << " window " << w.window << " kv tile " << j
            << " q tile " << q;
      }
    }
  }
}

TEST(Masks, ForwardBytesFollowTheVisitedTiles) {
  TileConfig t;
  const Workload w = windowed(1024, 1024, 256);
  const std::int64_t d = 64, e = 2;
  std::int64_t kv_rows = 0;  // K and V rows loaded, summed over q tiles
  for (int q = 0; q < 1024 / t.br; ++q) {
    const TileRange r = tiled_kv_tile_range(w, t, q);
    kv_rows += std::int64_t{r.count()} * t.bc;
  }
  // Window 256 over Br 128: q tile 0 sees kv tiles 0-1, later ones 6 tiles (the window spans 4 tiles plus
  // the q tile's own 2 on the diagonal).
  EXPECT_EQ(kv_rows, (2 + 4 + 6 * 6) * 64);
  const LevelBytes x = expected_bytes(KernelId::tiled, w, t);
  EXPECT_EQ(x.l2_read, u64(w.heads * (1024 * d * e + 2 * kv_rows * d * e)));  // Q once, K and V per tile
  EXPECT_EQ(x.l2_write, u64(w.heads * (1024 * d * e + 1024 * 4)));            // O and LSE once
}

TEST(Masks, NaiveSoftmaxReadsTheBandAndWritesTheRow) {
  TileConfig t;
  const Workload w = windowed(512, 512, 100);
  const std::int64_t e = 2;
  std::int64_t band = 0;
  for (std::int64_t i = 0; i < 512; ++i)
    band +=
        vocab::visible_keys(i, 512, 512, vocab::Mask::causal) - vocab::first_visible_key(i, 512, 512, 100);
  const LevelBytes x = expected_bytes(KernelId::naive_softmax, w, t, {}, 2);  // 2-byte "sectors": exact
  EXPECT_EQ(x.l2_read, u64(w.heads * 2 * band * e));                          // two passes over the band
  EXPECT_EQ(x.l2_write, u64(w.heads * 512 * 512 * e));
  EXPECT_EQ(smem_bytes_per_cta(KernelId::naive_softmax, w, t), 0);  // the two-pass kernel
}

TEST(Masks, FlopsCountTheVisiblePairs) {
  const Workload w = windowed(4096, 4096, 1024);
  // Rows 0..1023 see i + 1 keys, the others 1024.
  const double pairs = 1024.0 * 1025.0 / 2.0 + (4096.0 - 1024.0) * 1024.0;
  EXPECT_DOUBLE_EQ(w.visible_pairs(), pairs);
  EXPECT_DOUBLE_EQ(w.flops(Pass::fwd), 4.0 * 2 * pairs * 64);
  Workload alibi = windowed(4096, 4096, 0, true);
  alibi.causal = false;
  EXPECT_DOUBLE_EQ(alibi.flops(Pass::fwd), 4.0 * 2 * 4096.0 * 4096.0 * 64);
}

TEST(Masks, AlibiChangesWorkNotBytes) {
  Workload plain = windowed(1024, 1024, 0);
  Workload alibi = plain;
  alibi.alibi = true;
  const TileConfig t;
  for (KernelId k : {KernelId::tiled, KernelId::tiled_bwd}) {
    const LevelBytes a = expected_bytes(k, plain, t), b = expected_bytes(k, alibi, t);
    EXPECT_EQ(a.l2_read, b.l2_read);
    EXPECT_EQ(a.l2_write, b.l2_write);
  }
}

TEST(Masks, AWindowMustBeCausal) {
  Workload w = windowed(128, 128, 16);
  w.causal = false;
  EXPECT_THROW(validate(w), InvalidInput);
  w.causal = true;
  w.window = -1;
  EXPECT_THROW(validate(w), InvalidInput);
}

}  // namespace
}  // namespace attnscope::sim
