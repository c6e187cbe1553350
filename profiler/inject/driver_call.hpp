// SPDX-License-Identifier: Apache-2.0
// Checked CUDA driver calls for the collector, which runs inside another program and has no CUDA runtime of
// its own: a failed call becomes a ProfilerError naming the call, its file and line, and the driver's words.
#pragma once
#include <cuda.h>

namespace attnscope::profiler::inject {

[[noreturn]] void fail_driver(CUresult result, const char* call, const char* file, int line);
// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"
const char* driver_error_text(CUresult result);

}  // namespace attnscope::profiler::inject

#define ATTNSCOPE_CU(call)                                                                         \
  do {                                                                                             \
    const CUresult attnscope_cu_result_ = (call);                                                  \
    if (attnscope_cu_result_ != CUDA_SUCCESS)                                                      \
      ::attnscope::profiler::inject::fail_driver(attnscope_cu_result_, #call, __FILE__, __LINE__); \
  } while (0)
