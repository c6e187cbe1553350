// SPDX-License-Identifier: Apache-2.0
// A measured kernel's PM samples as DRAM throughput on the kernel's own time axis. The sampler's range opens
// before the launch and closes after the kernel ends (on our H200 about 80 us of idle samples before the
// first DRAM bytes, and a tail of idle ones after), and the samples count from the first sample, not from the
// kernel's start. Placing them next to the tiles or the next kernel needs a common origin: the first sample
// with DRAM traffic (at least 1 % of the busiest sample's bytes) is taken as the kernel's start, the idle
// lead-in is dropped, and samples that start after the kernel's measured duration are dropped too. An
// approximation to within one sampling interval (~2 us), which the views and the trace say.
#pragma once
#include <optional>
#include <vector>

#include "attnscope/reports/report.hpp"

namespace attnscope::reports {

struct DramThroughputSample {
  double start_s = 0, end_s = 0;  // seconds from the kernel's start (see above)
  double read_bytes_per_s = 0, write_bytes_per_s = 0;
};

// Empty when the kernel has no samples or none with DRAM traffic. `duration_s`: the kernel's measured time,
// absent to keep every sample after the first busy one.
std::vector<DramThroughputSample> dram_throughput(const KernelEntry& kernel,
                                                  std::optional<double> duration_s);

}  // namespace attnscope::reports
