// SPDX-License-Identifier: Apache-2.0
// Helpers for the GPU kernel tests: device buffers, random inputs rounded to the dtype, NaN poisoning,
// and the comparison against the float64 reference (norm-wise and element-wise).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "attnscope/kernels/attention.hpp"
#include "attnscope/kernels/reference.hpp"

namespace attnscope::kernels::testing {

#define ATTN_CUDA_CHECK(call)                                                  \
  do {                                                                         \
    const cudaError_t err_ = (call);                                           \
    ASSERT_EQ(err_, cudaSuccess) << #call << ": " << cudaGetErrorString(err_); \
  } while (0)

// Owns one cudaMalloc allocation.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (cudaMalloc(&ptr_, bytes == 0 ? 16 : bytes) != cudaSuccess) ptr_ = nullptr;
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

inline unsigned fresh_seed() {
  const unsigned seed = std::random_device{}();
  std::printf("[ seed     ] %u\n", seed);
  return seed;
}

// Host copy of one input tensor: values already rounded to the dtype, and their 16-bit patterns.
struct HostTensor {
  std::vector<float> values;
  std::vector<std::uint16_t> bits;
};

inline HostTensor random_tensor(std::size_t count, DType dtype, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  HostTensor t;
  t.values.resize(count);
  t.bits.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    t.bits[i] = to_dtype_bits(dist(rng), dtype);
    t.values[i] = from_dtype_bits(t.bits[i], dtype);
  }
  return t;
}

// All-ones bytes: NaN in fp16, bf16 and fp32, so any element a kernel forgets stays NaN.
inline constexpr int kPoisonByte = 0xff;

struct ErrorStats {
  double rel_norm = 0.0;  // ||out - ref|| / ||ref||
  double max_abs = 0.0;   // max |out - ref|
  std::size_t non_finite = 0;
};

inline ErrorStats compare(const std::vector<float>& out, const std::vector<double>& ref) {
  ErrorStats s;
  double num = 0.0, den = 0.0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) {
      ++s.non_finite;
      continue;
    }
    const double d = static_cast<double>(out[i]) - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
    s.max_abs = std::max(s.max_abs, std::fabs(d));
  }
  s.rel_norm = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  return s;
}

// Element-wise sanity bound: a few fp16/bf16 roundings of P and O on values of magnitude <= ~1 (O is a
// convex combination of V rows, |V| < ~5 for normal inputs).
inline double elementwise_bound(DType dtype) {
  return dtype == DType::bf16 ? 5e-2 : 1e-2;
}

inline std::vector<float> to_floats(const std::vector<std::uint16_t>& bits, DType dtype) {
  std::vector<float> out(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) out[i] = from_dtype_bits(bits[i], dtype);
  return out;
}

inline std::string describe(const AttentionShape& s) {
  return "B=" + std::to_string(s.batch) + " H=" + std::to_string(s.heads) + " Nq=" + std::to_string(s.seq_q) +
         " Nkv=" + std::to_string(s.seq_kv) + " d=" + std::to_string(s.head_dim) + " " + dtype_name(s.dtype) +
         (s.causal ? " causal" : "") + (s.window > 0 ? " window=" + std::to_string(s.window) : "") +
         (s.alibi ? " alibi" : "");
}

}  // namespace attnscope::kernels::testing
