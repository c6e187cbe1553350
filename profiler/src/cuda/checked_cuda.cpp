// SPDX-License-Identifier: Apache-2.0
// The CUDA runtime half of checked_call.hpp (the CUPTI half is checked_call.cpp).
#include <fmt/format.h>

#include <filesystem>

#include "attnscope/profiler/error.hpp"
#include "checked_call.hpp"

namespace attnscope::profiler::detail {

void fail_cuda(cudaError_t result, const char* call, const char* file, int line) {
  const std::string site =
      fmt::format("{} ({}:{})", call, std::filesystem::path(file).filename().string(), line);
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
