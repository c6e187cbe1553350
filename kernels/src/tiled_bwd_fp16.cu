// SPDX-License-Identifier: Apache-2.0
// Tiled backward instantiations, fp16 (one file per dtype so that -j2 compiles them in parallel).
// (Bc, Br, stages), stages 2 and 3 (Q/dO prefetched one or two q tiles ahead): d 64 with Br 64; d 128 with Br
// 32 and, since P^T and dS^T are packed to 16 bits as soon as they are known, Br 64 (before that it spilled
// 60 bytes at 255 registers: the dK and dV accumulators take 128 of them).
#include "tiled_bwd_kernel.cuh"

namespace attnscope::kernels::detail {

void append_tiled_bwd_fp16(std::vector<TiledBwdEntry>& out) {
  out.push_back(tiled_bwd_entry<__half, 64, 128, 64, 2>(DType::fp16));
  out.push_back(tiled_bwd_entry<__half, 64, 64, 64, 2>(DType::fp16));
  out.push_back(tiled_bwd_entry<__half, 64, 128, 64, 3>(DType::fp16));
  out.push_back(tiled_bwd_entry<__half, 128, 128, 32, 2>(DType::fp16));
  out.push_back(tiled_bwd_entry<__half, 128, 64, 32, 2>(DType::fp16));
  out.push_back(tiled_bwd_entry<__half, 128, 128, 32, 3>(DType::fp16));
  out.push_back(tiled_bwd_entry<__half, 128, 128, 64, 2>(DType::fp16));
}

}  // namespace attnscope::kernels::detail
