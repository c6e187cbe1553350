// SPDX-License-Identifier: Apache-2.0
// One kernel launch of the program as the driver API received it (cuLaunchKernel, cuLaunchKernelEx,
// cuLaunchCooperativeKernel and their per-thread-stream forms), captured from CUPTI's callback data so the
// collector can describe the kernel, find the memory it can touch and launch it again, identically, on its
// own stream. The captured pointers (parameters, launch configuration) belong to the caller and are valid
// only until the intercepted call returns: everything here is used inside that call's callbacks.
#pragma once
#include <cuda.h>
#include <cupti_callbacks.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernel_params.hpp"

namespace attnscope::profiler::inject {

enum class LaunchApi { kernel, kernel_ex, cooperative };

struct LaunchCall {
  LaunchApi api = LaunchApi::kernel;
  CUfunction function = nullptr;
  std::array<std::uint32_t, 3> grid{1, 1, 1}, block{1, 1, 1};
  std::uint32_t dynamic_smem = 0;
  CUstream stream = nullptr;
  void** kernel_params = nullptr;
  void** extra = nullptr;
  CUlaunchConfig config{};  // kernel_ex: the caller's configuration (its attributes array is the caller's)

  // The launch of a driver API callback, or nothing for a callback id that is not a kernel launch.
  static std::optional<LaunchCall> from_callback(CUpti_CallbackId cbid, const void* function_params);

  // The same function, grid, block, shared memory, attributes and parameters, on `stream`.
  CUresult relaunch(CUstream stream) const;
};

// The callback ids from_callback understands (the collector subscribes to exactly these).
const std::vector<CUpti_CallbackId>& launch_callback_ids();

struct FunctionInfo {
  std::string mangled, demangled;
  int registers_per_thread = 0;
  int static_smem_bytes = 0;
  int local_bytes_per_thread = 0;  // local memory: register spills and local arrays (ptxas' "stack frame")
  // The parameter layout from cuFuncGetParamInfo (CUDA 12.4+); absent when the driver cannot say.
  std::optional<std::vector<KernelParam>> params;
  std::string params_problem;  // why `params` is absent
};

// `symbol_name`: CUPTI's name for the launch (callback data), used when the driver gives none.
FunctionInfo describe_function(CUfunction function, const char* symbol_name);

// abi::__cxa_demangle, or the name itself when it is not a mangled C++ name (Triton's kernels).
std::string demangle(const std::string& mangled);

// The launch's parameter words (kernel_params.hpp) with the function's layout.
std::optional<std::vector<std::uint64_t>> parameter_words(const LaunchCall& call, const FunctionInfo& info);

}  // namespace attnscope::profiler::inject
