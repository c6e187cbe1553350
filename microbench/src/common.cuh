// SPDX-License-Identifier: Apache-2.0
// Device helpers shared by the microbenchmarks: checked CUDA calls, event timing, clock records and the
// inline PTX they measure (mma.sync, ldmatrix, cp.async, ex2.approx, clocks).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness.hpp"

namespace attnscope::microbench {

[[noreturn]] inline void cuda_fail(cudaError_t e, const char* what, const char* file, int line) {
  throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what + ": " +
                           cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}
#define MB_CHECK(call)                                                                                  \
  do {                                                                                                  \
    const cudaError_t mb_err_ = (call);                                                                 \
    if (mb_err_ != cudaSuccess) ::attnscope::microbench::cuda_fail(mb_err_, #call, __FILE__, __LINE__); \
  } while (0)
// After every launch: the launch error now, and (with sync) any fault of the kernel.
#define MB_LAUNCHED() MB_CHECK(cudaGetLastError())

// Device buffer owned by the host side.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t n) : n_(n) {
    MB_CHECK(cudaMalloc(reinterpret_cast<void**>(&p_), n * sizeof(T) > 0 ? n * sizeof(T) : 1));
  }
  ~DeviceBuffer() { cudaFree(p_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  T* get() const { return p_; }
  std::size_t size() const { return n_; }
  std::vector<T> copy_out() const {
    std::vector<T> h(n_);
    MB_CHECK(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }

 private:
  T* p_ = nullptr;
  std::size_t n_;
};

class EventTimer {
 public:
  EventTimer() {
    MB_CHECK(cudaEventCreate(&a_));
    MB_CHECK(cudaEventCreate(&b_));
  }
  ~EventTimer() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start(cudaStream_t s = nullptr) { MB_CHECK(cudaEventRecord(a_, s)); }
  // Milliseconds since start(); synchronizes on the stop event.
  double stop_ms(cudaStream_t s = nullptr) {
    MB_CHECK(cudaEventRecord(b_, s));
    MB_CHECK(cudaEventSynchronize(b_));
    float ms = 0;
    MB_CHECK(cudaEventElapsedTime(&ms, a_, b_));
    return ms;
  }

 private:
  cudaEvent_t a_{}, b_{};
};

// ---- Device side
// -------------------------------------------------------------------------------------------
namespace dev {

__device__ __forceinline__ std::uint64_t clock64() {
  std::uint64_t c;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
  return c;
}
__device__ __forceinline__ std::uint64_t globaltimer() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ std::uint32_t smid() {
  std::uint32_t id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}
__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
// wgmma shared-memory matrix descriptor of a 128-byte-swizzled operand: start address, leading and stride
// byte offsets (each >> 4), swizzle mode 1 (128 B) in bits 62-63 (the Hopper kernel's encoding,
// hopper_kernel.cuh).
__device__ __forceinline__ std::uint64_t wgmma_desc(std::uint32_t addr, std::uint32_t lbo,
                                                    std::uint32_t sbo) {
  return static_cast<std::uint64_t>((addr & 0x3FFFFu) >> 4) | (static_cast<std::uint64_t>(lbo >> 4) << 16) |
         (static_cast<std::uint64_t>(sbo >> 4) << 32) | (std::uint64_t{1} << 62);
}

// Block start/end stamps: thread 0 after a barrier.
struct ClockStamp {
  std::uint64_t c0 = 0, g0 = 0;
  __device__ __forceinline__ void begin() {
    __syncthreads();
    if (threadIdx.x == 0) {
      g0 = globaltimer();
      c0 = clock64();
    }
  }
  __device__ __forceinline__ void end(BlockClock* out) {
    __syncthreads();
    if (threadIdx.x == 0) {
      const std::uint64_t c1 = clock64();
      const std::uint64_t g1 = globaltimer();
      out[blockIdx.x] = BlockClock{c0, c1, g0, g1};
    }
  }
};

// D = A B + D, m16n8k16, f32 accumulate.
template <bool Bf16>
__device__ __forceinline__ void mma16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                         std::uint32_t b1) {
  if constexpr (Bf16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}
// m16n8k8 fp16, f32 accumulate (half the FLOPs of m16n8k16).
__device__ __forceinline__ void mma1688(float (&d)[4], const std::uint32_t (&a)[2], std::uint32_t b0) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b0));
}
// m16n8k16 fp16 with fp16 accumulate.
__device__ __forceinline__ void mma16816_f16acc(std::uint32_t (&d)[2], const std::uint32_t (&a)[4],
                                                std::uint32_t b0, std::uint32_t b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
               : "+r"(d[0]), "+r"(d[1])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ float ex2(float x) {
  float y;
  asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ void cp_async16(std::uint32_t dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
// Load through L2 only (L1 not allocated): what an L2 hit costs.
__device__ __forceinline__ std::uint64_t ld_cg_u64(const std::uint64_t* p) {
  std::uint64_t v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

}  // namespace dev

// Checks a kernel's per-thread results (finite, not all zero); records the check once per configuration.
inline void check_finite(Context& ctx, const std::string& bench, const std::string& what,
                         const DeviceBuffer<float>& out) {
  const std::vector<float> h = out.copy_out();
  double sum = 0;
  bool finite = true;
  for (float x : h) {
    finite = finite && std::isfinite(x);
    sum += x;
  }
  ctx.rec->check(bench, what + ": results finite and nonzero", finite && sum != 0.0,
                 "checksum " + std::to_string(sum));
}

// Launch helper: sets the dynamic shared-memory limit when a kernel asks for more than 48 KB.
template <typename Kernel>
void allow_smem(Kernel k, int bytes) {
  MB_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

}  // namespace attnscope::microbench
