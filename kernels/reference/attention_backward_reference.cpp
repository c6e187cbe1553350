// SPDX-License-Identifier: Apache-2.0
// float64 reference gradients of attention: the ground truth the backward kernels are compared against.
// Straight from the definitions, row by row: P = softmax(scale Q K^T + bias) over the visible keys, then
// dV += P^T dO, dP = dO V^T, dS = P o (dP - rowsum(P o dP)), dQ = scale dS K, dK += scale dS^T Q.
// (rowsum(P o dP) equals rowsum(dO o O) exactly; the kernels use the latter, computed from their own O.)
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "attnscope/kernels/reference.hpp"

namespace attnscope::kernels {

void attention_backward_reference(const AttentionShape& shape, const float* q, const float* k, const float* v,
                                  const float* d_o, double* dq, double* dk, double* dv, const float* alibi) {
  const std::vector<float> standard =
      shape.alibi && alibi == nullptr ? alibi_slopes(shape.heads) : std::vector<float>{};
  const float* slopes = alibi != nullptr ? alibi : standard.data();
  const std::size_t nq = static_cast<std::size_t>(shape.seq_q);
  const std::size_t nkv = static_cast<std::size_t>(shape.seq_kv);
  const std::size_t d = static_cast<std::size_t>(shape.head_dim);
  const std::size_t heads = static_cast<std::size_t>(shape.batch) * static_cast<std::size_t>(shape.heads);
  const double scale = static_cast<double>(shape.scale);
  std::fill(dk, dk + heads * nkv * d, 0.0);
  std::fill(dv, dv + heads * nkv * d, 0.0);
  std::vector<double> p(nkv), dp(nkv);
  for (std::size_t bh = 0; bh < heads; ++bh) {
    const float* qh = q + bh * nq * d;
    const float* kh = k + bh * nkv * d;
    const float* vh = v + bh * nkv * d;
    const float* doh = d_o + bh * nq * d;
    double* dkh = dk + bh * nkv * d;
    double* dvh = dv + bh * nkv * d;
    for (std::size_t i = 0; i < nq; ++i) {
      const KeyBand band = key_band(shape, i);
      const std::size_t first = band.first, visible = band.end;
      const double slope =
          shape.alibi ? static_cast<double>(slopes[bh % static_cast<std::size_t>(shape.heads)]) : 0.0;
      double* dqi = dq + (bh * nq + i) * d;
      std::fill(dqi, dqi + d, 0.0);
      if (visible <= first) continue;
      double row_max = -std::numeric_limits<double>::infinity();
      for (std::size_t j = first; j < visible; ++j) {
        double dot = 0.0;
        for (std::size_t c = 0; c < d; ++c) dot += double{qh[i * d + c]} * double{kh[j * d + c]};
        p[j] = dot * scale + alibi_bias(band, slope, j);
        row_max = std::max(row_max, p[j]);
      }
      double sum = 0.0;
      for (std::size_t j = first; j < visible; ++j) {
        p[j] = std::exp(p[j] - row_max);
        sum += p[j];
      }
      double rowsum = 0.0;  // rowsum(P o dP)
      for (std::size_t j = first; j < visible; ++j) {
        p[j] /= sum;
        double dot = 0.0;
        for (std::size_t c = 0; c < d; ++c) dot += double{doh[i * d + c]} * double{vh[j * d + c]};
        dp[j] = dot;
        rowsum += p[j] * dot;
      }
      for (std::size_t j = first; j < visible; ++j) {
        const double ds = p[j] * (dp[j] - rowsum);
        for (std::size_t c = 0; c < d; ++c) {
          dqi[c] += scale * ds * double{kh[j * d + c]};
          dkh[j * d + c] += scale * ds * double{qh[i * d + c]};
          dvh[j * d + c] += p[j] * double{doh[i * d + c]};
        }
      }
    }
  }
}

}  // namespace attnscope::kernels
