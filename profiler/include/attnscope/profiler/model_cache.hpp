// SPDX-License-Identifier: Apache-2.0
// The model of a measurement, run under the measurement's own cache protocol, and shared by everything that
// joins measured with modeled (a live profile, a re-modeled recording, the accuracy table), so that the same
// measurement always meets the same modeled number.
//
//   flush     every kernel starts from a flushed, empty L2: each naive kernel is modeled alone
//   sequence  one flush, then the kernels back to back: the naive chain is modeled as one sequence
//   warm      the same launches ran just before: the model starts from the L2 they leave
#pragma once
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "attnscope/profiler/request.hpp"
#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/result.hpp"
#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"

namespace attnscope::profiler {

// The model of kernel `kernel` (a kernel of `kind`) as measured under `protocol`. Throws sim::InvalidInput.
sim::KernelResult model_kernel(const sim::GpuSpec& gpu, const sim::Workload& w, sim::KernelKind kind,
                               const sim::TileConfig& t, std::string_view kernel,
                               vocab::CacheProtocol protocol, bool record_tiles);

// Every kernel of `kind` as measured under `protocol`, in launch order.
std::vector<sim::KernelResult> model_kernels(const sim::GpuSpec& gpu, const sim::Workload& w,
                                             sim::KernelKind kind, const sim::TileConfig& t,
                                             vocab::CacheProtocol protocol, bool record_tiles);

// Model runs shared between callers (threads included): each distinct run is simulated once.
class ModelCache {
 public:
  explicit ModelCache(sim::GpuSpec gpu) : gpu_(std::move(gpu)) {}
  const sim::GpuSpec& gpu() const { return gpu_; }

  std::shared_ptr<const sim::KernelResult> kernel(const sim::Workload& w, sim::KernelKind kind,
                                                  const sim::TileConfig& t, std::string_view kernel,
                                                  vocab::CacheProtocol protocol, bool record_tiles);
  // A lone tile window (windows.hpp): one CTA doing one tile from a flushed L2.
  std::shared_ptr<const sim::KernelResult> window(const sim::Workload& w, sim::KernelKind kind,
                                                  const sim::TileConfig& t, const WindowSpec& window);

 private:
  using Result = std::shared_ptr<const sim::KernelResult>;
  template <typename Run>
  Result memo(const std::string& key, const Run& run);

  sim::GpuSpec gpu_;
  std::mutex mutex_;
  std::map<std::string, std::shared_future<Result>> runs_;
};

}  // namespace attnscope::profiler
