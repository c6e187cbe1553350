// SPDX-License-Identifier: Apache-2.0
// float64 reference attention: the ground truth every kernel test compares against.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "attnscope/kernels/reference.hpp"

namespace attnscope::kernels {

KeyBand key_band(const AttentionShape& shape, std::size_t row) {
  const long long i = static_cast<long long>(row);
  const long long nq = shape.seq_q, nkv = shape.seq_kv;
  const long long diagonal = i + nkv - nq;
  long long end = nkv, first = 0;
  if (shape.causal) end = std::clamp(diagonal + 1, 0LL, nkv);
  if (shape.window > 0) first = std::clamp(diagonal - shape.window + 1, 0LL, nkv);
  return KeyBand{static_cast<std::size_t>(first), static_cast<std::size_t>(std::max(first, end)), diagonal};
}

double alibi_bias(const KeyBand& band, double slope, std::size_t key) {
  return -slope * std::fabs(static_cast<double>(band.diagonal - static_cast<long long>(key)));
}

std::vector<float> alibi_slopes(int heads) {
  // Slopes of n heads, n a power of two: start^1 .. start^n with start = 2^(-8 / n).
  const auto power_of_two = [](int n) {
    std::vector<float> out;
    const double start = std::exp2(-8.0 / n);
    for (int h = 1; h <= n; ++h) out.push_back(static_cast<float>(std::pow(start, h)));
    return out;
  };
  if (heads < 1) return {};
  int n = 1;
  while (2 * n <= heads) n *= 2;
  std::vector<float> out = power_of_two(n);
  if (n < heads) {
    const std::vector<float> more = power_of_two(2 * n);
    for (int h = 0; static_cast<int>(out.size()) < heads; h += 2)
      out.push_back(more[static_cast<std::size_t>(h)]);
  }
  return out;
}

void attention_reference(const AttentionShape& shape, const float* q, const float* k, const float* v,
                         double* o, double* lse, const float* alibi) {
  const std::vector<float> standard =
      shape.alibi && alibi == nullptr ? alibi_slopes(shape.heads) : std::vector<float>{};
  const float* slopes = alibi != nullptr ? alibi : standard.data();
  const std::size_t nq = static_cast<std::size_t>(shape.seq_q);
  const std::size_t nkv = static_cast<std::size_t>(shape.seq_kv);
  const std::size_t d = static_cast<std::size_t>(shape.head_dim);
  const std::size_t heads = static_cast<std::size_t>(shape.batch) * static_cast<std::size_t>(shape.heads);
  const double scale = static_cast<double>(shape.scale);
  std::vector<double> scores(nkv);
  std::vector<double> acc(d);
  for (std::size_t bh = 0; bh < heads; ++bh) {
    const float* qh = q + bh * nq * d;
    const float* kh = k + bh * nkv * d;
    const float* vh = v + bh * nkv * d;
    for (std::size_t i = 0; i < nq; ++i) {
      const KeyBand band = key_band(shape, i);
      const std::size_t first = band.first, visible = band.end;
      const double slope =
          shape.alibi ? static_cast<double>(slopes[bh % static_cast<std::size_t>(shape.heads)]) : 0.0;
      double* oi = o + (bh * nq + i) * d;
      if (visible <= first) {
        std::fill(oi, oi + d, 0.0);
        lse[bh * nq + i] = -std::numeric_limits<double>::infinity();
        continue;
      }
      double row_max = -std::numeric_limits<double>::infinity();
      for (std::size_t j = first; j < visible; ++j) {
        double dot = 0.0;
        for (std::size_t c = 0; c < d; ++c) {
          dot += static_cast<double>(qh[i * d + c]) * static_cast<double>(kh[j * d + c]);
        }
        scores[j] = dot * scale + alibi_bias(band, slope, j);
        row_max = std::max(row_max, scores[j]);
      }
      double sum = 0.0;
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::size_t j = first; j < visible; ++j) {
        const double p = std::exp(scores[j] - row_max);
        sum += p;
        for (std::size_t c = 0; c < d; ++c) acc[c] += p * static_cast<double>(vh[j * d + c]);
      }
      for (std::size_t c = 0; c < d; ++c) oi[c] = acc[c] / sum;
      lse[bh * nq + i] = row_max + std::log(sum);
    }
  }
}

}  // namespace attnscope::kernels
