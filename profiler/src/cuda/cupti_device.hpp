// SPDX-License-Identifier: Apache-2.0
// What CUPTI's profiler needs to know about a device before it can count: whether the range profiler
// supports it, its chip name (the host side's key to the metrics) and its counter availability image. Shared
// by GpuSession and the collector injected into other programs (profiler/inject).
#pragma once
#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

namespace attnscope::profiler::cuda {

// Throws ProfilerError (cupti_error) naming every reason CUPTI gives (architecture, vGPU, confidential
// computing, SLI, CMP, WSL). Needs cuptiProfilerInitialize first.
void check_device_supported(int device_index);
// CUPTI's chip name of the device ("GH100").
std::string chip_name(int device_index);
// The counter availability image of the context's device (for MetricConfig).
std::vector<std::uint8_t> counter_availability(CUcontext context);

}  // namespace attnscope::profiler::cuda
