// SPDX-License-Identifier: Apache-2.0
// A sweep point's modeled metrics from one simulation, the same for every kind of sweep.
#pragma once
#include <algorithm>

#include "attnscope/reports/report.hpp"
#include "attnscope/sim/result.hpp"

namespace attnscope::reports::detail {

inline void set_modeled_metrics(SweepPoint& p, const sim::SimResult& r) {
  std::int64_t smem = 0;
  std::uint64_t cycles = 0;
  for (const auto& k : r.kernels) smem = std::max(smem, k.smem_per_cta), cycles += k.cycles;
  p.metrics[Metric::dram_read].modeled = static_cast<double>(r.totals.hbm_read);
  p.metrics[Metric::dram_write].modeled = static_cast<double>(r.totals.hbm_write);
  p.metrics[Metric::l2_read].modeled = static_cast<double>(r.totals.l2_read);
  p.metrics[Metric::l2_write].modeled = static_cast<double>(r.totals.l2_write);
  p.metrics[Metric::l2_hit].modeled = static_cast<double>(r.totals.l2_hit);
  p.metrics[Metric::smem_read].modeled = static_cast<double>(r.totals.smem_read);
  p.metrics[Metric::smem_write].modeled = static_cast<double>(r.totals.smem_write);
  p.metrics[Metric::time].modeled = r.time_s;
  p.metrics[Metric::cycles].modeled = static_cast<double>(cycles);
  p.metrics[Metric::flops].modeled = r.flops;
  p.metrics[Metric::smem_per_cta].modeled = static_cast<double>(smem);
  p.feasible = true;
}

}  // namespace attnscope::reports::detail
