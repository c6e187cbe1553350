// SPDX-License-Identifier: Apache-2.0
// The checks every launcher makes before a launch (host C++, no kernel code): the device is the sm_90a chip
// the kernels are built for, a tensor pointer is set and aligned as the kernel's accesses need, and a tile
// window lies inside the grid.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "attnscope/kernels/attention.hpp"

namespace attnscope::kernels::detail {

inline Status fail(StatusCode code, std::string message) {
  return Status{code, std::move(message)};
}

// `why` ends the message: what needs the alignment ("16-byte vector loads/stores", ...).
inline Status check_aligned(const void* p, const char* name, std::size_t alignment, const char* why) {
  if (p == nullptr) return fail(StatusCode::misaligned, std::string("pointer ") + name + " is null");
  if (reinterpret_cast<std::uintptr_t>(p) % alignment != 0) {
    return fail(StatusCode::misaligned, std::string("pointer ") + name + " is not " +
                                            std::to_string(alignment) + "-byte aligned (" + why +
                                            " need it)");
  }
  return {};
}

// The current device is compute capability 9.0 (the kernels are sm_90a: wgmma, setmaxnreg, TMA).
inline Status check_device() {
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) {
    return fail(StatusCode::unsupported_device,
                std::string("no usable CUDA device: ") + cudaGetErrorString(err));
  }
  int major = 0, minor = 0;
  err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (err != cudaSuccess)
    return fail(StatusCode::cuda_error, std::string("cudaDeviceGetAttribute: ") + cudaGetErrorString(err));
  if (major != 9 || minor != 0) {
    return fail(StatusCode::unsupported_device,
                "the kernels are built for sm_90a (Hopper, compute capability 9.0); device " +
                    std::to_string(device) + " is " + std::to_string(major) + "." + std::to_string(minor));
  }
  return {};
}

// A window [begin, end) of `total` tiles (end -1: to the last), clipped to the tiles there are.
inline Status clip_window(int begin, int end, int total, const char* what, int& out_begin, int& out_end) {
  if (begin < 0 || (end != -1 && end < begin)) {
    return fail(StatusCode::bad_shape, std::string("bad window: ") + what + " [" + std::to_string(begin) +
                                           ", " + std::to_string(end) + ") (begin >= 0, end >= begin or -1)");
  }
  if (begin > total) {
    return fail(StatusCode::bad_shape, std::string("bad window: ") + what + " begins at " +
                                           std::to_string(begin) + " but there are only " +
                                           std::to_string(total) + " tiles");
  }
  out_begin = begin;
  out_end = end == -1 ? total : std::min(end, total);
  return {};
}

}  // namespace attnscope::kernels::detail
