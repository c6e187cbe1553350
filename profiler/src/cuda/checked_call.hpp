// SPDX-License-Identifier: Apache-2.0
// Checked calls: every CUDA runtime and CUPTI call goes through one of these macros, so a failure becomes a
// ProfilerError that names the call, its file and line, and CUPTI's or CUDA's own words for the error.
#pragma once
#include <cuda_runtime_api.h>
#include <cupti_result.h>

#include <cstddef>

namespace attnscope::profiler::detail {

// Throw a ProfilerError for a failed call (code chosen from the result: privileges, device, ...).
[[noreturn]] void fail_cupti(CUptiResult result, const char* call, const char* file, int line);
[[noreturn]] void fail_cuda(cudaError_t result, const char* call, const char* file, int line);

}  // namespace attnscope::profiler::detail

#define ATTNSCOPE_CUPTI(call)                                                                        \
  do {                                                                                               \
    const CUptiResult attnscope_cupti_result_ = (call);                                              \
    if (attnscope_cupti_result_ != CUPTI_SUCCESS)                                                    \
      ::attnscope::profiler::detail::fail_cupti(attnscope_cupti_result_, #call, __FILE__, __LINE__); \
  } while (0)

#define ATTNSCOPE_CUDA(call)                                                                       \
  do {                                                                                             \
    const cudaError_t attnscope_cuda_result_ = (call);                                             \
    if (attnscope_cuda_result_ != cudaSuccess)                                                     \
      ::attnscope::profiler::detail::fail_cuda(attnscope_cuda_result_, #call, __FILE__, __LINE__); \
  } while (0)

namespace attnscope::profiler::detail {

// A zeroed CUPTI parameter struct with its size set, as every CUPTI call expects.
template <typename Params>
Params cupti_params(std::size_t struct_size) {
  Params p{};
  p.structSize = struct_size;
  return p;
}

}  // namespace attnscope::profiler::detail
