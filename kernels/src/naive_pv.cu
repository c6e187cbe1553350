// SPDX-License-Identifier: Apache-2.0
// naive.pv: O = P V with P [B, H, Nq, Nkv] (input dtype) read from HBM.
// CTA = 128 rows x d of O of one (b, h); 8 warps, 16 rows each. Reduction over Nkv in steps of 32 through
// a 2-stage cp.async ring (P[128 x 32] + V[32 x d] per stage), both stages in flight. O staged in the ring
// memory, then stored with 16-byte coalesced stores. When Nkv is not a multiple of 8 the rows of P are not
// 16-byte aligned, so P is copied with 2-byte loads instead of cp.async (same tiles, same bytes; slower).
#include <cuda_runtime.h>

#include "device_common.cuh"
#include "launch_registry.hpp"

namespace attnscope::kernels::detail {
namespace {

constexpr int kBm = 128, kBk = 32, kStages = 2, kThreads = 256;

template <typename T, int D>
struct PvSharedStorage {
  union {
    struct {
      T p[kStages][kBm * kBk];  // rows of 64 bytes, swizzle64
      T v[kStages][kBk * D];    // rows of D elements, swizzle128
    } ring;
    T o[kBm * D];  // epilogue staging
  };
};
static_assert(sizeof(PvSharedStorage<__half, 64>) == kStages * (kBm * kBk + kBk * 64) * sizeof(__half),
              "naive.pv smem must be 2 x (128*32 + 32*d) elements");
static_assert(sizeof(PvSharedStorage<__half, 128>) == kStages * (kBm * kBk + kBk * 128) * sizeof(__half),
              "naive.pv smem must be 2 x (128*32 + 32*d) elements");

template <typename T, int D>
__device__ __forceinline__ void load_step(PvSharedStorage<T, D>& smem, int stage, const T* pm, const T* v,
                                          int row0, int seq_q, int key0, int seq_kv, bool aligned, int tid) {
  // P[row0 .. +128, key0 .. +32]: 4 chunks per row.
#pragma unroll
  for (int c = tid; c < kBm * 4; c += kThreads) {
    const int r = c / 4, ch = c % 4;
    const int row = row0 + r, col = key0 + ch * 8;
    T* dst = smem.ring.p[stage] + r * kBk + device::swizzle64(r, ch) * 8;
    if (aligned) {
      const bool valid = row < seq_q && col < seq_kv;
      const T* src = pm + (valid ? static_cast<std::size_t>(row) * seq_kv + col : 0);
      device::cp_async_16(device::smem_addr(dst), src, valid);
    } else {
      const std::uint16_t* src =
          reinterpret_cast<const std::uint16_t*>(pm) + static_cast<std::size_t>(row) * seq_kv;
      std::uint16_t* out = reinterpret_cast<std::uint16_t*>(dst);
#pragma unroll
      for (int e = 0; e < 8; ++e)
        out[e] = (row < seq_q && col + e < seq_kv) ? src[col + e] : std::uint16_t{0};
    }
  }
  // V[key0 .. +32, 0 .. D).
  constexpr int kChunksPerRow = D / 8;
#pragma unroll
  for (int c = tid; c < kBk * kChunksPerRow; c += kThreads) {
    const int r = c / kChunksPerRow, ch = c % kChunksPerRow;
    const bool valid = key0 + r < seq_kv;
    const T* src = v + (valid ? static_cast<std::size_t>(key0 + r) * D + ch * 8 : 0);
    device::cp_async_16(device::smem_addr(smem.ring.v[stage] + r * D + device::swizzle128(r, ch) * 8), src,
                        valid);
  }
}

// 4 CTAs per SM at d = 64 (2 at d = 128): more P tiles in flight for a kernel that streams P from HBM.
template <typename T, int D, bool Instrumented>
__global__ void __launch_bounds__(kThreads, D == 64 ? 4 : 2) naive_pv_kernel(const NaiveParams p) {
  using Traits = device::ElementTraits<T>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  PvSharedStorage<T, D>& smem = *reinterpret_cast<PvSharedStorage<T, D>*>(smem_raw);
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int row_block = p.row_block_begin + static_cast<int>(blockIdx.x);
  const std::size_t bh = blockIdx.y;
  const T* pm = static_cast<const T*>(p.s) + bh * p.seq_q * static_cast<std::size_t>(p.seq_kv);
  const T* v = static_cast<const T*>(p.v) + bh * p.seq_kv * D;
  const int row0 = row_block * kBm;
  const bool aligned = p.seq_kv % 8 == 0;
  std::uint64_t start = 0;
  if constexpr (Instrumented) start = device::global_timer_ns();

  const int step_begin = p.col_block_begin;
  const int n_steps = max(0, p.col_block_end - step_begin);
  // Both stages filled up front: two reduction steps in flight per CTA (this kernel streams P from HBM and
  // is latency bound with one); a stage is refilled with step + 2 once every warp has read it.
  if (n_steps > 0) load_step<T, D>(smem, 0, pm, v, row0, p.seq_q, step_begin * kBk, p.seq_kv, aligned, tid);
  device::cp_async_commit();
  if (n_steps > 1)
    load_step<T, D>(smem, 1, pm, v, row0, p.seq_q, (step_begin + 1) * kBk, p.seq_kv, aligned, tid);
  device::cp_async_commit();

  float acc[D / 8][4] = {};
  for (int step = 0; step < n_steps; ++step) {
    const int stage = step % kStages;
    device::cp_async_wait<1>();  // step's group done; step + 1's may still be in flight
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBk / 16; ++kk) {
      std::uint32_t a[4];
      {
        const int r = warp * 16 + lane % 16;
        const int ch = kk * 2 + lane / 16;
        device::ldmatrix_x4(a,
                            device::smem_addr(smem.ring.p[stage] + r * kBk + device::swizzle64(r, ch) * 8));
      }
#pragma unroll
      for (int dp = 0; dp < D / 16; ++dp) {
        const int r = kk * 16 + lane % 8 + 8 * ((lane / 8) & 1);
        const int ch = 2 * dp + lane / 16;
        std::uint32_t b[4];
        device::ldmatrix_x4_trans(
            b, device::smem_addr(smem.ring.v[stage] + r * D + device::swizzle128(r, ch) * 8));
        Traits::mma(acc[2 * dp], a, b[0], b[1]);
        Traits::mma(acc[2 * dp + 1], a, b[2], b[3]);
      }
    }
    if (step + 2 < n_steps) {
      __syncthreads();  // every warp is done with this stage
      load_step<T, D>(smem, stage, pm, v, row0, p.seq_q, (step_begin + step + 2) * kBk, p.seq_kv, aligned,
                      tid);
    }
    device::cp_async_commit();  // possibly empty: one group per step keeps wait<1> exact
  }
  device::cp_async_wait<0>();
  __syncthreads();  // the ring becomes the O staging tile
#pragma unroll
  for (int dt = 0; dt < D / 8; ++dt) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = warp * 16 + g + 8 * r;
      *reinterpret_cast<std::uint32_t*>(smem.o + row * D + device::swizzle128(row, dt) * 8 + 2 * t) =
          Traits::pack(acc[dt][2 * r], acc[dt][2 * r + 1]);
    }
  }
  __syncthreads();
  T* o = static_cast<T*>(p.o) + bh * p.seq_q * D;
  constexpr int kChunksPerRow = D / 8;
#pragma unroll
  for (int c = tid; c < kBm * kChunksPerRow; c += kThreads) {
    const int r = c / kChunksPerRow, ch = c % kChunksPerRow;
    if (row0 + r < p.seq_q) {
      *reinterpret_cast<uint4*>(o + static_cast<std::size_t>(row0 + r) * D + ch * 8) =
          *reinterpret_cast<const uint4*>(smem.o + r * D + device::swizzle128(r, ch) * 8);
    }
  }
  if constexpr (Instrumented) {
    __syncthreads();
    if (tid == 0) {
      const std::size_t index = bh * gridDim.x + blockIdx.x;
      p.timeline[index] = TileTiming{static_cast<std::uint32_t>(bh / p.heads),
                                     static_cast<std::uint32_t>(bh % p.heads),
                                     static_cast<std::uint32_t>(row_block),
                                     0u,
                                     device::sm_id(),
                                     start,
                                     device::global_timer_ns()};
    }
  }
}

template <typename T, int D, bool Instrumented>
int launch_pv(const NaiveParams& p, int gx, int gy, Stream stream) {
  auto* kernel = &naive_pv_kernel<T, D, Instrumented>;
  constexpr int kSmem = static_cast<int>(sizeof(PvSharedStorage<T, D>));
  const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  if (err != cudaSuccess) return static_cast<int>(err);
  kernel<<<dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy)), kThreads, kSmem,
           static_cast<cudaStream_t>(stream)>>>(p);
  return static_cast<int>(cudaGetLastError());
}

template <typename T>
int launch_pv_dtype(const NaiveParams& p, int gx, int gy, Stream stream) {
  const bool instrumented = p.timeline != nullptr;
  if (p.head_dim == 64) {
    return instrumented ? launch_pv<T, 64, true>(p, gx, gy, stream)
                        : launch_pv<T, 64, false>(p, gx, gy, stream);
  }
  return instrumented ? launch_pv<T, 128, true>(p, gx, gy, stream)
                      : launch_pv<T, 128, false>(p, gx, gy, stream);
}

}  // namespace

int launch_naive_pv_kernel(DType dtype, const NaiveParams& p, int gx, int gy, Stream stream) {
  return dtype == DType::bf16 ? launch_pv_dtype<__nv_bfloat16>(p, gx, gy, stream)
                              : launch_pv_dtype<__half>(p, gx, gy, stream);
}

}  // namespace attnscope::kernels::detail
