// SPDX-License-Identifier: Apache-2.0
// Tiled backward, general-mask variant (sliding window and/or ALiBi): one tile, Bc 128, Br 32, stages 2
// (vocab::general_mask_tiled_bwd_config), for fp16 and bf16, d 64 and 128. At d 64 the default Br 64 spilled
// with the band test and bias per score: 40 bytes with K and V fragments in registers, 8 without.
#include "tiled_bwd_kernel.cuh"

namespace attnscope::kernels::detail {

void append_tiled_bwd_general_mask(std::vector<TiledBwdEntry>& out) {
  out.push_back(tiled_bwd_entry<__half, 64, 128, 32, 2, true>(DType::fp16));
  out.push_back(tiled_bwd_entry<__half, 128, 128, 32, 2, true>(DType::fp16));
  out.push_back(tiled_bwd_entry<__nv_bfloat16, 64, 128, 32, 2, true>(DType::bf16));
  out.push_back(tiled_bwd_entry<__nv_bfloat16, 128, 128, 32, 2, true>(DType::bf16));
}

}  // namespace attnscope::kernels::detail
