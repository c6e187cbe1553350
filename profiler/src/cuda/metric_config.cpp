// SPDX-License-Identifier: Apache-2.0
#include "metric_config.hpp"

#include <cupti_profiler_host.h>

#include "checked_call.hpp"

namespace attnscope::profiler::cuda {

namespace {

std::vector<const char*> c_names(const std::vector<std::string>& names) {
  std::vector<const char*> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(n.c_str());
  return out;
}

}  // namespace

MetricConfig::MetricConfig(const std::string& chip, std::vector<std::uint8_t> availability, bool pm_sampling)
    : chip_(chip), availability_(std::move(availability)) {
  auto p = detail::cupti_params<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  p.profilerType = pm_sampling ? CUPTI_PROFILER_TYPE_PM_SAMPLING : CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  p.pChipName = chip_.c_str();
  p.pCounterAvailabilityImage = availability_.empty() ? nullptr : availability_.data();
  ATTNSCOPE_CUPTI(cuptiProfilerHostInitialize(&p));
  host_ = p.pHostObject;
}

MetricConfig::~MetricConfig() {
  if (!host_) return;
  auto p = detail::cupti_params<CUpti_Profiler_Host_Deinitialize_Params>(
      CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  p.pHostObject = host_;
  cuptiProfilerHostDeinitialize(&p);  // nothing useful to do about a failure while tearing down
}

bool MetricConfig::supported(const std::string& metric) const {
  auto p = detail::cupti_params<CUpti_Profiler_Host_GetMetricProperties_Params>(
      CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
  p.pHostObject = host_;
  p.pMetricName = metric.c_str();
  return cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS;
}

void MetricConfig::set_metrics(const std::vector<std::string>& metrics) {
  metrics_ = metrics;
  auto names = c_names(metrics_);
  auto add = detail::cupti_params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = host_;
  add.ppMetricNames = names.data();
  add.numMetrics = names.size();
  ATTNSCOPE_CUPTI(cuptiProfilerHostConfigAddMetrics(&add));

  auto size = detail::cupti_params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = host_;
  ATTNSCOPE_CUPTI(cuptiProfilerHostGetConfigImageSize(&size));
  config_image_.assign(size.configImageSize, 0);
  auto image = detail::cupti_params<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = host_;
  image.configImageSize = config_image_.size();
  image.pConfigImage = config_image_.data();
  ATTNSCOPE_CUPTI(cuptiProfilerHostGetConfigImage(&image));

  auto passes = detail::cupti_params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  passes.configImageSize = config_image_.size();
  passes.pConfigImage = config_image_.data();
  ATTNSCOPE_CUPTI(cuptiProfilerHostGetNumOfPasses(&passes));
  passes_ = passes.numOfPasses;
}

std::vector<double> MetricConfig::evaluate(const std::vector<std::uint8_t>& counter_data,
                                           std::size_t range_index) const {
  auto names = c_names(metrics_);
  std::vector<double> values(names.size(), 0.0);
  auto p = detail::cupti_params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
      CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
  p.pHostObject = host_;
  p.pCounterDataImage = counter_data.data();
  p.counterDataImageSize = counter_data.size();
  p.rangeIndex = range_index;
  p.ppMetricNames = names.data();
  p.numMetrics = names.size();
  p.pMetricValues = values.data();
  ATTNSCOPE_CUPTI(cuptiProfilerHostEvaluateToGpuValues(&p));
  return values;
}

}  // namespace attnscope::profiler::cuda
