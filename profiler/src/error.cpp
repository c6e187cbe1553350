// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/error.hpp"

namespace attnscope::profiler {

std::string_view to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::no_cuda_device:
      return "no_cuda_device";
    case ErrorCode::driver_too_old:
      return "driver_too_old";
    case ErrorCode::no_counter_permission:
      return "no_counter_permission";
    case ErrorCode::metric_unsupported:
      return "metric_unsupported";
    case ErrorCode::config_not_compiled:
      return "config_not_compiled";
    case ErrorCode::bad_input:
      return "bad_input";
    case ErrorCode::cuda_error:
      return "cuda_error";
    case ErrorCode::cupti_error:
      return "cupti_error";
    case ErrorCode::io_error:
      return "io_error";
  }
  return "?";
}

}  // namespace attnscope::profiler
