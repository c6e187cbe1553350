// SPDX-License-Identifier: Apache-2.0
#include "range_profiler.hpp"

#include <fmt/format.h>

#include "attnscope/profiler/error.hpp"
#include "checked_call.hpp"

namespace attnscope::profiler::cuda {

RangeProfiler::RangeProfiler(CUcontext context) {
  auto p =
      detail::cupti_params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  p.ctx = context;
  ATTNSCOPE_CUPTI(cuptiRangeProfilerEnable(&p));
  object_ = p.pRangeProfilerObject;
}

RangeProfiler::~RangeProfiler() {
  if (!object_) return;
  auto p = detail::cupti_params<CUpti_RangeProfiler_Disable_Params>(
      CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  cuptiRangeProfilerDisable(&p);  // nothing useful to do about a failure while tearing down
}

void RangeProfiler::configure(const MetricConfig& config, CUpti_ProfilerRange range,
                              CUpti_ProfilerReplayMode replay, std::size_t max_ranges) {
  std::vector<const char*> names;
  for (const auto& m : config.metrics()) names.push_back(m.c_str());
  auto size = detail::cupti_params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  size.pRangeProfilerObject = object_;
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = max_ranges;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(max_ranges);
  ATTNSCOPE_CUPTI(cuptiRangeProfilerGetCounterDataSize(&size));
  counter_data_.assign(size.counterDataSize, 0);

  auto init = detail::cupti_params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = object_;
  init.counterDataSize = counter_data_.size();
  init.pCounterData = counter_data_.data();
  ATTNSCOPE_CUPTI(cuptiRangeProfilerCounterDataImageInitialize(&init));

  auto set = detail::cupti_params<CUpti_RangeProfiler_SetConfig_Params>(
      CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  set.pRangeProfilerObject = object_;
  set.configSize = config.config_image().size();
  set.pConfig = config.config_image().data();
  set.counterDataImageSize = counter_data_.size();
  set.pCounterDataImage = counter_data_.data();
  set.range = range;
  set.replayMode = replay;
  set.maxRangesPerPass = max_ranges;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  ATTNSCOPE_CUPTI(cuptiRangeProfilerSetConfig(&set));
}

void RangeProfiler::start() {
  auto p =
      detail::cupti_params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  ATTNSCOPE_CUPTI(cuptiRangeProfilerStart(&p));
}

bool RangeProfiler::stop() {
  auto p = detail::cupti_params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  ATTNSCOPE_CUPTI(cuptiRangeProfilerStop(&p));
  return p.isAllPassSubmitted != 0;
}

void RangeProfiler::push(const std::string& name) {
  auto p = detail::cupti_params<CUpti_RangeProfiler_PushRange_Params>(
      CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  p.pRangeName = name.c_str();
  ATTNSCOPE_CUPTI(cuptiRangeProfilerPushRange(&p));
}

void RangeProfiler::pop() {
  auto p = detail::cupti_params<CUpti_RangeProfiler_PopRange_Params>(
      CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE);
  p.pRangeProfilerObject = object_;
  ATTNSCOPE_CUPTI(cuptiRangeProfilerPopRange(&p));
}

std::vector<RangeValues> RangeProfiler::decode(const MetricConfig& config) {
  auto d = detail::cupti_params<CUpti_RangeProfiler_DecodeData_Params>(
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  d.pRangeProfilerObject = object_;
  ATTNSCOPE_CUPTI(cuptiRangeProfilerDecodeData(&d));
  if (d.numOfRangeDropped != 0)
    throw ProfilerError(ErrorCode::cupti_error,
                        fmt::format("CUPTI dropped {} ranges while decoding (counter data image too small)",
                                    d.numOfRangeDropped));
  auto info = detail::cupti_params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = counter_data_.data();
  info.counterDataImageSize = counter_data_.size();
  ATTNSCOPE_CUPTI(cuptiRangeProfilerGetCounterDataInfo(&info));
  std::vector<RangeValues> out;
  for (std::size_t i = 0; i < info.numTotalRanges; ++i) {
    auto r = detail::cupti_params<CUpti_RangeProfiler_CounterData_GetRangeInfo_Params>(
        CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE);
    r.pCounterDataImage = counter_data_.data();
    r.counterDataImageSize = counter_data_.size();
    r.rangeIndex = i;
    r.rangeDelimiter = "/";
    ATTNSCOPE_CUPTI(cuptiRangeProfilerCounterDataGetRangeInfo(&r));
    out.push_back({r.rangeName ? r.rangeName : "", config.evaluate(counter_data_, i)});
  }
  return out;
}

}  // namespace attnscope::profiler::cuda
