// SPDX-License-Identifier: Apache-2.0
// fail_cupti alone: the collector library (profiler/inject) compiles this file in and has no CUDA runtime;
// fail_cuda, which needs the runtime's error strings, is in checked_cuda.cpp.
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

}  // namespace attnscope::profiler::detail
