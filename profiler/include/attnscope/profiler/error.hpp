// SPDX-License-Identifier: Apache-2.0
// The profiler's one error type: a code the command line maps to its own exit code, and a message that says
// what went wrong and what to do about it.
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

namespace attnscope::profiler {

enum class ErrorCode {
  no_cuda_device,         // no device, or a build without CUDA: use `attnscope simulate`
  driver_too_old,         // the driver is older than the CUDA runtime we were built with
  no_counter_permission,  // ERR_NVGPUCTRPERM / CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
  metric_unsupported,     // a metric asked for by name (--metric) that the chip does not have
  config_not_compiled,    // a tile configuration the kernels were not compiled with
  bad_input,              // a workload or flag the kernels refuse (shape, alignment)
  cuda_error,             // a CUDA runtime/driver call failed
  cupti_error,            // a CUPTI call failed for another reason
  io_error,               // an output file could not be written
};
std::string_view to_string(ErrorCode code);

class ProfilerError : public std::runtime_error {
 public:
  ProfilerError(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace attnscope::profiler
