// SPDX-License-Identifier: Apache-2.0
// `attnscope simulate --matrix NAME [--against LOG]`: the model's totals per point of a measurement matrix
// (DRAM read and time summed over each point's kernels, every kernel from a flushed L2, the protocol
// `profile --matrix` measures under), and, given the log a `profile --matrix` run printed, the same totals
// measured beside them. For a run whose reports did not survive: its log still holds the totals.
#pragma once
#include <string>

namespace attnscope::cli {

// Returns an exit code (exit_codes.hpp); prints the table, or the error.
int run_matrix_totals(const std::string& matrix, const std::string& log, const std::string& gpu_spec);

}  // namespace attnscope::cli
