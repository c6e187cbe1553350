// SPDX-License-Identifier: Apache-2.0
// The virtual address space the model's caches see, laid out like the real tensors: Q, K, V, O, LSE and the
// naive kernels' scratch S each in its own 256-byte-aligned region, row-major and contiguous.
//   Q, O   [B, H, Nq, d]    input dtype
//   K, V   [B, H, Nkv, d]   input dtype
//   LSE    [B, H, Nq]       float32
//   S (=P) [B, H, Nq, Nkv]  input dtype (naive only; P overwrites S in place)
// A workload with a backward pass (Workload::pass fwd excluded) adds, after those (so that the forward
// kernels' addresses do not move):
//   dO, dQ            [B, H, Nq, d]      input dtype
//   dK, dV            [B, H, Nkv, d]     input dtype
//   LSE*log2e, D      [B, H, P]          float32, P = query rows padded to whole q tiles of the tiled
//   backward dQ accumulator    [B, H, Nq, d]      float32 (the tiled backward's workspace, these three) dS
//   (=dP)          [B, H, Nq, Nkv]    input dtype (naive backward; dS overwrites dP in place)
#pragma once
#include <array>
#include <cstdint>

#include "attnscope/sim/workload.hpp"

namespace attnscope::sim {

enum class Tensor : std::uint8_t { q, k, v, o, lse, s, d_o, dq, dk, dv, lse_log2, delta, dq_accum, ds };
inline constexpr int kTensorCount = 14;
inline constexpr int kForwardTensorCount = 6;  // q .. s: the regions of a forward-only workload

class AddressMap {
 public:
  static constexpr std::uint64_t kAlignment = 256;  // bytes, like cudaMalloc's minimum

  // `padded_rows`: P, the query rows of the backward's fp32 vectors (vocab::tiled_bwd_padded_rows); 0 = Nq.
  explicit AddressMap(const Workload& w, std::int64_t padded_rows = 0);

  std::uint64_t base(Tensor t) const { return base_[static_cast<int>(t)]; }
  std::uint64_t bytes(Tensor t) const { return bytes_[static_cast<int>(t)]; }
  std::uint64_t row_pitch(Tensor t) const { return pitch_[static_cast<int>(t)]; }  // bytes per row
  std::uint64_t rows_per_slice(Tensor t) const { return rows_[static_cast<int>(t)]; }
  std::uint64_t end() const { return end_; }  // one past the last byte of the last region
  // Byte address of element (row, column) of the (batch, head) slice of `t`.
  std::uint64_t address(Tensor t, std::int64_t batch, std::int64_t head, std::int64_t row,
                        std::int64_t column) const;

 private:
  std::int64_t heads_ = 0;
  std::uint32_t element_bytes_ = 0;
  std::array<std::uint64_t, kTensorCount> base_{}, bytes_{}, pitch_{}, rows_{}, element_{};
  std::uint64_t end_ = 0;
};

}  // namespace attnscope::sim
