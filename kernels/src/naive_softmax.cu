// SPDX-License-Identifier: Apache-2.0
// naive.softmax: P = softmax(S) in place, row by row, fp32 arithmetic, S and P in the input dtype.
// One warp per row, 8 rows per CTA. A lane handles 8-element vectors lane, lane + 32, ...; rows of up to
// 8192 keys are held in registers (read once, written once); longer rows are read twice (pass 1: running
// max and sum; pass 2: normalise and write) and written once. Causal: keys past the row's diagonal get
// P = 0; a row that sees no key is all zeros.
#include <cuda_runtime.h>

#include "device_common.cuh"
#include "launch_registry.hpp"

namespace attnscope::kernels::detail {
namespace {

constexpr int kRowsPerCta = 8, kThreads = 256;
constexpr float kLog2e = 1.4426950408889634f;

// Bits of -infinity in the input dtype: masked and out-of-row elements are stored as -inf in the packed
// row, so the passes over it need no per-element compares (which ptxas would keep as 128 live predicates).
template <typename T>
constexpr std::uint32_t kNegInfBits = 0xfc00u;  // fp16
template <>
constexpr std::uint32_t kNegInfBits<__nv_bfloat16> = 0xff80u;

// 8 consecutive elements [col, col + 8) of a row, packed in the input dtype; elements at or past `limit`
// (end of the row, or the causal diagonal) read as -inf. A whole visible vector of an aligned row
// (Nkv % 8 == 0) is one 16-byte load; the rest uses 2-byte loads.
template <typename T>
__device__ __forceinline__ uint4 load_masked(const T* row, int col, int limit, bool aligned) {
  if (aligned && col + 8 <= limit) return *reinterpret_cast<const uint4*>(row + col);
  const std::uint16_t* bits = reinterpret_cast<const std::uint16_t*>(row);
  std::uint32_t w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
  for (int e = 0; e < 8; ++e) {
    const std::uint32_t b = col + e < limit ? bits[col + e] : kNegInfBits<T>;
    w[e / 2] |= b << (16 * (e % 2));
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

template <typename T>
__device__ __forceinline__ void unpack(float (&x)[8], const uint4& raw) {
  using Traits = device::ElementTraits<T>;
  const std::uint32_t w[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = Traits::unpack(w[i]);
    x[2 * i] = f.x;
    x[2 * i + 1] = f.y;
  }
}

template <typename T>
__device__ __forceinline__ void store_vec(const float (&x)[8], T* row, int col, int n, bool aligned) {
  using Traits = device::ElementTraits<T>;
  if (aligned && col + 8 <= n) {
    uint4 raw;
    raw.x = Traits::pack(x[0], x[1]);
    raw.y = Traits::pack(x[2], x[3]);
    raw.z = Traits::pack(x[4], x[5]);
    raw.w = Traits::pack(x[6], x[7]);
    *reinterpret_cast<uint4*>(row + col) = raw;
  } else {
    std::uint16_t* bits = reinterpret_cast<std::uint16_t*>(row);
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      if (col + e < n) bits[col + e] = Traits::from_float(x[e]);
    }
  }
}

// An empty asm that "modifies" the packed row: stops the compiler from keeping the unpacked floats of all
// passes alive at once (128 floats per lane at Nkv = 4096), which would spill; unpacking again is cheap.
__device__ __forceinline__ void keep_packed(uint4& raw) {
  asm volatile("" : "+r"(raw.x), "+r"(raw.y), "+r"(raw.z), "+r"(raw.w));
}

__device__ __forceinline__ float warp_max(float x) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
  return x;
}
__device__ __forceinline__ float warp_sum(float x) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

// kVecs > 0: the row lives in registers (kVecs vectors of 8 per lane, Nkv <= 256 * kVecs).
// kVecs == 0: two-pass streaming for long rows.
template <typename T, int kVecs, bool Instrumented>
__global__ void __launch_bounds__(kThreads, kVecs >= 32 ? 1 : (kVecs >= 16 ? 2 : 4))
    naive_softmax_kernel(const NaiveParams p) {
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int block = p.row_block_begin + static_cast<int>(blockIdx.x);
  const std::size_t bh = blockIdx.y;
  const int row = block * kRowsPerCta + warp;
  const int n = p.seq_kv;
  const bool aligned = n % 8 == 0;
  std::uint64_t start = 0;
  if constexpr (Instrumented) start = device::global_timer_ns();
  if (row < p.seq_q) {
    T* srow = static_cast<T*>(p.s) + (bh * p.seq_q + row) * static_cast<std::size_t>(n);
    // Keys visible to this row: [0, limit).
    const int limit = p.causal ? max(0, min(n, row + n - p.seq_q + 1)) : n;
    if constexpr (kVecs > 0) {
      // The row stays packed in the input dtype (4 registers per 8 elements); converted on each pass.
      uint4 raw[kVecs];
#pragma unroll
      for (int i = 0; i < kVecs; ++i) {
        const int col = (lane + 32 * i) * 8;
        raw[i] = col < n ? load_masked<T>(srow, col, limit, aligned)
                         : make_uint4(kNegInfBits<T> * 0x10001u, kNegInfBits<T> * 0x10001u,
                                      kNegInfBits<T> * 0x10001u, kNegInfBits<T> * 0x10001u);
      }
      float m = -INFINITY;
#pragma unroll
      for (int i = 0; i < kVecs; ++i) {
        float x[8];
        keep_packed(raw[i]);
        unpack<T>(x, raw[i]);
#pragma unroll
        for (int e = 0; e < 8; ++e) m = fmaxf(m, x[e]);
      }
      m = warp_max(m);
      const float m_scaled = m == -INFINITY ? 0.0f : m * kLog2e;
      float sum = 0.0f;
#pragma unroll
      for (int i = 0; i < kVecs; ++i) {
        float x[8];
        keep_packed(raw[i]);
        unpack<T>(x, raw[i]);
#pragma unroll
        for (int e = 0; e < 8; ++e) sum += device::fast_exp2(fmaf(x[e], kLog2e, -m_scaled));
      }
      sum = warp_sum(sum);
      const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
#pragma unroll
      for (int i = 0; i < kVecs; ++i) {
        const int col = (lane + 32 * i) * 8;
        if (col < n) {
          float x[8];
          keep_packed(raw[i]);
          unpack<T>(x, raw[i]);
#pragma unroll
          for (int e = 0; e < 8; ++e) x[e] = device::fast_exp2(fmaf(x[e], kLog2e, -m_scaled)) * inv;
          store_vec<T>(x, srow, col, n, aligned);
        }
      }
    } else {
      // Pass 1: running max and sum (each lane its own, merged across the warp at the end).
      float m = -INFINITY, sum = 0.0f;
      for (int col = lane * 8; col < n; col += 32 * 8) {
        float x[8];
        unpack<T>(x, load_masked<T>(srow, col, limit, aligned));
        float mv = m;
#pragma unroll
        for (int e = 0; e < 8; ++e) mv = fmaxf(mv, x[e]);
        if (mv == -INFINITY) continue;
        sum *= device::fast_exp2((m - mv) * kLog2e);
#pragma unroll
        for (int e = 0; e < 8; ++e) sum += device::fast_exp2((x[e] - mv) * kLog2e);
        m = mv;
      }
      const float m_all = warp_max(m);
      sum = m == -INFINITY ? 0.0f : sum * device::fast_exp2((m - m_all) * kLog2e);
      sum = warp_sum(sum);
      const float m_scaled = m_all == -INFINITY ? 0.0f : m_all * kLog2e;
      const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
      // Pass 2: normalise and write.
      for (int col = lane * 8; col < n; col += 32 * 8) {
        float x[8];
        unpack<T>(x, load_masked<T>(srow, col, limit, aligned));
#pragma unroll
        for (int e = 0; e < 8; ++e) x[e] = device::fast_exp2(fmaf(x[e], kLog2e, -m_scaled)) * inv;
        store_vec<T>(x, srow, col, n, aligned);
      }
    }
  }
  if constexpr (Instrumented) {
    __syncthreads();
    if (tid == 0) {
      p.timeline[bh * gridDim.x + blockIdx.x] = TileTiming{static_cast<std::uint32_t>(bh / p.heads),
                                                           static_cast<std::uint32_t>(bh % p.heads),
                                                           static_cast<std::uint32_t>(block),
                                                           0u,
                                                           device::sm_id(),
                                                           start,
                                                           device::global_timer_ns()};
    }
  }
}

template <typename T, int kVecs, bool Instrumented>
int launch_softmax(const NaiveParams& p, int gx, int gy, Stream stream) {
  naive_softmax_kernel<T, kVecs, Instrumented><<<dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy)),
                                                 kThreads, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return static_cast<int>(cudaGetLastError());
}

template <typename T, bool Instrumented>
int launch_softmax_rows(const NaiveParams& p, int gx, int gy, Stream stream) {
  if (p.seq_kv <= 1024) return launch_softmax<T, 4, Instrumented>(p, gx, gy, stream);
  if (p.seq_kv <= 4096) return launch_softmax<T, 16, Instrumented>(p, gx, gy, stream);
  if (p.seq_kv <= 8192) return launch_softmax<T, 32, Instrumented>(p, gx, gy, stream);
  return launch_softmax<T, 0, Instrumented>(p, gx, gy, stream);
}

template <typename T>
int launch_softmax_dtype(const NaiveParams& p, int gx, int gy, Stream stream) {
  return p.timeline != nullptr ? launch_softmax_rows<T, true>(p, gx, gy, stream)
                               : launch_softmax_rows<T, false>(p, gx, gy, stream);
}

}  // namespace

int launch_naive_softmax_kernel(DType dtype, const NaiveParams& p, int gx, int gy, Stream stream) {
  return dtype == DType::bf16 ? launch_softmax_dtype<__nv_bfloat16>(p, gx, gy, stream)
                              : launch_softmax_dtype<__half>(p, gx, gy, stream);
}

}  // namespace attnscope::kernels::detail
