// SPDX-License-Identifier: Apache-2.0
// GPU tests of kernels/src: tiled and naive attention against the float64 reference on fresh random
// inputs (seed printed), outputs poisoned with NaN before every launch and every element checked, LSE
// checked, tile windows write exactly their outputs, instrumented timelines are sane, launchers refuse
// bad input with the right StatusCode.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "forward_problem.hpp"
#include "gpu_test_support.hpp"

namespace attnscope::kernels::testing {
namespace {

void run_tiled(Problem& p, const TiledConfig& c, const TileWindow& w = {}, TileTiming* timeline = nullptr) {
  ASSERT_TRUE(p.poison());
  const Status st = launch_tiled(p.shape(), c, p.tensors(), w, timeline, nullptr);
  ASSERT_TRUE(st) << st.message;
  ATTN_CUDA_CHECK(cudaDeviceSynchronize());
}

void run_naive(Problem& p) {
  ASSERT_TRUE(p.poison());
  for (const auto launch : {&launch_naive_qk, &launch_naive_softmax, &launch_naive_pv}) {
    const Status st = launch(p.shape(), p.tensors(), TileWindow{}, nullptr, nullptr);
    ASSERT_TRUE(st) << st.message;
  }
  ATTN_CUDA_CHECK(cudaDeviceSynchronize());
}

struct Case {
  int b, h, nq, nkv, d;
  DType dtype;
  bool causal;
};

// Lengths not multiples of any tile (197, 1000, 4097), causal with Nq != Nkv both ways (rows that see no
// key when Nq > Nkv), batch > 1.
const Case kShapes[] = {
    {1, 2, 197, 197, 64, DType::fp16, false},   {1, 2, 197, 197, 128, DType::bf16, true},
    {1, 2, 1000, 1000, 128, DType::fp16, true}, {1, 2, 1000, 1000, 64, DType::bf16, false},
    {1, 1, 4097, 4097, 64, DType::fp16, true},  {1, 1, 4097, 4097, 128, DType::bf16, false},
    {2, 2, 300, 1000, 64, DType::fp16, true},   {2, 1, 1000, 300, 128, DType::bf16, true},
    {1, 3, 256, 512, 64, DType::bf16, true},    {1, 1, 1, 77, 128, DType::fp16, false},
};

TEST(TiledAttention, MatchesReferenceOnAwkwardShapes) {
  const unsigned seed = fresh_seed();
  for (const Case& c : kShapes) {
    Problem p(make_shape(c.b, c.h, c.nq, c.nkv, c.d, c.dtype, c.causal), seed);
    ASSERT_TRUE(p.ok());
    run_tiled(p, TiledConfig{});
    expect_matches_reference(p, true, "tiled 128x64 " + describe(p.shape()));
  }
}

TEST(TiledAttention, EveryCompiledConfigSmall) {
  const unsigned seed = fresh_seed();
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      const auto configs = compiled_tiled_configs(d, dtype);
      for (const int br : {64, 128}) {
        for (const int bc : {32, 64, 128}) {
          // 16 rows per warp at stages 2 everywhere but d 64, Br 128, Bc 64 (not compiled: it spilled at its
          // 128-register bound); that tile exists with 4 warps (the default) and with 8 warps at stages 3.
          const bool spilled = d == 64 && br == 128 && bc == 64;
          EXPECT_TRUE(std::any_of(configs.begin(), configs.end(),
                                  [&](const TiledConfig& c) {
                                    return c.br == br && c.bc == bc && c.warps == br / 16 &&
                                           c.stages == (spilled ? 3 : 2);
                                  }))
              << "Br=" << br << " Bc=" << bc << " 16 rows per warp missing for d=" << d;
        }
      }
      // 32 query rows per warp: Br 128 with 4 warps, Bc 64, for every dtype and d.
      EXPECT_TRUE(std::any_of(
          configs.begin(), configs.end(),
          [](const TiledConfig& c) { return c.br == 128 && c.bc == 64 && c.warps == 4 && c.stages == 2; }))
          << "Br=128 Bc=64 warps=4 missing for d=" << d;
      for (const bool causal : {false, true}) {
        Problem p(make_shape(2, 2, 197, causal ? 261 : 131, d, dtype, causal),
                  seed + static_cast<unsigned>(d));
        ASSERT_TRUE(p.ok());
        for (const TiledConfig& c : configs) {
          run_tiled(p, c);
          expect_matches_reference(p, true,
                                   "tiled Br=" + std::to_string(c.br) + " Bc=" + std::to_string(c.bc) +
                                       " warps=" + std::to_string(c.warps) +
                                       " stages=" + std::to_string(c.stages) + " " + describe(p.shape()));
          AttentionShape s = p.shape();
          EXPECT_EQ(tiled_smem_bytes(s, c),
                    static_cast<std::size_t>(c.br + 2 * c.stages * c.bc) * static_cast<std::size_t>(d) * 2);
        }
      }
    }
  }
}

// The 32-rows-per-warp configurations (4 warps at Br 128) on the same awkward shapes as the default.
TEST(TiledAttention, FourWarpConfigsOnAwkwardShapes) {
  const unsigned seed = fresh_seed();
  for (const Case& c : kShapes) {
    Problem p(make_shape(c.b, c.h, c.nq, c.nkv, c.d, c.dtype, c.causal), seed);
    ASSERT_TRUE(p.ok());
    for (const TiledConfig& config : compiled_tiled_configs(c.d, c.dtype)) {
      if (config.warps * 32 != config.br) continue;
      run_tiled(p, config);
      expect_matches_reference(p, true,
                               "tiled Br=" + std::to_string(config.br) + " Bc=" + std::to_string(config.bc) +
                                   " warps=4 stages=" + std::to_string(config.stages) + " " +
                                   describe(p.shape()));
    }
  }
}

// A q window and a kv window of a 4-warp configuration write exactly their rows (poison elsewhere).
TEST(TiledAttention, FourWarpWindowWritesExactlyItsRows) {
  const unsigned seed = fresh_seed();
  constexpr int d = 64, nq = 1000, nkv = 700, br = 128, bc = 64;
  Problem p(make_shape(2, 2, nq, nkv, d, DType::fp16, false), seed);
  ASSERT_TRUE(p.ok());
  const TiledConfig c{br, bc, 4, 2};
  struct WindowCase {
    TileWindow w;
    int key_begin, key_end;
  };
  for (const WindowCase& wc :
       {WindowCase{TileWindow{2, 5, 0, -1}, 0, nkv},      // rows [256, 640), all keys
        WindowCase{TileWindow{1, 3, 2, 7}, 128, 448}}) {  // rows [128, 384), keys 128..447
    run_tiled(p, c, wc.w);
    const int nk = wc.key_end - wc.key_begin;
    AttentionShape sub = p.shape();
    sub.seq_kv = nk;
    std::vector<float> ks, vs;
    for (std::size_t bh = 0; bh < 4; ++bh) {
      const auto first = static_cast<std::ptrdiff_t>((bh * nkv + static_cast<std::size_t>(wc.key_begin)) * d);
      ks.insert(ks.end(), p.k().values.begin() + first, p.k().values.begin() + first + nk * d);
      vs.insert(vs.end(), p.v().values.begin() + first, p.v().values.begin() + first + nk * d);
    }
    std::vector<double> ref(p.ref_o().size()), ref_lse(p.ref_lse().size());
    attention_reference(sub, p.q().values.data(), ks.data(), vs.data(), ref.data(), ref_lse.data());
    const auto o = p.o_bits();
    const auto lse = p.lse();
    std::size_t bad = 0, written_outside = 0;
    for (std::size_t bh = 0; bh < 4; ++bh) {
      for (int r = 0; r < nq; ++r) {
        const std::size_t row = bh * nq + static_cast<std::size_t>(r);
        const bool inside = r >= wc.w.q_tile_begin * br && r < wc.w.q_tile_end * br;
        for (int c2 = 0; c2 < d; ++c2) {
          const std::size_t i = row * d + static_cast<std::size_t>(c2);
          if (inside) {
            bad += !(std::fabs(static_cast<double>(half_bits_to_float(o[i])) - ref[i]) <= 1e-2);
          } else {
            written_outside += o[i] != 0xffff;
          }
        }
        if (inside) {
          bad += !(std::fabs(static_cast<double>(lse[row]) - ref_lse[row]) <=
                   1e-3 * std::max(1.0, std::fabs(ref_lse[row])));
        } else {
          written_outside += !std::isnan(lse[row]);
        }
      }
    }
    EXPECT_EQ(bad, 0u) << "4-warp window: rows differ from attention over the window's keys";
    EXPECT_EQ(written_outside, 0u) << "4-warp window wrote outside its rows";
  }
}

TEST(NaiveAttention, MatchesReferenceOnAwkwardShapes) {
  const unsigned seed = fresh_seed();
  for (const Case& c : kShapes) {
    Problem p(make_shape(c.b, c.h, c.nq, c.nkv, c.d, c.dtype, c.causal), seed);
    ASSERT_TRUE(p.ok());
    run_naive(p);
    expect_matches_reference(p, false, "naive " + describe(p.shape()));
  }
}

TEST(NaiveAttention, RowsUpToTheSharedMemoryLimit) {
  // Nkv <= 8192: the softmax copies each row to shared memory once (8 rows x 16 KB = 128 KB per CTA at
  // 8192); 8191 and 2047 make rows of S unaligned (2-byte path), causal rows end at their diagonal.
  const unsigned seed = fresh_seed();
  for (const int nkv : {8192, 8191, 2047}) {
    for (const bool causal : {false, true}) {
      Problem p(make_shape(1, 2, 24, nkv, 64, nkv == 2047 ? DType::bf16 : DType::fp16, causal), seed);
      ASSERT_TRUE(p.ok());
      run_naive(p);
      expect_matches_reference(p, false, "naive " + describe(p.shape()));
    }
  }
}

TEST(NaiveAttention, LongRowsUseTheTwoPassSoftmax) {
  // Nkv > 8192: rows no longer fit in shared memory; 9001 also makes rows of S unaligned (2-byte path).
  const unsigned seed = fresh_seed();
  for (const int nkv : {9000, 9001}) {
    for (const bool causal : {false, true}) {
      Problem p(make_shape(1, 1, 40, nkv, 64, DType::fp16, causal), seed);
      ASSERT_TRUE(p.ok());
      run_naive(p);
      expect_matches_reference(p, false, "naive " + describe(p.shape()));
      run_tiled(p, TiledConfig{128, 128, 8, 2});
      expect_matches_reference(p, true, "tiled 128x128 " + describe(p.shape()));
    }
  }
}

TEST(TiledAttention, WindowWritesExactlyItsRows) {
  const unsigned seed = fresh_seed();
  Problem p(make_shape(2, 2, 1000, 700, 64, DType::fp16, false), seed);
  ASSERT_TRUE(p.ok());
  const TiledConfig c{64, 64, 4, 2};
  const int q_begin = 3, q_end = 7;  // rows [192, 448)
  run_tiled(p, c, TileWindow{q_begin, q_end, 0, -1});
  const auto o = p.o_bits();
  const auto lse = p.lse();
  const auto& ref = p.ref_o();
  const auto& ref_lse = p.ref_lse();
  const int d = 64, nq = 1000;
  std::size_t outside_written = 0, inside_bad = 0;
  for (std::size_t bh = 0; bh < 4; ++bh) {
    for (int r = 0; r < nq; ++r) {
      const bool inside = r >= q_begin * 64 && r < q_end * 64;
      const std::size_t row = bh * nq + static_cast<std::size_t>(r);
      for (int c2 = 0; c2 < d; ++c2) {
        const std::uint16_t bits = o[row * d + static_cast<std::size_t>(c2)];
        if (!inside) {
          outside_written += bits != 0xffff;
        } else {
          const double err = std::fabs(static_cast<double>(half_bits_to_float(bits)) -
                                       ref[row * d + static_cast<std::size_t>(c2)]);
          inside_bad += !(err <= 1e-2);
        }
      }
      if (!inside) {
        outside_written += !std::isnan(lse[row]);
      } else {
        inside_bad += !(std::fabs(static_cast<double>(lse[row]) - ref_lse[row]) <=
                        1e-3 * std::max(1.0, std::fabs(ref_lse[row])));
      }
    }
  }
  EXPECT_EQ(outside_written, 0u) << "a q-tile window wrote outside its rows";
  EXPECT_EQ(inside_bad, 0u) << "rows inside the window differ from the reference";

  // A kv window [2, 5) (keys [128, 320)): the window's rows hold attention over those keys only.
  run_tiled(p, c, TileWindow{1, 2, 2, 5});
  AttentionShape sub = p.shape();
  sub.seq_kv = 192;
  std::vector<float> ks, vs;
  for (std::size_t bh = 0; bh < 4; ++bh) {
    const auto first = static_cast<std::ptrdiff_t>((bh * 700 + 128) * d);
    ks.insert(ks.end(), p.k().values.begin() + first, p.k().values.begin() + first + 192 * d);
    vs.insert(vs.end(), p.v().values.begin() + first, p.v().values.begin() + first + 192 * d);
  }
  std::vector<double> sub_o(p.ref_o().size()), sub_lse(p.ref_lse().size());
  attention_reference(sub, p.q().values.data(), ks.data(), vs.data(), sub_o.data(), sub_lse.data());
  const auto o2 = p.o_bits();
  std::size_t bad = 0, written_outside = 0;
  for (std::size_t bh = 0; bh < 4; ++bh) {
    for (int r = 0; r < nq; ++r) {
      const std::size_t row = bh * nq + static_cast<std::size_t>(r);
      const bool inside = r >= 64 && r < 128;
      for (int c2 = 0; c2 < d; ++c2) {
        const std::size_t i = row * d + static_cast<std::size_t>(c2);
        if (inside) {
          bad += !(std::fabs(static_cast<double>(half_bits_to_float(o2[i])) - sub_o[i]) <= 1e-2);
        } else {
          written_outside += o2[i] != 0xffff;
        }
      }
    }
  }
  EXPECT_EQ(bad, 0u) << "kv window: rows differ from attention over the window's keys";
  EXPECT_EQ(written_outside, 0u);
}

TEST(NaiveAttention, WindowsWriteExactlyTheirTiles) {
  const unsigned seed = fresh_seed();
  Problem p(make_shape(1, 2, 300, 400, 64, DType::bf16, true), seed);
  ASSERT_TRUE(p.ok());
  const int nq = 300, nkv = 400;
  // qk: row block 1, column blocks [2, 4) -> S rows [128, 256), columns [256, 400).
  ASSERT_TRUE(p.poison());
  ASSERT_TRUE(launch_naive_qk(p.shape(), p.tensors(), TileWindow{1, 2, 2, 4}, nullptr, nullptr));
  ATTN_CUDA_CHECK(cudaDeviceSynchronize());
  auto s = p.s_bits();
  std::size_t wrong = 0;
  for (std::size_t bh = 0; bh < 2; ++bh) {
    for (int r = 0; r < nq; ++r) {
      for (int c = 0; c < nkv; ++c) {
        const bool inside = r >= 128 && r < 256 && c >= 256;
        const std::uint16_t bits =
            s[(bh * nq + static_cast<std::size_t>(r)) * nkv + static_cast<std::size_t>(c)];
        if (!inside) {
          wrong += bits != 0xffff;
          continue;
        }
        double dot = 0;
        for (int j = 0; j < 64; ++j) {
          dot +=
              static_cast<double>(
                  p.q().values[(bh * nq + static_cast<std::size_t>(r)) * 64 + static_cast<std::size_t>(j)]) *
              static_cast<double>(
                  p.k().values[(bh * nkv + static_cast<std::size_t>(c)) * 64 + static_cast<std::size_t>(j)]);
        }
        wrong += !(std::fabs(static_cast<double>(bf16_bits_to_float(bits)) - dot * p.shape().scale) <=
                   2e-2 * std::max(1.0, std::fabs(dot)));
      }
    }
  }
  EXPECT_EQ(wrong, 0u) << "naive.qk window: wrong or out-of-window elements of S";

  // softmax: full S first, then only row blocks [5, 9) (rows [40, 72)) normalised; other rows keep S.
  ASSERT_TRUE(launch_naive_qk(p.shape(), p.tensors(), TileWindow{}, nullptr, nullptr));
  ATTN_CUDA_CHECK(cudaDeviceSynchronize());
  const auto before = p.s_bits();
  ASSERT_TRUE(launch_naive_softmax(p.shape(), p.tensors(), TileWindow{5, 9, 0, -1}, nullptr, nullptr));
  ATTN_CUDA_CHECK(cudaDeviceSynchronize());
  const auto after = p.s_bits();
  std::size_t changed_outside = 0, bad_rows = 0;
  for (std::size_t bh = 0; bh < 2; ++bh) {
    for (int r = 0; r < nq; ++r) {
      const std::size_t base = (bh * nq + static_cast<std::size_t>(r)) * nkv;
      if (r < 40 || r >= 72) {
        changed_outside += !std::equal(before.begin() + static_cast<std::ptrdiff_t>(base),
                                       before.begin() + static_cast<std::ptrdiff_t>(base + nkv),
                                       after.begin() + static_cast<std::ptrdiff_t>(base));
        continue;
      }
      double sum = 0;
      for (int c = 0; c < nkv; ++c)
        sum += static_cast<double>(bf16_bits_to_float(after[base + static_cast<std::size_t>(c)]));
      const bool sees_key = r + nkv - nq >= 0;
      bad_rows += sees_key ? !(std::fabs(sum - 1.0) < 3e-2) : !(sum == 0.0);
    }
  }
  EXPECT_EQ(changed_outside, 0u) << "naive.softmax window touched rows outside it";
  EXPECT_EQ(bad_rows, 0u) << "naive.softmax rows inside the window do not sum to 1";

  // pv: with P complete, row block 2 only (rows [256, 300)) of O written, matching the reference.
  ASSERT_TRUE(launch_naive_softmax(p.shape(), p.tensors(), TileWindow{}, nullptr, nullptr));
  ATTN_CUDA_CHECK(cudaMemset(p.tensors().o, kPoisonByte, static_cast<std::size_t>(2) * nq * 64 * 2));
  ASSERT_TRUE(launch_naive_pv(p.shape(), p.tensors(), TileWindow{2, 3, 0, -1}, nullptr, nullptr));
  ATTN_CUDA_CHECK(cudaDeviceSynchronize());
  const auto o = p.o_bits();
  const auto& ref = p.ref_o();
  std::size_t o_wrong = 0;
  for (std::size_t i = 0; i < o.size(); ++i) {
    const int r = static_cast<int>((i / 64) % nq);
    if (r < 256) {
      o_wrong += o[i] != 0xffff;
    } else {
      o_wrong += !(std::fabs(static_cast<double>(bf16_bits_to_float(o[i])) - ref[i]) <= 5e-2);
    }
  }
  EXPECT_EQ(o_wrong, 0u) << "naive.pv window: wrong or out-of-window rows of O";
}

TEST(Instrumented, TimelinesAreSaneAndResultsCorrect) {
  const unsigned seed = fresh_seed();
  int device = 0, sm_count = 0;
  ATTN_CUDA_CHECK(cudaGetDevice(&device));
  ATTN_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  // Causal 333 x 100: rows 0..232 see no key, so whole q tiles have no visible kv tile (one record each).
  struct TimelineCase {
    int d, nkv;
    bool causal;
  };
  for (const TimelineCase tc :
       {TimelineCase{64, 333, false}, TimelineCase{64, 333, true}, TimelineCase{128, 333, false},
        TimelineCase{128, 333, true}, TimelineCase{64, 100, true}}) {
    const int d = tc.d, nkv = tc.nkv;
    const bool causal = tc.causal;
    {
      Problem p(make_shape(2, 3, 333, nkv, d, DType::fp16, causal), seed);
      ASSERT_TRUE(p.ok());
      for (const TiledConfig& c : compiled_tiled_configs(d, DType::fp16)) {
        // The instrumented build covers every stages-2 configuration of fp16 (see kernels/src).
        ASSERT_EQ(tiled_instrumented_compiled(d, DType::fp16, c), c.stages == 2);
        if (c.stages != 2) continue;
        const std::size_t cap = timeline_capacity("tiled", p.shape(), c, TileWindow{});
        const int q_tiles = (333 + c.br - 1) / c.br, kv_tiles = (nkv + c.bc - 1) / c.bc;
        ASSERT_EQ(cap, static_cast<std::size_t>(6 * q_tiles * kv_tiles));
        DeviceBuffer tl(cap * sizeof(TileTiming));
        ATTN_CUDA_CHECK(cudaMemset(tl.get(), 0xff, tl.bytes()));
        run_tiled(p, c, TileWindow{}, static_cast<TileTiming*>(tl.get()));
        const std::string what = "instrumented Br=" + std::to_string(c.br) + " Bc=" + std::to_string(c.bc) +
                                 " " + describe(p.shape());
        expect_matches_reference(p, true, what);
        std::vector<TileTiming> rec(cap);
        ATTN_CUDA_CHECK(cudaMemcpy(rec.data(), tl.get(), tl.bytes(), cudaMemcpyDeviceToHost));
        std::size_t written = 0, expected = 0, bad = 0;
        for (int bh = 0; bh < 6; ++bh) {
          for (int qt = 0; qt < q_tiles; ++qt) {
            const int max_key = std::min((qt + 1) * c.br, 333) - 1 + nkv - 333;
            const int visible = !causal ? kv_tiles : max_key < 0 ? 0 : std::min(kv_tiles, max_key / c.bc + 1);
            const int recorded =
                std::max(visible, 1);  // a CTA with no visible tile records its store at kv 0
            for (int kt = 0; kt < kv_tiles; ++kt) {
              const TileTiming& r = rec[(static_cast<std::size_t>(bh) * q_tiles + qt) * kv_tiles + kt];
              const bool is_written = r.sm != 0xffffffffu;
              written += is_written;
              expected += kt < recorded;
              if (kt < recorded) {
                bad += !(is_written && r.batch == static_cast<std::uint32_t>(bh / 3) &&
                         r.head == static_cast<std::uint32_t>(bh % 3) &&
                         r.q_tile == static_cast<std::uint32_t>(qt) &&
                         r.kv_tile == static_cast<std::uint32_t>(kt) &&
                         r.sm < static_cast<std::uint32_t>(sm_count) && r.start_ns <= r.end_ns &&
                         r.start_ns > 0);
              } else {
                bad += is_written;  // causal: tiles past the diagonal are not run
              }
            }
          }
        }
        EXPECT_EQ(written, expected) << what;
        EXPECT_EQ(bad, 0u) << what << ": records with wrong ids, SM >= " << sm_count << " or start > end";
      }
    }
  }
  // Naive kernels: one record per CTA.
  Problem p(make_shape(1, 2, 300, 260, 64, DType::bf16, false), seed);
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE(p.poison());
  const char* names[] = {"naive.qk", "naive.softmax", "naive.pv"};
  for (int i = 0; i < 3; ++i) {
    const std::size_t cap = timeline_capacity(names[i], p.shape(), TiledConfig{}, TileWindow{});
    ASSERT_GT(cap, 0u);
    DeviceBuffer tl(cap * sizeof(TileTiming));
    ATTN_CUDA_CHECK(cudaMemset(tl.get(), 0xff, tl.bytes()));
    auto* t = static_cast<TileTiming*>(tl.get());
    const Status st = i == 0   ? launch_naive_qk(p.shape(), p.tensors(), TileWindow{}, t, nullptr)
                      : i == 1 ? launch_naive_softmax(p.shape(), p.tensors(), TileWindow{}, t, nullptr)
                               : launch_naive_pv(p.shape(), p.tensors(), TileWindow{}, t, nullptr);
    ASSERT_TRUE(st) << st.message;
    ATTN_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<TileTiming> rec(cap);
    ATTN_CUDA_CHECK(cudaMemcpy(rec.data(), tl.get(), tl.bytes(), cudaMemcpyDeviceToHost));
    for (const TileTiming& r : rec) {
      EXPECT_LT(r.sm, static_cast<std::uint32_t>(sm_count)) << names[i];
      EXPECT_LE(r.start_ns, r.end_ns) << names[i];
    }
  }
  expect_matches_reference(p, false, "naive instrumented " + describe(p.shape()));
}

TEST(Launchers, RefuseBadInputWithClearStatus) {
  const unsigned seed = fresh_seed();
  Problem p(make_shape(1, 1, 64, 64, 64, DType::fp16, false), seed);
  ASSERT_TRUE(p.ok());
  AttentionShape bad = p.shape();
  bad.head_dim = 96;
  EXPECT_EQ(launch_tiled(bad, TiledConfig{}, p.tensors(), TileWindow{}, nullptr, nullptr).code,
            StatusCode::bad_shape);
  bad = p.shape();
  bad.seq_q = 0;
  EXPECT_EQ(launch_naive_qk(bad, p.tensors(), TileWindow{}, nullptr, nullptr).code, StatusCode::bad_shape);
  DeviceTensors t = p.tensors();
  t.q = static_cast<const char*>(t.q) + 2;
  EXPECT_EQ(launch_tiled(p.shape(), TiledConfig{}, t, TileWindow{}, nullptr, nullptr).code,
            StatusCode::misaligned);
  const Status nc =
      launch_tiled(p.shape(), TiledConfig{32, 64, 2, 2}, p.tensors(), TileWindow{}, nullptr, nullptr);
  EXPECT_EQ(nc.code, StatusCode::config_not_compiled);
  EXPECT_NE(nc.message.find("Br=128 Bc=64"), std::string::npos) << nc.message;
  AttentionShape bf = p.shape();
  bf.dtype = DType::bf16;
  DeviceBuffer tl(sizeof(TileTiming) * 64);
  EXPECT_EQ(
      launch_tiled(bf, TiledConfig{}, p.tensors(), TileWindow{}, static_cast<TileTiming*>(tl.get()), nullptr)
          .code,
      StatusCode::config_not_compiled);
  EXPECT_EQ(
      launch_tiled(p.shape(), TiledConfig{}, p.tensors(), TileWindow{2, 1, 0, -1}, nullptr, nullptr).code,
      StatusCode::bad_shape);
  AttentionShape f32 = p.shape();
  f32.dtype = DType::fp32;
  EXPECT_EQ(launch_naive_pv(f32, p.tensors(), TileWindow{}, nullptr, nullptr).code,
            StatusCode::config_not_compiled);
}

}  // namespace
}  // namespace attnscope::kernels::testing

namespace attnscope::kernels::testing {
namespace {

// Small launches of every kernel and every compiled configuration (plain and instrumented), for
// compute-sanitizer memcheck / racecheck (scripts/gpu_kernels.sh runs this filter under both tools).
// Only the 32-rows-per-warp (4-warp) tiled configurations, plain and instrumented: a short sanitizer run for
// them (`--gtest_filter=Sanitize.SmallFourWarp`).
TEST(Sanitize, SmallFourWarp) {
  const unsigned seed = fresh_seed();
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      for (const bool causal : {false, true}) {
        Problem p(make_shape(1, 1, 97, causal ? 211 : 83, d, dtype, causal), seed);
        ASSERT_TRUE(p.ok());
        for (const TiledConfig& c : compiled_tiled_configs(d, dtype)) {
          if (c.warps * 32 != c.br) continue;
          run_tiled(p, c);
          expect_matches_reference(p, true, "sanitize 4-warp tiled " + describe(p.shape()));
          if (tiled_instrumented_compiled(d, dtype, c)) {
            DeviceBuffer tl(timeline_capacity("tiled", p.shape(), c, TileWindow{}) * sizeof(TileTiming));
            run_tiled(p, c, TileWindow{}, static_cast<TileTiming*>(tl.get()));
          }
        }
      }
    }
  }
}

TEST(Sanitize, SmallEveryKernel) {
  const unsigned seed = fresh_seed();
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      Problem p(make_shape(1, 1, 97, 83, d, dtype, true), seed);
      ASSERT_TRUE(p.ok());
      for (const TiledConfig& c : compiled_tiled_configs(d, dtype)) {
        run_tiled(p, c);
        expect_matches_reference(p, true, "sanitize tiled " + describe(p.shape()));
        if (tiled_instrumented_compiled(d, dtype, c)) {
          DeviceBuffer tl(timeline_capacity("tiled", p.shape(), c, TileWindow{}) * sizeof(TileTiming));
          run_tiled(p, c, TileWindow{}, static_cast<TileTiming*>(tl.get()));
        }
      }
      for (const int nkv : {141, 136}) {  // rows of S unaligned (2-byte path) and aligned (cp.async)
        Problem n(make_shape(1, 1, 150, nkv, d, dtype, true), seed);
        ASSERT_TRUE(n.ok());
        run_naive(n);
        expect_matches_reference(n, false, "sanitize naive " + describe(n.shape()));
      }
    }
  }
}

// The naive kernels alone, small enough for compute-sanitizer in seconds: aligned and unaligned rows of S,
// pv reductions of 2 to 19 steps of 32 keys (ring of 2), qk rows of 1, 2 and 5 column blocks (4 tiles per
// CTA: partial CTAs and a CTA with one tile), causal and not, d 64 / 128, fp16 / bf16.
TEST(Sanitize, SmallNaive) {
  const unsigned seed = fresh_seed();
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      for (const int nkv : {64, 141, 136, 600}) {
        Problem n(make_shape(1, 2, 150, nkv, d, dtype, nkv != 600), seed);
        ASSERT_TRUE(n.ok());
        run_naive(n);
        expect_matches_reference(n, false, "sanitize naive " + describe(n.shape()));
      }
    }
  }
}

}  // namespace
}  // namespace attnscope::kernels::testing
