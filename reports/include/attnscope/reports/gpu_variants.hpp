// SPDX-License-Identifier: Apache-2.0
// What-if GPUs of a sweep: each GPU spec with its L2 size, HBM bandwidth, SM count and shared memory per SM
// replaced by the swept values, so "what if L2 were 100 MB" is one axis. A variant's label names the spec and
// its overrides ("h200 l2=104857600 hbm=6000000000000 sms=66 smem_sm=466944"); with no overrides it is the
// spec's name, as sweeps always wrote it.
#pragma once
#include <string>
#include <vector>

#include "attnscope/reports/sweep_runner.hpp"
#include "attnscope/sim/gpu_spec.hpp"

namespace attnscope::reports {

struct GpuVariant {
  std::string label;  // SweepPoint::gpu_spec of its points
  sim::GpuSpec spec;
};

// The spec's GPUs x L2 sizes x HBM bandwidths x SM counts x shared memory per SM, in enumeration order (GPU
// slowest). Loads each
// spec once; throws sim::InvalidInput for an unknown spec.
std::vector<GpuVariant> expand_gpu_variants(const SweepSpec& spec);

// The variant labels alone, without loading the specs (the order of expand_gpu_variants).
std::vector<std::string> gpu_variant_labels(const SweepSpec& spec);

}  // namespace attnscope::reports
