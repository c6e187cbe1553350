// SPDX-License-Identifier: Apache-2.0
#include "pm_sampler.hpp"

#include <fmt/format.h>

#include "attnscope/profiler/error.hpp"
#include "checked_call.hpp"

namespace attnscope::profiler::cuda {

namespace {

std::vector<std::uint8_t> pm_counter_availability(int device_index) {
  auto p = detail::cupti_params<CUpti_PmSampling_GetCounterAvailability_Params>(
      CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
  p.deviceIndex = static_cast<std::size_t>(device_index);
  ATTNSCOPE_CUPTI(cuptiPmSamplingGetCounterAvailability(&p));
  std::vector<std::uint8_t> image(p.counterAvailabilityImageSize, 0);
  p.pCounterAvailabilityImage = image.data();
  ATTNSCOPE_CUPTI(cuptiPmSamplingGetCounterAvailability(&p));
  return image;
}

// Hardware buffer for the raw records: generous, as an overflow loses samples.
constexpr std::size_t kHardwareBufferBytes = std::size_t{256} << 20;

}  // namespace

PmSampler::PmSampler(int device_index, const std::string& chip, const std::vector<std::string>& wanted,
                     std::uint64_t interval_ns, std::uint32_t max_samples)
    : max_samples_(max_samples) {
  const auto availability = pm_counter_availability(device_index);
  // Keep the wanted metrics the chip can sample, as many as fit in one pass (PM sampling has no replay).
  std::vector<std::string> kept;
  for (const auto& m : wanted) {
    // A fresh host object per trial: the host API only adds metrics to a configuration, so a probe that
    // took the metric which made it two passes cannot give it back.
    MetricConfig probe(chip, availability, true);
    if (!probe.supported(m)) continue;
    auto trial = kept;
    trial.push_back(m);
    probe.set_metrics(trial);
    if (probe.passes() == 1) kept = std::move(trial);
  }
  if (kept.empty())
    throw ProfilerError(
        ErrorCode::metric_unsupported,
        fmt::format("PM sampling: none of the throughput metrics can be sampled on {}", chip));
  config_ = std::make_unique<MetricConfig>(chip, availability, true);
  config_->set_metrics(kept);

  auto enable =
      detail::cupti_params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
  enable.deviceIndex = static_cast<std::size_t>(device_index);
  ATTNSCOPE_CUPTI(cuptiPmSamplingEnable(&enable));
  object_ = enable.pPmSamplingObject;

  auto set =
      detail::cupti_params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
  set.pPmSamplingObject = object_;
  set.configSize = config_->config_image().size();
  set.pConfig = config_->config_image().data();
  set.hardwareBufferSize = kHardwareBufferBytes;
  set.samplingInterval = interval_ns;
  set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
  set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
  ATTNSCOPE_CUPTI(cuptiPmSamplingSetConfig(&set));
  init_counter_data();
}

PmSampler::~PmSampler() {
  if (!object_) return;
  auto p = detail::cupti_params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
  p.pPmSamplingObject = object_;
  cuptiPmSamplingDisable(&p);  // nothing useful to do about a failure while tearing down
}

void PmSampler::init_counter_data() {
  std::vector<const char*> names;
  for (const auto& m : config_->metrics()) names.push_back(m.c_str());
  auto size = detail::cupti_params<CUpti_PmSampling_GetCounterDataSize_Params>(
      CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pPmSamplingObject = object_;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxSamples = max_samples_;
  ATTNSCOPE_CUPTI(cuptiPmSamplingGetCounterDataSize(&size));
  counter_data_.assign(size.counterDataSize, 0);
  auto init = detail::cupti_params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
      CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pPmSamplingObject = object_;
  init.counterDataSize = counter_data_.size();
  init.pCounterData = counter_data_.data();
  ATTNSCOPE_CUPTI(cuptiPmSamplingCounterDataImageInitialize(&init));
}

void PmSampler::start() {
  auto p = detail::cupti_params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
  p.pPmSamplingObject = object_;
  ATTNSCOPE_CUPTI(cuptiPmSamplingStart(&p));
}

void PmSampler::stop() {
  auto p = detail::cupti_params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
  p.pPmSamplingObject = object_;
  ATTNSCOPE_CUPTI(cuptiPmSamplingStop(&p));
}

std::vector<PmSample> PmSampler::decode(bool& overflow) {
  auto dec = detail::cupti_params<CUpti_PmSampling_DecodeData_Params>(
      CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
  dec.pPmSamplingObject = object_;
  dec.pCounterDataImage = counter_data_.data();
  dec.counterDataImageSize = counter_data_.size();
  ATTNSCOPE_CUPTI(cuptiPmSamplingDecodeData(&dec));
  overflow = dec.overflow != 0;

  auto info = detail::cupti_params<CUpti_PmSampling_GetCounterDataInfo_Params>(
      CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = counter_data_.data();
  info.counterDataImageSize = counter_data_.size();
  ATTNSCOPE_CUPTI(cuptiPmSamplingGetCounterDataInfo(&info));
  std::vector<PmSample> out;
  out.reserve(info.numCompletedSamples);
  // Sample 0 runs from before start() (on the H200 it held a preceding L2 flush's 252 MB of reads and was
  // 1.18 s long): only the samples after it cover what ran between start() and stop().
  for (std::size_t i = 1; i < info.numCompletedSamples; ++i) {
    auto s = detail::cupti_params<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(
        CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
    s.pPmSamplingObject = object_;
    s.pCounterDataImage = counter_data_.data();
    s.counterDataImageSize = counter_data_.size();
    s.sampleIndex = i;
    ATTNSCOPE_CUPTI(cuptiPmSamplingCounterDataGetSampleInfo(&s));
    out.push_back({s.startTimestamp, s.endTimestamp, config_->evaluate(counter_data_, i)});
  }
  init_counter_data();  // a fresh image for the next kernel's samples
  return out;
}

}  // namespace attnscope::profiler::cuda
