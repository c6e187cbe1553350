// SPDX-License-Identifier: Apache-2.0
// GPU tests of the Hopper attention kernel (launch_hopper): every compiled configuration against the
// float64 reference on fresh random inputs (seed printed), O and LSE poisoned with NaN before every launch
// and every element checked with the tiled kernel's tolerances; lengths that are not multiples of any tile
// (1, 77, 1000, 2049), Nq != Nkv both ways (causal rows that see no key), B * H > 1; no O store past row
// Nq - 1 of a head (the O tensor map's bounds); tile windows write exactly their rows; the timeline build's
// records (one per kv step); the launcher's refusals; small launches of every configuration, the timeline
// build and a window for compute-sanitizer (Sanitize.SmallHopper).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "attnscope/kernels/hopper.hpp"
#include "attnscope/vocab/geometry.hpp"
#include "forward_problem.hpp"
#include "gpu_test_support.hpp"

namespace attnscope::kernels::testing {
namespace {

// The fused kernel needs no naive scratch.
class HopperProblem : public Problem {
 public:
  HopperProblem(const AttentionShape& shape, unsigned seed) : Problem(shape, seed, /*naive_scratch=*/false) {}
};

std::string name(const HopperConfig& c, const AttentionShape& s) {
  return "hopper Br=" + std::to_string(c.br) + " Bc=" + std::to_string(c.bc) +
         " C=" + std::to_string(c.consumers) + " S=" + std::to_string(c.stages) +
         (c.overlap ? " overlap " : " serial ") + (c.pingpong ? "pingpong " : "") +
         (c.persistent ? "persistent " : "") + describe(s);
}

// Every element of O and every LSE row, with the tiled kernel's tolerances.
void expect_matches_reference(HopperProblem& p, const std::string& what) {
  testing::expect_matches_reference(p, /*check_lse=*/true, what);
}

void run_hopper(HopperProblem& p, const HopperConfig& c) {
  ASSERT_TRUE(p.poison());
  const Status st = launch_hopper(p.shape(), c, p.tensors(), nullptr);
  ASSERT_TRUE(st) << st.message;
  ATTN_CUDA_CHECK(cudaDeviceSynchronize());
}

struct Case {
  int b, h, nq, nkv;
  bool causal;
};

// Lengths not multiples of any tile, one-row problems, Nq != Nkv both ways (Nq > Nkv causal: rows that see
// no key), B * H > 1, a problem of whole tiles.
const Case kCases[] = {
    {1, 1, 1, 1, false},      {1, 1, 1, 1, true},        {1, 2, 77, 77, false},   {1, 2, 77, 77, true},
    {1, 2, 1000, 1000, true}, {2, 3, 1000, 1000, false}, {2, 2, 300, 1000, true}, {2, 1, 1000, 300, true},
    {1, 1, 1, 77, false},     {1, 1, 77, 1, true},       {1, 3, 256, 512, true},  {1, 2, 1000, 300, false},
};

TEST(HopperAttention, EveryConfigMatchesReferenceOnAwkwardShapes) {
  const unsigned seed = fresh_seed();
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      const auto configs = compiled_hopper_configs(d, dtype);
      ASSERT_FALSE(configs.empty());
      for (const Case& c : kCases) {
        HopperProblem p(make_shape(c.b, c.h, c.nq, c.nkv, d, dtype, c.causal), seed);
        ASSERT_TRUE(p.ok());
        for (const HopperConfig& config : configs) {
          run_hopper(p, config);
          expect_matches_reference(p, name(config, p.shape()));
        }
      }
    }
  }
}

// Long rows: many kv steps through the ring (each slot reused many times: the empty/full barrier phases).
TEST(HopperAttention, LongRowsMatchReference) {
  const unsigned seed = fresh_seed();
  for (const DType dtype : {DType::fp16, DType::bf16}) {
    for (const int d : {64, 128}) {
      HopperProblem p(make_shape(1, 1, 2049, 2049, d, dtype, dtype == DType::fp16), seed);
      ASSERT_TRUE(p.ok());
      for (const HopperConfig& config : compiled_hopper_configs(d, dtype)) {
        run_hopper(p, config);
        expect_matches_reference(p, name(config, p.shape()));
      }
    }
  }
}

// The persistent kernel with several tiles per CTA (more tiles than SMs: each CTA runs about 3 tiles, both Q
// buffers, the ring's phases running on across tiles, rows with no key and partial tiles among them).
TEST(HopperAttention, PersistentManyTilesPerCtaMatchReference) {
  const unsigned seed = fresh_seed();
  int sms = 0;
  ATTN_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      std::vector<HopperConfig> persistent;
      for (const HopperConfig& config : compiled_hopper_configs(d, dtype))
        if (config.persistent) persistent.push_back(config);
      ASSERT_FALSE(persistent.empty()) << "no persistent configuration compiled for d " << d;
      for (const Case& c :
           {Case{2, 0, 300, 400, true}, Case{1, 0, 700, 300, true}, Case{2, 0, 211, 77, false}}) {
        // Heads so that the launch has about 3 tiles of 128 rows per SM.
        const int heads = std::max(1, 3 * sms / (((c.nq + 127) / 128) * c.b));
        HopperProblem p(make_shape(c.b, heads, c.nq, c.nkv, d, dtype, c.causal), seed);
        ASSERT_TRUE(p.ok());
        for (const HopperConfig& config : persistent) {
          run_hopper(p, config);
          expect_matches_reference(p, name(config, p.shape()));
        }
      }
    }
  }
}

// Rows >= Nq are never written: each (batch, head) slice is launched alone, the last slice first, into one O
// buffer followed by a poisoned guard, so a store past row Nq - 1 of slice s lands in slice s + 1 (already
// written, then wrong against the reference) or in the guard (then no longer poison).
TEST(HopperAttention, NoStorePastTheLastRowOfAHead) {
  const unsigned seed = fresh_seed();
  struct Lengths {
    int nq, nkv;
    bool causal;
  };
  const Lengths cases[] = {{1, 77, false},   {77, 1000, true},  {1000, 300, false},
                           {2049, 1, false}, {300, 1000, true}, {1000, 77, true}};
  constexpr int kSlices = 3;
  constexpr std::size_t kGuardRows = 256;
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      for (const Lengths& c : cases) {
        HopperProblem p(make_shape(1, kSlices, c.nq, c.nkv, d, dtype, c.causal), seed);
        ASSERT_TRUE(p.ok());
        const std::size_t row_bytes = static_cast<std::size_t>(d) * 2;
        const std::size_t slice_bytes = static_cast<std::size_t>(c.nq) * row_bytes;
        DeviceBuffer o(kSlices * slice_bytes + kGuardRows * row_bytes);
        ASSERT_NE(o.get(), nullptr);
        for (const HopperConfig& config : compiled_hopper_configs(d, dtype)) {
          ASSERT_TRUE(p.poison());
          ATTN_CUDA_CHECK(cudaMemset(o.get(), kPoisonByte, o.bytes()));
          AttentionShape one = p.shape();
          one.heads = 1;
          for (int s = kSlices - 1; s >= 0; --s) {
            const auto at = [](const void* base, std::size_t bytes) {
              return static_cast<void*>(static_cast<char*>(const_cast<void*>(base)) + bytes);
            };
            DeviceTensors t = p.tensors();
            const auto kv_bytes = static_cast<std::size_t>(s) * c.nkv * row_bytes;
            t.q = at(t.q, static_cast<std::size_t>(s) * slice_bytes);
            t.k = at(t.k, kv_bytes);
            t.v = at(t.v, kv_bytes);
            t.o = at(o.get(), static_cast<std::size_t>(s) * slice_bytes);
            t.lse += static_cast<std::size_t>(s) * c.nq;
            const Status st = launch_hopper(one, config, t, nullptr);
            ASSERT_TRUE(st) << st.message;
          }
          ATTN_CUDA_CHECK(cudaDeviceSynchronize());
          ATTN_CUDA_CHECK(
              cudaMemcpy(p.tensors().o, o.get(), kSlices * slice_bytes, cudaMemcpyDeviceToDevice));
          const std::string what = "slice by slice " + name(config, p.shape());
          expect_matches_reference(p, what);
          std::vector<unsigned char> guard(kGuardRows * row_bytes);
          ATTN_CUDA_CHECK(cudaMemcpy(guard.data(), static_cast<char*>(o.get()) + kSlices * slice_bytes,
                                     guard.size(), cudaMemcpyDeviceToHost));
          const auto written =
              std::count_if(guard.begin(), guard.end(), [](unsigned char b) { return b != kPoisonByte; });
          EXPECT_EQ(written, 0) << what << ": bytes written after the last row of the last head";
        }
      }
    }
  }
}

// A window of q tiles (all kv tiles) and one of q and kv tiles: the window's rows get the attention over the
// window's keys, every other row of O and LSE stays poisoned.
TEST(HopperAttention, WindowWritesExactlyItsRows) {
  const unsigned seed = fresh_seed();
  constexpr int nq = 1000, nkv = 700, slices = 4;
  for (const int d : {64, 128}) {
    const HopperConfig c = default_hopper_config(d, false);
    HopperProblem p(make_shape(2, 2, nq, nkv, d, DType::fp16, false), seed);
    ASSERT_TRUE(p.ok());
    struct WindowCase {
      TileWindow w;
      int key_begin, key_end;
    };
    const int q_tiles = (nq + c.br - 1) / c.br;  // the last case starts at the last q tile
    for (const WindowCase& wc : {WindowCase{TileWindow{2, 5, 0, -1}, 0, nkv},
                                 WindowCase{TileWindow{1, 3, 2, 4}, 2 * c.bc, std::min(nkv, 4 * c.bc)},
                                 WindowCase{TileWindow{q_tiles - 1, -1, 5, -1}, 5 * c.bc, nkv}}) {
      ASSERT_TRUE(p.poison());
      const Status st = launch_hopper(p.shape(), c, p.tensors(), wc.w, nullptr, nullptr);
      ASSERT_TRUE(st) << st.message;
      ATTN_CUDA_CHECK(cudaDeviceSynchronize());
      const int nk = wc.key_end - wc.key_begin;
      AttentionShape sub = p.shape();
      sub.seq_kv = nk;
      std::vector<float> ks, vs;
      for (std::size_t bh = 0; bh < slices; ++bh) {
        const auto first =
            static_cast<std::ptrdiff_t>((bh * nkv + static_cast<std::size_t>(wc.key_begin)) * d);
        ks.insert(ks.end(), p.k().values.begin() + first, p.k().values.begin() + first + nk * d);
        vs.insert(vs.end(), p.v().values.begin() + first, p.v().values.begin() + first + nk * d);
      }
      std::vector<double> ref(p.ref_o().size()), ref_lse(p.ref_lse().size());
      attention_reference(sub, p.q().values.data(), ks.data(), vs.data(), ref.data(), ref_lse.data());
      const auto o = p.o_bits();
      const auto lse = p.lse();
      ASSERT_EQ(o.size(), ref.size());
      const int row_end = wc.w.q_tile_end == -1 ? nq : std::min(nq, wc.w.q_tile_end * c.br);
      std::size_t bad = 0, written_outside = 0, inside = 0;
      for (std::size_t bh = 0; bh < slices; ++bh) {
        for (int r = 0; r < nq; ++r) {
          const std::size_t row = bh * nq + static_cast<std::size_t>(r);
          const bool in = r >= wc.w.q_tile_begin * c.br && r < row_end;
          inside += in;
          for (int col = 0; col < d; ++col) {
            const std::size_t i = row * d + static_cast<std::size_t>(col);
            if (in) {
              bad += !(std::fabs(static_cast<double>(from_dtype_bits(o[i], DType::fp16)) - ref[i]) <= 1e-2);
            } else {
              written_outside += o[i] != 0xffff;
            }
          }
          if (in) {
            bad += !(std::fabs(static_cast<double>(lse[row]) - ref_lse[row]) <=
                     1e-3 * std::max(1.0, std::fabs(ref_lse[row])));
          } else {
            written_outside += !std::isnan(lse[row]);
          }
        }
      }
      const std::string what = "window q [" + std::to_string(wc.w.q_tile_begin) + ", " +
                               std::to_string(wc.w.q_tile_end) + ") kv [" +
                               std::to_string(wc.w.kv_tile_begin) + ", " + std::to_string(wc.w.kv_tile_end) +
                               ") " + name(c, p.shape());
      EXPECT_GT(inside, 0u) << what;
      EXPECT_EQ(bad, 0u) << what << ": elements of the window off the reference over its keys";
      EXPECT_EQ(written_outside, 0u) << what << ": elements written outside the window";
    }
  }
}

// The timeline build: one record per visible kv step of every CTA (one at kv tile 0 for a CTA whose rows see
// no key), ids from the grid, an SM that exists, start <= end, each step starting where the previous ended;
// no other record touched; O and LSE as without it.
TEST(HopperAttention, TimelineHasOneRecordPerKvStep) {
  const unsigned seed = fresh_seed();
  int device = 0, sm_count = 0;
  ATTN_CUDA_CHECK(cudaGetDevice(&device));
  ATTN_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device));
  struct Lengths {
    int nq, nkv;
    bool causal;
  };
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      for (const Lengths& len :
           {Lengths{333, 700, false}, Lengths{333, 700, true}, Lengths{1000, 200, true}}) {
        const HopperConfig c = default_hopper_config(d, len.causal);
        ASSERT_TRUE(hopper_instrumented_compiled(d, dtype, c));
        HopperProblem p(make_shape(2, 3, len.nq, len.nkv, d, dtype, len.causal), seed);
        ASSERT_TRUE(p.ok());
        const int q_tiles = (len.nq + c.br - 1) / c.br, kv_tiles = (len.nkv + c.bc - 1) / c.bc;
        const std::size_t cap = hopper_timeline_capacity(p.shape(), c, TileWindow{});
        ASSERT_EQ(cap, static_cast<std::size_t>(6 * q_tiles * kv_tiles));
        DeviceBuffer tl(cap * sizeof(TileTiming));
        ASSERT_NE(tl.get(), nullptr);
        ATTN_CUDA_CHECK(cudaMemset(tl.get(), 0xff, tl.bytes()));
        ASSERT_TRUE(p.poison());
        const Status st = launch_hopper(p.shape(), c, p.tensors(), TileWindow{},
                                        static_cast<TileTiming*>(tl.get()), nullptr);
        ASSERT_TRUE(st) << st.message;
        ATTN_CUDA_CHECK(cudaDeviceSynchronize());
        const std::string what = "timeline " + name(c, p.shape());
        expect_matches_reference(p, what);
        std::vector<TileTiming> rec(cap);
        ATTN_CUDA_CHECK(cudaMemcpy(rec.data(), tl.get(), tl.bytes(), cudaMemcpyDeviceToHost));
        std::map<std::tuple<int, int, int, int>, TileTiming> got;  // (batch, head, q tile, kv tile)
        std::size_t bad = 0, untouched = 0;
        for (const TileTiming& r : rec) {
          if (r.sm == 0xffffffffu && r.start_ns == ~std::uint64_t{0} && r.end_ns == ~std::uint64_t{0}) {
            ++untouched;
            continue;
          }
          bad += !(r.sm < static_cast<std::uint32_t>(sm_count) && r.start_ns > 0 && r.start_ns <= r.end_ns &&
                   r.end_ns != ~std::uint64_t{0});
          const bool fresh = got.emplace(std::tuple{static_cast<int>(r.batch), static_cast<int>(r.head),
                                                    static_cast<int>(r.q_tile), static_cast<int>(r.kv_tile)},
                                         r)
                                 .second;
          bad += !fresh;  // two records of one tile
        }
        std::size_t expected = 0, missing = 0, not_contiguous = 0;
        for (int b = 0; b < 2; ++b) {
          for (int h = 0; h < 3; ++h) {
            for (int qt = 0; qt < q_tiles; ++qt) {
              const int visible = static_cast<int>(
                  vocab::hopper_visible_kv_tiles(c, len.nq, len.nkv, vocab::mask_of(len.causal), qt));
              const int recorded = std::max(visible, 1);
              for (int kt = 0; kt < recorded; ++kt) {
                ++expected;
                const auto it = got.find(std::tuple{b, h, qt, kt});
                if (it == got.end()) {
                  ++missing;
                  continue;
                }
                if (kt > 0) {
                  const auto prev = got.find(std::tuple{b, h, qt, kt - 1});
                  not_contiguous += prev != got.end() && prev->second.end_ns != it->second.start_ns;
                }
              }
            }
          }
        }
        EXPECT_EQ(got.size(), expected) << what << ": records written";
        EXPECT_EQ(untouched, cap - expected) << what;
        EXPECT_EQ(missing, 0u) << what << ": kv steps without a record";
        EXPECT_EQ(bad, 0u) << what << ": records with SM >= " << sm_count << ", start > end or twice";
        EXPECT_EQ(not_contiguous, 0u) << what << ": a step not starting where the previous one ended";
      }
    }
  }
}

TEST(HopperAttention, ConfigsAreValidAndSmemMatchesVocab) {
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      for (const HopperConfig& c : compiled_hopper_configs(d, dtype)) {
        EXPECT_TRUE(vocab::hopper_config_valid(c, d, dtype));
        const AttentionShape s = make_shape(1, 1, 128, 128, d, dtype, false);
        EXPECT_EQ(hopper_smem_bytes(s, c), static_cast<std::size_t>(vocab::hopper_smem_bytes(c, d, dtype)));
      }
      for (const bool causal : {false, true}) {
        const HopperConfig def = default_hopper_config(d, causal);
        bool default_compiled = false;
        for (const HopperConfig& c : compiled_hopper_configs(d, dtype))
          default_compiled =
              default_compiled ||
              (c.br == def.br && c.bc == def.bc && c.consumers == def.consumers && c.stages == def.stages &&
               c.overlap == def.overlap && c.pingpong == def.pingpong && c.persistent == def.persistent);
        EXPECT_TRUE(default_compiled)
            << "default_hopper_config(" << d << ", " << causal << ") is not compiled";
        EXPECT_TRUE(hopper_instrumented_compiled(d, dtype, def))
            << "the timeline build of default_hopper_config(" << d << ", " << causal << ") is not compiled";
      }
    }
  }
}

TEST(HopperAttention, RefusesBadInputWithClearStatus) {
  const unsigned seed = fresh_seed();
  HopperProblem p(make_shape(1, 1, 64, 64, 64, DType::fp16, false), seed);
  ASSERT_TRUE(p.ok());
  const HopperConfig c = default_hopper_config(64, false);
  AttentionShape bad = p.shape();
  bad.head_dim = 96;
  EXPECT_EQ(launch_hopper(bad, c, p.tensors(), nullptr).code, StatusCode::bad_shape);
  bad = p.shape();
  bad.seq_kv = 0;
  EXPECT_EQ(launch_hopper(bad, c, p.tensors(), nullptr).code, StatusCode::bad_shape);
  bad = p.shape();
  bad.causal = true;
  bad.window = 16;
  EXPECT_EQ(launch_hopper(bad, c, p.tensors(), nullptr).code, StatusCode::config_not_compiled);
  const Status not_compiled =
      launch_hopper(p.shape(), HopperConfig{64, 96, 1, 2, true, false}, p.tensors(), nullptr);
  EXPECT_EQ(not_compiled.code, StatusCode::config_not_compiled);
  EXPECT_NE(not_compiled.message.find("compiled:"), std::string::npos) << not_compiled.message;
  DeviceTensors t = p.tensors();
  t.k = static_cast<const char*>(t.k) + 2;  // rows no longer 16-byte aligned for the copy engine
  EXPECT_EQ(launch_hopper(p.shape(), c, t, nullptr).code, StatusCode::misaligned);
  t = p.tensors();
  t.o = nullptr;
  EXPECT_EQ(launch_hopper(p.shape(), c, t, nullptr).code, StatusCode::misaligned);
  // A window beginning past the grid (1 q tile here), and a timeline for a tile without the timeline build.
  EXPECT_EQ(launch_hopper(p.shape(), c, p.tensors(), TileWindow{2, -1, 0, -1}, nullptr, nullptr).code,
            StatusCode::bad_shape);
  DeviceBuffer tl(64 * sizeof(TileTiming));
  ASSERT_NE(tl.get(), nullptr);
  const HopperConfig other{128, 128, 2, 2, false, false};  // compiled for d 64, not the default there
  ASSERT_FALSE(hopper_instrumented_compiled(64, DType::fp16, other));
  const Status no_timeline =
      launch_hopper(p.shape(), other, p.tensors(), TileWindow{}, static_cast<TileTiming*>(tl.get()), nullptr);
  EXPECT_EQ(no_timeline.code, StatusCode::config_not_compiled);
  EXPECT_NE(no_timeline.message.find("timeline"), std::string::npos) << no_timeline.message;
}

}  // namespace

// Small launches of every Hopper configuration for compute-sanitizer memcheck / racecheck
// (`--gtest_filter=Sanitize.SmallHopper`): partial q and kv tiles, causal rows with no key, several kv steps.
TEST(Sanitize, SmallHopper) {
  const unsigned seed = fresh_seed();
  for (const int d : {64, 128}) {
    for (const DType dtype : {DType::fp16, DType::bf16}) {
      for (const bool causal : {false, true}) {
        HopperProblem p(make_shape(1, 2, causal ? 211 : 97, causal ? 150 : 300, d, dtype, causal), seed);
        ASSERT_TRUE(p.ok());
        for (const HopperConfig& c : compiled_hopper_configs(d, dtype)) {
          run_hopper(p, c);
          expect_matches_reference(p, "sanitize " + name(c, p.shape()));
        }
        // The persistent configurations with several tiles per CTA (the shape above has a few tiles only).
        int sms = 0;
        ATTN_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
        for (const HopperConfig& c : compiled_hopper_configs(d, dtype)) {
          if (!c.persistent) continue;
          HopperProblem many(make_shape(1, 2 * sms, causal ? 211 : 97, causal ? 150 : 300, d, dtype, causal),
                             seed);
          ASSERT_TRUE(many.ok());
          run_hopper(many, c);
          expect_matches_reference(many, "sanitize many tiles " + name(c, many.shape()));
          // A window: q tiles from the second, kv tiles from the second on.
          ASSERT_TRUE(many.poison());
          const Status st =
              launch_hopper(many.shape(), c, many.tensors(), TileWindow{1, -1, 1, -1}, nullptr, nullptr);
          ASSERT_TRUE(st) << st.message;
          ATTN_CUDA_CHECK(cudaDeviceSynchronize());
        }
        // The timeline build, then a window of the second q tile and kv tiles from the second on.
        const HopperConfig def = default_hopper_config(d, causal);
        const std::size_t cap = hopper_timeline_capacity(p.shape(), def, TileWindow{});
        DeviceBuffer tl(cap * sizeof(TileTiming));
        ASSERT_NE(tl.get(), nullptr);
        ASSERT_TRUE(p.poison());
        Status st = launch_hopper(p.shape(), def, p.tensors(), TileWindow{},
                                  static_cast<TileTiming*>(tl.get()), nullptr);
        ASSERT_TRUE(st) << st.message;
        ATTN_CUDA_CHECK(cudaDeviceSynchronize());
        expect_matches_reference(p, "sanitize timeline " + name(def, p.shape()));
        st = launch_hopper(p.shape(), def, p.tensors(), TileWindow{1, 2, 1, -1}, nullptr, nullptr);
        ASSERT_TRUE(st) << st.message;
        ATTN_CUDA_CHECK(cudaDeviceSynchronize());
      }
    }
  }
}

}  // namespace attnscope::kernels::testing
