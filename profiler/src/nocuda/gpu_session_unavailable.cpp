// SPDX-License-Identifier: Apache-2.0
// GpuSession in a build without CUDA: every attempt to open one says so and points to the model.
#include "attnscope/profiler/error.hpp"
#include "attnscope/profiler/gpu_session.hpp"

namespace attnscope::profiler {

struct GpuSession::Impl {};

GpuSession::GpuSession(const SessionOptions&) {
  throw ProfilerError(ErrorCode::no_cuda_device,
                      "attnscope was built without CUDA, so it cannot run kernels or read GPU counters: use "
                      "`attnscope simulate` for the model's prediction, or rebuild on a machine with nvcc "
                      "(CUDA 13) and CUPTI");
}
GpuSession::~GpuSession() = default;
Measurement GpuSession::measure(const MeasureRequest&) {
  return {};
}
const DeviceInfo& GpuSession::device() const {
  static const DeviceInfo none;
  return none;
}
std::vector<std::string> GpuSession::metrics() const {
  return {};
}
int GpuSession::passes() const {
  return 0;
}

bool built_with_cuda() {
  return false;
}

}  // namespace attnscope::profiler
