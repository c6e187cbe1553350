// SPDX-License-Identifier: Apache-2.0
// Hopper attention instantiations, fp16. Each is one that ptxas fits in its register budget without spills
// (168 registers per thread at 2 consumer warpgroups, 128 at 3): d 64 at Br 128 Bc 128 with and without the
// softmax / GEMM overlap and at Br 192 Bc 64 with it; d 128 at Br 128 Bc 128 without it (with it, S, P and
// O of a 128-key tile spilled) and at Br 128 Bc 64 with it, stages 2 and 3.
#include "hopper_kernel.cuh"

namespace attnscope::kernels::detail {

void append_hopper_fp16(std::vector<HopperEntry>& out) {
  out.push_back(hopper_entry<__half, 64, 128, 128, 2, 2, true>());
  out.push_back(hopper_entry<__half, 64, 128, 128, 2, 2, false>());
  out.push_back(hopper_entry<__half, 64, 192, 64, 3, 2, true>());
  out.push_back(hopper_entry<__half, 128, 128, 128, 2, 2, false>());
  out.push_back(hopper_entry<__half, 128, 128, 64, 2, 2, true>());
  out.push_back(hopper_entry<__half, 128, 128, 64, 2, 3, true>());
}

}  // namespace attnscope::kernels::detail
