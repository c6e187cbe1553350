// SPDX-License-Identifier: Apache-2.0
// What one profiling run measured on the GPU, before it is joined with the model: plain data, no CUDA.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/profiler/metric_set.hpp"

namespace attnscope::profiler {

// The device and software that produced a measurement (report provenance).
struct DeviceInfo {
  std::string name;          // "NVIDIA H200"
  std::string chip;          // CUPTI chip name, "GH100"
  std::string driver;        // "580.159.04" (NVML), or the CUDA driver API version when NVML is missing
  std::string cuda_runtime;  // "13.0"
  std::optional<double> sm_clock_mhz, mem_clock_mhz;  // current clocks, read right after the measurement
  std::int64_t l2_bytes = 0;
  int sm_count = 0;
};

// One tile window launched alone: the tile (batch, head, q_tile, kv_tile) in the kernel's own tile units,
// one CTA doing one tile of work from a known L2 state.
struct MeasuredWindow {
  int batch = 0, head = 0, q_tile = 0, kv_tile = 0;
  CounterValues counters;
};

// One record of the instrumented kernel's timeline, in seconds from the kernel's first record.
struct MeasuredTileTime {
  int batch = 0, head = 0, q_tile = 0, kv_tile = 0, sm = 0;
  double start_s = 0, end_s = 0;
};

// One PM sample: counter values accumulated over [start_s, end_s), seconds from the kernel's first sample.
struct MeasuredSample {
  double start_s = 0, end_s = 0;
  CounterValues counters;
};

struct MeasuredKernel {
  std::string name;  // "tiled", "naive.qk", "naive.softmax", "naive.pv"
  CounterValues counters;
  // Counters of an L2 flush run right after the kernel (inside its own range): its DRAM writes are the dirty
  // lines the kernel left in L2, written back after the kernel ended. Absent in --cache warm mode.
  std::optional<CounterValues> writeback_after;
  // Kernel duration from CUDA events around separate launches from the same L2 state (median of a few), the
  // report's `time`: CUPTI's gpu__time_duration of a user range is the range's wall time, launch gaps
  // included.
  std::optional<double> event_time_s;
  std::vector<MeasuredWindow> windows;
  std::vector<MeasuredTileTime> timeline;
  // PM sampling time series of one more launch from the same L2 state (MeasureRequest::pm_sampling_ns).
  std::vector<MeasuredSample> samples;
};

struct Measurement {
  DeviceInfo device;
  std::string cache_mode;   // "flush" | "warm"
  std::string replay_mode;  // "user" | "kernel"
  int passes = 0;           // replay passes CUPTI needed for the metric set
  std::vector<std::string> unavailable_metrics;
  std::vector<std::string> not_collected_metrics;  // standard metrics left out on request (--only-metrics)
  std::vector<MeasuredKernel> kernels;             // in launch order
  std::vector<std::string> notes;  // anything the report should say about how this was measured
};

}  // namespace attnscope::profiler
