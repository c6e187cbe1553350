// SPDX-License-Identifier: Apache-2.0
// Tiled attention instantiations: bf16, head_dim 128, stages 2, Br {64, 128} x Bc {32, 64, 128};
// stages 3 at Br 128, Bc 64 (Bc 128 would need 229 KB);
// 4 warps x 32 rows at Br 128, Bc 64, stages 2.
#include "tiled_kernel.cuh"

namespace attnscope::kernels::detail {

void append_tiled_bf16_d128(std::vector<TiledEntry>& out) {
  append_all_tiles<__nv_bfloat16, 128, 2, false>(out, DType::bf16);
  // stages = 3 where it fits and may pay (prefetch distance 2 tiles): Br = 128.
  out.push_back(tiled_entry<__nv_bfloat16, 128, 128, 64, 3, false>(DType::bf16));
  // 4 warps of 32 query rows.
  out.push_back(tiled_entry<__nv_bfloat16, 128, 128, 64, 2, false, 4>(DType::bf16));
}

}  // namespace attnscope::kernels::detail
