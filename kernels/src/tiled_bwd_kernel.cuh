// SPDX-License-Identifier: Apache-2.0
// FlashAttention-2-style tiled backward with recomputation (mma.sync m16n8k16, ldmatrix, cp.async ring).
//
// Three launches (attnscope/vocab/backward.hpp has the geometry, docs/dataflow.md the dataflow):
//  - pre: per query row, D = rowsum(dO o O) and LSE * log2(e) into fp32 vectors padded to whole q tiles
//    (a row with no visible key, LSE = -inf, gets +inf so that its recomputed P is 0), and the row's fp32
//    dQ accumulator zeroed;
//  - main: one CTA per (kv tile, head, batch); Bc / 16 warps, each owning 16 keys. K and V [Bc x d] are
//    copied to shared memory once; Q and dO [Br x d] with LSE and D [Br] stream through a `Stages`-deep
//    cp.async ring over the q tiles the kv tile is visible to. Per q tile every warp computes, in registers,
//    for its 16 keys and the Br rows:
//        S^T = K Q^T,  P^T = 2^(S^T scale log2 e - LSE log2 e)  (0 past the causal diagonal),
//        dV += P^T dO,  dP^T = V dO^T,  dS^T = P^T o (dP^T - D),  dK += dS^T Q,
//    with P^T and dS^T fed to the next MMA straight from the accumulators (the m16n8 C layout of two n
//    tiles is the A layout of one k16 step). dS^T goes to shared memory; after a barrier the warps split
//    dQ_i += dS K [Br x d] and add it into the fp32 accumulator with 8-byte atomics (red.global.add, done in
//    L2). dK (times scale) and dV are written once, staged through the K and V tiles;
//  - post: dQ = scale * accumulator in the input dtype.
// Working per key block (K/V resident) instead of per query block keeps dK and dV on chip, the two
// gradients whose sums run over queries; dQ's sum runs over keys, so its partial sums meet in L2.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "attnscope/kernels/attention.hpp"
#include "attnscope/vocab/backward.hpp"
#include "device_common.cuh"
#include "launch_registry.hpp"

namespace attnscope::kernels::detail {

template <typename T, int D, int Bc, int Br, int Stages>
struct TiledBwdShape {
  static constexpr vocab::TiledBwdConfig kConfig{Bc, Br, Stages};
  static_assert(vocab::is_compiled_head_dim(D), "head_dim 64 or 128 (rows of 128 or 256 bytes)");
  static_assert(Bc % vocab::kMmaTile == 0 && Br % vocab::kMmaTile == 0, "Bc, Br multiples of 16");
  static_assert(Br * sizeof(T) == 64 || Br * sizeof(T) % 128 == 0,
                "dS^T rows (Br elements) are 64 bytes or whole 128-byte swizzle units");
  static_assert(Stages >= 2, "the Q/dO ring needs at least 2 stages");
  static constexpr int kWarps = vocab::tiled_bwd_warps(kConfig);
  static constexpr int kThreads = vocab::tiled_bwd_threads_per_cta(kConfig);
  // dQ += dS K: warps tile [Br x d] as kWarpsM (16 rows each) x kWarpsN (kDqCols columns each).
  static constexpr vocab::TiledBwdDqSplit kDq = vocab::tiled_bwd_dq_split(kConfig, D);
  static constexpr int kWarpsM = kDq.warps_m;
  static constexpr int kWarpsN = kDq.warps_n;
  static constexpr int kDqCols = kDq.cols;
  static_assert(kDqCols > 0 && kWarpsM * kWarpsN == kWarps && kWarpsM * vocab::kMmaTile == Br,
                "the warps tile dQ evenly, one 16-row slab each, in whole ldmatrix x4 column blocks");

  struct SharedStorage {
    T k[Bc * D];            // K tile, swizzle128; dK staging at the end
    T v[Bc * D];            // V tile; dV staging at the end
    T q[Stages][Br * D];    // Q ring
    T d_o[Stages][Br * D];  // dO ring
    T ds[2][Bc * Br];       // dS^T [key][row], swizzle128: step i writes ds[i % 2], step i + 1 reads it
    float lse[Stages][Br];  // LSE * log2 e
    float delta[Stages][Br];
  };
  static constexpr std::size_t kSmemBytes = sizeof(SharedStorage);
  static_assert(kSmemBytes ==
                    static_cast<std::size_t>(vocab::tiled_bwd_smem_bytes(kConfig, D,
                                                                         device::ElementTraits<T>::kDType)),
                "SharedStorage must be exactly vocab::tiled_bwd_smem_bytes");
  static constexpr int kMinBlocks = vocab::tiled_bwd_min_blocks_per_sm(kConfig);
  // Physical 16-byte chunk of dS^T's rows (Br elements): swizzle128 for rows of >= 128 bytes, swizzle64
  // for 64-byte rows; both depend on the row modulo 8, so 16-row blocks are plain offsets.
  static __device__ __forceinline__ int ds_swizzle(int row, int chunk) {
    if constexpr (Br * sizeof(T) == 64) {
      return device::swizzle64(row, chunk);
    } else {
      return device::swizzle128(row, chunk);
    }
  }
};

// ---- pre: D, LSE * log2 e, zeroed dQ accumulator -------------------------------------------------------
// Every store instruction writes whole 32-byte sectors: the CTA's rows of the accumulator are one contiguous
// block, zeroed in 16-byte pieces by consecutive threads (a warp writes 512 contiguous bytes), and D and
// LSE * log2 e of the CTA's rows are gathered in shared memory and written by consecutive threads. (Zeroing
// each row's 32 fp32 bytes per thread as two 16-byte halves made every sector two half-sector writes, which
// the L2 counts once or twice depending on whether its request coalescer merged them: `l2_write` measured
// 1.24 x the accumulator's bytes at llm-4k.)
template <typename T, int D>
__global__ void __launch_bounds__(vocab::kBwdRowThreads) tiled_bwd_pre_kernel(const TiledBwdParams p) {
  using Traits = device::ElementTraits<T>;
  constexpr int kPieces = D / 8;  // 16-byte pieces per row
  constexpr int kRows = vocab::kBwdRowThreads / kPieces;
  struct SharedStorage {
    float delta[kRows];
    float lse_log2[kRows];
  };
  static_assert(sizeof(SharedStorage) == vocab::tiled_bwd_pre_smem_bytes(D), "the model reads this size");
  __shared__ SharedStorage smem;
  const int tid = static_cast<int>(threadIdx.x);
  const int row0 = static_cast<int>(blockIdx.x) * kRows;
  const int row = row0 + tid / kPieces;
  const int piece = tid % kPieces;
  const std::size_t bh = blockIdx.y;
  float sum = 0.0f;
  if (row < p.seq_q) {
    const std::size_t at = (bh * p.seq_q + row) * D + piece * 8;
    const uint4 o4 = *reinterpret_cast<const uint4*>(static_cast<const T*>(p.o) + at);
    const uint4 d4 = *reinterpret_cast<const uint4*>(static_cast<const T*>(p.d_o) + at);
    const std::uint32_t ow[4] = {o4.x, o4.y, o4.z, o4.w};
    const std::uint32_t dw[4] = {d4.x, d4.y, d4.z, d4.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 a = Traits::unpack(ow[i]);
      const float2 b = Traits::unpack(dw[i]);
      sum = fmaf(a.x, b.x, fmaf(a.y, b.y, sum));
    }
  }
  // The accumulator rows [row0, row0 + kRows) below Nq: kRows x D floats, 2 x kBwdRowThreads float4 pieces.
  const int valid_rows = max(0, min(kRows, p.seq_q - row0));
  float4* acc = reinterpret_cast<float4*>(p.dq_accum + (bh * p.seq_q + row0) * D);
  for (int i = tid; i < valid_rows * D / 4; i += vocab::kBwdRowThreads)
    acc[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
  for (int offset = kPieces / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (piece == 0) {
    const int r = tid / kPieces;
    if (row < p.seq_q) {
      const float lse = p.lse[bh * p.seq_q + row];
      smem.delta[r] = sum;
      smem.lse_log2[r] = lse == -INFINITY ? INFINITY : lse * 1.4426950408889634f;
    } else {
      smem.delta[r] = 0.0f;
      smem.lse_log2[r] = INFINITY;  // padding rows: P = 0
    }
  }
  __syncthreads();
  // Rows past the padded rows are not stored (the vectors end there).
  const int out_rows = max(0, min(kRows, p.padded_rows - row0));
  if (tid < out_rows) {
    p.delta[bh * p.padded_rows + row0 + tid] = smem.delta[tid];
  } else if (tid >= kRows && tid - kRows < out_rows) {
    p.lse_log2[bh * p.padded_rows + row0 + tid - kRows] = smem.lse_log2[tid - kRows];
  }
}

// ---- post: dQ = scale * accumulator ---------------------------------------------------------------------
template <typename T, int D>
__global__ void __launch_bounds__(vocab::kBwdRowThreads) tiled_bwd_post_kernel(const TiledBwdParams p) {
  using Traits = device::ElementTraits<T>;
  constexpr int kPieces = D / 8;
  constexpr int kRows = vocab::kBwdRowThreads / kPieces;
  const int tid = static_cast<int>(threadIdx.x);
  const int row = static_cast<int>(blockIdx.x) * kRows + tid / kPieces;
  if (row >= p.seq_q) return;
  const std::size_t at = (static_cast<std::size_t>(blockIdx.y) * p.seq_q + row) * D + (tid % kPieces) * 8;
  const float4* acc = reinterpret_cast<const float4*>(p.dq_accum + at);
  const float4 a = acc[0], b = acc[1];
  uint4 out;
  out.x = Traits::pack(a.x * p.scale, a.y * p.scale);
  out.y = Traits::pack(a.z * p.scale, a.w * p.scale);
  out.z = Traits::pack(b.x * p.scale, b.y * p.scale);
  out.w = Traits::pack(b.z * p.scale, b.w * p.scale);
  *reinterpret_cast<uint4*>(static_cast<T*>(p.dq) + at) = out;
}

// ---- main's timeline (instrumented build only) ------------------------------------------------------------
// The start time of the CTA's current step waits in shared memory, not in a register; only the instrumented
// build calls these. The timeline pointer is that kernel's own argument, not a TiledBwdParams field (see
// there).
__device__ __forceinline__ std::uint64_t& bwd_step_start() {
  __shared__ std::uint64_t start;
  return start;
}
// Writes the record of q tile `q_tile` (0 <= q_tile < q_tiles) of this CTA, started at bwd_step_start(),
// ended at `end_ns`.
__device__ __forceinline__ void write_bwd_step_record(TileTiming* timeline, const TiledBwdParams& p,
                                                      int q_tiles, int q_tile, std::uint64_t end_ns) {
  const std::size_t at =
      ((static_cast<std::size_t>(blockIdx.z) * p.heads + blockIdx.y) * gridDim.x + blockIdx.x) *
          static_cast<std::size_t>(q_tiles) +
      static_cast<std::size_t>(q_tile);
  timeline[at] = TileTiming{blockIdx.z, blockIdx.y,      static_cast<std::uint32_t>(q_tile),
                            blockIdx.x, device::sm_id(), bwd_step_start(),
                            end_ns};
}

// ---- main ---------------------------------------------------------------------------------------------
// The main kernel's body, for the kernels below. GeneralMask: the variant for a sliding window and/or
// ALiBi (`m`), compiled for one tile (vocab::general_mask_tiled_bwd_config): every recomputed probability
// is tested against the key band and gets the bias, and q tiles below the last row that sees the tile's
// keys are skipped. With GeneralMask = false `m` is never read and the code is the plain kernel's.
// Instrumented: thread 0 writes one TileTiming per step (q tile) into `timeline`, %globaltimer at the
// step's start and at the next step's start (the last one after the dK/dV stores); the start time waits in
// shared memory and the record index is recomputed when written, so no register is held across the loop.
template <typename T, int D, int Bc, int Br, int Stages, bool GeneralMask, bool Instrumented = false>
__device__ __forceinline__ void tiled_bwd_body(const TiledBwdParams& p, const MaskParams& m,
                                               TileTiming* timeline = nullptr) {
  using Shape = TiledBwdShape<T, D, Bc, Br, Stages>;
  using Traits = device::ElementTraits<T>;
  using SharedStorage = typename Shape::SharedStorage;
  constexpr int kThreads = Shape::kThreads;
  constexpr int kDSteps = D / 16;   // k16 steps of S^T = K Q^T and dP^T = V dO^T
  constexpr int kQTiles = Br / 8;   // n8 tiles of S^T per warp (query rows)
  constexpr int kQSteps = Br / 16;  // k16 steps of dV += P^T dO and dK += dS^T Q
  constexpr int kDTiles = D / 8;    // n8 tiles of dK, dV
  constexpr int kDqTiles = Shape::kDqCols / 8;
  // K and V fragments (A operands, 16 registers each at d = 64) stay in registers at d = 64; at d = 128
  // the dK and dV accumulators need those registers and the fragments are re-read every step.
  constexpr bool kKvInRegisters = D == 64;
  constexpr std::uint32_t kRowBytes = D * sizeof(T);

  extern __shared__ __align__(1024) unsigned char smem_raw[];
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(smem_raw);

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const int kv_tile = static_cast<int>(blockIdx.x);
  const std::size_t bh = static_cast<std::size_t>(blockIdx.z) * p.heads + blockIdx.y;
  const T* q = static_cast<const T*>(p.q) + bh * p.seq_q * D;
  const T* k = static_cast<const T*>(p.k) + bh * p.seq_kv * D;
  const T* v = static_cast<const T*>(p.v) + bh * p.seq_kv * D;
  const T* d_o = static_cast<const T*>(p.d_o) + bh * p.seq_q * D;
  const float* lse_log2 = p.lse_log2 + bh * p.padded_rows;
  const float* delta = p.delta + bh * p.padded_rows;
  float* dq_accum = p.dq_accum + bh * p.seq_q * D;
  const int kv0 = kv_tile * Bc;
  const int causal_shift = p.seq_kv - p.seq_q;  // row i sees key j iff j <= i + causal_shift
  const int q_tiles = (p.seq_q + Br - 1) / Br;
  const int first = vocab::bwd_first_q_tile<int>(Br, Bc, p.seq_q, p.seq_kv,
                                                 p.causal ? vocab::Mask::causal : vocab::Mask::none, kv_tile);
  int n_steps = q_tiles - first;
  if constexpr (GeneralMask)
    n_steps = max(0, vocab::bwd_end_q_tile<int>(Br, Bc, p.seq_q, p.seq_kv, m.window, kv_tile) - first);
  // ALiBi slope times log2 e: the bias -slope |rel| enters the exponent in base 2.
  const float alibi_log2 =
      GeneralMask && m.alibi_slopes != nullptr ? m.alibi_slopes[blockIdx.y] * 1.4426950408889634f : 0.0f;

  // One step's copies: Q and dO [Br x d], LSE and D [Br] (16-byte pieces; the vectors are padded).
  const auto load_step = [&](int s) {
    const int slot = s % Stages;
    const int row0 = (first + s) * Br;
    device::load_tile_fixed<T, D, Br, kThreads>(smem.q[slot], q, row0, p.seq_q, tid);
    device::load_tile_fixed<T, D, Br, kThreads>(smem.d_o[slot], d_o, row0, p.seq_q, tid);
    constexpr int kVecChunks = Br / 4;
    static_assert(2 * kVecChunks <= kThreads, "one thread per 16-byte piece of LSE and D");
    if (tid < kVecChunks) {
      device::cp_async_16(device::smem_addr(smem.lse[slot] + 4 * tid), lse_log2 + row0 + 4 * tid, true);
    } else if (tid < 2 * kVecChunks) {
      const int c = tid - kVecChunks;
      device::cp_async_16(device::smem_addr(smem.delta[slot] + 4 * c), delta + row0 + 4 * c, true);
    }
  };

  // Prologue: K and V with step 0's tiles in group 0, then steps 1 .. Stages-2, one group each.
  device::load_tile_fixed<T, D, Bc, kThreads>(smem.k, k, kv0, p.seq_kv, tid);
  device::load_tile_fixed<T, D, Bc, kThreads>(smem.v, v, kv0, p.seq_kv, tid);
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) {
    if (s < n_steps) load_step(s);
    device::cp_async_commit();
  }

  // Per-lane ldmatrix offsets (bytes) in a swizzled tile of D-element rows (see tiled_kernel.cuh):
  //  A from [row][k] (K, V: this warp's 16 keys): row lane % 16, chunk lane / 16;
  //  B from [n][k] (Q, dO for S^T, dP^T): row lane % 8 + 8 (lane / 16), chunk (lane / 8) % 2;
  //  B from [k][n] with .trans (dO, Q for dV, dK; K for dQ): row lane % 8 + 8 ((lane / 8) % 2), chunk
  //  lane / 16. A k step moves 32 bytes along the row (device::swizzle_step: an XOR of the swizzled chunk
  //  bits shared by the loads of the step, plus an immediate), a 16-row block adds 16 rows (an immediate).
  const std::uint32_t a_off =
      ((warp * 16 + lane % 16) * D + ((lane / 16) ^ (lane % 8)) * 8) * static_cast<int>(sizeof(T));
  const std::uint32_t bn_off =
      ((lane % 8 + 8 * (lane / 16)) * D + (((lane / 8) & 1) ^ (lane % 8)) * 8) * static_cast<int>(sizeof(T));
  const std::uint32_t bt_off =
      ((lane % 8 + 8 * ((lane / 8) & 1)) * D + ((lane / 16) ^ (lane % 8)) * 8) * static_cast<int>(sizeof(T));
  const std::uint32_t k_addr = device::smem_addr(smem.k);
  const std::uint32_t v_addr = device::smem_addr(smem.v);
  // dS^T [key][row] (Br-element rows) read as the A operand dS [row][key] with .trans: stored row (key)
  // lane % 8 + 8 (lane / 16), chunk (row block) 2 wm + (lane / 8) % 2.
  const int wm = warp % Shape::kWarpsM;
  const int wn = warp / Shape::kWarpsM;
  // K as the B operand of dQ += dS K: this warp's kDqCols columns start wn * kDqCols elements along the row.
  // Its column blocks (dp) then move by 32 bytes each; kDqCols / 8 is a power of two, so the warp's chunk
  // offset and a block's share no chunk bit and the two moves compose.
  static_assert((Shape::kDqCols & (Shape::kDqCols - 1)) == 0, "a warp's dQ columns are a power of two");
  const std::uint32_t dq_bt_off =
      device::swizzle_step(bt_off, static_cast<std::uint32_t>(wn * Shape::kDqCols * sizeof(T)));
  const int ds_row = lane % 8 + 8 * (lane / 16);
  const std::uint32_t ds_at =
      device::smem_addr(smem.ds[0]) +
      (ds_row * Br + Shape::ds_swizzle(ds_row, 2 * wm + ((lane / 8) & 1)) * 8) * static_cast<int>(sizeof(T));
  constexpr std::uint32_t kDsSlotBytes = Bc * Br * sizeof(T);

  // dQ[rows of wm, columns of wn] += dS K for the q tile at row0, from dS^T in slot ds_slot, added into the
  // fp32 accumulator in L2.
  const auto dq_step = [&](int ds_slot, int row0) {
    float dq_acc[kDqTiles][4];
#pragma unroll
    for (int i = 0; i < kDqTiles; ++i) {
#pragma unroll
      for (int e = 0; e < 4; ++e) dq_acc[i][e] = 0.0f;
    }
    const std::uint32_t ds_slot_at = ds_at + static_cast<std::uint32_t>(ds_slot) * kDsSlotBytes;
#pragma unroll
    for (int kk = 0; kk < Bc / 16; ++kk) {
      std::uint32_t a[4];
      device::ldmatrix_x4_trans(a, ds_slot_at + kk * 16 * Br * static_cast<int>(sizeof(T)));
#pragma unroll
      for (int dp = 0; dp < kDqTiles / 2; ++dp) {
        std::uint32_t b[4];
        device::ldmatrix_x4_trans(b, k_addr + device::swizzle_step(dq_bt_off, dp * 32) + kk * 16 * kRowBytes);
        Traits::mma(dq_acc[2 * dp], a, b[0], b[1]);
        Traits::mma(dq_acc[2 * dp + 1], a, b[2], b[3]);
      }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = row0 + wm * 16 + g + 8 * r;
      if (row < p.seq_q) {
        float* dst = dq_accum + static_cast<std::size_t>(row) * D + wn * Shape::kDqCols + 2 * t;
#pragma unroll
        for (int nt = 0; nt < kDqTiles; ++nt) {
          atomicAdd(reinterpret_cast<float2*>(dst + nt * 8),
                    make_float2(dq_acc[nt][2 * r], dq_acc[nt][2 * r + 1]));
        }
      }
    }
  };

  if constexpr (Instrumented) {
    if (tid == 0) bwd_step_start() = device::global_timer_ns();
  }

  std::uint32_t k_frag[kKvInRegisters ? kDSteps : 1][4];
  std::uint32_t v_frag[kKvInRegisters ? kDSteps : 1][4];
  float dk_acc[kDTiles][4];
  float dv_acc[kDTiles][4];
#pragma unroll
  for (int i = 0; i < kDTiles; ++i) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      dk_acc[i][e] = 0.0f;
      dv_acc[i][e] = 0.0f;
    }
  }
  const int key_row0 = kv0 + warp * 16 + g;  // keys of this thread's accumulator rows: +0 and +8
  // Byte offset of this thread's dS^T pair (stored row warp * 16 + g, columns 2 t, 2 t + 1) in n tile 0; n
  // tile nt is nt * 16 bytes along the row (device::swizzle_step), row + 8 has the same swizzle (both
  // swizzles depend on the row modulo 8) and is 8 rows further.
  const std::uint32_t ds_st_off =
      ((warp * 16 + g) * Br + Shape::ds_swizzle(warp * 16 + g, 0) * 8 + 2 * t) * static_cast<int>(sizeof(T));

  for (int step = 0; step < n_steps; ++step) {
    const int slot = step % Stages;
    const int row0 = (first + step) * Br;
    if constexpr (Instrumented) {
      // The previous step's record ends where this step starts (one timer read for both).
      if (tid == 0 && step > 0) {
        const std::uint64_t now = device::global_timer_ns();
        write_bwd_step_record(timeline, p, q_tiles, first + step - 1, now);
        bwd_step_start() = now;
      }
    }
    device::cp_async_wait<Stages - 2>();
    // The step's tiles landed for all; every warp is done with step - 1 (its Q/dO slot, and dQ of step - 2,
    // the last reader of ds[step % 2]), and dS^T of step - 1 is whole in ds[(step - 1) % 2].
    __syncthreads();
    if (step + Stages - 1 < n_steps) load_step(step + Stages - 1);
    device::cp_async_commit();
    if constexpr (kKvInRegisters) {
      if (step == 0) {
#pragma unroll
        for (int kk = 0; kk < kDSteps; ++kk) {
          const std::uint32_t off = device::swizzle_step(a_off, kk * 32);
          device::ldmatrix_x4(k_frag[kk], k_addr + off);
          device::ldmatrix_x4(v_frag[kk], v_addr + off);
        }
      }
    }
    const std::uint32_t q_tile_addr = device::smem_addr(smem.q[slot]);
    const std::uint32_t do_tile_addr = device::smem_addr(smem.d_o[slot]);

    // S^T = K Q^T and dP^T = V dO^T, [16 keys x Br rows] per warp over d, fp32; both in one loop (the
    // order that kept ptxas from spilling: computed one after the other, the d = 64 kernels spilled).
    float p_acc[kQTiles][4];
    float ds_acc[kQTiles][4];
#pragma unroll
    for (int i = 0; i < kQTiles; ++i) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        p_acc[i][e] = 0.0f;
        ds_acc[i][e] = 0.0f;
      }
    }
#pragma unroll
    for (int kk = 0; kk < kDSteps; ++kk) {
      std::uint32_t ka[4], va[4];
      if constexpr (kKvInRegisters) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          ka[e] = k_frag[kk][e];
          va[e] = v_frag[kk][e];
        }
      } else {
        const std::uint32_t off = device::swizzle_step(a_off, kk * 32);
        device::ldmatrix_x4(ka, k_addr + off);
        device::ldmatrix_x4(va, v_addr + off);
      }
#pragma unroll
      for (int np = 0; np < Br / 16; ++np) {
        const std::uint32_t off = device::swizzle_step(bn_off, kk * 32) + np * 16 * kRowBytes;
        std::uint32_t b[4];
        device::ldmatrix_x4(b, q_tile_addr + off);
        Traits::mma(p_acc[2 * np], ka, b[0], b[1]);
        Traits::mma(p_acc[2 * np + 1], ka, b[2], b[3]);
        device::ldmatrix_x4(b, do_tile_addr + off);
        Traits::mma(ds_acc[2 * np], va, b[0], b[1]);
        Traits::mma(ds_acc[2 * np + 1], va, b[2], b[3]);
      }
    }

    // P^T = 2^(S^T scale log2 e - LSE log2 e) (recomputed), 0 past the causal diagonal, and
    // dS^T = P^T o (dP^T - D) with P in fp32; dS^T also to shared memory as [key][row]. Padding rows have
    // LSE = +inf (P = 0); padding keys (zero K and V rows) only reach dK and dV rows that are not stored.
    // P^T and dS^T as the A operands of dV and dK, packed to 16 bits as soon as they are known: the fp32
    // values then die here instead of living through the dV / dK products (at d 128 with Br 64, the
    // difference between spilling and not).
    std::uint32_t p_pk[kQTiles][2], ds_pk[kQTiles][2];
    const float* lse_s = smem.lse[slot];
    const float* delta_s = smem.delta[slot];
    const bool need_mask = p.causal && kv0 + Bc - 1 > row0 + causal_shift;
#pragma unroll
    for (int nt = 0; nt < kQTiles; ++nt) {
      const int col = nt * 8 + 2 * t;
      const float2 l2 = *reinterpret_cast<const float2*>(lse_s + col);
      const float2 dl = *reinterpret_cast<const float2*>(delta_s + col);
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float pe;
        if constexpr (GeneralMask) {
          const int key = key_row0 + 8 * (e >> 1);
          const int rel = row0 + col + (e & 1) + causal_shift - key;  // row i + Nkv - Nq - key j
          const bool visible = key < p.seq_kv && (!p.causal || rel >= 0) && (m.window <= 0 || rel < m.window);
          pe = visible
                   ? device::fast_exp2(fmaf(p_acc[nt][e], p.scale_log2,
                                            fmaf(-alibi_log2, fabsf(float(rel)), -((e & 1) ? l2.y : l2.x))))
                   : 0.0f;
        } else {
          pe = device::fast_exp2(fmaf(p_acc[nt][e], p.scale_log2, -((e & 1) ? l2.y : l2.x)));
        }
        if (!GeneralMask && need_mask) {
          const int key = key_row0 + 8 * (e >> 1);
          if (key > row0 + col + (e & 1) + causal_shift) pe = 0.0f;
        }
        p_acc[nt][e] = pe;
        ds_acc[nt][e] = pe * (ds_acc[nt][e] - ((e & 1) ? dl.y : dl.x));
      }
      const std::uint32_t ds_nt_off = device::swizzle_step(ds_st_off, nt * 16);
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        p_pk[nt][r] = Traits::pack(p_acc[nt][2 * r], p_acc[nt][2 * r + 1]);
        ds_pk[nt][r] = Traits::pack(ds_acc[nt][2 * r], ds_acc[nt][2 * r + 1]);
        *reinterpret_cast<std::uint32_t*>(reinterpret_cast<unsigned char*>(smem.ds[step % 2]) + ds_nt_off +
                                          r * 8 * Br * static_cast<int>(sizeof(T))) = ds_pk[nt][r];
      }
    }

    // dV += P^T dO and dK += dS^T Q (dK times scale at the end): A from the accumulators (the m16n8 C
    // layout of two n tiles is the A layout of one k16 step), B = dO, Q [row][d] read with .trans.
#pragma unroll
    for (int kk = 0; kk < kQSteps; ++kk) {
      const std::uint32_t pa[4] = {p_pk[2 * kk][0], p_pk[2 * kk][1], p_pk[2 * kk + 1][0],
                                   p_pk[2 * kk + 1][1]};
      const std::uint32_t da[4] = {ds_pk[2 * kk][0], ds_pk[2 * kk][1], ds_pk[2 * kk + 1][0],
                                   ds_pk[2 * kk + 1][1]};
#pragma unroll
      for (int dp = 0; dp < D / 16; ++dp) {
        const std::uint32_t off = device::swizzle_step(bt_off, dp * 32) + kk * 16 * kRowBytes;
        std::uint32_t b[4];
        device::ldmatrix_x4_trans(b, do_tile_addr + off);
        Traits::mma(dv_acc[2 * dp], pa, b[0], b[1]);
        Traits::mma(dv_acc[2 * dp + 1], pa, b[2], b[3]);
        device::ldmatrix_x4_trans(b, q_tile_addr + off);
        Traits::mma(dk_acc[2 * dp], da, b[0], b[1]);
        Traits::mma(dk_acc[2 * dp + 1], da, b[2], b[3]);
      }
    }
    // dQ of the previous q tile, whose dS^T the barrier above completed: it overlaps this step's products
    // instead of waiting at a barrier of its own.
    if (step > 0) dq_step((step - 1) % 2, row0 - Br);
  }
  device::cp_async_wait<0>();
  __syncthreads();  // dS^T of the last step is whole
  if (n_steps > 0) dq_step((n_steps - 1) % 2, (first + n_steps - 1) * Br);

  // Epilogue: dK * scale and dV staged in this warp's own rows of the K and V tiles, then 16-byte stores.
  __syncthreads();  // every warp is done reading K (dQ) and V
#pragma unroll
  for (int dt = 0; dt < kDTiles; ++dt) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = warp * 16 + g + 8 * r;
      const int at = row * D + device::swizzle128(row, dt) * 8 + 2 * t;
      *reinterpret_cast<std::uint32_t*>(smem.k + at) =
          Traits::pack(dk_acc[dt][2 * r] * p.scale, dk_acc[dt][2 * r + 1] * p.scale);
      *reinterpret_cast<std::uint32_t*>(smem.v + at) = Traits::pack(dv_acc[dt][2 * r], dv_acc[dt][2 * r + 1]);
    }
  }
  __syncwarp();
  T* dk = static_cast<T*>(p.dk) + bh * p.seq_kv * D;
  T* dv = static_cast<T*>(p.dv) + bh * p.seq_kv * D;
  constexpr int kChunksPerRow = D * static_cast<int>(sizeof(T)) / 16;
#pragma unroll
  for (int c = lane; c < 16 * kChunksPerRow; c += 32) {
    const int r = warp * 16 + c / kChunksPerRow;
    const int ch = c % kChunksPerRow;
    if (kv0 + r < p.seq_kv) {
      const int at = r * D + device::swizzle128(r, ch) * 8;
      const std::size_t dst = static_cast<std::size_t>(kv0 + r) * D + ch * 8;
      *reinterpret_cast<uint4*>(dk + dst) = *reinterpret_cast<const uint4*>(smem.k + at);
      *reinterpret_cast<uint4*>(dv + dst) = *reinterpret_cast<const uint4*>(smem.v + at);
    }
  }
  if constexpr (Instrumented) {
    // The last record ends when the whole CTA has stored dK and dV. A kv tile no q tile sees still stores
    // zeros, as one record at the model's key: its first visible q tile, clipped to the last q tile.
    __syncthreads();
    if (tid == 0)
      write_bwd_step_record(timeline, p, q_tiles, min(first + max(n_steps - 1, 0), q_tiles - 1),
                            device::global_timer_ns());
  }
}

// The plain main kernel (no mask, or causal).
template <typename T, int D, int Bc, int Br, int Stages>
__global__ void __launch_bounds__(TiledBwdShape<T, D, Bc, Br, Stages>::kThreads,
                                  TiledBwdShape<T, D, Bc, Br, Stages>::kMinBlocks)
    tiled_bwd_kernel(const TiledBwdParams p) {
  tiled_bwd_body<T, D, Bc, Br, Stages, false>(p, MaskParams{0, nullptr});
}

// The instrumented main kernel (no mask, or causal): the plain kernel plus its timeline.
template <typename T, int D, int Bc, int Br, int Stages>
__global__ void __launch_bounds__(TiledBwdShape<T, D, Bc, Br, Stages>::kThreads,
                                  TiledBwdShape<T, D, Bc, Br, Stages>::kMinBlocks)
    tiled_bwd_instrumented_kernel(const TiledBwdParams p, TileTiming* timeline) {
  tiled_bwd_body<T, D, Bc, Br, Stages, false, true>(p, MaskParams{0, nullptr}, timeline);
}

// The general-mask main kernel: sliding window and/or ALiBi.
template <typename T, int D, int Bc, int Br, int Stages>
__global__ void __launch_bounds__(TiledBwdShape<T, D, Bc, Br, Stages>::kThreads,
                                  TiledBwdShape<T, D, Bc, Br, Stages>::kMinBlocks)
    tiled_bwd_general_mask_kernel(const TiledBwdParams p, const MaskParams m) {
  tiled_bwd_body<T, D, Bc, Br, Stages, true>(p, m);
}

template <typename T, int D, int Bc, int Br, int Stages, bool GeneralMask = false, bool Instrumented = false>
int launch_tiled_bwd_instance(const TiledBwdParams& p, const MaskParams& mask, TileTiming* timeline,
                              int batch, int parts, Stream stream) {
  using Shape = TiledBwdShape<T, D, Bc, Br, Stages>;
  const auto s = static_cast<cudaStream_t>(stream);
  const vocab::Dim3 rows =
      vocab::tiled_bwd_row_grid(Shape::kConfig, p.seq_q, D, std::int64_t{batch} * p.heads);
  const dim3 row_grid(static_cast<unsigned>(rows.x), static_cast<unsigned>(rows.y));
  cudaError_t err = cudaSuccess;
  if (parts & 1) {
    tiled_bwd_pre_kernel<T, D><<<row_grid, vocab::kBwdRowThreads, 0, s>>>(p);
    err = cudaGetLastError();
    if (err != cudaSuccess) return static_cast<int>(err);
  }
  if (parts & 2) {
    const vocab::Dim3 grid = vocab::tiled_bwd_grid(Shape::kConfig, p.seq_kv, p.heads, batch);
    const dim3 main_grid(static_cast<unsigned>(grid.x), static_cast<unsigned>(grid.y),
                         static_cast<unsigned>(grid.z));
    static_assert(!(GeneralMask && Instrumented), "the general-mask backward has no timeline build");
    if constexpr (Instrumented) {
      auto* kernel = &tiled_bwd_instrumented_kernel<T, D, Bc, Br, Stages>;
      err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(Shape::kSmemBytes));
      if (err != cudaSuccess) return static_cast<int>(err);
      kernel<<<main_grid, Shape::kThreads, Shape::kSmemBytes, s>>>(p, timeline);
    } else if constexpr (GeneralMask) {
      auto* kernel = &tiled_bwd_general_mask_kernel<T, D, Bc, Br, Stages>;
      err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(Shape::kSmemBytes));
      if (err != cudaSuccess) return static_cast<int>(err);
      kernel<<<main_grid, Shape::kThreads, Shape::kSmemBytes, s>>>(p, mask);
    } else {
      auto* kernel = &tiled_bwd_kernel<T, D, Bc, Br, Stages>;
      err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(Shape::kSmemBytes));
      if (err != cudaSuccess) return static_cast<int>(err);
      kernel<<<main_grid, Shape::kThreads, Shape::kSmemBytes, s>>>(p);
    }
    err = cudaGetLastError();
    if (err != cudaSuccess) return static_cast<int>(err);
  }
  if (parts & 4) {
    tiled_bwd_post_kernel<T, D><<<row_grid, vocab::kBwdRowThreads, 0, s>>>(p);
    err = cudaGetLastError();
  }
  return static_cast<int>(err);
}

template <typename T, int D, int Bc, int Br, int Stages, bool GeneralMask = false, bool Instrumented = false>
TiledBwdEntry tiled_bwd_entry(DType dtype) {
  using Shape = TiledBwdShape<T, D, Bc, Br, Stages>;
  return TiledBwdEntry{dtype,
                       D,
                       Shape::kConfig,
                       GeneralMask,
                       Instrumented,
                       Shape::kSmemBytes,
                       &launch_tiled_bwd_instance<T, D, Bc, Br, Stages, GeneralMask, Instrumented>};
}

}  // namespace attnscope::kernels::detail
