// SPDX-License-Identifier: Apache-2.0
#include "driver_call.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <string>

#include "attnscope/profiler/error.hpp"

namespace attnscope::profiler::inject {

const char* driver_error_text(CUresult result) {
  thread_local std::string text;
  const char* name = nullptr;
  const char* words = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || name == nullptr) name = "unknown CUresult";
  if (cuGetErrorString(result, &words) != CUDA_SUCCESS || words == nullptr) words = "no description";
  text = fmt::format("{} ({}, {})", name, static_cast<int>(result), words);
  return text.c_str();
}

void fail_driver(CUresult result, const char* call, const char* file, int line) {
  const std::string site =
      fmt::format("{} ({}:{})", call, std::filesystem::path(file).filename().string(), line);
  const ErrorCode code = result == CUDA_ERROR_NO_DEVICE ? ErrorCode::no_cuda_device : ErrorCode::cuda_error;
  throw ProfilerError(code,
                      fmt::format("CUDA driver call failed: {} in {}", driver_error_text(result), site));
}

}  // namespace attnscope::profiler::inject
