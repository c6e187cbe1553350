// SPDX-License-Identifier: Apache-2.0
// Exit codes of the `attnscope` command, one per kind of failure so scripts and CI can tell them apart.
#pragma once

namespace attnscope::cli {

enum ExitCode : int {
  kOk = 0,
  kFailure = 1,          // unexpected error
  kBadInput = 2,         // bad flag, shape, tile that does not fit, unknown preset/GPU
  kGateFailed = 3,       // `report --gate` or `compare` found a failing gate / regression
  kMalformedReport = 4,  // a report file that cannot be read (malformed, truncated, newer version)
  kNoCudaDevice = 10,    // no CUDA device, or a build without CUDA: use `simulate`
  kDriverTooOld = 11,
  kNoCounterPermission = 12,  // ERR_NVGPUCTRPERM / CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
  kMetricUnsupported = 13,
  kConfigNotCompiled = 14,  // tile configuration not compiled into the kernels
  kIoError = 15,            // could not write an output file
  // `attnscope profile -- COMMAND` (cmd_profile_program.cpp)
  kProgramNotFound = 16,   // COMMAND is not found on PATH or is not executable
  kInjectLibMissing = 17,  // libattnscope_inject.so (the collector) is not next to attnscope
  kNothingMeasured = 18,   // the program launched no kernel, or none matched the selection
  kProgramFailed = 19,     // the program exited non-zero or was killed (the report keeps what was measured)
};

}  // namespace attnscope::cli
