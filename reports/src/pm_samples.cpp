// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/pm_samples.hpp"

#include <algorithm>

namespace attnscope::reports {
namespace {

double counter(const CounterSample& s, const char* name) {
  const auto it = s.counters.find(name);
  return it == s.counters.end() ? 0.0 : it->second;
}

double dram_bytes(const CounterSample& s) {
  return counter(s, "dram__bytes_read.sum") + counter(s, "dram__bytes_write.sum");
}

}  // namespace

std::vector<DramThroughputSample> dram_throughput(const KernelEntry& kernel,
                                                  std::optional<double> duration_s) {
  std::vector<DramThroughputSample> out;
  double busiest = 0;
  for (const auto& s : kernel.samples) busiest = std::max(busiest, dram_bytes(s));
  if (busiest <= 0) return out;
  const auto first = std::find_if(kernel.samples.begin(), kernel.samples.end(),
                                  [&](const CounterSample& s) { return dram_bytes(s) >= 0.01 * busiest; });
  const double origin = first->start_s;
  for (auto it = first; it != kernel.samples.end(); ++it) {
    const double length = it->end_s - it->start_s;
    if (length <= 0) continue;
    const double start = it->start_s - origin;
    if (duration_s && start >= *duration_s) break;
    out.push_back({start, it->end_s - origin, counter(*it, "dram__bytes_read.sum") / length,
                   counter(*it, "dram__bytes_write.sum") / length});
  }
  return out;
}

}  // namespace attnscope::reports
