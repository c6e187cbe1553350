// SPDX-License-Identifier: Apache-2.0
// naive.qk: S = Q K^T * scale, written to HBM in the input dtype (as frameworks' unfused attention does).
// CTA = kTilesPerCta consecutive 128 x 128 tiles of S in one row block of one (b, h); 8 warps as 2 (rows) x
// 4 (columns), each 64 x 32 of a tile. The Q row block [128 x d] is loaded once and stays in shared memory;
// K streams through a kStages-slot cp.async ring in slices of [128 x 32] (bk = 32), one slice per step, the
// steps of all the CTA's tiles in one sequence, so the next tile's K is in flight during this tile's math.
// Each tile's S is staged in its own shared-memory buffer and stored with 16-byte coalesced stores; those
// stores drain while the next tile is computed.
#include <cuda_runtime.h>

#include "attnscope/vocab/geometry.hpp"
#include "device_common.cuh"
#include "launch_registry.hpp"

namespace attnscope::kernels::detail {
namespace {

// The tiling is vocab::NaiveTiling, which the model reads too (docs/dataflow.md). 4 tiles per CTA and a
// 4-slot ring: experiments #13-14 in docs/lab-notebook/2026-12-02-kernel-experiments.md (1 tile per
// CTA: 1.91x the copy time; 2: 1.46x, 4: 1.41x, 8: 1.42x in the harness).
constexpr NaiveTiling kTiling{};
constexpr int kBm = kTiling.bm, kBn = kTiling.bn, kBk = kTiling.bk;
constexpr int kTilesPerCta = kTiling.qk_tiles_per_cta, kStages = kTiling.qk_stages;
constexpr int kThreads = vocab::naive_gemm_threads_per_cta(kTiling);
// The warp layout below (2 x 4 warps of 64 x 32) and the copy plans are written for this tiling.
static_assert(kBm == 128 && kBn == 128 && kBk == 32 && kThreads == 256,
              "naive.qk is written for 128 x 128 tiles, 32-key slices and 8 warps");

template <typename T, int D>
struct QkSharedStorage {
  T q[D / kBk][kBm * kBk];  // the Q row block, d / 32 slices of 64-byte rows, swizzle64
  T k[kStages][kBn * kBk];  // K ring
  T s[kBm * kBn];           // S tile staging, rows of 256 bytes, swizzle128
};
// sizeof(QkSharedStorage) is vocab::naive_qk_smem_bytes: Q row block + stages x K slice + S tile.
template <typename T, int D>
constexpr bool qk_smem_matches_vocab() {
  return sizeof(QkSharedStorage<T, D>) ==
         static_cast<std::size_t>(vocab::naive_qk_smem_bytes(kTiling, D, device::ElementTraits<T>::kDType));
}
static_assert(qk_smem_matches_vocab<__half, 64>() && qk_smem_matches_vocab<__half, 128>() &&
                  qk_smem_matches_vocab<__nv_bfloat16, 64>() && qk_smem_matches_vocab<__nv_bfloat16, 128>(),
              "naive.qk SharedStorage must be vocab::naive_qk_smem_bytes");

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
__global__ void __launch_bounds__(kThreads, vocab::naive_qk_min_blocks_per_sm())
    naive_qk_kernel(const NaiveParams p) {
  using Traits = device::ElementTraits<T>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  QkSharedStorage<T, D>& smem = *reinterpret_cast<QkSharedStorage<T, D>*>(smem_raw);
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int warp_m = warp / 4, warp_n = warp % 4;
  const int row_block = p.row_block_begin + static_cast<int>(blockIdx.y);
  // The CTA's column blocks: [first_block, first_block + n_tiles) within the window.
  const int first_in_window = static_cast<int>(blockIdx.x) * kTilesPerCta;
  const int window_blocks = p.col_block_end - p.col_block_begin;
  const int n_tiles = min(kTilesPerCta, window_blocks - first_in_window);
  const int first_block = p.col_block_begin + first_in_window;
  const std::size_t bh = blockIdx.z;
  const T* q = static_cast<const T*>(p.q) + bh * p.seq_q * D;
  const T* k = static_cast<const T*>(p.k) + bh * p.seq_kv * D;
  T* s = static_cast<T*>(p.s) + bh * p.seq_q * static_cast<std::size_t>(p.seq_kv);
  const int row0 = row_block * kBm;

  constexpr int kSlices = D / kBk;  // reduction steps per tile
  const int n_steps = n_tiles * kSlices;
  // K copy plan: this thread copies 16-byte chunk tid % 4 of rows tid / 4 and tid / 4 + 64 of each slice
  // (one base pointer and one shared-memory offset; the swizzle is the same for both rows).
  const int k_row = tid / 4, k_ch = tid % 4;
  const T* k_src = k + static_cast<std::size_t>(first_block * kBn + k_row) * D + k_ch * 8;
  const std::uint32_t k_dst = device::smem_addr(smem.k[0] + k_row * kBk + device::swizzle64(k_row, k_ch) * 8);
  const int k_rows_left = p.seq_kv - first_block * kBn - k_row;  // rows at or past it are zero-filled
  const auto load_k = [&](int step) {
    const int tile = step / kSlices, slice = step % kSlices;
    const std::uint32_t dst = k_dst + static_cast<std::uint32_t>((step % kStages) * kBn * kBk * sizeof(T));
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int r = tile * kBn + 64 * i;
      const bool valid = r < k_rows_left;
      device::cp_async_16(dst + static_cast<std::uint32_t>(i * 64 * kBk * sizeof(T)),
                          valid ? k_src + static_cast<std::ptrdiff_t>(r) * D + slice * kBk : k_src, valid);
    }
  };
  std::uint64_t start = 0;
  if constexpr (Instrumented) start = device::global_timer_ns();
    // Group 0: the whole Q row block and K step 0; groups 1 .. kStages - 1: one K step each (possibly empty).
#pragma unroll
  for (int slice = 0; slice < kSlices; ++slice)
    load_slab<T, D>(smem.q[slice], q, row0, p.seq_q, slice * kBk, tid);
#pragma unroll
  for (int step = 0; step < kStages; ++step) {
    if (step < n_steps) load_k(step);
    device::cp_async_commit();
  }

  std::uint32_t a_lane, b_lane;  // this lane's ldmatrix row and chunk in Q slice 0 and K slot 0
  {
    const int ra = warp_m * 64 + lane % 16;
    a_lane = device::smem_addr(smem.q[0] + ra * kBk + device::swizzle64(ra, lane / 16) * 8);
    const int rb = warp_n * 32 + lane % 8 + 8 * (lane / 16);
    b_lane = device::smem_addr(smem.k[0] + rb * kBk + device::swizzle64(rb, (lane / 8) & 1) * 8);
  }
  float acc[4][4][4] = {};
#pragma unroll 1
  for (int step = 0; step < n_steps; ++step) {
    const int slice = step % kSlices;
    device::cp_async_wait<kStages - 1>();  // step's group done; the later ones may still be in flight
    __syncthreads();
    // ldmatrix addresses: a per-lane base per operand, plus the m/n block offset, XOR the k-step chunk (the
    // 64-byte-row swizzle only touches address bits 4..5, and it is the same for every m/n block).
    const std::uint32_t qs = a_lane + static_cast<std::uint32_t>(slice * kBm * kBk * sizeof(T));
    const std::uint32_t ks = b_lane + static_cast<std::uint32_t>((step % kStages) * kBn * kBk * sizeof(T));
#pragma unroll
    for (int kk = 0; kk < kBk / 16; ++kk) {
      // Both K fragments of the k-step first, then one Q fragment at a time (4 registers live, not 16).
      std::uint32_t b[2][4];
#pragma unroll
      for (int np = 0; np < 2; ++np) {
        device::ldmatrix_x4(b[np], (ks + static_cast<std::uint32_t>(np * 16 * kBk * sizeof(T))) ^
                                       static_cast<std::uint32_t>(kk * 32));
      }
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        std::uint32_t a[4];
        device::ldmatrix_x4(a, (qs + static_cast<std::uint32_t>(mt * 16 * kBk * sizeof(T))) ^
                                   static_cast<std::uint32_t>(kk * 32));
#pragma unroll
        for (int np = 0; np < 2; ++np) {
          Traits::mma(acc[mt][2 * np], a, b[np][0], b[np][1]);
          Traits::mma(acc[mt][2 * np + 1], a, b[np][2], b[np][3]);
        }
      }
    }
    __syncthreads();  // every warp is done with this ring slot (and, at a tile's end, with the last staging)
    if (step + kStages < n_steps) load_k(step + kStages);
    device::cp_async_commit();  // possibly empty: one group per step keeps wait<kStages - 1> exact
    if (slice != kSlices - 1) continue;

    // Tile done: scale, convert, stage, store; the stores drain during the next tile's steps.
    const int col_block = first_block + step / kSlices;
    const int col0 = col_block * kBn;
#pragma unroll
    for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const int row = warp_m * 64 + mt * 16 + g + 8 * r;
          const int col = warp_n * 32 + nt * 8 + 2 * t;
          *reinterpret_cast<std::uint32_t*>(smem.s + row * kBn + device::swizzle128(row, col / 8) * 8 +
                                            2 * t) =
              Traits::pack(acc[mt][nt][2 * r] * p.scale, acc[mt][nt][2 * r + 1] * p.scale);
          acc[mt][nt][2 * r] = 0.0f;
          acc[mt][nt][2 * r + 1] = 0.0f;
        }
      }
    }
    __syncthreads();
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
      // One record per tile: from the start of its first step to its stores issued (all threads).
      __syncthreads();
      if (tid == 0) {
        const std::uint64_t end = device::global_timer_ns();
        const std::size_t index = (bh * gridDim.y + blockIdx.y) * static_cast<std::size_t>(window_blocks) +
                                  static_cast<std::size_t>(col_block - p.col_block_begin);
        p.timeline[index] = TileTiming{static_cast<std::uint32_t>(bh / p.heads),
                                       static_cast<std::uint32_t>(bh % p.heads),
                                       static_cast<std::uint32_t>(row_block),
                                       static_cast<std::uint32_t>(col_block),
                                       device::sm_id(),
                                       start,
                                       end};
        start = end;
      }
    }
  }
}

// gx = CTAs of kTilesPerCta column blocks each (vocab::naive_qk_grid).
template <typename T, int D, bool Instrumented>
int launch_qk(const NaiveParams& p, int gx, int gy, int gz, Stream stream) {
  auto* kernel = &naive_qk_kernel<T, D, Instrumented>;
  constexpr int kSmem =
      static_cast<int>(vocab::naive_qk_smem_bytes(kTiling, D, device::ElementTraits<T>::kDType));
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
