// SPDX-License-Identifier: Apache-2.0
// Hopper attention instantiations, fp16 (template arguments: dtype, d, Br, Bc, consumer warpgroups, stages,
// overlap, ping-pong, persistent, timeline build). Each compiles without spills: ptxas gives the consumer
// warpgroups their setmaxnreg budget (240 registers at 2 consumers, 160 at 3; hopper_kernel.cuh,
// deadlock_trap), so S, P and O of a 128-key tile fit at d 128 in the overlapped schedule, and 3 consumers
// (Br 192) fit at Bc 128. Measured slower and left out (tests/data/h200/hopper-20261203T182257Z): the
// overlapped schedule at stages 2 (the consumer then holds both slots, nothing is prefetched; the persistent
// kernel releases a slot's K and V apart, so its next K is copied while V is still read). The timeline build
// (Instrumented, last template argument) is compiled for the default tiles of each head dim, causal
// or not (vocab::default_hopper_config), the ones the profiler measures.
#include "hopper_kernel.cuh"

namespace attnscope::kernels::detail {

void append_hopper_fp16(std::vector<HopperEntry>& out) {
  out.push_back(hopper_entry<__half, 64, 128, 128, 2, 2, false, false>());
  out.push_back(hopper_entry<__half, 64, 128, 128, 2, 3, false, false>());
  out.push_back(hopper_entry<__half, 64, 128, 128, 2, 2, false, true>());
  out.push_back(hopper_entry<__half, 64, 128, 128, 2, 3, true, false>());
  out.push_back(hopper_entry<__half, 64, 128, 128, 2, 3, true, true>());
  out.push_back(hopper_entry<__half, 128, 128, 128, 2, 2, false, false>());
  out.push_back(hopper_entry<__half, 128, 128, 128, 2, 3, false, false>());
  out.push_back(hopper_entry<__half, 128, 128, 128, 2, 2, false, true>());
  out.push_back(hopper_entry<__half, 128, 128, 64, 2, 3, true, false>());
  out.push_back(hopper_entry<__half, 128, 128, 64, 2, 3, true, true>());
  out.push_back(hopper_entry<__half, 128, 128, 64, 2, 4, true, true>());
  out.push_back(hopper_entry<__half, 128, 128, 128, 2, 3, true, false>());
  out.push_back(hopper_entry<__half, 128, 128, 128, 2, 3, true, true>());
  out.push_back(hopper_entry<__half, 64, 192, 128, 3, 2, false, false>());
  out.push_back(hopper_entry<__half, 64, 192, 128, 3, 3, true, false>());
  // Persistent (one CTA per SM over every tile; two Q buffers, so d 128 at 2 stages).
  out.push_back(hopper_entry<__half, 64, 192, 128, 3, 3, true, false, true>());
  out.push_back(hopper_entry<__half, 128, 128, 128, 2, 2, true, false, true>());
  out.push_back(hopper_entry<__half, 128, 128, 128, 2, 2, true, true, true>());
  // Timeline builds.
  out.push_back(hopper_entry<__half, 64, 192, 128, 3, 3, true, false, false, true>());
  out.push_back(hopper_entry<__half, 64, 192, 128, 3, 3, true, false, true, true>());
  out.push_back(hopper_entry<__half, 128, 128, 128, 2, 3, true, true, false, true>());
  out.push_back(hopper_entry<__half, 128, 128, 128, 2, 2, true, true, true, true>());
}

}  // namespace attnscope::kernels::detail
