// SPDX-License-Identifier: Apache-2.0
// The GPU side: one CUDA context with CUPTI's range profiler configured for a metric set, reused for every
// measurement of a run (a matrix of workloads pays CUPTI's setup once). Built with CUDA it drives the real
// kernels under CUPTI; built without CUDA, constructing it throws ProfilerError(no_cuda_device).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "attnscope/profiler/measurement.hpp"
#include "attnscope/profiler/request.hpp"

namespace attnscope::profiler {

struct SessionOptions {
  std::vector<std::string> extra_metrics;  // added to the standard set
  // false: collect only extra_metrics (fewer replay passes; the standard metrics read as not collected)
  bool standard_metrics = true;
  bool use_cupti = true;  // false: launch only (no CUPTI at all, e.g. under ncu)
  ReplayMode replay = ReplayMode::user;
  FlushMethod flush = FlushMethod::read_discard;
};

class GpuSession {
 public:
  explicit GpuSession(const SessionOptions& options);  // throws ProfilerError
  ~GpuSession();
  GpuSession(const GpuSession&) = delete;
  GpuSession& operator=(const GpuSession&) = delete;

  Measurement measure(const MeasureRequest& request);  // throws ProfilerError
  const DeviceInfo& device() const;
  // Metrics CUPTI collects in this session and how many replay passes they need.
  std::vector<std::string> metrics() const;
  int passes() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Whether this build has the CUDA/CUPTI side.
bool built_with_cuda();

}  // namespace attnscope::profiler
