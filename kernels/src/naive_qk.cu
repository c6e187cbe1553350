// SPDX-License-Identifier: Apache-2.0
// naive.qk: S = Q K^T * scale, written to HBM in the input dtype (as frameworks' unfused attention does).
// CTA = one 128 x 128 tile of S of one (b, h); 8 warps as 2 (rows) x 4 (columns), each 64 x 32.
// Reduction over d in steps of 32 through a 2-stage cp.async ring (Q[128 x 32] + K[128 x 32] per stage),
// both stages in flight: a stage is refilled with step + 2 after all warps have read it.
// The S tile is staged in the (then free) ring memory and stored with 16-byte coalesced stores.
#include <cuda_runtime.h>

#include "device_common.cuh"
#include "launch_registry.hpp"

namespace attnscope::kernels::detail {
namespace {

constexpr int kBm = 128, kBn = 128, kBk = 32, kStages = 2, kThreads = 256;

template <typename T>
struct QkSharedStorage {
  union {
    struct {
      T q[kStages][kBm * kBk];  // rows of 64 bytes, swizzle64
      T k[kStages][kBn * kBk];
    } ring;
    T s[kBm * kBn];  // epilogue: S tile, rows of 256 bytes, swizzle128
  };
};
static_assert(sizeof(QkSharedStorage<__half>) == kStages * (kBm + kBn) * kBk * sizeof(__half),
              "naive.qk smem must be 2 stages x (128 + 128) x 32 elements");

// Copies rows [row0, row0 + 128) x columns [col0, col0 + 32) of a [n_rows x D] matrix (2 chunks per thread).
template <typename T, int D>
__device__ __forceinline__ void load_slab(T* tile, const T* global, int row0, int n_rows, int col0, int tid) {
#pragma unroll
  for (int c = tid; c < 128 * 4; c += kThreads) {
    const int r = c / 4, ch = c % 4;
    const bool valid = row0 + r < n_rows;
    const T* src = global + (valid ? static_cast<std::size_t>(row0 + r) * D + col0 + ch * 8 : 0);
    device::cp_async_16(device::smem_addr(tile + r * kBk + device::swizzle64(r, ch) * 8), src, valid);
  }
}

template <typename T, int D, bool Instrumented>
__global__ void __launch_bounds__(kThreads) naive_qk_kernel(const NaiveParams p) {
  using Traits = device::ElementTraits<T>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  QkSharedStorage<T>& smem = *reinterpret_cast<QkSharedStorage<T>*>(smem_raw);
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int warp_m = warp / 4, warp_n = warp % 4;
  const int row_block = p.row_block_begin + static_cast<int>(blockIdx.y);
  const int col_block = p.col_block_begin + static_cast<int>(blockIdx.x);
  const std::size_t bh = blockIdx.z;
  const T* q = static_cast<const T*>(p.q) + bh * p.seq_q * D;
  const T* k = static_cast<const T*>(p.k) + bh * p.seq_kv * D;
  const int row0 = row_block * kBm, col0 = col_block * kBn;
  std::uint64_t start = 0;
  if constexpr (Instrumented) start = device::global_timer_ns();

  constexpr int kSteps = D / kBk;
  // Both ring stages are filled up front, so two steps are in flight (for d = 64 that is the whole
  // reduction); a stage is refilled (step + 2) once every warp has finished reading it.
  load_slab<T, D>(smem.ring.q[0], q, row0, p.seq_q, 0, tid);
  load_slab<T, D>(smem.ring.k[0], k, col0, p.seq_kv, 0, tid);
  device::cp_async_commit();
  load_slab<T, D>(smem.ring.q[1], q, row0, p.seq_q, kBk, tid);
  load_slab<T, D>(smem.ring.k[1], k, col0, p.seq_kv, kBk, tid);
  device::cp_async_commit();
  static_assert(kSteps >= 2 && kStages == 2, "d >= 64: at least two reduction steps for the two stages");

  float acc[4][4][4] = {};
#pragma unroll
  for (int step = 0; step < kSteps; ++step) {
    const int stage = step % kStages;
    device::cp_async_wait<1>();  // step's group done; step + 1's may still be in flight
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBk / 16; ++kk) {
      std::uint32_t a[4][4];
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        const int r = warp_m * 64 + mt * 16 + lane % 16;
        const int ch = kk * 2 + lane / 16;
        device::ldmatrix_x4(a[mt],
                            device::smem_addr(smem.ring.q[stage] + r * kBk + device::swizzle64(r, ch) * 8));
      }
#pragma unroll
      for (int np = 0; np < 2; ++np) {
        const int r = warp_n * 32 + np * 16 + lane % 8 + 8 * (lane / 16);
        const int ch = kk * 2 + ((lane / 8) & 1);
        std::uint32_t b[4];
        device::ldmatrix_x4(b,
                            device::smem_addr(smem.ring.k[stage] + r * kBk + device::swizzle64(r, ch) * 8));
#pragma unroll
        for (int mt = 0; mt < 4; ++mt) {
          Traits::mma(acc[mt][2 * np], a[mt], b[0], b[1]);
          Traits::mma(acc[mt][2 * np + 1], a[mt], b[2], b[3]);
        }
      }
    }
    if (step + 2 < kSteps) {
      __syncthreads();  // every warp is done with this stage
      load_slab<T, D>(smem.ring.q[stage], q, row0, p.seq_q, (step + 2) * kBk, tid);
      load_slab<T, D>(smem.ring.k[stage], k, col0, p.seq_kv, (step + 2) * kBk, tid);
    }
    device::cp_async_commit();  // possibly empty: one group per step keeps wait<1> exact
  }
  device::cp_async_wait<0>();
  __syncthreads();  // the ring becomes the S staging tile
#pragma unroll
  for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int row = warp_m * 64 + mt * 16 + g + 8 * r;
        const int col = warp_n * 32 + nt * 8 + 2 * t;
        *reinterpret_cast<std::uint32_t*>(smem.s + row * kBn + device::swizzle128(row, col / 8) * 8 + 2 * t) =
            Traits::pack(acc[mt][nt][2 * r] * p.scale, acc[mt][nt][2 * r + 1] * p.scale);
      }
    }
  }
  __syncthreads();
  T* s = static_cast<T*>(p.s) + bh * p.seq_q * static_cast<std::size_t>(p.seq_kv);
  if (p.seq_kv % 8 == 0) {
    // Rows of S are 16-byte aligned: 16-byte stores, 16 lanes per 256-byte row piece.
#pragma unroll
    for (int c = tid; c < kBm * 16; c += kThreads) {
      const int r = c / 16, ch = c % 16;
      const int row = row0 + r, col = col0 + ch * 8;
      if (row >= p.seq_q || col >= p.seq_kv) continue;
      *reinterpret_cast<uint4*>(s + static_cast<std::size_t>(row) * p.seq_kv + col) =
          *reinterpret_cast<const uint4*>(smem.s + r * kBn + device::swizzle128(r, ch) * 8);
    }
  } else {
    // Unaligned rows: 2-byte stores, lane = column, so one warp store covers 64 contiguous bytes of a row
    // (lane-contiguous 8-element pieces written element by element touched 16 sectors per store, 8 times:
    // 6x the L2 write requests at N = 197).
    const std::uint16_t* tile = reinterpret_cast<const std::uint16_t*>(smem.s);
    std::uint16_t* out = reinterpret_cast<std::uint16_t*>(s);
    for (int r = warp; r < kBm && row0 + r < p.seq_q; r += kThreads / 32) {
      std::uint16_t* dst = out + static_cast<std::size_t>(row0 + r) * p.seq_kv + col0;
#pragma unroll
      for (int j = 0; j < kBn / 32; ++j) {
        const int col = j * 32 + lane;
        if (col0 + col < p.seq_kv) dst[col] = tile[r * kBn + device::swizzle128(r, col / 8) * 8 + col % 8];
      }
    }
  }
  if constexpr (Instrumented) {
    __syncthreads();
    if (tid == 0) {
      const std::size_t index = (bh * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
      p.timeline[index] = TileTiming{static_cast<std::uint32_t>(bh / p.heads),
                                     static_cast<std::uint32_t>(bh % p.heads),
                                     static_cast<std::uint32_t>(row_block),
                                     static_cast<std::uint32_t>(col_block),
                                     device::sm_id(),
                                     start,
                                     device::global_timer_ns()};
    }
  }
}

template <typename T, int D, bool Instrumented>
int launch_qk(const NaiveParams& p, int gx, int gy, int gz, Stream stream) {
  auto* kernel = &naive_qk_kernel<T, D, Instrumented>;
  constexpr int kSmem = static_cast<int>(sizeof(QkSharedStorage<T>));
  const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  if (err != cudaSuccess) return static_cast<int>(err);
  kernel<<<dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(gz)), kThreads,
           kSmem, static_cast<cudaStream_t>(stream)>>>(p);
  return static_cast<int>(cudaGetLastError());
}

template <typename T>
int launch_qk_dtype(const NaiveParams& p, int gx, int gy, int gz, Stream stream) {
  const bool instrumented = p.timeline != nullptr;
  if (p.head_dim == 64) {
    return instrumented ? launch_qk<T, 64, true>(p, gx, gy, gz, stream)
                        : launch_qk<T, 64, false>(p, gx, gy, gz, stream);
  }
  return instrumented ? launch_qk<T, 128, true>(p, gx, gy, gz, stream)
                      : launch_qk<T, 128, false>(p, gx, gy, gz, stream);
}

}  // namespace

int launch_naive_qk_kernel(DType dtype, const NaiveParams& p, int gx, int gy, int gz, Stream stream) {
  return dtype == DType::bf16 ? launch_qk_dtype<__nv_bfloat16>(p, gx, gy, gz, stream)
                              : launch_qk_dtype<__half>(p, gx, gy, gz, stream);
}

}  // namespace attnscope::kernels::detail
