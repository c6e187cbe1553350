// SPDX-License-Identifier: Apache-2.0
// The L2 flush of attnscope's own measurements (profiler/src/cuda/device_kernels.cu: a read of a buffer
// four times the L2 size, which writes every dirty line back, then discard.global.L2 over it, which leaves
// L2 empty and clean), run inside another program. The collector has no CUDA runtime to launch those kernels
// with, so device_kernels.cu is compiled into a fatbin at build time, embedded in the library, loaded into
// the program's context with the driver API, and its two kernels launched with cuLaunchKernel.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <string>

namespace attnscope::profiler::inject {

class L2Flush {
 public:
  // Loads the module and allocates the zero-filled buffer (`multiple` x `l2_bytes`) in the current context.
  L2Flush(std::size_t l2_bytes, std::size_t multiple);
  ~L2Flush();
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;

  // Enqueues the read and the discard on `stream`.
  void run(CUstream stream) const;
  std::size_t bytes() const { return bytes_; }
  std::string describe() const;

 private:
  CUmodule module_ = nullptr;
  CUfunction read_ = nullptr, discard_ = nullptr;
  CUdeviceptr buffer_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace attnscope::profiler::inject
