// SPDX-License-Identifier: Apache-2.0
// The join: measured counters and the model's prediction of the same kernels, side by side in report
// entries. Pure C++ (no CUDA), tested in CI on synthetic and on committed H200 measurements.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "attnscope/profiler/measurement.hpp"
#include "attnscope/profiler/metric_set.hpp"
#include "attnscope/profiler/request.hpp"
#include "attnscope/reports/report.hpp"
#include "attnscope/sim/result.hpp"

namespace attnscope::profiler {

// The model's prediction for one lone tile window (see windows.hpp).
struct WindowModel {
  WindowSpec window;
  sim::KernelResult result;
};

// One kernel: modeled side from `modeled` (may be null: measured only), measured side from `measured`.
// Tile entries are matched by (batch, head, q_tile, kv_tile): timeline records fill start/end_measured_s and
// sm_measured; measured windows fill the tile's measured metrics and replace its modeled metrics by the
// window's lone-launch model (window_models), as notes["tile_windows"] explains. Adds notes on the L2 state
// and write-back ("l2_writeback") with the numbers.
reports::KernelEntry join_kernel(const MeasuredKernel& measured, const sim::KernelResult* modeled,
                                 const sim::GpuSpec& gpu, const std::vector<WindowModel>& window_models,
                                 CacheMode cache);

// Raw counters that were collected, for the report's `counters` (measured; CUPTI names).
reports::Counters raw_counters(const CounterValues& counters);

// Put the measured side of `measured` into `into` (creating metrics that are missing, keeping modeled values).
void merge_measured(reports::Metrics& into, const reports::Metrics& measured);

// The modeled side of a lone tile window: the model of that lone launch, at the metrics measured per tile.
reports::Metrics window_metrics(const sim::KernelResult& lone, const sim::GpuSpec& gpu);

}  // namespace attnscope::profiler
