// SPDX-License-Identifier: Apache-2.0
// naive.softmax: P = softmax(S) in place, row by row, fp32 arithmetic, S and P in the input dtype.
// One warp per row, 8 rows per CTA. Rows of up to 8192 keys are read once into shared memory (each warp
// its own row: 8 x round_up(Nkv, 8) x 2 bytes per CTA, up to 128 KB), max, sum and normalise run over that
// copy, and the row is written once. Longer rows are read twice (pass 1: running max and sum; pass 2:
// normalise and write) and written once. Causal: keys past the row's diagonal are not read and get P = 0; a
// row that sees no key is all zeros. A sliding window or ALiBi runs a separate two-pass kernel (below).
// Global accesses: aligned rows (Nkv % 8 == 0) move 16-byte chunks, lane k the chunks k, k + 32, ...;
// unaligned rows move 2-byte elements, lane k the elements k, k + 32, ..., so that a warp's access covers
// 64 contiguous bytes (each sector of the row once per access). Nothing of the row is held in registers:
// the register-held version spilled (up to 1.4 KB per thread) and its local-memory traffic showed up as
// extra L2 writes.
#include <cuda_runtime.h>

#include "attnscope/vocab/geometry.hpp"
#include "device_common.cuh"
#include "launch_registry.hpp"

namespace attnscope::kernels::detail {
namespace {

// The tiling is vocab::NaiveTiling (docs/dataflow.md): one warp per row, softmax_rows_per_cta rows per CTA.
constexpr NaiveTiling kTiling{};
constexpr int kRowsPerCta = kTiling.softmax_rows_per_cta;
constexpr int kThreads = vocab::naive_softmax_threads_per_cta(kTiling);
constexpr int kSharedRowLimit = static_cast<int>(vocab::kSoftmaxSharedRowLimit);  // longest row read once
constexpr float kLog2e = 1.4426950408889634f;

// Shared-memory row pitch in elements: whole 16-byte chunks (vocab::naive_softmax_row_pitch).
__host__ __device__ constexpr int row_pitch(int n) {
  return vocab::naive_softmax_row_pitch<int>(n);
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

template <typename T>
__device__ __forceinline__ void unpack8(float (&x)[8], const uint4& raw) {
  using Traits = device::ElementTraits<T>;
  const std::uint32_t w[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = Traits::unpack(w[i]);
    x[2 * i] = f.x;
    x[2 * i + 1] = f.y;
  }
}

// Keys [0, limit) of the row, 2-byte elements (unaligned rows), lane-interleaved; four loads in flight.
template <typename T>
__device__ __forceinline__ void copy_row_elements(std::uint16_t* dst, const std::uint16_t* src, int limit,
                                                  int lane) {
  int c = lane;
  for (; c + 96 < limit; c += 128) {
    const std::uint16_t a = src[c], b = src[c + 32], d = src[c + 64], e = src[c + 96];
    dst[c] = a;
    dst[c + 32] = b;
    dst[c + 64] = d;
    dst[c + 96] = e;
  }
  for (; c < limit; c += 32) dst[c] = src[c];
}

// Max and sum over the shared copy (elements at or past `limit` excluded); returns {m_scaled, 1 / sum}.
template <typename T>
__device__ __forceinline__ float2 row_statistics(const T* row, int limit, int lane) {
  float m = -INFINITY;
  for (int k = lane; 8 * k < limit; k += 32) {
    float x[8];
    unpack8<T>(x, *reinterpret_cast<const uint4*>(row + 8 * k));
#pragma unroll
    for (int e = 0; e < 8; ++e) m = 8 * k + e < limit ? fmaxf(m, x[e]) : m;
  }
  m = warp_max(m);
  const float m_scaled = m == -INFINITY ? 0.0f : m * kLog2e;
  float sum = 0.0f;
  for (int k = lane; 8 * k < limit; k += 32) {
    float x[8];
    unpack8<T>(x, *reinterpret_cast<const uint4*>(row + 8 * k));
#pragma unroll
    for (int e = 0; e < 8; ++e)
      sum += 8 * k + e < limit ? device::fast_exp2(fmaf(x[e], kLog2e, -m_scaled)) : 0.0f;
  }
  sum = warp_sum(sum);
  return make_float2(m_scaled, sum > 0.0f ? 1.0f / sum : 0.0f);
}

template <typename T>
__device__ __forceinline__ float probability(float s, int col, int limit, float2 stats) {
  return col < limit ? device::fast_exp2(fmaf(s, kLog2e, -stats.x)) * stats.y : 0.0f;
}

// Rows of up to kSharedRowLimit keys: read once into shared memory, written once.
template <typename T, bool Aligned, bool Instrumented>
__global__ void __launch_bounds__(kThreads) naive_softmax_shared_kernel(const NaiveParams p) {
  using Traits = device::ElementTraits<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int block = p.row_block_begin + static_cast<int>(blockIdx.x);
  const std::size_t bh = blockIdx.y;
  const int row = block * kRowsPerCta + warp;
  const int n = p.seq_kv;
  __shared__ std::uint64_t start;  // instrumented build only: thread 0's start time
  if constexpr (Instrumented) {
    if (tid == 0) start = device::global_timer_ns();
  }
  if (row < p.seq_q) {
    T* srow = static_cast<T*>(p.s) + (bh * p.seq_q + row) * static_cast<std::size_t>(n);
    T* copy = reinterpret_cast<T*>(smem_raw) + warp * row_pitch(n);
    // Keys visible to this row: [0, limit).
    const int limit = p.causal ? max(0, min(n, row + n - p.seq_q + 1)) : n;
    if constexpr (Aligned) {
      // Every chunk holding a visible key (the one straddling a causal diagonal whole: same sector).
      for (int k = lane; 8 * k < limit; k += 32)
        device::cp_async_16(device::smem_addr(copy + 8 * k), srow + 8 * k, true);
      device::cp_async_commit();
      device::cp_async_wait<0>();
    } else {
      copy_row_elements<T>(reinterpret_cast<std::uint16_t*>(copy),
                           reinterpret_cast<const std::uint16_t*>(srow), limit, lane);
    }
    __syncwarp();  // the row's copy is the warp's: every lane sees every lane's part
    const float2 stats = row_statistics<T>(copy, limit, lane);
    if constexpr (Aligned) {
      for (int k = lane; 8 * k < n; k += 32) {
        float x[8];
        unpack8<T>(x, *reinterpret_cast<const uint4*>(copy + 8 * k));
        uint4 raw;
        raw.x = Traits::pack(probability<T>(x[0], 8 * k, limit, stats),
                             probability<T>(x[1], 8 * k + 1, limit, stats));
        raw.y = Traits::pack(probability<T>(x[2], 8 * k + 2, limit, stats),
                             probability<T>(x[3], 8 * k + 3, limit, stats));
        raw.z = Traits::pack(probability<T>(x[4], 8 * k + 4, limit, stats),
                             probability<T>(x[5], 8 * k + 5, limit, stats));
        raw.w = Traits::pack(probability<T>(x[6], 8 * k + 6, limit, stats),
                             probability<T>(x[7], 8 * k + 7, limit, stats));
        *reinterpret_cast<uint4*>(srow + 8 * k) = raw;
      }
    } else {
      const std::uint16_t* bits = reinterpret_cast<const std::uint16_t*>(copy);
      std::uint16_t* out = reinterpret_cast<std::uint16_t*>(srow);
      for (int c = lane; c < n; c += 32)
        out[c] =
            Traits::from_float(probability<T>(c < limit ? Traits::to_float(bits[c]) : 0.0f, c, limit, stats));
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

// Element `col` of a long row, or -inf at or past `limit` (not read).
template <typename T>
__device__ __forceinline__ float element(const std::uint16_t* bits, int col, int limit) {
  return col < limit ? device::ElementTraits<T>::to_float(bits[col]) : -INFINITY;
}

// Rows longer than kSharedRowLimit: pass 1 (running max and sum), pass 2 (normalise and write).
template <typename T, bool Aligned, bool Instrumented>
__global__ void __launch_bounds__(kThreads) naive_softmax_two_pass_kernel(const NaiveParams p) {
  using Traits = device::ElementTraits<T>;
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int block = p.row_block_begin + static_cast<int>(blockIdx.x);
  const std::size_t bh = blockIdx.y;
  const int row = block * kRowsPerCta + warp;
  const int n = p.seq_kv;
  __shared__ std::uint64_t start;
  if constexpr (Instrumented) {
    if (tid == 0) start = device::global_timer_ns();
  }
  if (row < p.seq_q) {
    T* srow = static_cast<T*>(p.s) + (bh * p.seq_q + row) * static_cast<std::size_t>(n);
    const std::uint16_t* bits = reinterpret_cast<const std::uint16_t*>(srow);
    const int limit = p.causal ? max(0, min(n, row + n - p.seq_q + 1)) : n;
    // Pass 1, per lane, merged across the warp at the end. Aligned: chunk k of 8 elements per step of a
    // lane (16-byte loads); unaligned: elements lane + 32 j (2-byte loads, 64 contiguous bytes per warp).
    constexpr int kPer = Aligned ? 8 : 1;
    float m = -INFINITY, sum = 0.0f;
    for (int k = lane; kPer * k < limit; k += 32) {
      float x[kPer];
      if constexpr (Aligned) {
        unpack8<T>(x, *reinterpret_cast<const uint4*>(srow + 8 * k));
      } else {
        x[0] = Traits::to_float(bits[k]);
      }
      float mv = m;
#pragma unroll
      for (int e = 0; e < kPer; ++e) mv = kPer * k + e < limit ? fmaxf(mv, x[e]) : mv;
      if (mv == -INFINITY) continue;
      sum *= device::fast_exp2((m - mv) * kLog2e);
#pragma unroll
      for (int e = 0; e < kPer; ++e)
        sum += kPer * k + e < limit ? device::fast_exp2((x[e] - mv) * kLog2e) : 0.0f;
      m = mv;
    }
    const float m_all = warp_max(m);
    sum = m == -INFINITY ? 0.0f : sum * device::fast_exp2((m - m_all) * kLog2e);
    sum = warp_sum(sum);
    const float2 stats =
        make_float2(m_all == -INFINITY ? 0.0f : m_all * kLog2e, sum > 0.0f ? 1.0f / sum : 0.0f);
    // Pass 2: normalise and write the whole row (zeros past a causal diagonal; those keys are not read).
    if constexpr (Aligned) {
      for (int k = lane; 8 * k < n; k += 32) {
        float x[8];
        if (8 * k < limit) {
          unpack8<T>(x, *reinterpret_cast<const uint4*>(srow + 8 * k));
        } else {
#pragma unroll
          for (int e = 0; e < 8; ++e) x[e] = 0.0f;
        }
        uint4 raw;
        raw.x = Traits::pack(probability<T>(x[0], 8 * k, limit, stats),
                             probability<T>(x[1], 8 * k + 1, limit, stats));
        raw.y = Traits::pack(probability<T>(x[2], 8 * k + 2, limit, stats),
                             probability<T>(x[3], 8 * k + 3, limit, stats));
        raw.z = Traits::pack(probability<T>(x[4], 8 * k + 4, limit, stats),
                             probability<T>(x[5], 8 * k + 5, limit, stats));
        raw.w = Traits::pack(probability<T>(x[6], 8 * k + 6, limit, stats),
                             probability<T>(x[7], 8 * k + 7, limit, stats));
        *reinterpret_cast<uint4*>(srow + 8 * k) = raw;
      }
    } else {
      std::uint16_t* out = reinterpret_cast<std::uint16_t*>(srow);
      for (int c = lane; c < n; c += 32) {
        const float s = c < limit ? element<T>(bits, c, limit) : 0.0f;
        out[c] = Traits::from_float(probability<T>(s, c, limit, stats));
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

// General masks (sliding window and/or ALiBi): every row in two passes over its visible keys [first,
// limit), 2-byte elements lane-interleaved (a warp covers 64 contiguous bytes per access), whatever the row
// length or alignment; P = 0 outside the band, the bias -slope |i + Nkv - Nq - j| added to each score.
// Pass 1 keeps a running max and sum, pass 2 re-reads the visible keys and writes the whole row.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    naive_softmax_general_mask_kernel(const NaiveParams p, const MaskParams mask) {
  using Traits = device::ElementTraits<T>;
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int block = p.row_block_begin + static_cast<int>(blockIdx.x);
  const std::size_t bh = blockIdx.y;
  const int row = block * kRowsPerCta + warp;
  if (row >= p.seq_q) return;
  const int n = p.seq_kv;
  T* srow = static_cast<T*>(p.s) + (bh * p.seq_q + row) * static_cast<std::size_t>(n);
  const std::uint16_t* bits = reinterpret_cast<const std::uint16_t*>(srow);
  const int diagonal = row + n - p.seq_q;  // the key at relative distance 0
  const int limit = p.causal ? max(0, min(n, diagonal + 1)) : n;
  const int first = static_cast<int>(vocab::first_visible_key(row, p.seq_q, n, mask.window));
  const float slope = mask.alibi_slopes != nullptr ? mask.alibi_slopes[bh % p.heads] : 0.0f;
  const auto biased = [&](int c) {
    return Traits::to_float(bits[c]) - slope * fabsf(static_cast<float>(diagonal - c));
  };
  float m = -INFINITY, sum = 0.0f;
  for (int c = first + lane; c < limit; c += 32) {
    const float x = biased(c);
    const float mv = fmaxf(m, x);
    sum = sum * device::fast_exp2((m - mv) * kLog2e) + device::fast_exp2((x - mv) * kLog2e);
    m = mv;
  }
  const float m_all = warp_max(m);
  sum = m == -INFINITY ? 0.0f : sum * device::fast_exp2((m - m_all) * kLog2e);
  sum = warp_sum(sum);
  const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
  std::uint16_t* out = reinterpret_cast<std::uint16_t*>(srow);
  for (int c = lane; c < n; c += 32) {
    const float pr = c >= first && c < limit ? device::fast_exp2((biased(c) - m_all) * kLog2e) * inv : 0.0f;
    out[c] = Traits::from_float(pr);
  }
}

template <typename T, bool Aligned, bool Instrumented>
int launch_softmax(const NaiveParams& p, int gx, int gy, Stream stream) {
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy));
  const auto s = static_cast<cudaStream_t>(stream);
  if (p.seq_kv <= kSharedRowLimit) {
    auto* kernel = &naive_softmax_shared_kernel<T, Aligned, Instrumented>;
    const int smem = static_cast<int>(
        vocab::naive_softmax_smem_bytes(kTiling, p.seq_kv, device::ElementTraits<T>::kDType));
    const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (err != cudaSuccess) return static_cast<int>(err);
    kernel<<<grid, kThreads, static_cast<std::size_t>(smem), s>>>(p);
  } else {
    naive_softmax_two_pass_kernel<T, Aligned, Instrumented><<<grid, kThreads, 0, s>>>(p);
  }
  return static_cast<int>(cudaGetLastError());
}

template <typename T>
int launch_softmax_dtype(const NaiveParams& p, const MaskParams& m, int gx, int gy, Stream stream) {
  if (m.window > 0 || m.alibi_slopes != nullptr) {  // the launcher refuses a timeline here
    naive_softmax_general_mask_kernel<T><<<dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy)),
                                           kThreads, 0, static_cast<cudaStream_t>(stream)>>>(p, m);
    return static_cast<int>(cudaGetLastError());
  }
  const bool aligned = vocab::naive_rows_aligned(p.seq_kv);
  if (p.timeline != nullptr) {
    return aligned ? launch_softmax<T, true, true>(p, gx, gy, stream)
                   : launch_softmax<T, false, true>(p, gx, gy, stream);
  }
  return aligned ? launch_softmax<T, true, false>(p, gx, gy, stream)
                 : launch_softmax<T, false, false>(p, gx, gy, stream);
}

}  // namespace

int launch_naive_softmax_kernel(DType dtype, const NaiveParams& p, const MaskParams& m, int gx, int gy,
                                Stream stream) {
  return dtype == DType::bf16 ? launch_softmax_dtype<__nv_bfloat16>(p, m, gx, gy, stream)
                              : launch_softmax_dtype<__half>(p, m, gx, gy, stream);
}

}  // namespace attnscope::kernels::detail
