// SPDX-License-Identifier: Apache-2.0
// Which hardware counters the profiler collects, and the report metrics they measure. The formulas are the
// metric table's (vocab/include/attnscope/vocab/metric.hpp): this file only lists what to collect and
// evaluates the table on what was collected. Raw counters are preferred over ratios (ratios such as
// lts__t_sector_hit_rate.pct have read above 100% on the H200). Every raw counter is also kept in the report
// under its own CUPTI name.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/reports/report.hpp"

namespace attnscope::profiler {

// CUPTI metric name -> value; nullopt = not available on this chip (recorded, not fatal).
using CounterValues = std::map<std::string, std::optional<double>>;

// The standard set, in collection order: every counter of the metric table's formulas, then counters kept
// for comparison (the same traffic split by instruction or by source).
const std::vector<std::string>& standard_counters();

// What PM sampling asks for, most wanted first (DRAM bytes, L2 sectors from the SMs, tensor-pipe cycles):
// the ones the chip can sample together in one pass are kept.
const std::vector<std::string>& pm_sampling_metrics();

// The metric table's measured values computable from `counters` (a metric whose counters are unavailable is
// left out). `time` here is the counters' gpu__time_duration; the join replaces it by CUDA-event time.
// `bulk`: whether the kernel issues bulk copies (vocab::bulk_copies_of its name), for a chip or recording
// without the bulk-copy counter (vocab::measure).
reports::Metrics derive_report_metrics(const CounterValues& counters,
                                       vocab::BulkCopies bulk = vocab::BulkCopies::unknown);

// Unit string for a raw CUPTI counter name, judged from its name ("B", "sectors", "wavefronts", "ns",
// "cycles", "" when unknown).
std::string counter_unit(const std::string& cupti_name);

}  // namespace attnscope::profiler
