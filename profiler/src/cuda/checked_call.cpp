// SPDX-License-Identifier: Apache-2.0
#include "checked_call.hpp"

#include <cupti.h>
#include <fmt/format.h>

#include <filesystem>

#include "attnscope/profiler/error.hpp"

namespace attnscope::profiler::detail {

namespace {

std::string where(const char* call, const char* file, int line) {
  return fmt::format("{} ({}:{})", call, std::filesystem::path(file).filename().string(), line);
}

}  // namespace

void fail_cupti(CUptiResult result, const char* call, const char* file, int line) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown CUPTI error";
  const std::string site = where(call, file, line);
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
      throw ProfilerError(
          ErrorCode::no_counter_permission,
          fmt::format(
              "no permission to read GPU performance counters (ERR_NVGPUCTRPERM, {}) in {}. Either run "
              "as root, or let all users profile: put `options nvidia NVreg_RestrictProfilingToAdminUsers=0` "
              "in /etc/modprobe.d/nvidia-profiling.conf, rebuild the initramfs and reboot (see "
              "https://developer.nvidia.com/ERR_NVGPUCTRPERM). `attnscope simulate` needs no counters.",
              text, site));
    case CUPTI_ERROR_INVALID_METRIC_NAME:
      throw ProfilerError(ErrorCode::metric_unsupported,
                          fmt::format("a metric is not supported on this GPU ({}) in {}", text, site));
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
      throw ProfilerError(
          ErrorCode::cupti_error,
          fmt::format("CUPTI's range profiler is not supported on this device or setup ({}) in {}", text,
                      site));
    default:
      throw ProfilerError(ErrorCode::cupti_error, fmt::format("CUPTI call failed: {} in {}", text, site));
  }
}

void fail_cuda(cudaError_t result, const char* call, const char* file, int line) {
  const std::string site = where(call, file, line);
  const std::string text = fmt::format("{} ({})", cudaGetErrorString(result), cudaGetErrorName(result));
  switch (result) {
    case cudaErrorNoDevice:
      throw ProfilerError(
          ErrorCode::no_cuda_device,
          fmt::format("no CUDA device found ({}) in {}: use `attnscope simulate` for the model's "
                      "prediction without a GPU",
                      text, site));
    case cudaErrorInsufficientDriver:
      throw ProfilerError(
          ErrorCode::driver_too_old,
          fmt::format("the NVIDIA driver is older than the CUDA {} runtime attnscope was built "
                      "with ({}) in {}: update the driver (CUDA 13 needs R580 or newer)",
                      CUDART_VERSION / 1000, text, site));
    default:
      throw ProfilerError(ErrorCode::cuda_error, fmt::format("CUDA call failed: {} in {}", text, site));
  }
}

}  // namespace attnscope::profiler::detail
