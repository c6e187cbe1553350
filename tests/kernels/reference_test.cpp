// SPDX-License-Identifier: Apache-2.0
// Tests of kernels/reference/*.cpp: the float64 reference attention and the fp16/bf16 conversions.
#include "attnscope/kernels/reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace ak = attnscope::kernels;

namespace {

std::vector<float> random_tensor(std::size_t count, std::mt19937& rng, ak::DType dtype) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> out(count);
  for (auto& x : out) x = ak::round_to_dtype(dist(rng), dtype);
  return out;
}

// An independent O(N^2 d) formulation: full score matrix, masked with -inf, softmax by exp(s - lse); the
// ALiBi bias -slope_h |i + Nkv - Nq - j| with the slopes given.
void naive_triple_loop(const ak::AttentionShape& s, const std::vector<float>& q, const std::vector<float>& k,
                       const std::vector<float>& v, std::vector<double>& o, std::vector<double>& lse,
                       const std::vector<float>& slopes = {}) {
  const int nq = s.seq_q, nkv = s.seq_kv, d = s.head_dim;
  for (int bh = 0; bh < s.batch * s.heads; ++bh) {
    std::vector<double> score(static_cast<std::size_t>(nq) * nkv);
    for (int i = 0; i < nq; ++i) {
      for (int j = 0; j < nkv; ++j) {
        double dot = 0;
        for (int c = 0; c < d; ++c) {
          dot +=
              double(q[(std::size_t(bh) * nq + i) * d + c]) * double(k[(std::size_t(bh) * nkv + j) * d + c]);
        }
        const int rel = i + nkv - nq - j;
        const bool masked = (s.causal && rel < 0) || (s.window > 0 && rel >= s.window);
        const double bias = s.alibi ? -double(slopes[std::size_t(bh % s.heads)]) * std::abs(rel) : 0.0;
        score[std::size_t(i) * nkv + j] = masked ? -INFINITY : dot * double(s.scale) + bias;
      }
    }
    for (int i = 0; i < nq; ++i) {
      double sum = 0;
      for (int j = 0; j < nkv; ++j) sum += std::exp(score[std::size_t(i) * nkv + j]);
      const double l = std::log(sum);
      lse[std::size_t(bh) * nq + i] = l;
      for (int c = 0; c < d; ++c) {
        double acc = 0;
        if (sum > 0) {
          for (int j = 0; j < nkv; ++j) {
            acc += std::exp(score[std::size_t(i) * nkv + j] - l) *
                   double(v[(std::size_t(bh) * nkv + j) * d + c]);
          }
        }
        o[(std::size_t(bh) * nq + i) * d + c] = acc;
      }
    }
  }
}

}  // namespace

TEST(Reference, MatchesIndependentTripleLoop) {
  const unsigned seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  for (const bool causal : {false, true}) {
    for (const auto& [nq, nkv] : {std::pair{7, 7}, std::pair{5, 13}, std::pair{13, 5}, std::pair{33, 17}}) {
      const ak::AttentionShape s{2, 3, nq, nkv, 16, ak::DType::fp16, causal, 0.25f};
      const std::size_t nqd = std::size_t(6) * nq * 16, nkvd = std::size_t(6) * nkv * 16;
      const auto q = random_tensor(nqd, rng, s.dtype), k = random_tensor(nkvd, rng, s.dtype),
                 v = random_tensor(nkvd, rng, s.dtype);
      std::vector<double> o(nqd), lse(std::size_t(6) * nq), o2(nqd), lse2(std::size_t(6) * nq);
      ak::attention_reference(s, q.data(), k.data(), v.data(), o.data(), lse.data());
      naive_triple_loop(s, q, k, v, o2, lse2);
      for (std::size_t i = 0; i < nqd; ++i) ASSERT_NEAR(o[i], o2[i], 1e-12) << "element " << i;
      for (std::size_t i = 0; i < lse.size(); ++i) {
        if (std::isinf(lse2[i])) {
          EXPECT_TRUE(std::isinf(lse[i]) && lse[i] < 0) << "row " << i;
        } else {
          ASSERT_NEAR(lse[i], lse2[i], 1e-12) << "row " << i;
        }
      }
    }
  }
}

// Masks: causal, sliding windows (1 key, narrower and wider than the rows), ALiBi with and without them,
// against the triple loop with non-standard slopes.
TEST(Reference, MasksMatchIndependentTripleLoop) {
  std::mt19937 rng(std::random_device{}());
  struct Mask {
    bool causal;
    int window;
    bool alibi;
  };
  for (const Mask m : {Mask{true, 1, false}, Mask{true, 4, false}, Mask{true, 40, false},
                       Mask{false, 0, true}, Mask{true, 0, true}, Mask{true, 6, true}}) {
    for (const auto& [nq, nkv] : {std::pair{7, 7}, std::pair{5, 13}, std::pair{13, 5}, std::pair{33, 17}}) {
      ak::AttentionShape s{1, 3, nq, nkv, 8, ak::DType::bf16, m.causal, 0.3f};
      s.window = m.window;
      s.alibi = m.alibi;
      const std::size_t nqd = std::size_t(3) * nq * 8, nkvd = std::size_t(3) * nkv * 8;
      const auto q = random_tensor(nqd, rng, s.dtype), k = random_tensor(nkvd, rng, s.dtype),
                 v = random_tensor(nkvd, rng, s.dtype);
      const std::vector<float> slopes{0.5f, 0.03f, 1.7f};
      std::vector<double> o(nqd), lse(std::size_t(3) * nq), o2(nqd), lse2(std::size_t(3) * nq);
      ak::attention_reference(s, q.data(), k.data(), v.data(), o.data(), lse.data(), slopes.data());
      naive_triple_loop(s, q, k, v, o2, lse2, slopes);
      for (std::size_t i = 0; i < nqd; ++i)
        ASSERT_NEAR(o[i], o2[i], 1e-12) << "window " << m.window << " alibi " << m.alibi << " element " << i;
      for (std::size_t i = 0; i < lse.size(); ++i) {
        if (std::isinf(lse2[i]))
          EXPECT_TRUE(std::isinf(lse[i]) && lse[i] < 0) << "row " << i;
        else
          ASSERT_NEAR(lse[i], lse2[i], 1e-12) << "row " << i;
      }
    }
  }
}

// The ALiBi paper's slopes: a geometric sequence from 2^(-8/n) for n a power of two; 12 heads take the 8
// of n = 8 and then every other one of n = 16.
TEST(Reference, AlibiSlopesFollowThePaper) {
  const std::vector<float> eight = ak::alibi_slopes(8);
  ASSERT_EQ(eight.size(), 8u);
  for (int h = 0; h < 8; ++h) EXPECT_FLOAT_EQ(eight[std::size_t(h)], std::exp2(-float(h + 1)));
  const std::vector<float> twelve = ak::alibi_slopes(12);
  ASSERT_EQ(twelve.size(), 12u);
  for (int h = 0; h < 8; ++h) EXPECT_FLOAT_EQ(twelve[std::size_t(h)], eight[std::size_t(h)]);
  for (int h = 0; h < 4; ++h)
    EXPECT_FLOAT_EQ(twelve[std::size_t(8 + h)], std::exp2(-0.5f * float(2 * h + 1)));
  EXPECT_TRUE(ak::alibi_slopes(0).empty());
}

TEST(Reference, SoftmaxRowsSumToOne) {
  // With V holding a column of ones, that output column is the sum of the softmax row: exactly 1.
  std::mt19937 rng(std::random_device{}());
  const ak::AttentionShape s{1, 2, 19, 23, 8, ak::DType::bf16, false, 0.5f};
  auto q = random_tensor(2 * 19 * 8, rng, s.dtype), k = random_tensor(2 * 23 * 8, rng, s.dtype);
  std::vector<float> v(2 * 23 * 8);
  for (std::size_t r = 0; r < 2 * 23; ++r) {
    for (std::size_t c = 0; c < 8; ++c) v[r * 8 + c] = c == 0 ? 1.0f : float(r % 23 == c ? 1 : 0);
  }
  std::vector<double> o(2 * 19 * 8), lse(2 * 19);
  ak::attention_reference(s, q.data(), k.data(), v.data(), o.data(), lse.data());
  for (std::size_t r = 0; r < 2 * 19; ++r) {
    EXPECT_NEAR(o[r * 8], 1.0, 1e-14);
    // Column c in 1..7 is the probability of key c (V row c has a one at column c): in (0, 1).
    for (std::size_t c = 1; c < 8; ++c) {
      EXPECT_GT(o[r * 8 + c], 0.0);
      EXPECT_LT(o[r * 8 + c], 1.0);
    }
  }
}

TEST(Reference, CausalRowsThatSeeNoKeyGiveZeroAndMinusInf) {
  // Nq = 6, Nkv = 3: row i sees keys j <= i - 3, so rows 0..2 see none, row 3 sees exactly key 0.
  std::mt19937 rng(std::random_device{}());
  const ak::AttentionShape s{1, 1, 6, 3, 4, ak::DType::fp16, true, 1.0f};
  auto q = random_tensor(6 * 4, rng, s.dtype), k = random_tensor(3 * 4, rng, s.dtype),
       v = random_tensor(3 * 4, rng, s.dtype);
  std::vector<double> o(6 * 4, 7.0), lse(6, 7.0);
  ak::attention_reference(s, q.data(), k.data(), v.data(), o.data(), lse.data());
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(std::isinf(lse[i]) && lse[i] < 0);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(o[i * 4 + c], 0.0);
  }
  // Row 3 sees one key: O = V[0], LSE = its scaled score.
  double dot = 0;
  for (int c = 0; c < 4; ++c) dot += double(q[3 * 4 + c]) * double(k[c]);
  EXPECT_NEAR(lse[3], dot, 1e-12);
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(o[3 * 4 + c], double(v[c]), 1e-12);
}

TEST(DtypeConvert, HalfKnownValues) {
  EXPECT_EQ(ak::float_to_half_bits(1.0f), 0x3c00);
  EXPECT_EQ(ak::float_to_half_bits(-2.0f), 0xc000);
  EXPECT_EQ(ak::float_to_half_bits(65504.0f), 0x7bff);
  EXPECT_EQ(ak::float_to_half_bits(65520.0f), 0x7c00);  // halfway to 65536 rounds to even: inf
  EXPECT_EQ(ak::float_to_half_bits(65519.0f), 0x7bff);
  EXPECT_EQ(ak::float_to_half_bits(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(ak::float_to_half_bits(std::ldexp(1.0f, -25)), 0x0000);  // halfway to it: ties to even (0)
  EXPECT_EQ(ak::float_to_half_bits(std::ldexp(3.0f, -26)), 0x0001);  // 0.75 ulp: up
  EXPECT_EQ(ak::float_to_half_bits(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 ulp: ties to even (2)
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: even is 1. 1 + 3*2^-11 is halfway: even is 1 + 2^-9.
  EXPECT_EQ(ak::float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(ak::float_to_half_bits(1.0f + std::ldexp(3.0f, -11)), 0x3c02);
  EXPECT_EQ(ak::float_to_half_bits(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_TRUE(std::isnan(ak::half_bits_to_float(ak::float_to_half_bits(std::nanf("")))));
  EXPECT_EQ(ak::half_bits_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(ak::half_bits_to_float(0x3555), 0.333251953125f);
}

TEST(DtypeConvert, HalfRoundTripAndNearest) {
  // Every finite half round-trips exactly; random floats land on the nearest half (ties even).
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    if ((bits & 0x7c00) == 0x7c00) continue;
    ASSERT_EQ(ak::float_to_half_bits(ak::half_bits_to_float(bits)), bits) << std::hex << b;
  }
  std::mt19937 rng(std::random_device{}());
  std::uniform_real_distribution<float> dist(-70000.0f, 70000.0f);
  for (int t = 0; t < 20000; ++t) {
    const float x = t % 2 ? dist(rng) : dist(rng) * 1e-6f;
    const std::uint16_t h = ak::float_to_half_bits(x);
    const double r = ak::half_bits_to_float(h);
    if (std::isinf(r)) {
      ASSERT_GE(std::fabs(x), 65520.0f);
      continue;
    }
    // Neighbours of h (towards zero and away from it) are never strictly closer.
    for (const int delta : {-1, 1}) {
      const auto nb = static_cast<std::uint16_t>(h + delta);
      if ((nb & 0x7fff) >= 0x7c00 || ((h & 0x7fff) == 0 && delta < 0)) continue;
      const double rn = ak::half_bits_to_float(nb);
      ASSERT_LE(std::fabs(r - x), std::fabs(rn - x)) << x;
      if (std::fabs(r - x) == std::fabs(rn - x)) {
        ASSERT_EQ(h & 1, 0) << "tie not to even at " << x;
      }
    }
  }
}

TEST(DtypeConvert, Bf16RoundTripAndNearest) {
  EXPECT_EQ(ak::float_to_bf16_bits(1.0f), 0x3f80);
  EXPECT_EQ(ak::float_to_bf16_bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);  // tie: even
  EXPECT_EQ(ak::float_to_bf16_bits(1.0f + std::ldexp(3.0f, -8)), 0x3f82);  // tie: even (up)
  EXPECT_EQ(ak::float_to_bf16_bits(1.0f + std::ldexp(1.0f, -9)), 0x3f80);  // below half: down
  EXPECT_TRUE(std::isnan(ak::bf16_bits_to_float(ak::float_to_bf16_bits(std::nanf("")))));
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    if ((bits & 0x7f80) == 0x7f80) continue;
    ASSERT_EQ(ak::float_to_bf16_bits(ak::bf16_bits_to_float(bits)), bits) << std::hex << b;
  }
  EXPECT_EQ(ak::round_to_dtype(0.1f, ak::DType::fp32), 0.1f);
  EXPECT_EQ(ak::round_to_dtype(0.1f, ak::DType::bf16), ak::bf16_bits_to_float(0x3dcd));
}

// The reference gradients against central differences of the reference forward: for L = sum(dO o O),
// dL/dX[i] ~ (L(X + h e_i) - L(X - h e_i)) / 2h for sampled elements of Q, K and V, causal (Nq > Nkv, so
// some rows see no key) and not. The step is the float actually added (inputs are floats).
TEST(Reference, BackwardMatchesFiniteDifferences) {
  // Masks: none, causal, causal with a sliding window of 3 keys, ALiBi, ALiBi with a window.
  struct Mask {
    bool causal;
    int window;
    bool alibi;
  };
  for (const Mask m : {Mask{false, 0, false}, Mask{true, 0, false}, Mask{true, 3, false},
                       Mask{false, 0, true}, Mask{true, 2, true}}) {
    const bool causal = m.causal;
    ak::AttentionShape s{1, 2, 9, 7, 5, ak::DType::fp32, causal, 0.4f};
    s.window = m.window;
    s.alibi = m.alibi;
    const std::size_t nq = 2 * 9 * 5, nkv = 2 * 7 * 5;
    std::mt19937 rng(causal ? 11u : 7u);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    std::vector<float> q(nq), k(nkv), v(nkv), d_o(nq);
    for (auto* t : {&q, &k, &v, &d_o})
      for (float& x : *t) x = dist(rng);
    std::vector<double> dq(nq), dk(nkv), dv(nkv);
    ak::attention_backward_reference(s, q.data(), k.data(), v.data(), d_o.data(), dq.data(), dk.data(),
                                     dv.data());
    const auto loss = [&] {
      std::vector<double> o(nq), lse(2 * 9);
      ak::attention_reference(s, q.data(), k.data(), v.data(), o.data(), lse.data());
      double l = 0.0;
      for (std::size_t i = 0; i < nq; ++i) l += o[i] * d_o[i];
      return l;
    };
    int checked = 0;
    for (auto [x, g] : {std::pair{&q, &dq}, std::pair{&k, &dk}, std::pair{&v, &dv}}) {
      for (std::size_t i = 0; i < x->size(); i += 3) {
        const float saved = (*x)[i];
        (*x)[i] = saved + 1e-2f;
        const double up = loss();
        const double h_up = static_cast<double>((*x)[i]) - saved;
        (*x)[i] = saved - 1e-2f;
        const double down = loss();
        const double h_down = saved - static_cast<double>((*x)[i]);
        (*x)[i] = saved;
        const double numeric = (up - down) / (h_up + h_down);
        EXPECT_NEAR((*g)[i], numeric, 1e-3 * std::max(1.0, std::fabs(numeric)))
            << (causal ? "causal " : "") << "window " << m.window << (m.alibi ? " alibi " : " ") << "element "
            << i;
        ++checked;
      }
    }
    EXPECT_EQ(checked, 30 + 24 + 24);  // every third element of Q (90), K (70) and V (70)
  }
}
