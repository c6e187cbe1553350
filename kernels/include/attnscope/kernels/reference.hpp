// SPDX-License-Identifier: Apache-2.0
// CPU float64 reference attention and fp16/bf16 conversion helpers (host only, no CUDA needed).
#pragma once

#include <cstddef>
#include <cstdint>

#include "attnscope/kernels/attention.hpp"

namespace attnscope::kernels {

// O [B, H, Nq, d] and LSE [B, H, Nq] (natural log) of softmax(scale * Q K^T) V in float64, with the same
// causal convention as the kernels (bottom-right aligned; rows that see no key: O = 0, LSE = -inf).
// Inputs are given as float, already rounded to the kernel's dtype (see round_to_dtype).
// Masks as the kernels (attention.hpp): causal, sliding window, ALiBi with `alibi` slopes [H] (nullptr: the
// standard alibi_slopes(H)).
void attention_reference(const AttentionShape& shape, const float* q, const float* k, const float* v,
                         double* o, double* lse, const float* alibi = nullptr);

// Keys [first, end) visible to query row `row` under the shape's mask; `diagonal` = row + Nkv - Nq (the
// key at distance 0, which ALiBi measures from).
struct KeyBand {
  std::size_t first = 0;
  std::size_t end = 0;
  long long diagonal = 0;
};
KeyBand key_band(const AttentionShape& shape, std::size_t row);
// The ALiBi bias -slope * |diagonal - key| (0 for slope 0).
double alibi_bias(const KeyBand& band, double slope, std::size_t key);

// dQ [B, H, Nq, d], dK and dV [B, H, Nkv, d] of the attention above for the upstream gradient dO
// [B, H, Nq, d], in float64 (rows that see no key contribute nothing). Inputs as for attention_reference.
void attention_backward_reference(const AttentionShape& shape, const float* q, const float* k, const float* v,
                                  const float* d_o, double* dq, double* dk, double* dv,
                                  const float* alibi = nullptr);

// IEEE binary16 <-> float, round to nearest even (overflow -> inf, NaN kept NaN).
std::uint16_t float_to_half_bits(float value);
float half_bits_to_float(std::uint16_t bits);
// bfloat16 <-> float, round to nearest even (NaN kept NaN).
std::uint16_t float_to_bf16_bits(float value);
float bf16_bits_to_float(std::uint16_t bits);

// `value` rounded to the dtype and back (fp32: unchanged).
float round_to_dtype(float value, DType dtype);
// Bits of `value` in a 16-bit dtype (fp16/bf16); for fp32 callers use the float itself.
std::uint16_t to_dtype_bits(float value, DType dtype);
float from_dtype_bits(std::uint16_t bits, DType dtype);

}  // namespace attnscope::kernels
