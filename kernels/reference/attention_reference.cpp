// SPDX-License-Identifier: Apache-2.0
// float64 reference attention: the ground truth every kernel test compares against.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "attnscope/kernels/reference.hpp"

namespace attnscope::kernels {

void attention_reference(const AttentionShape& shape, const float* q, const float* k, const float* v,
                         double* o, double* lse) {
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
      // Keys visible to row i: j <= i + Nkv - Nq (bottom-right aligned), all when not causal.
      std::size_t visible = nkv;
      if (shape.causal) {
        const long long last =
            static_cast<long long>(i) + static_cast<long long>(nkv) - static_cast<long long>(nq);
        visible = last < 0 ? 0 : std::min(nkv, static_cast<std::size_t>(last) + 1);
      }
      double* oi = o + (bh * nq + i) * d;
      if (visible == 0) {
        std::fill(oi, oi + d, 0.0);
        lse[bh * nq + i] = -std::numeric_limits<double>::infinity();
        continue;
      }
      double row_max = -std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < visible; ++j) {
        double dot = 0.0;
        for (std::size_t c = 0; c < d; ++c) {
          dot += static_cast<double>(qh[i * d + c]) * static_cast<double>(kh[j * d + c]);
        }
        scores[j] = dot * scale;
        row_max = std::max(row_max, scores[j]);
      }
      double sum = 0.0;
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::size_t j = 0; j < visible; ++j) {
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
