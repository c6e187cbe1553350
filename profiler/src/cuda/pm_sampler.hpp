// SPDX-License-Identifier: Apache-2.0
// CUPTI's PM sampling (cupti_pmsampling.h): the GPU's performance monitor samples a few counters every
// `interval` nanoseconds into a hardware buffer while kernels run; decoding gives one value per counter per
// sample, with the sample's GPU timestamps. Unlike the range profiler it gives throughput *over time* inside
// one kernel (DRAM and L2 bytes per interval), in a single pass, so only metrics that fit one pass are kept.
#pragma once
#include <cupti_pmsampling.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "metric_config.hpp"

namespace attnscope::profiler::cuda {

struct PmSample {
  std::uint64_t start_ns = 0, end_ns = 0;  // GPU timestamps
  std::vector<double> values;              // in the order of PmSampler::metrics()
};

class PmSampler {
 public:
  // Enables PM sampling on device `device_index` for those of `wanted` the chip can sample together in one
  // pass (the first ones that fit); throws ProfilerError when none can.
  PmSampler(int device_index, const std::string& chip, const std::vector<std::string>& wanted,
            std::uint64_t interval_ns, std::uint32_t max_samples);
  ~PmSampler();
  PmSampler(const PmSampler&) = delete;
  PmSampler& operator=(const PmSampler&) = delete;

  const std::vector<std::string>& metrics() const { return config_->metrics(); }
  void start();
  void stop();
  // Decodes what the hardware buffer holds into samples (completed ones that began after start()) and
  // resets for the next start(); `overflow` tells whether the hardware buffer dropped records.
  std::vector<PmSample> decode(bool& overflow);

 private:
  void init_counter_data();

  CUpti_PmSampling_Object* object_ = nullptr;
  std::unique_ptr<MetricConfig> config_;
  std::uint32_t max_samples_ = 0;
  std::vector<std::uint8_t> counter_data_;
};

}  // namespace attnscope::profiler::cuda
