// SPDX-License-Identifier: Apache-2.0
// A report's kernels summed per kind and pass: the forward's (tiled; naive.qk, .softmax, .pv) and the
// backward's (tiled_bwd.*; naive_bwd.*), and both together, a training step. Summed from the kernels'
// entries, measured and modeled separately; a sum is present only when every kernel of the pass has it.
#pragma once
#include <string>
#include <vector>

#include "attnscope/reports/report.hpp"

namespace attnscope::reports {

struct PassTotal {
  std::string label;  // "naive forward", "naive backward", "naive training step", "tiled ..."
  int kernels = 0;
  Metrics metrics;  // dram_read, dram_write, l2_read, l2_write, flops, time
};

// Per kind with a backward kernel: its forward (if any), backward and training step (if both); empty for a
// forward-only report.
std::vector<PassTotal> pass_totals(const Report& report);

// One line per pass, "naive forward (3 kernels): HBM 2.2 GB read + 2.2 GB write, time 1.23 ms (modeled)",
// with measured values beside modeled ones where the report has both; empty for a forward-only report.
std::string pass_totals_text(const Report& report);

}  // namespace attnscope::reports
