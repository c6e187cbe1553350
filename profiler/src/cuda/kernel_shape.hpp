// SPDX-License-Identifier: Apache-2.0
// A model workload as the kernels' launch shape: the sizes narrowed to int (the kernels' index type) and
// checked, so a shape the kernels cannot take is refused with its name before anything is allocated.
#pragma once
#include "attnscope/kernels/attention.hpp"
#include "attnscope/sim/workload.hpp"

namespace attnscope::profiler::cuda {

kernels::DType to_kernel_dtype(sim::DType t);

// Throws ProfilerError(bad_input) naming the field out of range: sizes 1 .. INT_MAX, window 0 (none) ..
// INT_MAX.
kernels::AttentionShape kernel_shape_of(const sim::Workload& w);

}  // namespace attnscope::profiler::cuda
