// SPDX-License-Identifier: Apache-2.0
// What the GPU benchmark programs share: device buffers, the L2 flush, CUDA-event timing, inputs.
// Timing protocol of every kernel benchmark: CUDA events around the launches only (UseManualTime), the L2
// flushed by a 256 MiB memset before every iteration outside the timed region; medians over repetitions.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "attnscope/kernels/attention.hpp"
#include "attnscope/kernels/reference.hpp"

namespace attnscope::bench {

namespace ak = attnscope::kernels;

struct DevicePtr {
  void* p = nullptr;
  explicit DevicePtr(std::size_t bytes) {
    if (cudaMalloc(&p, bytes) != cudaSuccess) p = nullptr;
  }
  ~DevicePtr() { cudaFree(p); }
  DevicePtr(const DevicePtr&) = delete;
  DevicePtr& operator=(const DevicePtr&) = delete;
};

// Copy bandwidth (bytes read + written per second) measured by BM_CopyBandwidth in this process.
inline std::vector<double> g_copy_bandwidth;

inline double copy_bandwidth_median() {
  if (g_copy_bandwidth.empty()) return 0.0;
  std::vector<double> v = g_copy_bandwidth;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// 256 MiB, several times the 60 MB L2: a memset over it evicts the previous iteration's lines.
inline void* flush_buffer() {
  static DevicePtr buffer(std::size_t{256} << 20);
  return buffer.p;
}

class EventTimer {
 public:
  EventTimer() {
    cudaEventCreate(&start_);
    cudaEventCreate(&stop_);
  }
  ~EventTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start() { cudaEventRecord(start_); }
  // Seconds since start(), after the work has finished.
  double stop() {
    cudaEventRecord(stop_);
    cudaEventSynchronize(stop_);
    float ms = 0.0f;
    cudaEventElapsedTime(&ms, start_, stop_);
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  cudaEvent_t start_{}, stop_{};
};

// Random normal-ish inputs in the dtype (fixed seed: benchmarks time, tests check).
inline std::vector<std::uint16_t> random_bits(std::size_t count, ak::DType dtype, std::uint64_t seed) {
  std::vector<std::uint16_t> out(count);
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
  for (std::size_t i = 0; i < count; ++i) {
    // Sum of 4 uniforms (Irwin-Hall), centred and scaled: close enough to N(0, 1) for timing.
    float sum = 0.0f;
    for (int j = 0; j < 4; ++j) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      sum += static_cast<float>(x >> 40) * (1.0f / 16777216.0f);
    }
    out[i] = ak::to_dtype_bits((sum - 2.0f) * 1.7320508f, dtype);
  }
  return out;
}

// Registered by kernels_backward.cpp.
void register_backward_benchmarks();

}  // namespace attnscope::bench
