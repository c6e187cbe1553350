// SPDX-License-Identifier: Apache-2.0
// The timing model of one kernel launch: an event loop over the CTAs of a KernelDataflow on the GPU's SMs,
// with the L2 cache it shares with the kernels before and after it.
#pragma once
#include <atomic>

#include "attnscope/sim/dataflow.hpp"
#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/l2_cache.hpp"
#include "attnscope/sim/result.hpp"

namespace attnscope::sim::detail {

struct EngineOptions {
  bool l2_reuse = true;
  bool record_tiles = true;
  int registers_per_thread = 0;               // 0 = the dataflow's estimate
  bool cta_phases = true;                     // SimOptions::cta_phases
  const std::atomic<bool>* cancel = nullptr;  // SimOptions::cancel
};

KernelResult run_kernel(const GpuSpec& gpu, const KernelDataflow& flow, L2Cache& l2,
                        const EngineOptions& options);

}  // namespace attnscope::sim::detail
