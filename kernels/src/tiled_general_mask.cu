// SPDX-License-Identifier: Apache-2.0
// Tiled forward, general-mask variant (sliding window and/or ALiBi): one tile per head dim,
// vocab::general_mask_tiled_config: Br 128, Bc 64, stages 2 with 4 warps x 32 rows at d 64 and 8 warps x 16
// rows at d 128 (with 4 warps its band test and bias made ptxas spill 12 bytes there), fp16 and bf16. Other
// tiles and the instrumented (timeline) build are not compiled for these masks; the launcher says so.
#include "tiled_kernel.cuh"

namespace attnscope::kernels::detail {

void append_tiled_general_mask(std::vector<TiledEntry>& out) {
  out.push_back(tiled_entry<__half, 64, 128, 64, 2, false, 4, true>(DType::fp16));
  out.push_back(tiled_entry<__half, 128, 128, 64, 2, false, 8, true>(DType::fp16));
  out.push_back(tiled_entry<__nv_bfloat16, 64, 128, 64, 2, false, 4, true>(DType::bf16));
  out.push_back(tiled_entry<__nv_bfloat16, 128, 128, 64, 2, false, 8, true>(DType::bf16));
}

}  // namespace attnscope::kernels::detail
