// SPDX-License-Identifier: Apache-2.0
// FlashAttention-2-style tiled forward attention (mma.sync m16n8k16, ldmatrix, cp.async ring).
//
// One CTA per (q tile, head, batch); `Warps` warps, each owning Br/Warps = 16 or 32 query rows (one or two
// m16 tiles: with 32 rows a warp reuses every K and V fragment it reads from shared memory for two MMAs,
// which halves the CTA's shared-memory reads of K and V per FLOP). The CTA copies its Q tile
// [Br x d] to shared memory once, then streams K_j, V_j [Bc x d] through a `Stages`-deep cp.async ring.
// Per kv tile: S = Q K_j^T in registers (fp32), online softmax in base 2 (scale * log2 e folded into one
// FMA before ex2), P converted to the input dtype in registers and O += P V_j. O [Br x d] and LSE [Br] are
// written once at the end. Shared memory is one SharedStorage (Q + Stages x (K + V)), swizzled at 16-byte
// granularity (chunk ^ row % 8), no padding. Grid, CTA size, shared memory, launch bounds and the causal
// cut come from attnscope/vocab/geometry.hpp (the model prices the same numbers); docs/dataflow.md is the
// dataflow, docs/kernel-notes.md the measurements.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "attnscope/vocab/geometry.hpp"
#include "device_common.cuh"
#include "launch_registry.hpp"

namespace attnscope::kernels::detail {

template <typename T, int D, int Br, int Bc, int Stages, int Warps>
struct TiledShape {
  static constexpr vocab::TiledConfig kConfig{Br, Bc, Warps, Stages};
  static_assert(vocab::is_compiled_head_dim(D),
                "head_dim must be 64 or 128 (rows of 128 or 256 bytes for the swizzle)");
  static_assert(vocab::is_compiled_dtype(device::ElementTraits<T>::kDType), "fp16 or bf16 inputs");
  static_assert(Br % vocab::kMmaTile == 0 && Bc % vocab::kMmaTile == 0,
                "Br and Bc must be multiples of 16 (mma m16n8k16)");
  static_assert(Stages >= 2, "the K/V ring needs at least 2 stages to overlap loads with compute");
  static_assert(vocab::tiled_rows_per_warp(kConfig) * Warps == Br &&
                    (vocab::tiled_rows_per_warp(kConfig) == vocab::kMmaTile ||
                     vocab::tiled_rows_per_warp(kConfig) == 2 * vocab::kMmaTile),
                "each warp owns 16 or 32 query rows");
  static constexpr int kWarps = Warps;
  static constexpr int kWarpRows = vocab::tiled_rows_per_warp(kConfig);  // query rows per warp
  static constexpr int kMTiles = kWarpRows / vocab::kMmaTile;            // m16 tiles per warp
  static constexpr int kThreads = vocab::tiled_threads_per_cta(kConfig);
  static constexpr int kChunksPerRow = D * static_cast<int>(sizeof(T)) / 16;  // 16-byte chunks per row

  struct SharedStorage {
    T q[Br * D];          // Q tile, later reused to stage O for 16-byte stores
    T k[Stages][Bc * D];  // K ring
    T v[Stages][Bc * D];  // V ring
  };
  static constexpr std::size_t kSmemBytes = sizeof(SharedStorage);
  static_assert(kSmemBytes ==
                    static_cast<std::size_t>(vocab::tiled_smem_bytes(kConfig, D,
                                                                     device::ElementTraits<T>::kDType)),
                "SharedStorage must be exactly vocab::tiled_smem_bytes: the launch and the model rely on it");
  // __launch_bounds__ minimum: two CTAs per SM where the register budget allows (vocab says when).
  static constexpr int kMinBlocks = vocab::tiled_min_blocks_per_sm(kConfig, D);
};

// Instrumented build: one timeline record, written by one thread; the ids are re-read from blockIdx (not
// kept live across the kv loop, where the 32-rows-per-warp kernels have no register to spare).
__device__ __forceinline__ void write_record(TileTiming* record, int kv_tile, std::uint64_t start_ns,
                                             std::uint64_t end_ns, int q_tile_begin) {
  *record = TileTiming{blockIdx.z,
                       blockIdx.y,
                       static_cast<std::uint32_t>(q_tile_begin) + blockIdx.x,
                       static_cast<std::uint32_t>(kv_tile),
                       device::sm_id(),
                       start_ns,
                       end_ns};
}

// The kernel's body, for the two kernels below. GeneralMask: the variant for a sliding window and/or ALiBi
// (`m`), compiled for one tile per head dim (vocab::general_mask_tiled_config). Every score is tested
// against the row's key band and gets the bias, so S holds scaled scores plus bias from there on (the
// softmax then runs with scale 1); kv tiles left of the first row's window are skipped. With GeneralMask =
// false `m` is never read and the code is the plain kernel's.
template <typename T, int D, int Br, int Bc, int Stages, int Warps, bool Instrumented, bool GeneralMask>
__device__ __forceinline__ void tiled_attention_body(const TiledParams& p, const MaskParams& m) {
  using Shape = TiledShape<T, D, Br, Bc, Stages, Warps>;
  using Traits = device::ElementTraits<T>;
  using SharedStorage = typename Shape::SharedStorage;
  constexpr int kThreads = Shape::kThreads;
  constexpr int kWarpRows = Shape::kWarpRows;
  constexpr int kM = Shape::kMTiles;  // m16 tiles per warp
  // Keys per compute pass: the K/V tile (Bc keys) is processed in Bc / kSubBc passes of S, online softmax
  // and P V. Only 32 rows per warp split: d = 128 into 32-key passes (its 128 O accumulators plus 64 S
  // accumulators of a whole 64-key tile made ptxas spill 60 bytes; each pass re-reads the warp's Q fragments
  // from shared memory), d = 64 into 64-key passes (Bc 128: Q then stays in registers, as at Bc 64).
  // Loads, the ring and the shared-memory reads of K and V are unchanged.
  constexpr int kPassKeys = D == 128 ? 32 : 64;
  constexpr int kSubBc = (kM == 2 && Bc > kPassKeys) ? kPassKeys : Bc;
  static_assert(Bc % kSubBc == 0, "the kv tile splits into whole compute passes");
  constexpr int kNTiles = kSubBc / 8;    // n8 tiles of S per warp and pass
  constexpr int kDTiles = D / 8;         // n8 tiles of O per warp
  constexpr int kDSteps = D / 16;        // k16 steps of Q K^T
  constexpr int kKvSteps = kSubBc / 16;  // k16 steps of P V per pass
  // Q fragments stay in registers for d = 64 (16 registers per m16 tile); at d = 128 they are re-read from
  // shared memory every compute pass (registers the S and O accumulators need).
  constexpr bool kQInRegisters = D == 64;

  extern __shared__ __align__(1024) unsigned char smem_raw[];
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(smem_raw);

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int g = lane / 4;  // accumulator row within the 8-row half
  const int t = lane % 4;  // accumulator column pair
  const int q_tile = p.q_tile_begin + static_cast<int>(blockIdx.x);
  const int head = static_cast<int>(blockIdx.y);
  const int batch = static_cast<int>(blockIdx.z);
  const std::size_t bh = static_cast<std::size_t>(batch) * p.heads + head;
  const T* q = static_cast<const T*>(p.q) + bh * p.seq_q * D;
  const T* k = static_cast<const T*>(p.k) + bh * p.seq_kv * D;
  const T* v = static_cast<const T*>(p.v) + bh * p.seq_kv * D;
  const int q0 = q_tile * Br;
  // Keys visible to query row i: j <= i + causal_shift (bottom-right aligned causal mask).
  const int causal_shift = p.seq_kv - p.seq_q;

  // kv tiles this CTA runs: the window, cut at the diagonal when causal (tiles with no visible key skipped).
  const int kv_visible = vocab::visible_kv_tiles<int>(
      Br, Bc, p.seq_q, p.seq_kv, p.causal ? vocab::Mask::causal : vocab::Mask::none, q_tile);
  const int kv_begin = GeneralMask ? max(p.kv_tile_begin, vocab::first_visible_kv_tile<int>(
                                                              Br, Bc, p.seq_q, p.seq_kv, m.window, q_tile))
                                   : p.kv_tile_begin;
  const int n_steps = max(0, min(p.kv_tile_end, kv_visible) - kv_begin);
  // Softmax constants: the plain kernels keep raw scores in S (scale folded into the exponent's FMA); the
  // general-mask variant stores scale * score + bias, so its softmax scale is 1.
  const float score_log2 = GeneralMask ? 1.4426950408889634f : p.scale_log2;
  const float lse_scale = GeneralMask ? 1.0f : p.scale;
  const float alibi_slope = GeneralMask && m.alibi_slopes != nullptr ? m.alibi_slopes[head] : 0.0f;
  // Instrumented build: the step's start time waits in shared memory (thread 0 writes and reads it) and the
  // record index is recomputed when the record is written, so the timeline costs no registers across the
  // kv loop (every register there is needed by the accumulators; in registers it made ptxas spill).
  __shared__ std::uint64_t step_start;
  const auto record_index = [&](int kv_tile) {
    return (bh * gridDim.x + blockIdx.x) * static_cast<std::size_t>(p.kv_tile_end - p.kv_tile_begin) +
           static_cast<std::size_t>(kv_tile - p.kv_tile_begin);
  };
  if constexpr (Instrumented) {
    if (tid == 0) step_start = device::global_timer_ns();
  }

  // Prologue: Q with the first K/V tile in group 0, then tiles 1 .. Stages-2, one group each.
  if (n_steps > 0) device::load_tile<T, D, Br, kThreads>(smem.q, q, q0, p.seq_q, tid);
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) {
    if (s < n_steps) {
      device::load_tile<T, D, Bc, kThreads>(smem.k[s], k, (kv_begin + s) * Bc, p.seq_kv, tid);
      device::load_tile<T, D, Bc, kThreads>(smem.v[s], v, (kv_begin + s) * Bc, p.seq_kv, tid);
    }
    device::cp_async_commit();
  }

  // Per-lane ldmatrix bases (see the S loop). Q (A operand): rows lane % 16, chunk lane / 16.
  // K (B operand, [key][d]): rows lane % 8 + 8 * (lane / 16), chunk (lane / 8) % 2.
  // V (B operand via .trans, [key][d]): rows lane % 8 + 8 * ((lane / 8) % 2), chunk lane / 16.
  const std::uint32_t q_lane_base =
      device::smem_addr(smem.q) +
      static_cast<std::uint32_t>(((warp * kWarpRows + lane % 16) * D + ((lane / 16) ^ (lane % 8)) * 8) *
                                 sizeof(T));
  const std::uint32_t k_lane_base =
      device::smem_addr(smem.k[0]) +
      static_cast<std::uint32_t>(((lane % 8 + 8 * (lane / 16)) * D + (((lane / 8) & 1) ^ (lane % 8)) * 8) *
                                 sizeof(T));
  const std::uint32_t v_lane_base =
      device::smem_addr(smem.v[0]) +
      static_cast<std::uint32_t>(((lane % 8 + 8 * ((lane / 8) & 1)) * D + ((lane / 16) ^ (lane % 8)) * 8) *
                                 sizeof(T));
  // The second m tile's rows are 16 rows further: a plain add (the swizzle depends on row % 8 only).
  constexpr std::uint32_t kMTileBytes = 16 * D * sizeof(T);
  std::uint32_t q_frag[kM][kDSteps][4];
  float o_acc[kM][kDTiles][4];
  float row_max[kM][2];  // raw (unscaled) running max of rows g and g + 8 of each m tile
  float row_sum[kM][2];  // this thread's part of the running sum
#pragma unroll
  for (int mi = 0; mi < kM; ++mi) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      row_max[mi][r] = -INFINITY;
      row_sum[mi][r] = 0.0f;
    }
#pragma unroll
    for (int i = 0; i < kDTiles; ++i) {
#pragma unroll
      for (int e = 0; e < 4; ++e) o_acc[mi][i][e] = 0.0f;
    }
  }
  const int warp_row0 = q0 + warp * kWarpRows;

  for (int step = 0; step < n_steps; ++step) {
    const int kv_tile = kv_begin + step;
    const int stage = step % Stages;
    if constexpr (Instrumented) {
      // The previous step's record ends where this step starts (one timer read for both): written here,
      // before this step's accumulators are live.
      if (tid == 0 && step > 0) {
        const std::uint64_t now = device::global_timer_ns();
        write_record(p.timeline + record_index(kv_tile - 1), kv_tile - 1, step_start, now, p.q_tile_begin);
        step_start = now;
      }
    }
    device::cp_async_wait<Stages - 2>();  // tile `step` (and Q) landed for this thread ...
    __syncthreads();                      // ... and for all; also: everyone is done with tile step-1
    {
      const int next = step + Stages - 1;
      if (next < n_steps) {
        device::load_tile<T, D, Bc, kThreads>(smem.k[next % Stages], k, (kv_begin + next) * Bc, p.seq_kv,
                                              tid);
        device::load_tile<T, D, Bc, kThreads>(smem.v[next % Stages], v, (kv_begin + next) * Bc, p.seq_kv,
                                              tid);
      }
      device::cp_async_commit();  // possibly empty: keeps the group count in step with the tile index
    }
    if constexpr (kQInRegisters) {
      if (step == 0) {
#pragma unroll
        for (int mi = 0; mi < kM; ++mi) {
#pragma unroll
          for (int kk = 0; kk < kDSteps; ++kk) {
            device::ldmatrix_x4(q_frag[mi][kk],
                                (q_lane_base + mi * kMTileBytes) ^ static_cast<std::uint32_t>(kk * 32));
          }
        }
      }
    }

    // One compute pass over keys [sub * kSubBc, +kSubBc) of the tile. With several passes they run as a real
    // loop (unrolled, ptxas overlapped the passes and spilled again); with one pass no loop is written at
    // all (a one-trip loop kept under `unroll 1` cost the d = 64 Bc 64 kernel 3.7 %: 283.5 vs 294.2 TFLOP/s).
    const auto compute_pass = [&](const int sub) {
      // S = Q K^T (raw scores, fp32) of keys [sub * kSubBc, +kSubBc) of the tile.
      float s_acc[kM][kNTiles][4];
#pragma unroll
      for (int mi = 0; mi < kM; ++mi) {
#pragma unroll
        for (int i = 0; i < kNTiles; ++i) {
#pragma unroll
          for (int e = 0; e < 4; ++e) s_acc[mi][i][e] = 0.0f;
        }
      }
      // ldmatrix addresses: in a swizzled tile (128-byte aligned rows of D elements) the row offset of a
      // 16-row block is a plain add and the chunk index only XORs address bits 4..7, so one per-lane base
      // plus an XOR per k step and an immediate per n block (keeps ptxas from hoisting 64 addresses).
      const std::uint32_t k_base =
          k_lane_base + static_cast<std::uint32_t>((stage * Bc + sub * kSubBc) * D * sizeof(T));
#pragma unroll
      for (int kk = 0; kk < kDSteps; ++kk) {
        if constexpr (!kQInRegisters) {
#pragma unroll
          for (int mi = 0; mi < kM; ++mi) {
            device::ldmatrix_x4(q_frag[mi][0],
                                (q_lane_base + mi * kMTileBytes) ^ static_cast<std::uint32_t>(kk * 32));
          }
        }
        const int qk = kQInRegisters ? kk : 0;  // without Q in registers only slot 0 is used
        const std::uint32_t k_addr = k_base ^ static_cast<std::uint32_t>(kk * 32);
#pragma unroll
        for (int np = 0; np < kSubBc / 16; ++np) {
          std::uint32_t b[4];  // one ldmatrix of K feeds kM x 2 MMAs
          device::ldmatrix_x4(b, k_addr + static_cast<std::uint32_t>(np * 16 * D * sizeof(T)));
#pragma unroll
          for (int mi = 0; mi < kM; ++mi) {
            Traits::mma(s_acc[mi][2 * np], q_frag[mi][qk], b[0], b[1]);
            Traits::mma(s_acc[mi][2 * np + 1], q_frag[mi][qk], b[2], b[3]);
          }
        }
      }

      // Mask keys past Nkv and (causal) keys past each row's diagonal; only tiles that can hold such keys.
      // Two formulations, chosen per instantiation from what the H200 and ptxas showed: a per-element test
      // (key and row per score) for the plain 32-rows-per-warp kernels, and one limit per row (a compare per
      // score, fewer live registers) for the others. The per-row limit made the default configuration 5.8 %
      // slower (279.2 vs 296.5 TFLOP/s, same run, although the branch never runs there); the per-element test
      // made ptxas spill in the 8-warp d 64 Br 128 Bc 64 stages 3 kernel (32 bytes) and the instrumented d
      // 128 Bc 64 4-warp kernel (8 bytes). Both compute the same mask.
      const int key0 = kv_tile * Bc + sub * kSubBc;
      if constexpr (GeneralMask) {
        // Key j is visible to row i iff j < Nkv, and (causal) rel = i + Nkv - Nq - j >= 0, and (window)
        // rel < window; the ALiBi bias is -slope * |rel|.
#pragma unroll
        for (int mi = 0; mi < kM; ++mi) {
#pragma unroll
          for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
              const int key = key0 + nt * 8 + 2 * t + (e & 1);
              const int rel = warp_row0 + mi * 16 + g + 8 * (e >> 1) + causal_shift - key;
              const bool visible =
                  key < p.seq_kv && (!p.causal || rel >= 0) && (m.window <= 0 || rel < m.window);
              s_acc[mi][nt][e] =
                  visible ? fmaf(s_acc[mi][nt][e], p.scale, -alibi_slope * fabsf(float(rel))) : -INFINITY;
            }
          }
        }
      } else if (key0 + kSubBc > p.seq_kv || (p.causal && key0 + kSubBc - 1 > warp_row0 + causal_shift)) {
        if constexpr (kM == 2 && !Instrumented) {
#pragma unroll
          for (int mi = 0; mi < kM; ++mi) {
#pragma unroll
            for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
              for (int e = 0; e < 4; ++e) {
                const int key = key0 + nt * 8 + 2 * t + (e & 1);
                const int row = warp_row0 + mi * 16 + g + 8 * (e >> 1);
                if (key >= p.seq_kv || (p.causal && key > row + causal_shift)) s_acc[mi][nt][e] = -INFINITY;
              }
            }
          }
        } else {
#pragma unroll
          for (int mr = 0; mr < 2 * kM; ++mr) {
            const int mi = mr / 2, r = mr % 2;
            // Keys [key0 + 2t, key0 + 2t + limit) of this thread's columns are visible to the row.
            int limit = p.seq_kv - key0 - 2 * t;
            if (p.causal)
              limit = min(limit, warp_row0 + mi * 16 + g + 8 * r + causal_shift + 1 - key0 - 2 * t);
#pragma unroll
            for (int nt = 0; nt < kNTiles; ++nt) {
              if (nt * 8 >= limit) s_acc[mi][nt][2 * r] = -INFINITY;
              if (nt * 8 + 1 >= limit) s_acc[mi][nt][2 * r + 1] = -INFINITY;
            }
          }
        }
      }

      // Online softmax, base 2: p = 2^(s * scale_log2 - m * scale_log2), packed straight into the A fragments
      // of P V (p_frag[n tile][row half] = two probabilities in the input dtype).
      std::uint32_t p_frag[kM][kNTiles][2];
#pragma unroll
      for (int mr = 0; mr < 2 * kM; ++mr) {
        const int mi = mr / 2, r = mr % 2;
        float m = row_max[mi][r];
#pragma unroll
        for (int nt = 0; nt < kNTiles; ++nt)
          m = fmaxf(m, fmaxf(s_acc[mi][nt][2 * r], s_acc[mi][nt][2 * r + 1]));
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
        // A row with no visible key so far keeps m = -inf; subtract 0 then so that -inf - -inf never happens.
        const float m_scaled = m == -INFINITY ? 0.0f : m * score_log2;
        const float alpha = device::fast_exp2(row_max[mi][r] * score_log2 - m_scaled);
        row_max[mi][r] = m;
        float sum = 0.0f;
#pragma unroll
        for (int nt = 0; nt < kNTiles; ++nt) {
          const float x0 = fmaf(s_acc[mi][nt][2 * r], score_log2, -m_scaled);
          const float x1 = fmaf(s_acc[mi][nt][2 * r + 1], score_log2, -m_scaled);
          const float p0 = device::fast_exp2(x0), p1 = device::fast_exp2(x1);
          p_frag[mi][nt][r] = Traits::pack(p0, p1);
          sum += p0 + p1;
        }
        row_sum[mi][r] = row_sum[mi][r] * alpha + sum;
#pragma unroll
        for (int dt = 0; dt < kDTiles; ++dt) {
          o_acc[mi][dt][2 * r] *= alpha;
          o_acc[mi][dt][2 * r + 1] *= alpha;
        }
      }

      // O += P V, P taken from the S accumulators (the m16n8 C layout of two n-tiles is the A layout of k16).
      const std::uint32_t v_base =
          v_lane_base + static_cast<std::uint32_t>((stage * Bc + sub * kSubBc) * D * sizeof(T));
#pragma unroll
      for (int kk = 0; kk < kKvSteps; ++kk) {
        std::uint32_t a[kM][4];
#pragma unroll
        for (int mi = 0; mi < kM; ++mi) {
          a[mi][0] = p_frag[mi][2 * kk][0];
          a[mi][1] = p_frag[mi][2 * kk][1];
          a[mi][2] = p_frag[mi][2 * kk + 1][0];
          a[mi][3] = p_frag[mi][2 * kk + 1][1];
        }
#pragma unroll
        for (int dp = 0; dp < D / 16; ++dp) {
          std::uint32_t b[4];  // one ldmatrix of V feeds kM x 2 MMAs
          device::ldmatrix_x4_trans(b, (v_base + static_cast<std::uint32_t>(kk * 16 * D * sizeof(T))) ^
                                           static_cast<std::uint32_t>(dp * 32));
#pragma unroll
          for (int mi = 0; mi < kM; ++mi) {
            Traits::mma(o_acc[mi][2 * dp], a[mi], b[0], b[1]);
            Traits::mma(o_acc[mi][2 * dp + 1], a[mi], b[2], b[3]);
          }
        }
      }
    };
    if constexpr (Bc == kSubBc) {
      compute_pass(0);
    } else {
#pragma unroll 1
      for (int sub = 0; sub < Bc / kSubBc; ++sub) compute_pass(sub);
    }
  }
  device::cp_async_wait<0>();  // only empty groups can be pending here; drain them anyway

  // Epilogue: normalise, stage this warp's rows of O in its own rows of the Q tile (no other warp
  // touches them), then 16-byte coalesced stores; LSE by the first thread of each row quad.
  float inv_sum[kM][2];
#pragma unroll
  for (int mi = 0; mi < kM; ++mi) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float l = row_sum[mi][r];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      inv_sum[mi][r] = l > 0.0f ? 1.0f / l : 0.0f;
      const int row = warp_row0 + mi * 16 + g + 8 * r;
      if (t == 0 && row < p.seq_q) {
        p.lse[bh * p.seq_q + row] = l > 0.0f ? row_max[mi][r] * lse_scale + logf(l) : -INFINITY;
      }
    }
  }
  __syncwarp();
#pragma unroll
  for (int mi = 0; mi < kM; ++mi) {
#pragma unroll
    for (int dt = 0; dt < kDTiles; ++dt) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int row = warp * kWarpRows + mi * 16 + g + 8 * r;
        const std::uint32_t packed =
            Traits::pack(o_acc[mi][dt][2 * r] * inv_sum[mi][r], o_acc[mi][dt][2 * r + 1] * inv_sum[mi][r]);
        *reinterpret_cast<std::uint32_t*>(smem.q + row * D + device::swizzle128(row, dt) * 8 + 2 * t) =
            packed;
      }
    }
  }
  __syncwarp();
  T* o = static_cast<T*>(p.o) + bh * p.seq_q * D;
  constexpr int kChunksPerRow = Shape::kChunksPerRow;
#pragma unroll
  for (int c = lane; c < kWarpRows * kChunksPerRow; c += 32) {
    const int r = warp * kWarpRows + c / kChunksPerRow;
    const int ch = c % kChunksPerRow;
    if (q0 + r < p.seq_q) {
      *reinterpret_cast<uint4*>(o + static_cast<std::size_t>(q0 + r) * D + ch * 8) =
          *reinterpret_cast<const uint4*>(smem.q + r * D + device::swizzle128(r, ch) * 8);
    }
  }
  if constexpr (Instrumented) {
    // A CTA with no visible kv tile in the window (causal, Nq > Nkv) still records its O/LSE store as one
    // record at kv_tile_begin, as the model does; an empty kv window has no record slot at all.
    if (n_steps > 0 || p.kv_tile_end > kv_begin) {
      __syncthreads();  // the last record ends when the whole CTA has stored O
      if (tid == 0) {
        const int kv_tile = kv_begin + max(n_steps - 1, 0);
        write_record(p.timeline + record_index(kv_tile), kv_tile, step_start, device::global_timer_ns(),
                     p.q_tile_begin);
      }
    }
  }
}

// The plain kernel (no mask, or causal), with or without the timeline.
template <typename T, int D, int Br, int Bc, int Stages, int Warps, bool Instrumented>
__global__ void __launch_bounds__(TiledShape<T, D, Br, Bc, Stages, Warps>::kThreads,
                                  TiledShape<T, D, Br, Bc, Stages, Warps>::kMinBlocks)
    tiled_attention_kernel(const TiledParams p) {
  tiled_attention_body<T, D, Br, Bc, Stages, Warps, Instrumented, false>(p, MaskParams{0, nullptr});
}

// The general-mask kernel: sliding window and/or ALiBi, no timeline.
template <typename T, int D, int Br, int Bc, int Stages, int Warps>
__global__ void __launch_bounds__(TiledShape<T, D, Br, Bc, Stages, Warps>::kThreads,
                                  TiledShape<T, D, Br, Bc, Stages, Warps>::kMinBlocks)
    tiled_attention_general_mask_kernel(const TiledParams p, const MaskParams m) {
  tiled_attention_body<T, D, Br, Bc, Stages, Warps, false, true>(p, m);
}

template <typename T, int D, int Br, int Bc, int Stages, int Warps, bool Instrumented,
          bool GeneralMask = false>
int launch_tiled_instance(const TiledParams& params, const MaskParams& mask, int grid_x, int grid_y,
                          int grid_z, Stream stream) {
  using Shape = TiledShape<T, D, Br, Bc, Stages, Warps>;
  const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y),
                  static_cast<unsigned>(grid_z));
  const auto s = static_cast<cudaStream_t>(stream);
  cudaError_t err = cudaSuccess;
  if constexpr (GeneralMask) {
    static_assert(!Instrumented, "the general-mask kernel has no timeline build");
    auto* kernel = &tiled_attention_general_mask_kernel<T, D, Br, Bc, Stages, Warps>;
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(Shape::kSmemBytes));
    if (err != cudaSuccess) return static_cast<int>(err);
    kernel<<<grid, Shape::kThreads, Shape::kSmemBytes, s>>>(params, mask);
  } else {
    auto* kernel = &tiled_attention_kernel<T, D, Br, Bc, Stages, Warps, Instrumented>;
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(Shape::kSmemBytes));
    if (err != cudaSuccess) return static_cast<int>(err);
    kernel<<<grid, Shape::kThreads, Shape::kSmemBytes, s>>>(params);
  }
  return static_cast<int>(cudaGetLastError());
}

// Warps = 0 means Br / 16 (16 query rows per warp, the original configurations).
template <typename T, int D, int Br, int Bc, int Stages, bool Instrumented, int Warps = 0,
          bool GeneralMask = false>
TiledEntry tiled_entry(DType dtype) {
  constexpr int kWarps = Warps == 0 ? Br / 16 : Warps;
  using Shape = TiledShape<T, D, Br, Bc, Stages, kWarps>;
  return TiledEntry{dtype,
                    D,
                    Br,
                    Bc,
                    Stages,
                    kWarps,
                    Instrumented,
                    GeneralMask,
                    Shape::kSmemBytes,
                    Shape::kThreads,
                    &launch_tiled_instance<T, D, Br, Bc, Stages, kWarps, Instrumented, GeneralMask>};
}

// All (Br, Bc) of one (dtype, d, stages, instrumented): Br in {64, 128} x Bc in {32, 64, 128} (one left out).
template <typename T, int D, int Stages, bool Instrumented>
void append_all_tiles(std::vector<TiledEntry>& out, DType dtype) {
  out.push_back(tiled_entry<T, D, 64, 32, Stages, Instrumented>(dtype));
  out.push_back(tiled_entry<T, D, 64, 64, Stages, Instrumented>(dtype));
  out.push_back(tiled_entry<T, D, 64, 128, Stages, Instrumented>(dtype));
  out.push_back(tiled_entry<T, D, 128, 32, Stages, Instrumented>(dtype));
  // Not compiled: d 64, Br 128, Bc 64, 8 warps, stages 2 (the default before the 4-warp kernels): at its
  // 128-register bound (two CTAs of 256 threads) ptxas spilled 16-28 bytes whatever was tried. The tile
  // stays available with 4 warps (the default) and with 8 warps at stages 3 (no spill).
  if constexpr (!(D == 64 && Stages == 2))
    out.push_back(tiled_entry<T, D, 128, 64, Stages, Instrumented>(dtype));
  out.push_back(tiled_entry<T, D, 128, 128, Stages, Instrumented>(dtype));
}

}  // namespace attnscope::kernels::detail
