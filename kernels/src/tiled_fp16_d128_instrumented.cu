// SPDX-License-Identifier: Apache-2.0
// Instrumented tiled attention (per-CTA, per-kv-step %smid / %globaltimer records): fp16, head_dim 128,
// stages 2, Br {64, 128} x Bc {32, 64, 128}. bf16 has no instrumented build (compile time).
#include "tiled_kernel.cuh"

namespace attnscope::kernels::detail {

void append_tiled_fp16_d128_instrumented(std::vector<TiledEntry>& out) {
  append_all_tiles<__half, 128, 2, true>(out, DType::fp16);
  out.push_back(tiled_entry<__half, 128, 128, 32, 2, true, 4>(DType::fp16));  // 4 warps x 32 rows
  out.push_back(tiled_entry<__half, 128, 128, 64, 2, true, 4>(DType::fp16));
}

}  // namespace attnscope::kernels::detail
