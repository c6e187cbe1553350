// SPDX-License-Identifier: Apache-2.0
// Tiled attention instantiations: fp16, head_dim 64, stages 2, Br {64, 128} x Bc {32, 64, 128};
// stages 3 at Br 128, Bc {64, 128}; 4 warps x 32 rows at Br 128, Bc {64, 128}, stages 2 and 3.
#include "tiled_kernel.cuh"

namespace attnscope::kernels::detail {

void append_tiled_fp16_d64(std::vector<TiledEntry>& out) {
  append_all_tiles<__half, 64, 2, false>(out, DType::fp16);
  // stages = 3 where it fits and may pay (prefetch distance 2 tiles): Br = 128.
  out.push_back(tiled_entry<__half, 64, 128, 64, 3, false>(DType::fp16));
  out.push_back(tiled_entry<__half, 64, 128, 128, 3, false>(DType::fp16));
  // 4 warps of 32 query rows (half the shared-memory reads of K/V per FLOP), stages 2 and 3.
  out.push_back(tiled_entry<__half, 64, 128, 64, 2, false, 4>(DType::fp16));
  out.push_back(tiled_entry<__half, 64, 128, 128, 2, false, 4>(DType::fp16));
  out.push_back(tiled_entry<__half, 64, 128, 64, 3, false, 4>(DType::fp16));
  out.push_back(tiled_entry<__half, 64, 128, 128, 3, false, 4>(DType::fp16));
}

}  // namespace attnscope::kernels::detail
