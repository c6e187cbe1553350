// SPDX-License-Identifier: Apache-2.0
// How many CTAs of a kernel fit on one SM at once (the CUDA occupancy rules, simplified): the tightest of
// shared memory (plus the per-CTA reserve), registers (allocated per warp in 256-register units), threads and
// the CTA slot limit.
#pragma once
#include <cstdint>
#include <string_view>

#include "attnscope/sim/gpu_spec.hpp"

namespace attnscope::sim {

struct Occupancy {
  int ctas_per_sm = 0;
  std::string_view limiter;  // "shared memory", "registers", "threads", "CTA slots"
};

// Throws InvalidInput when not even one CTA fits (e.g. the tile does not fit shared memory).
Occupancy occupancy(const GpuSpec& gpu, std::int64_t smem_per_cta, int threads_per_cta,
                    int registers_per_thread);

}  // namespace attnscope::sim
