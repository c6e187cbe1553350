// SPDX-License-Identifier: Apache-2.0
// CUPTI's target side (cupti_range_profiler.h) on one CUDA context, in the call order that worked on the
// H200 (shared/notes/h200.md): enable on the context, size and initialise a counter data image, set the
// configuration (range and replay mode), start, the launches, synchronize, stop (repeated while CUPTI asks
// for more passes in user replay), decode, then read each range.
#pragma once
#include <cuda.h>
#include <cupti_range_profiler.h>

#include <cstdint>
#include <string>
#include <vector>

#include "metric_config.hpp"

namespace attnscope::profiler::cuda {

struct RangeValues {
  std::string name;            // the pushed range name (user ranges) or CUPTI's name for an auto range
  std::vector<double> values;  // in the order of MetricConfig::metrics()
};

class RangeProfiler {
 public:
  explicit RangeProfiler(CUcontext context);
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  // Prepare a collection of at most `max_ranges` ranges of `config`'s metrics.
  void configure(const MetricConfig& config, CUpti_ProfilerRange range, CUpti_ProfilerReplayMode replay,
                 std::size_t max_ranges);
  void start();
  // Stop the current pass; true once CUPTI has every pass it needs.
  bool stop();
  void push(const std::string& name);
  void pop();
  // Decode the collected passes; the values of each range, in the order the ranges were recorded.
  std::vector<RangeValues> decode(const MetricConfig& config);

 private:
  CUpti_RangeProfiler_Object* object_ = nullptr;
  std::vector<std::uint8_t> counter_data_;
};

}  // namespace attnscope::profiler::cuda
