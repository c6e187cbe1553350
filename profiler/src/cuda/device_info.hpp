// SPDX-License-Identifier: Apache-2.0
// Opening the device for profiling and describing it for the report's provenance.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <vector>

#include "attnscope/profiler/measurement.hpp"

namespace attnscope::profiler::cuda {

// Checks there is a device and a new enough driver, makes device 0 current and returns its primary context
// (through the runtime's driver entry point, so attnscope does not link libcuda and still starts, and says
// why, on a machine without a driver). Throws ProfilerError (no_cuda_device, driver_too_old, cuda_error).
CUcontext open_device();

// Name, driver, runtime, L2 and SM count; `chip` left for the caller (CUPTI knows it).
DeviceInfo describe_device();
// Current SM and memory clocks through NVML (dlopen), or nothing where NVML is missing.
void read_clocks(DeviceInfo& info);

}  // namespace attnscope::profiler::cuda
