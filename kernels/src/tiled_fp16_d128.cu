// SPDX-License-Identifier: Apache-2.0
// Tiled attention instantiations: fp16, head_dim 128, stages 2, Br {64, 128} x Bc {32, 64, 128};
// stages 3 at Br 128, Bc 64 (Bc 128 would need 229 KB);
// 4 warps x 32 rows at Br 128: Bc {32, 64} stages 2, Bc 64 stages 3.
#include "tiled_kernel.cuh"

namespace attnscope::kernels::detail {

void append_tiled_fp16_d128(std::vector<TiledEntry>& out) {
  append_all_tiles<__half, 128, 2, false>(out, DType::fp16);
  // stages = 3 where it fits and may pay (prefetch distance 2 tiles): Br = 128.
  out.push_back(tiled_entry<__half, 128, 128, 64, 3, false>(DType::fp16));
  // 4 warps of 32 query rows; Bc 128 does not fit the registers (128 O + 128 S accumulators per thread).
  out.push_back(tiled_entry<__half, 128, 128, 32, 2, false, 4>(DType::fp16));
  out.push_back(tiled_entry<__half, 128, 128, 64, 2, false, 4>(DType::fp16));
  out.push_back(tiled_entry<__half, 128, 128, 64, 3, false, 4>(DType::fp16));
}

}  // namespace attnscope::kernels::detail
