// SPDX-License-Identifier: Apache-2.0
// CUPTI's host side (cupti_profiler_host.h): metric names -> configuration image, the number of replay
// passes it needs, and counter data -> metric values. Runs on the CPU alone, given the chip's name, so it
// is testable without a GPU.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

struct CUpti_Profiler_Host_Object;

namespace attnscope::profiler::cuda {

class MetricConfig {
 public:
  // `availability` is the device's counter availability image (empty: none, e.g. offline on the CPU).
  // `pm_sampling`: configure for CUPTI's PM sampling (one pass of periodic samples) instead of the range
  // profiler.
  MetricConfig(const std::string& chip, std::vector<std::uint8_t> availability, bool pm_sampling = false);
  ~MetricConfig();
  MetricConfig(const MetricConfig&) = delete;
  MetricConfig& operator=(const MetricConfig&) = delete;

  const std::string& chip() const { return chip_; }
  // Whether the chip knows this metric (e.g. "dram__bytes_read.sum").
  bool supported(const std::string& metric) const;
  // Sets the metrics to collect (all must be supported) and builds the configuration image.
  void set_metrics(const std::vector<std::string>& metrics);
  const std::vector<std::string>& metrics() const { return metrics_; }
  const std::vector<std::uint8_t>& config_image() const { return config_image_; }
  std::size_t passes() const { return passes_; }
  // Metric values of one decoded range, in the order of metrics().
  std::vector<double> evaluate(const std::vector<std::uint8_t>& counter_data, std::size_t range_index) const;

 private:
  std::string chip_;
  std::vector<std::uint8_t> availability_;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  std::vector<std::string> metrics_;
  std::vector<std::uint8_t> config_image_;
  std::size_t passes_ = 0;
};

}  // namespace attnscope::profiler::cuda
