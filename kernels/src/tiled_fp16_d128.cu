// SPDX-License-Identifier: Apache-2.0
// Tiled attention instantiations: fp16, head_dim 128, stages 2, Br {64, 128} x Bc {32, 64, 128};
// stages 3 at Br 128, Bc 64 (Bc 128 would need 229 KB).
#include "tiled_kernel.cuh"

namespace attnscope::kernels::detail {

void append_tiled_fp16_d128(std::vector<TiledEntry>& out) {
  append_all_tiles<__half, 128, 2, false>(out, DType::fp16);
  // stages = 3 where it fits and may pay (prefetch distance 2 tiles): Br = 128.
  out.push_back(tiled_entry<__half, 128, 128, 64, 3, false>(DType::fp16));
}

}  // namespace attnscope::kernels::detail
