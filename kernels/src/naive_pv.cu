// SPDX-License-Identifier: Apache-2.0
// naive.pv: O = P V with P [B, H, Nq, Nkv] (input dtype) read from HBM.
// CTA = 128 rows x d of O of one (b, h); 8 warps, 16 rows each. Reduction over Nkv in steps of 32 through
// a 2-stage cp.async ring (P[128 x 32] + V[32 x d] per stage), both stages in flight; the P copies carry an
// L2 prefetch-size hint of 256 bytes. O staged in the ring memory, then stored with 16-byte coalesced
// stores. When Nkv is not a multiple of 8 the rows of P are not 16-byte aligned, so P is copied with 2-byte
// loads instead of cp.async (same tiles, same bytes; slower).
#include <cuda_runtime.h>

#include "attnscope/vocab/geometry.hpp"
#include "device_common.cuh"
#include "launch_registry.hpp"

namespace attnscope::kernels::detail {
namespace {

// The tiling is vocab::NaiveTiling (docs/dataflow.md): 128-row blocks of O, reduction steps of bk = 32 keys
// (64-byte row pieces of P; 128-byte pieces were slower: experiment #11 in
// docs/lab-notebook/2026-12-02-kernel-experiments.md).
//
// L2 prefetch size of the P copies (0: none, 128 or 256 bytes; see cp_async_16_prefetch). 256: a step reads
// 64 bytes of each of its 128 P rows, so without the hint DRAM served scattered 64-byte pieces of 128 x (CTAs
// in flight) rows (1.80x the copy time); with it DRAM serves 256-byte blocks and the next three steps' pieces
// are L2 hits (1.15x; experiment #13 of the same notebook). Same bytes, same tiles. A deeper ring (3 or 4
// stages) gained nothing, with or without the hint (same experiment).
constexpr NaiveTiling kTiling{};
constexpr int kBm = kTiling.bm, kBk = kTiling.bk, kStages = kTiling.stages;
constexpr int kThreads = vocab::naive_gemm_threads_per_cta(kTiling);
constexpr int kPrefetchBytes = kTiling.pv_l2_prefetch_bytes;
static_assert(kBk == 32, "P rows of 64 bytes per stage (swizzle64)");
static_assert(kBm == kThreads / 32 * vocab::kMmaTile, "each warp owns 16 rows of O");

// Swizzle of the P tile: rows of kBk elements (64 bytes).
__device__ __forceinline__ int p_swizzle(int row, int chunk) {
  return device::swizzle64(row, chunk);
}

template <typename T, int D>
struct PvSharedStorage {
  union {
    struct {
      T p[kStages][kBm * kBk];  // rows of kBk elements, p_swizzle
      T v[kStages][kBk * D];    // rows of D elements, swizzle128
    } ring;
    T o[kBm * D];  // epilogue staging
  };
};
// sizeof(PvSharedStorage) is vocab::naive_pv_smem_bytes: stages x (bm*bk + bk*d) elements.
template <typename T, int D>
constexpr bool pv_smem_matches_vocab() {
  return sizeof(PvSharedStorage<T, D>) ==
         static_cast<std::size_t>(vocab::naive_pv_smem_bytes(kTiling, D, device::ElementTraits<T>::kDType));
}
static_assert(pv_smem_matches_vocab<__half, 64>() && pv_smem_matches_vocab<__half, 128>() &&
                  pv_smem_matches_vocab<__nv_bfloat16, 64>() && pv_smem_matches_vocab<__nv_bfloat16, 128>(),
              "naive.pv SharedStorage must be vocab::naive_pv_smem_bytes");

// Per-thread copy plan of one reduction step, fixed for the CTA: a thread always copies the same chunk
// column of the same rows, so only a few base addresses stay live across the loop (the d = 64 kernel runs
// at 64 registers; per-chunk addresses made ptxas spill).
//  - P, aligned rows: 16-byte chunk `p_ch` of rows p_row, p_row + 256 / (bk / 8), ... (cp.async);
//  - P, unaligned rows (Nkv % 8 != 0): warp w copies its own 16 rows, lane = key, with 2-byte loads, so a
//    warp's load covers 64 contiguous bytes (as few sectors as the row piece spans);
//  - V: 16-byte chunk `v_ch` of key rows v_row, v_row + 256 / (D / 8), ...
template <typename T, int D, bool Aligned>
struct PvLoader {
  static constexpr int kPRowsPerPass = kThreads / (kBk / 8);  // 64
  static constexpr int kVChunksPerRow = D / 8;
  static constexpr int kVRowsPerPass = kThreads / kVChunksPerRow;  // 32 (d 64) or 16 (d 128)
  static_assert(kBm % kPRowsPerPass == 0 && kBk % kVRowsPerPass == 0, "whole passes");
  static_assert(kPRowsPerPass % 8 == 0 && kVRowsPerPass % 8 == 0, "swizzles repeat every 8 rows");

  const T* p_src;       // aligned: P[row0 + p_row][p_ch * 8]; unaligned: P[row0 + warp * 16][lane]
  const T* v_src;       // V[v_row][v_ch * 8]
  std::uint32_t p_dst;  // smem offset in stage 0
  std::uint32_t v_dst;
  int p_row;  // first row of this thread in the tile (aligned), or warp * 16 (unaligned)
  int p_col;  // column of this thread in the step (aligned: p_ch * 8; unaligned: lane)
  int v_row;

  __device__ __forceinline__ PvLoader(PvSharedStorage<T, D>& smem, const T* pm, const T* v, int row0,
                                      int seq_kv, int tid) {
    if constexpr (Aligned) {
      p_row = tid / (kBk / 8);
      const int ch = tid % (kBk / 8);
      p_col = ch * 8;
      p_dst = device::smem_addr(smem.ring.p[0] + p_row * kBk + p_swizzle(p_row, ch) * 8);
    } else {
      p_row = tid / 32 * 16;
      p_col = tid % 32;
      p_dst = device::smem_addr(smem.ring.p[0]);
    }
    p_src = pm + static_cast<std::size_t>(row0 + p_row) * seq_kv + p_col;
    v_row = tid / kVChunksPerRow;
    const int vch = tid % kVChunksPerRow;
    v_src = v + static_cast<std::size_t>(v_row) * D + vch * 8;
    v_dst = device::smem_addr(smem.ring.v[0] + v_row * D + device::swizzle128(v_row, vch) * 8);
  }

  __device__ __forceinline__ void load(int stage, int key0, int rows_left, int seq_kv) const {
    constexpr std::uint32_t kPStageBytes = kBm * kBk * sizeof(T);
    constexpr std::uint32_t kVStageBytes = kBk * D * sizeof(T);
    // rows_left = seq_q - row0: rows at or past it are zero-filled without reading memory.
    if constexpr (Aligned) {
      const bool col_valid = key0 + p_col < seq_kv;
#pragma unroll
      for (int i = 0; i < kBm / kPRowsPerPass; ++i) {
        const bool valid = col_valid && p_row + i * kPRowsPerPass < rows_left;
        device::cp_async_16_prefetch<kPrefetchBytes>(
            p_dst + stage * kPStageBytes + static_cast<std::uint32_t>(i * kPRowsPerPass * kBk * sizeof(T)),
            valid ? p_src + static_cast<std::size_t>(i) * kPRowsPerPass * seq_kv + key0 : p_src, valid);
      }
    } else {
      // Lane = key: a warp's load covers 64 contiguous bytes of one row. One row at a time (the slow path;
      // unrolled, ptxas hoisted the 16 loads and the d = 64 kernel spilled at its 64-register bound).
      const std::uint16_t* src = reinterpret_cast<const std::uint16_t*>(p_src) + key0;
      const std::uint32_t dst = p_dst + stage * kPStageBytes;
#pragma unroll 1
      for (int r = 0; r < 16; ++r, src += seq_kv) {
        const int row = p_row + r;
#pragma unroll
        for (int j = 0; j < kBk / 32; ++j) {  // lane = key j * 32 + lane of the step
          const int col = p_col + 32 * j;
          const std::uint16_t x = key0 + col < seq_kv && row < rows_left ? src[32 * j] : std::uint16_t{0};
          const std::uint32_t offset =
              static_cast<std::uint32_t>((row * kBk + p_swizzle(row, col / 8) * 8 + col % 8) * sizeof(T));
          asm volatile("st.shared.u16 [%0], %1;\n" ::"r"(dst + offset), "h"(x));
        }
      }
    }
#pragma unroll
    for (int i = 0; i < kBk / kVRowsPerPass; ++i) {
      const bool valid = key0 + v_row + i * kVRowsPerPass < seq_kv;
      device::cp_async_16(
          v_dst + stage * kVStageBytes + static_cast<std::uint32_t>(i * kVRowsPerPass * D * sizeof(T)),
          valid ? v_src + (static_cast<std::size_t>(key0) + i * kVRowsPerPass) * D : v_src, valid);
    }
  }
};

// 4 CTAs per SM at d = 64 (2 at d = 128): more P tiles in flight for a kernel that streams P from HBM.
// Aligned (Nkv % 8 == 0, P rows 16-byte aligned: cp.async) and unaligned rows (2-byte loads) are separate
// instantiations; the unaligned one is bounded to 2 CTAs per SM (128 registers): at 64 its
// register-staged copy spilled. vocab::naive_pv_min_blocks_per_sm is the rule; the model reads it too.
template <typename T, int D, bool Aligned, bool Instrumented>
__global__ void __launch_bounds__(kThreads, vocab::naive_pv_min_blocks_per_sm(D, Aligned))
    naive_pv_kernel(const NaiveParams p) {
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
  std::uint64_t start = 0;
  if constexpr (Instrumented) start = device::global_timer_ns();

  const int step_begin = p.col_block_begin;
  const int n_steps = max(0, p.col_block_end - step_begin);
  // All stages filled up front: kStages reduction steps in flight per CTA (this kernel streams P from HBM
  // and is latency bound with one); a stage is refilled with step + kStages once every warp has read it.
  const PvLoader<T, D, Aligned> loader(smem, pm, v, row0, p.seq_kv, tid);
  const int rows_left = p.seq_q - row0;
#pragma unroll
  for (int s = 0; s < kStages; ++s) {
    if (n_steps > s) loader.load(s, (step_begin + s) * kBk, rows_left, p.seq_kv);
    device::cp_async_commit();  // one group per stage, possibly empty: wait<kStages - 1> stays exact
  }

  float acc[D / 8][4] = {};
  for (int step = 0; step < n_steps; ++step) {
    const int stage = step % kStages;
    device::cp_async_wait<kStages - 1>();  // step's group done; the later ones may still be in flight
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBk / 16; ++kk) {
      std::uint32_t a[4];
      {
        const int r = warp * 16 + lane % 16;
        const int ch = kk * 2 + lane / 16;
        device::ldmatrix_x4(a, device::smem_addr(smem.ring.p[stage] + r * kBk + p_swizzle(r, ch) * 8));
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
    if (step + kStages < n_steps) {
      __syncthreads();  // every warp is done with this stage
      loader.load(stage, (step_begin + step + kStages) * kBk, rows_left, p.seq_kv);
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
  auto* kernel = vocab::naive_rows_aligned(p.seq_kv) ? &naive_pv_kernel<T, D, true, Instrumented>
                                                     : &naive_pv_kernel<T, D, false, Instrumented>;
  constexpr int kSmem =
      static_cast<int>(vocab::naive_pv_smem_bytes(kTiling, D, device::ElementTraits<T>::kDType));
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
