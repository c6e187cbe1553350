// SPDX-License-Identifier: Apache-2.0
// Instrumented tiled backward (the main kernel writes a timeline of its steps), fp16, at each head dim's
// default tile (vocab::default_tiled_bwd_config): what the profiler launches unless told otherwise.
#include "tiled_bwd_kernel.cuh"

namespace attnscope::kernels::detail {

void append_tiled_bwd_instrumented(std::vector<TiledBwdEntry>& out) {
  out.push_back(tiled_bwd_entry<__half, 64, 128, 64, 2, false, true>(DType::fp16));
  out.push_back(tiled_bwd_entry<__half, 128, 128, 64, 2, false, true>(DType::fp16));
}

}  // namespace attnscope::kernels::detail
