// SPDX-License-Identifier: Apache-2.0
// One workload on the device: its tensors (cudaMalloc, filled with fresh random values) and launches of its
// kernels, whole or restricted to one tile of one (batch, head) slice. A workload whose pass includes the
// backward also holds dO (random), dQ, dK, dV and the backward's scratch; with pass = bwd the forward runs
// once at construction (unmeasured) for the O, LSE and P the backward reads.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "attnscope/kernels/attention.hpp"
#include "attnscope/kernels/backward.hpp"
#include "attnscope/kernels/hopper.hpp"
#include "attnscope/profiler/request.hpp"
#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"

namespace attnscope::profiler::cuda {

class DeviceWorkload {
 public:
  // Throws ProfilerError: bad_input (shape the kernels refuse), config_not_compiled, cuda_error.
  // host_fill: generate inputs on the host and copy them (no kernel but the attention kernels runs, for ncu).
  DeviceWorkload(const sim::Workload& w, sim::KernelKind kind, const sim::TileConfig& tiles,
                 std::uint64_t seed, bool host_fill, cudaStream_t stream);
  ~DeviceWorkload();
  DeviceWorkload(const DeviceWorkload&) = delete;
  DeviceWorkload& operator=(const DeviceWorkload&) = delete;

  // The whole kernel; `timeline` (device memory, timeline_capacity records) may be null.
  void launch(const std::string& kernel, kernels::TileTiming* timeline);
  // One tile of one (batch, head): batch = heads = 1 with pointers offset to the slice, plus the TileWindow.
  void launch_window(const WindowSpec& window);
  std::size_t timeline_capacity(const std::string& kernel) const;
  bool timeline_compiled(const std::string& kernel) const;
  const kernels::AttentionShape& shape() const { return shape_; }

 private:
  kernels::AttentionShape shape_{};
  kernels::TiledConfig tiled_{};
  kernels::HopperConfig hopper_{};  // the Hopper kernel's tile (TileConfig::hopper())
  kernels::TiledBwdConfig tiled_bwd_{};
  kernels::DeviceTensors tensors_{};
  kernels::BackwardTensors backward_{};
  cudaStream_t stream_ = nullptr;
  void* q_ = nullptr;
  void* k_ = nullptr;
  void* v_ = nullptr;
  void* o_ = nullptr;
  void* s_ = nullptr;
  float* lse_ = nullptr;
  float* alibi_slopes_ = nullptr;  // [H] fp32, when the workload has ALiBi
  void* d_o_ = nullptr;
  void* dq_ = nullptr;
  void* dk_ = nullptr;
  void* dv_ = nullptr;
  void* ds_ = nullptr;         // naive backward scratch
  void* workspace_ = nullptr;  // tiled backward scratch

  void run(const std::string& kernel, const kernels::AttentionShape& shape, const kernels::DeviceTensors& t,
           const kernels::TileWindow& window, kernels::TileTiming* timeline);
};

// Throws the ProfilerError matching a refused launch.
void check_launch(const kernels::Status& status, const std::string& kernel);

}  // namespace attnscope::profiler::cuda
