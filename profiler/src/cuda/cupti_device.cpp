// SPDX-License-Identifier: Apache-2.0
#include "cupti_device.hpp"

#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include "attnscope/profiler/error.hpp"
#include "checked_call.hpp"

namespace attnscope::profiler::cuda {

std::vector<std::uint8_t> counter_availability(CUcontext context) {
  auto p = detail::cupti_params<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  p.ctx = context;
  ATTNSCOPE_CUPTI(cuptiProfilerGetCounterAvailability(&p));
  std::vector<std::uint8_t> image(p.counterAvailabilityImageSize, 0);
  p.pCounterAvailabilityImage = image.data();
  ATTNSCOPE_CUPTI(cuptiProfilerGetCounterAvailability(&p));
  return image;
}

std::string chip_name(int device_index) {
  auto p = detail::cupti_params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  p.deviceIndex = static_cast<std::size_t>(device_index);
  ATTNSCOPE_CUPTI(cuptiDeviceGetChipName(&p));
  return p.pChipName ? p.pChipName : "";
}

void check_device_supported(int device_index) {
  auto p = detail::cupti_params<CUpti_Profiler_DeviceSupported_Params>(
      CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  p.cuDevice = device_index;
  p.api = CUPTI_PROFILER_RANGE_PROFILING;
  ATTNSCOPE_CUPTI(cuptiProfilerDeviceSupported(&p));
  if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) return;
  std::string why;
  if (p.architecture != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why += " the GPU architecture (needs compute 7.0+);";
  if (p.vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
    why += " profiling is disabled on this vGPU;";
  else if (p.vGpu != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why += " vGPU;";
  if (p.confidentialCompute != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
    why += " confidential computing is on;";
  if (p.sli != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " SLI;";
  if (p.cmp != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " a mining processor (CMP);";
  if (p.wsl != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) why += " WSL;";
  throw ProfilerError(ErrorCode::cupti_error, "CUPTI's range profiler does not support this device:" + why +
                                                  " use `attnscope simulate` for the model alone");
}

}  // namespace attnscope::profiler::cuda
