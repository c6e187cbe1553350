// SPDX-License-Identifier: Apache-2.0
// Hopper-native tiled attention forward (FlashAttention-3 style; sm_90a).
//
// One CTA per (q tile, head, batch): warpgroup 0 is the producer, warpgroups 1 .. Consumers the consumers,
// each owning 64 query rows (the M of one wgmma). The producer gives most of its registers back
// (setmaxnreg.dec) and one elected thread issues every bulk tensor copy: the Q tile [Br x d] once, then K_j
// and V_j [Bc x d] into a `Stages`-deep ring, each copy completing on an mbarrier that was told the bytes to
// expect (expect_tx); before reusing a slot it waits on the slot's `empty` barrier, which every consumer warp
// arrives at once its MMAs have finished reading the slot. The consumers take the registers
// (setmaxnreg.inc) and per kv tile run S = Q K_j^T (wgmma, both operands in shared memory), mask, the online
// softmax in registers (base 2, scale * log2 e folded into one FMA before ex2), and O += P V_j (wgmma with P
// from registers: the accumulator layout of S is the A-fragment layout of P). With Overlap, the S GEMM of
// tile j + 1 and the P V GEMM of tile j are in flight together while the softmax of tile j + 1 runs (the
// intra-warpgroup pipelining of FlashAttention-3); with PingPong (2 consumers, either schedule), the two
// consumer warpgroups take turns issuing their GEMMs (FlashAttention-3's inter-warpgroup ping-pong). O is
// normalised at the end, converted and written into the warpgroup's own 64 rows of the Q buffer (free by
// then), in the same 128-byte-swizzled layout, and stored from there by bulk tensor copies (one per 64-column
// block): whole 128-byte rows, so every O sector is written by one request; the O tensor map's bounds clip
// rows >= Nq. LSE (natural log) is stored from registers.
//
// Windows and the timeline build: the launch may cover a window of q tiles (q_tile_begin, the grid's x
// extent) and of kv tiles [kv_tile_begin, kv_tile_end); the Instrumented build writes one TileTiming record
// per kv step (the model's records: docs/dataflow.md), from the first consumer thread, straight to global
// memory (no register is held across the kv loop for it).
//
// Shared memory (one SharedStorage, its size the dynamic shared memory): every tile is d / 64 column blocks
// of [rows x 64 elements] (128-byte rows, 128-byte swizzle: 16-byte chunk c of row r at c ^ (r % 8)), which
// is both what the copy engine writes with CU_TENSOR_MAP_SWIZZLE_128B and the canonical 128-byte-swizzled
// layout wgmma reads: K-major for Q and K (rows are M / N, the 64 columns are K), MN-major for V (rows are K,
// the columns N: imm-trans-b = 1). Grid, CTA size, shared memory and the causal cut come from
// attnscope/vocab/geometry.hpp (hopper_*); docs/hopper-kernel.md is the description and the measurements.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "attnscope/vocab/geometry.hpp"
#include "device_common.cuh"
#include "hopper_registry.hpp"
#include "wgmma_ops.cuh"

namespace attnscope::kernels::detail {

namespace hopper {

// ---- mbarrier ------------------------------------------------------------------------------------------
__device__ __forceinline__ void mbar_init(std::uint32_t bar, std::uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// Arrives once and adds `bytes` to the transaction count the current phase waits for.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint32_t bar, std::uint32_t bytes) {
  asm volatile(
      "{\n.reg .b64 state;\nmbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n}\n" ::"r"(bar),
      "r"(bytes)
      : "memory");
}
__device__ __forceinline__ void mbar_arrive(std::uint32_t bar) {
  asm volatile("{\n.reg .b64 state;\nmbarrier.arrive.shared::cta.b64 state, [%0];\n}\n" ::"r"(bar)
               : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done;
  asm volatile(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(bar), "r"(parity)
      : "memory");
  return done != 0;
}
// The deadlock trap, out of line: a trap inlined into the consumer warpgroups' code makes ptxas allocate that
// code within the kernel's entry register count (168 at 2 consumers) instead of the setmaxnreg budget (240);
// the overlapped schedule at d 128, Bc 128 then spilled 212 bytes. As a call it costs nothing until it runs.
static __device__ __noinline__ void deadlock_trap() {
  __trap();
}
// Waits for the phase of parity `parity` to complete. A wait that lasts 10 s traps: a deadlock (a copy that
// never lands, a barrier count off by one) then fails the launch with an error instead of hanging the GPU.
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, std::uint32_t parity) {
  if (mbar_try_wait(bar, parity)) return;
  const std::uint64_t start = device::global_timer_ns();
  while (!mbar_try_wait(bar, parity)) {
    if (device::global_timer_ns() - start > 10'000'000'000ull) deadlock_trap();
  }
}

// ---- bulk tensor copy ----------------------------------------------------------------------------------
// Box at (c0 = column, c1 = row, c2 = batch * heads) of the 3-d tensor map into shared memory at `dst`,
// completing on `bar` (complete_tx: the box's bytes, out-of-bounds parts zero-filled and counted too).
__device__ __forceinline__ void tma_load_3d(std::uint32_t dst, const CUtensorMap* map, int c0, int c1, int c2,
                                            std::uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(dst),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(bar)
      : "memory");
}

// Shared memory at `src` into the box at (c0, c1, c2) of the 3-d tensor map; the parts of the box outside the
// tensor's bounds are not written. Completes in the issuing thread's bulk async-group.
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, std::uint32_t src, int c0, int c1,
                                             int c2) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(src), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
}
__device__ __forceinline__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
// Waits until every bulk copy this thread committed has completed (its writes to global memory done).
__device__ __forceinline__ void bulk_wait_group_0() {
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}
// Waits until every bulk copy this thread committed has finished reading its source (shared memory that
// may then be overwritten; the writes to global memory may still be in flight).
__device__ __forceinline__ void bulk_wait_group_read_0() {
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
// Orders this thread's generic-proxy writes to shared memory before later async-proxy (bulk copy) reads.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// ---- wgmma ---------------------------------------------------------------------------------------------
// Shared-memory matrix descriptor of a 128-byte-swizzled operand: start address, leading and stride byte
// offsets (each >> 4), swizzle mode 1 (128 B) in bits 62-63; base offset 0 (every atom of 8 rows x 128 B
// starts 1024-byte aligned; a K step inside the atom moves the start by 32 bytes, the hardware applies the
// XOR on the address bits).
__device__ __forceinline__ std::uint64_t smem_desc(std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo) {
  return static_cast<std::uint64_t>((addr & 0x3FFFFu) >> 4) | (static_cast<std::uint64_t>(lbo >> 4) << 16) |
         (static_cast<std::uint64_t>(sbo >> 4) << 32) | (std::uint64_t{1} << 62);
}
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// A shared-memory store of `value` where `store` holds, placed right before a wgmma wait. ptxas (CUDA 13.0)
// treats wgmma.wait_group as an instruction with no inputs and schedules it as early as its basic block
// allows: in the overlapped schedule it put the wait for P_j V_j ahead of every exponential of the softmax
// that was meant to run beside it (SASS: WARPGROUP.DEPBAR before the first MUFU.EX2). A memory operation
// stays ahead of the wait, and with it everything its value depends on, so storing a value computed from
// every exponential (the row sums) keeps the softmax ahead of the wait. The store is predicated (one lane per
// warp, one word per warp: no two threads write one word); a predicated store orders the stream all the same.
__device__ __forceinline__ void store_before_wait(std::uint32_t addr, float value, bool store) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %2, 0;\n@p st.shared.f32 [%0], %1;\n}\n" ::"r"(addr),
               "f"(value), "r"(static_cast<std::uint32_t>(store))
               : "memory");
}
// Pins the accumulators at this point of the program: the compiler may not move their reads or writes
// across it (placed after a wait, before the first use of results of an asynchronous MMA).
template <int N>
__device__ __forceinline__ void fence_operands(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void fence_operands(std::uint32_t (&r)[N][4]) {
#pragma unroll
  for (int i = 0; i < N; ++i) {
#pragma unroll
    for (int e = 0; e < 4; ++e) asm volatile("" : "+r"(r[i][e])::"memory");
  }
}

// Named barriers (0 is __syncthreads): 1 and 2 the ping-pong turns, 3 + consumer a consumer warpgroup's O
// tile in shared memory, 3 + Consumers every consumer thread (the timeline's last record; after the O
// barriers, since one id used with two thread counts is an illegal instruction: id 5 was consumer 2's O
// barrier at 3 consumers). `threads` threads take part, some waiting (sync), the others only signalling
// (arrive).
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

template <int Regs>
__device__ __forceinline__ void set_max_registers_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Regs));
}
template <int Regs>
__device__ __forceinline__ void set_max_registers_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Regs));
}

// Instrumented build: the timeline record of kv tile `kv_tile` of tile (q_tile, bh) (index: the tile in
// launch order, the non-persistent grid's CTA index, then kv tile within the window), and its parts written
// as they become known: the start when the step starts, the rest when it ends; stores only, nothing is read
// back.
__device__ __forceinline__ TileTiming* record_of(const HopperParams& p, int q_tile, int bh, int kv_tile) {
  const std::size_t tile = static_cast<std::size_t>(bh) * p.q_tiles +
                           static_cast<std::size_t>(p.q_tile_begin + p.q_tiles - 1 - q_tile);
  return p.timeline + tile * static_cast<std::size_t>(p.kv_tile_end - p.kv_tile_begin) +
         static_cast<std::size_t>(kv_tile - p.kv_tile_begin);
}
__device__ __forceinline__ void record_start(const HopperParams& p, int q_tile, int bh, int kv_tile,
                                             std::uint64_t now) {
  record_of(p, q_tile, bh, kv_tile)->start_ns = now;
}
__device__ __forceinline__ void record_end(const HopperParams& p, int q_tile, int bh, int kv_tile,
                                           std::uint64_t now) {
  TileTiming* r = record_of(p, q_tile, bh, kv_tile);
  r->batch = static_cast<std::uint32_t>(bh / p.heads);
  r->head = static_cast<std::uint32_t>(bh % p.heads);
  r->q_tile = static_cast<std::uint32_t>(q_tile);
  r->kv_tile = static_cast<std::uint32_t>(kv_tile);
  r->sm = device::sm_id();
  r->end_ns = now;
}

}  // namespace hopper

template <typename T, int D, int Br, int Bc, int Consumers, int Stages, bool Overlap, bool PingPong,
          bool Persistent>
struct HopperShape {
  static constexpr vocab::HopperConfig kConfig{Br, Bc, Consumers, Stages, Overlap, PingPong, Persistent};
  static constexpr DType kDType = device::ElementTraits<T>::kDType;
  static_assert(
      vocab::hopper_config_valid(kConfig, D, kDType),
      "Br = 64 x consumers (1-3), Bc a multiple of 16 <= 256, stages >= 2, d 64 / 128, fp16 / bf16, "
      "shared memory <= 227 KiB");
  static_assert(Bc == 64 || Bc == 128, "wgmma wrappers are generated for N = 64 and 128 (gen_wgmma_ops.py)");
  static constexpr int kThreads = vocab::hopper_threads_per_cta(kConfig);
  static constexpr int kColBlocks = D / 64;  // 128-byte column blocks of a row
  static constexpr int kRowBytes = 128;      // one column block row
  static constexpr std::uint32_t kQBytes = static_cast<std::uint32_t>(Br * D * sizeof(T));
  static constexpr std::uint32_t kKvBytes = static_cast<std::uint32_t>(Bc * D * sizeof(T));
  static constexpr int kQBuffers = vocab::hopper_q_buffers(kConfig);

  struct SharedStorage {
    alignas(1024) T q[kQBuffers][Br * D];  // [col block][Br rows][64], swizzled; then the tile's O
    alignas(1024) T k[Stages][Bc * D];
    alignas(1024) T v[Stages][Bc * D];
    // q_full[b]: the Q copy into buffer b landed; persistent: then o_full[b] (at index kQBuffers + b), every
    // consumer warpgroup's O is in buffer b, for the producer to store.
    std::uint64_t q_bar[Persistent ? 2 * kQBuffers : kQBuffers];
    std::uint64_t k_full[Stages];  // K of the slot landed
    std::uint64_t v_full[Stages];  // V of the slot landed
    // Every consumer warp is done with the slot (persistent: with the slot's K; then v_empty, with its V).
    std::uint64_t empty[Persistent ? 2 * Stages : Stages];
    // One word per consumer warp, written each overlapped kv step and never read: the store that keeps the
    // softmax ahead of the wait for P V (hopper::store_before_wait).
    float softmax_done[Consumers * 4];
  };
  static constexpr std::size_t kSmemBytes = sizeof(SharedStorage);
  static_assert(
      kSmemBytes == static_cast<std::size_t>(vocab::hopper_smem_bytes(kConfig, D, kDType)),
      "SharedStorage must be exactly vocab::hopper_smem_bytes: the launch and the model rely on it");
};

// The consumer warpgroups' part of the kernel, in its own function so that the kernel's two roles are the two
// branches of one if / else, the form in which setmaxnreg applies: ptxas then allocates this branch within
// the budget it gets at run time (240 registers at 2 consumers) rather than the launch bound's 168, as long
// as nothing in it traps inline (see deadlock_trap).
//
// One call runs one tile (q tile, bh): its kv steps are steps it0 .. it0 + n_steps - 1 of the CTA's K/V ring
// (slot = step % Stages), its Q in buffer qb (phase q_parity). The non-persistent kernel calls it once with
// it0 = 0, qb = 0; the persistent kernel once per tile, `first_turns` set on the first tile with kv steps.
template <typename T, int D, int Br, int Bc, int Consumers, int Stages, bool Overlap, bool PingPong,
          bool Persistent, bool Instrumented>
__device__ __forceinline__ void hopper_consumer(
    const HopperParams& p,
    typename HopperShape<T, D, Br, Bc, Consumers, Stages, Overlap, PingPong, Persistent>::SharedStorage& smem,
    const int q_tile, const int bh, const int n_steps, const int it0, const int qb,
    const std::uint32_t q_parity, const bool first_turns) {
  using Shape = HopperShape<T, D, Br, Bc, Consumers, Stages, Overlap, PingPong, Persistent>;
  using Traits = device::ElementTraits<T>;
  constexpr int kColBlocks = Shape::kColBlocks;
  constexpr int kRowBytes = Shape::kRowBytes;
  const int tid = static_cast<int>(threadIdx.x);
  const int warpgroup = tid / vocab::kWarpgroupThreads;
  const int kv_begin = p.kv_tile_begin;
  const std::uint32_t q_full = device::smem_addr(&smem.q_bar[qb]);
  const std::uint32_t k_full0 = device::smem_addr(&smem.k_full[0]);
  const std::uint32_t v_full0 = device::smem_addr(&smem.v_full[0]);
  const std::uint32_t empty0 = device::smem_addr(&smem.empty[0]);
  // Persistent: the V half of the empty barriers (K and V slots are released apart).
  const std::uint32_t v_empty0 = empty0 + 8 * Stages;
  const std::uint32_t softmax_done = device::smem_addr(&smem.softmax_done[tid / 32 - 4]);
  // The timeline's recording thread: the first thread of the first consumer warpgroup.
  const bool recorder = Instrumented && tid == vocab::kWarpgroupThreads;
  if (Instrumented && recorder && (n_steps > 0 || p.kv_tile_end > kv_begin))
    hopper::record_start(p, q_tile, bh, kv_begin, device::global_timer_ns());
  constexpr int kSRegs = Bc / 2;    // S accumulators per thread: Bc / 8 n-tiles x 4
  constexpr int kSTiles = Bc / 8;   // n8 tiles of S
  constexpr int kPSteps = Bc / 16;  // k16 steps of P V
  constexpr int kQSteps = D / 16;   // k16 steps of Q K^T
  constexpr int kORegs = 32;        // accumulators of one 64-column block of O (m64n64)
  const int consumer = warpgroup - 1;
  const int warp_in_group = (tid / 32) % 4;
  const int lane = tid % 32;
  const int g = lane / 4;  // accumulator row within the warp's 8-row half
  const int t = lane % 4;  // accumulator column pair
  const int group_row0 = q_tile * Br + consumer * vocab::kWgmmaRows;  // first query row of this warpgroup
  const int row0 = group_row0 + warp_in_group * 16 + g;               // this thread's rows: row0, row0 + 8
  const int causal_shift = p.seq_kv - p.seq_q;                        // row i sees keys j <= i + causal_shift

  // O accumulators, one m64n64 block per 64 columns of d: the P V GEMM runs as D / 64 wgmmas of N = 64, each
  // reading one 128-byte column block of V (so one swizzle atom along N per instruction).
  float o_acc[kColBlocks][kORegs];
#pragma unroll
  for (int cb = 0; cb < kColBlocks; ++cb) {
#pragma unroll
    for (int i = 0; i < kORegs; ++i) o_acc[cb][i] = 0.0f;
  }
  float row_max[2] = {-INFINITY, -INFINITY};  // raw (unscaled) running max of rows row0, row0 + 8
  float row_sum[2] = {0.0f, 0.0f};            // this thread's part of the running sums
  const float score_log2 = p.scale_log2;

  const std::uint32_t q_base = device::smem_addr(smem.q[qb]) + consumer * vocab::kWgmmaRows * kRowBytes;
  const auto issue_qk = [&](float(&s_acc)[kSRegs], int slot) {
    const std::uint32_t k_base = device::smem_addr(smem.k[slot]);
#pragma unroll
    for (int kk = 0; kk < kQSteps; ++kk) {
      const int cb = kk / 4;            // column block of the k step
      const int k_off = (kk % 4) * 32;  // 16 elements into the 128-byte row
      const std::uint64_t da = hopper::smem_desc(q_base + cb * Br * kRowBytes + k_off, 16, 1024);
      const std::uint64_t db = hopper::smem_desc(k_base + cb * Bc * kRowBytes + k_off, 16, 1024);
      device::Wgmma<T, Bc>::ss(s_acc, da, db, kk > 0 ? 1 : 0);
    }
  };
  const auto issue_pv = [&](const std::uint32_t(&p_frag)[kPSteps][4], int slot) {
    const std::uint32_t v_base = device::smem_addr(smem.v[slot]);
#pragma unroll
    for (int kk = 0; kk < kPSteps; ++kk) {
#pragma unroll
      for (int cb = 0; cb < kColBlocks; ++cb) {
        // MN-major: 8 keys at a 128-byte pitch per core matrix, the next 8 keys 1024 bytes further; the N
        // extent (64) is one atom, so the other offset is never stepped (both set to 1024).
        const std::uint64_t db =
            hopper::smem_desc(v_base + cb * Bc * kRowBytes + kk * 16 * kRowBytes, 1024, 1024);
        device::Wgmma<T, 64>::rs_trans_b(o_acc[cb], p_frag[kk], db, 1);
      }
    }
  };
  // Masks keys >= Nkv and (causal) keys past each row's diagonal, in tiles that can hold such keys.
  const auto mask = [&](float(&s_acc)[kSRegs], int kv_tile) {
    const int key0 = kv_tile * Bc;
    if (key0 + Bc > p.seq_kv || (p.causal && key0 + Bc - 1 > group_row0 + causal_shift)) {
#pragma unroll
      for (int i = 0; i < kSTiles; ++i) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int key = key0 + i * 8 + 2 * t + (e & 1);
          const int row = row0 + 8 * (e >> 1);
          if (key >= p.seq_kv || (p.causal && key > row + causal_shift)) s_acc[4 * i + e] = -INFINITY;
        }
      }
    }
  };
  // Online softmax of one S tile, in place: s_acc becomes the unnormalised probabilities 2^(s * scale_log2 -
  // m * scale_log2) (fp32); the running max and sum are updated and alpha (the factor O must be scaled by
  // before the tile's P V is added) returned per row half.
  const auto softmax = [&](float(&s_acc)[kSRegs], float(&alpha)[2]) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float m = row_max[r];
#pragma unroll
      for (int i = 0; i < kSTiles; ++i) m = fmaxf(m, fmaxf(s_acc[4 * i + 2 * r], s_acc[4 * i + 2 * r + 1]));
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
      m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
      // A row with no visible key so far keeps m = -inf; subtract 0 then so that -inf - -inf never happens.
      const float m_scaled = m == -INFINITY ? 0.0f : m * score_log2;
      alpha[r] = device::fast_exp2(row_max[r] * score_log2 - m_scaled);
      row_max[r] = m;
      float sum = 0.0f;
#pragma unroll
      for (int i = 0; i < kSTiles; ++i) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float x = device::fast_exp2(fmaf(s_acc[4 * i + 2 * r + e], score_log2, -m_scaled));
          s_acc[4 * i + 2 * r + e] = x;
          sum += x;
        }
      }
      row_sum[r] = row_sum[r] * alpha[r] + sum;
    }
  };
  // P in the input dtype as the A fragments of P V: k step kk covers n-tiles 2kk (a0 row g, a1 row g + 8)
  // and 2kk + 1 (a2, a3).
  const auto pack_p = [&](const float(&s_acc)[kSRegs], std::uint32_t(&p_frag)[kPSteps][4]) {
#pragma unroll
    for (int kk = 0; kk < kPSteps; ++kk) {
      p_frag[kk][0] = Traits::pack(s_acc[8 * kk + 0], s_acc[8 * kk + 1]);
      p_frag[kk][1] = Traits::pack(s_acc[8 * kk + 2], s_acc[8 * kk + 3]);
      p_frag[kk][2] = Traits::pack(s_acc[8 * kk + 4], s_acc[8 * kk + 5]);
      p_frag[kk][3] = Traits::pack(s_acc[8 * kk + 6], s_acc[8 * kk + 7]);
    }
  };
  const auto rescale_o = [&](const float(&alpha)[2]) {
#pragma unroll
    for (int cb = 0; cb < kColBlocks; ++cb) {
#pragma unroll
      for (int i = 0; i < kORegs; ++i) o_acc[cb][i] *= alpha[(i >> 1) & 1];
    }
  };
  // One arrival per consumer warp: the warp's wait on its warpgroup's MMAs returned, so they are complete.
  // Instrumented: kv step `step` ends here (the last one ends once O is stored) and the next one starts.
  // Persistent: the slot's V only (its K was released by release_k once the S GEMM that read it was done).
  const auto release = [&](int slot, int step) {
    __syncwarp();
    if (lane == 0) hopper::mbar_arrive((Persistent ? v_empty0 : empty0) + 8 * slot);
    if constexpr (Instrumented) {
      if (recorder && step + 1 < n_steps) {
        const std::uint64_t now = device::global_timer_ns();
        hopper::record_end(p, q_tile, bh, kv_begin + step, now);
        hopper::record_start(p, q_tile, bh, kv_begin + step + 1, now);
      }
    }
  };

  // Persistent: the slot's K, as soon as the S GEMM that read it is complete.
  const auto release_k = [&](int slot) {
    if constexpr (Persistent) {
      __syncwarp();
      if (lane == 0) hopper::mbar_arrive(empty0 + 8 * slot);
    }
  };

  // Ping-pong (2 consumers): each warpgroup issues its GEMMs only on its turn (named barrier 1 + consumer,
  // which the other warpgroup arrives at once it has issued its own), so the tensor cores run one warpgroup's
  // GEMMs while the other runs its softmax. Turns per warpgroup: overlapped, n_steps + 1 (S_0, then S_{j+1}
  // with P_j V_j, then the last P V); serial, 2 n_steps (S_j, then P_j V_j). Warpgroup 0 goes first:
  // warpgroup 1 signals it once at the start and not after its last turn, so every arrival has its wait.
  // Persistent: the turns run on across the CTA's tiles; warpgroup 1 signals once before its first tile with
  // kv steps and after every turn, warpgroup 0 takes one more turn at the end of the CTA (the kernel).
  constexpr bool kPingPong = PingPong && Consumers == 2;
  constexpr int kPairThreads = 2 * vocab::kWarpgroupThreads;
  const auto my_turn = [&]() {
    if constexpr (kPingPong) hopper::named_barrier_sync(1 + consumer, kPairThreads);
  };
  const auto their_turn = [&](bool last) {
    if constexpr (kPingPong) {
      if (Persistent || !(last && consumer == 1)) hopper::named_barrier_arrive(2 - consumer, kPairThreads);
    }
  };
  if constexpr (kPingPong) {
    if (n_steps > 0 && (!Persistent || first_turns) && consumer == 1)
      hopper::named_barrier_arrive(1, kPairThreads);
  }

  // Persistent: Q buffer qb is this tile's (the producer stored the O it last held) even with no kv step.
  if constexpr (Persistent) {
    if (n_steps == 0) hopper::mbar_wait(q_full, q_parity);
  }
  if (n_steps > 0) {
    hopper::mbar_wait(q_full, q_parity);
    float s_acc[kSRegs];
    std::uint32_t p_frag[kPSteps][4];
    float alpha[2];
    if constexpr (Overlap) {
      // Prologue: S_0, its softmax and P_0.
      hopper::mbar_wait(k_full0 + 8 * (it0 % Stages), (it0 / Stages) & 1);
      my_turn();
      hopper::wgmma_fence();
      issue_qk(s_acc, it0 % Stages);
      hopper::wgmma_commit();
      their_turn(false);
      hopper::wgmma_wait<0>();
      hopper::fence_operands(s_acc);
      release_k(it0 % Stages);
      mask(s_acc, kv_begin);
      softmax(s_acc, alpha);  // alpha = 0 here: O is still 0
      pack_p(s_acc, p_frag);
      // Steady state: every step but the last has a next tile (no branch between the wgmmas, which would
      // make ptxas serialise them).
      int step = 0;
      for (; step + 1 < n_steps; ++step) {
        const int slot = (it0 + step) % Stages;
        const int next_slot = (it0 + step + 1) % Stages;
        // S_{j+1} = Q K_{j+1}^T and O += P_j V_j in flight together; the softmax of tile j + 1 runs while
        // the tensor cores finish P_j V_j.
        hopper::mbar_wait(k_full0 + 8 * next_slot, ((it0 + step + 1) / Stages) & 1);
        hopper::mbar_wait(v_full0 + 8 * slot, ((it0 + step) / Stages) & 1);
        my_turn();
        hopper::wgmma_fence();
        issue_qk(s_acc, next_slot);
        hopper::wgmma_commit();
        issue_pv(p_frag, slot);
        hopper::wgmma_commit();
        their_turn(false);
        hopper::wgmma_wait<1>();  // S_{j+1} done (groups complete in order); P_j V_j may still run
        hopper::fence_operands(s_acc);
        release_k(next_slot);
        mask(s_acc, kv_begin + step + 1);
        softmax(s_acc, alpha);
        hopper::store_before_wait(softmax_done, row_sum[0] + row_sum[1], lane == 0);
        hopper::wgmma_wait<0>();  // P_j V_j done: O and the P_j registers are free again
        hopper::fence_operands(p_frag);
#pragma unroll
        for (int cb = 0; cb < kColBlocks; ++cb) hopper::fence_operands(o_acc[cb]);
        release(slot, step);  // K_j and V_j read (K_{j+1} lives in the next slot)
        rescale_o(alpha);
        pack_p(s_acc, p_frag);
      }
      // Last tile: its P V alone.
      {
        const int slot = (it0 + step) % Stages;
        hopper::mbar_wait(v_full0 + 8 * slot, ((it0 + step) / Stages) & 1);
        my_turn();
        hopper::wgmma_fence();
        issue_pv(p_frag, slot);
        hopper::wgmma_commit();
        their_turn(true);
        hopper::wgmma_wait<0>();
        hopper::fence_operands(p_frag);
#pragma unroll
        for (int cb = 0; cb < kColBlocks; ++cb) hopper::fence_operands(o_acc[cb]);
        release(slot, step);
      }
    } else {
      for (int step = 0; step < n_steps; ++step) {
        const int slot = (it0 + step) % Stages;
        const std::uint32_t parity = ((it0 + step) / Stages) & 1;
        hopper::mbar_wait(k_full0 + 8 * slot, parity);
        my_turn();
        hopper::wgmma_fence();
        issue_qk(s_acc, slot);
        hopper::wgmma_commit();
        their_turn(false);
        hopper::wgmma_wait<0>();
        hopper::fence_operands(s_acc);
        release_k(slot);
        mask(s_acc, kv_begin + step);
        softmax(s_acc, alpha);
        rescale_o(alpha);
        pack_p(s_acc, p_frag);
        hopper::mbar_wait(v_full0 + 8 * slot, parity);
        my_turn();
        hopper::wgmma_fence();
        issue_pv(p_frag, slot);
        hopper::wgmma_commit();
        their_turn(step + 1 == n_steps);
        hopper::wgmma_wait<0>();
#pragma unroll
        for (int cb = 0; cb < kColBlocks; ++cb) hopper::fence_operands(o_acc[cb]);
        release(slot, step);
      }
    }
  }

  // Epilogue: normalise; LSE by the first thread of each row quad (rows >= Nq skipped). A row with no visible
  // key has sum 0: O = 0, LSE = -inf.
  float inv_sum[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float l = row_sum[r];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    inv_sum[r] = l > 0.0f ? 1.0f / l : 0.0f;
    const int row = row0 + 8 * r;
    if (t == 0 && row < p.seq_q) {
      p.lse[static_cast<std::size_t>(bh) * p.seq_q + row] =
          l > 0.0f ? row_max[r] * p.scale + logf(l) : -INFINITY;
    }
  }
  // O into the warpgroup's own 64 rows of the Q buffer: this warpgroup's MMAs, the only readers of those
  // rows, have completed (and with no kv step, Q was never copied in). Same layout as the copies use: column
  // block cb, row r at 128 bytes, 16-byte chunk c at c ^ (r % 8). A thread holds columns 8i + 2t, 8i + 2t + 1
  // of rows g and g + 8 of its warp's 16; r % 8 = g, so the 8 rows of one store instruction hit 8 different
  // chunks and the 32 lanes 32 different banks.
  const std::uint32_t o_tile = device::smem_addr(smem.q[qb]) + consumer * vocab::kWgmmaRows * kRowBytes;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const std::uint32_t row_addr =
        o_tile + static_cast<std::uint32_t>((warp_in_group * 16 + g + 8 * r) * kRowBytes + 4 * t);
#pragma unroll
    for (int cb = 0; cb < kColBlocks; ++cb) {
#pragma unroll
      for (int i = 0; i < kORegs / 4; ++i) {
        const std::uint32_t packed =
            Traits::pack(o_acc[cb][4 * i + 2 * r] * inv_sum[r], o_acc[cb][4 * i + 2 * r + 1] * inv_sum[r]);
        const std::uint32_t addr =
            row_addr + static_cast<std::uint32_t>(cb * Br * kRowBytes + ((i ^ g) << 4));
        asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(packed) : "memory");
      }
    }
  }
  // Visible to the copy engine, then one thread of the warpgroup stores the 64-row tile, one bulk copy per
  // column block; the tensor map stops at row Nq - 1 of the head, so rows >= Nq are never written.
  hopper::fence_proxy_async_shared();
  hopper::named_barrier_sync(3 + consumer, vocab::kWarpgroupThreads);
  if constexpr (Persistent) {
    // The producer stores it (hopper_store_o) and reuses the buffer once the copies have read it.
    if (warp_in_group == 0 && lane == 0) hopper::mbar_arrive(device::smem_addr(&smem.q_bar[2 + qb]));
  } else if (warp_in_group == 0 && lane == 0 && group_row0 < p.seq_q) {
#pragma unroll
    for (int cb = 0; cb < kColBlocks; ++cb)
      hopper::tma_store_3d(&p.o_map, o_tile + cb * Br * kRowBytes, cb * 64, group_row0, bh);
    hopper::bulk_commit_group();
    hopper::bulk_wait_group_0();  // the stores have completed (and the shared source is no longer read)
  }
  if constexpr (Instrumented) {
    // The last record (or the one record of a tile with no visible kv tile in the window) ends when every
    // consumer warpgroup has stored O (persistent: has written O into the Q buffer, for the producer to
    // store).
    if (n_steps > 0 || p.kv_tile_end > kv_begin) {
      hopper::named_barrier_sync(3 + Consumers, Consumers * vocab::kWarpgroupThreads);
      if (recorder)
        hopper::record_end(p, q_tile, bh, kv_begin + max(n_steps - 1, 0), device::global_timer_ns());
    }
  }
}

// Tile `t` of the launch order (q tile fastest, last q tile first, then head, then batch: the order of the
// non-persistent grid's CTAs): its q tile and its (batch * heads + head).
__device__ __forceinline__ void hopper_tile_coords(const HopperParams& p, int t, int& q_tile, int& bh) {
  q_tile = p.q_tile_begin + p.q_tiles - 1 - t % p.q_tiles;
  bh = t / p.q_tiles;
}

// kv steps of a tile: the window [kv_tile_begin, kv_tile_end), cut at the diagonal when causal.
template <int Br, int Bc>
__device__ __forceinline__ int hopper_kv_steps(const HopperParams& p, int q_tile) {
  return max(0, min(p.kv_tile_end, vocab::visible_kv_tiles<int>(
                                       Br, Bc, p.seq_q, p.seq_kv,
                                       p.causal ? vocab::Mask::causal : vocab::Mask::none, q_tile)) -
                    p.kv_tile_begin);
}

// The persistent producer's store of one tile's O (in Q buffer `buffer`, written there by the consumers):
// one bulk tensor copy per consumer warpgroup and column block, rows >= Nq never (the map's bounds).
template <int Br, int Consumers, int ColBlocks>
__device__ __forceinline__ void hopper_store_o(const HopperParams& p, std::uint32_t buffer, int q_tile,
                                               int bh) {
#pragma unroll
  for (int c = 0; c < Consumers; ++c) {
    const int row0 = q_tile * Br + c * vocab::kWgmmaRows;
    if (row0 < p.seq_q) {
#pragma unroll
      for (int cb = 0; cb < ColBlocks; ++cb)
        hopper::tma_store_3d(&p.o_map, buffer + (cb * Br + c * vocab::kWgmmaRows) * 128, cb * 64, row0, bh);
    }
  }
  hopper::bulk_commit_group();
}

template <typename T, int D, int Br, int Bc, int Consumers, int Stages, bool Overlap, bool PingPong,
          bool Persistent, bool Instrumented>
__global__ void __launch_bounds__(
    HopperShape<T, D, Br, Bc, Consumers, Stages, Overlap, PingPong, Persistent>::kThreads, 1)
    hopper_attention_kernel(const __grid_constant__ HopperParams p) {
  using Shape = HopperShape<T, D, Br, Bc, Consumers, Stages, Overlap, PingPong, Persistent>;
  using SharedStorage = typename Shape::SharedStorage;
  constexpr int kColBlocks = Shape::kColBlocks;
  constexpr int kRowBytes = Shape::kRowBytes;
  constexpr int kQBuffers = Shape::kQBuffers;

  extern __shared__ __align__(1024) unsigned char smem_raw[];
  SharedStorage& smem = *reinterpret_cast<SharedStorage*>(smem_raw);

  const int tid = static_cast<int>(threadIdx.x);
  const int warpgroup = tid / vocab::kWarpgroupThreads;

  const std::uint32_t q_bar0 = device::smem_addr(&smem.q_bar[0]);
  const std::uint32_t k_full0 = device::smem_addr(&smem.k_full[0]);
  const std::uint32_t v_full0 = device::smem_addr(&smem.v_full[0]);
  const std::uint32_t empty0 = device::smem_addr(&smem.empty[0]);
  if (tid == 0) {
    // The swizzle atoms must start 1024-byte aligned (the descriptors' base offset is 0).
    if ((device::smem_addr(smem_raw) & 1023u) != 0) __trap();
    for (int b = 0; b < kQBuffers; ++b) {
      hopper::mbar_init(q_bar0 + 8 * b, 1);                                        // Q full: the producer
      if (Persistent) hopper::mbar_init(q_bar0 + 8 * (kQBuffers + b), Consumers);  // O full: a thread each
    }
#pragma unroll
    for (int s = 0; s < Stages; ++s) {
      hopper::mbar_init(k_full0 + 8 * s, 1);
      hopper::mbar_init(v_full0 + 8 * s, 1);
      hopper::mbar_init(empty0 + 8 * s, 4 * Consumers);  // one arrival per consumer warp
      if (Persistent) hopper::mbar_init(empty0 + 8 * (Stages + s), 4 * Consumers);
    }
    // Make the initialised barriers visible to the copy engine (the async proxy) before any copy uses them.
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  // The producer's copies of one tile: Q into buffer qb (completing on q_full[qb]; with no kv step only an
  // arrival, so that the consumers may write O there), then K and V of its kv steps, ring steps it .. .
  const auto produce_tile = [&](int q_tile, int bh, int n_steps, int& it, int qb) {
    const std::uint32_t q_full = q_bar0 + 8 * qb;
    if (n_steps == 0) {
      if (Persistent) hopper::mbar_arrive(q_full);
      return;
    }
    const std::uint32_t q_dst = device::smem_addr(smem.q[qb]);
    hopper::mbar_arrive_expect_tx(q_full, Shape::kQBytes);
#pragma unroll
    for (int cb = 0; cb < kColBlocks; ++cb)
      hopper::tma_load_3d(q_dst + cb * Br * kRowBytes, &p.q_map, cb * 64, q_tile * Br, bh, q_full);
    for (int step = 0; step < n_steps; ++step, ++it) {
      const int s = it % Stages;
      const std::uint32_t k_dst = device::smem_addr(smem.k[s]);
      const std::uint32_t v_dst = device::smem_addr(smem.v[s]);
      // Slot s was last used by ring step it - Stages: wait for that use (phase it / Stages - 1) to end (the
      // persistent kernel: its K, then its V, released apart).
      const std::uint32_t parity = ((it / Stages) + 1) & 1;
      if (it >= Stages) hopper::mbar_wait(empty0 + 8 * s, parity);
      hopper::mbar_arrive_expect_tx(k_full0 + 8 * s, Shape::kKvBytes);
#pragma unroll
      for (int cb = 0; cb < kColBlocks; ++cb)
        hopper::tma_load_3d(k_dst + cb * Bc * kRowBytes, &p.k_map, cb * 64, (p.kv_tile_begin + step) * Bc, bh,
                            k_full0 + 8 * s);
      if (Persistent && it >= Stages) hopper::mbar_wait(empty0 + 8 * (Stages + s), parity);
      hopper::mbar_arrive_expect_tx(v_full0 + 8 * s, Shape::kKvBytes);
#pragma unroll
      for (int cb = 0; cb < kColBlocks; ++cb)
        hopper::tma_load_3d(v_dst + cb * Bc * kRowBytes, &p.v_map, cb * 64, (p.kv_tile_begin + step) * Bc, bh,
                            v_full0 + 8 * s);
    }
  };

  if (warpgroup == 0) {
    // Producer. From here on no CTA-wide barrier: the roles synchronise through the mbarriers only.
    hopper::set_max_registers_dec<vocab::hopper_producer_registers()>();
    if (tid != 0) return;
    if constexpr (!Persistent) {
      // Last q tile first: under the causal mask the last tiles have the most kv tiles, and the CTAs launched
      // first should be the longest so that the short ones fill the tail of the grid.
      const int q_tile = p.q_tile_begin + static_cast<int>(gridDim.x - 1 - blockIdx.x);
      const int bh = static_cast<int>(blockIdx.z * gridDim.y + blockIdx.y);
      int it = 0;
      produce_tile(q_tile, bh, hopper_kv_steps<Br, Bc>(p, q_tile), it, 0);
    } else {
      // Tile k of this CTA uses Q buffer k % 2: before its Q lands there, tile k - 2's O (left in the buffer
      // by the consumers) is stored and read out. The last two tiles' O are stored at the end.
      const int ctas = static_cast<int>(gridDim.x);
      const int tiles = p.q_tiles * p.bh;
      int it = 0, k = 0;
      // The tiles whose O the two buffers hold (scalars, not an array indexed at run time: that would be
      // local memory).
      int held_q0 = 0, held_bh0 = 0, held_q1 = 0, held_bh1 = 0;
      for (int round = 0; round * ctas < tiles; ++round) {
        const int t = static_cast<int>(vocab::hopper_persistent_tile(blockIdx.x, round, ctas));
        if (t >= tiles) continue;
        int q_tile = 0, bh = 0;
        hopper_tile_coords(p, t, q_tile, bh);
        const int qb = k & 1;
        if (k >= 2) {
          hopper::mbar_wait(q_bar0 + 8 * (2 + qb), ((k - 2) >> 1) & 1);
          hopper_store_o<Br, Consumers, kColBlocks>(p, device::smem_addr(smem.q[qb]), qb ? held_q1 : held_q0,
                                                    qb ? held_bh1 : held_bh0);
          hopper::bulk_wait_group_read_0();
        }
        produce_tile(q_tile, bh, hopper_kv_steps<Br, Bc>(p, q_tile), it, qb);
        if (qb) {
          held_q1 = q_tile;
          held_bh1 = bh;
        } else {
          held_q0 = q_tile;
          held_bh0 = bh;
        }
        ++k;
      }
      for (int j = k < 2 ? 0 : k - 2; j < k; ++j) {
        const int qb = j & 1;
        hopper::mbar_wait(q_bar0 + 8 * (2 + qb), (j >> 1) & 1);
        hopper_store_o<Br, Consumers, kColBlocks>(p, device::smem_addr(smem.q[qb]), qb ? held_q1 : held_q0,
                                                  qb ? held_bh1 : held_bh0);
      }
      hopper::bulk_wait_group_0();
    }
  } else {
    hopper::set_max_registers_inc<vocab::hopper_consumer_registers(Shape::kConfig)>();
    if constexpr (!Persistent) {
      const int q_tile = p.q_tile_begin + static_cast<int>(gridDim.x - 1 - blockIdx.x);
      const int bh = static_cast<int>(blockIdx.z * gridDim.y + blockIdx.y);
      hopper_consumer<T, D, Br, Bc, Consumers, Stages, Overlap, PingPong, Persistent, Instrumented>(
          p, smem, q_tile, bh, hopper_kv_steps<Br, Bc>(p, q_tile), 0, 0, 0, true);
    } else {
      const int ctas = static_cast<int>(gridDim.x);
      const int tiles = p.q_tiles * p.bh;
      int it = 0, k = 0;
      bool turns = false;  // a tile with kv steps has run: the ping-pong turns have begun
      for (int round = 0; round * ctas < tiles; ++round) {
        const int t = static_cast<int>(vocab::hopper_persistent_tile(blockIdx.x, round, ctas));
        if (t >= tiles) continue;
        int q_tile = 0, bh = 0;
        hopper_tile_coords(p, t, q_tile, bh);
        const int n_steps = hopper_kv_steps<Br, Bc>(p, q_tile);
        hopper_consumer<T, D, Br, Bc, Consumers, Stages, Overlap, PingPong, Persistent, Instrumented>(
            p, smem, q_tile, bh, n_steps, it, k & 1, (k >> 1) & 1, !turns);
        turns = turns || n_steps > 0;
        it += n_steps;
        ++k;
      }
      if constexpr (PingPong && Consumers == 2) {
        // Warpgroup 1 signalled after its last turn: warpgroup 0 takes that turn, so every arrival has a
        // wait.
        if (turns && warpgroup == 1) hopper::named_barrier_sync(1, 2 * vocab::kWarpgroupThreads);
      }
    }
  }
}

// The non-persistent kernel runs one CTA per tile (grid x, y, z: q tiles, heads, batch); the persistent one
// `grid_x` CTAs over every tile (grid_y = grid_z = 1).
template <typename T, int D, int Br, int Bc, int Consumers, int Stages, bool Overlap, bool PingPong,
          bool Persistent, bool Instrumented>
int launch_hopper_instance(const HopperParams& params, int grid_x, int grid_y, int grid_z, Stream stream) {
  using Shape = HopperShape<T, D, Br, Bc, Consumers, Stages, Overlap, PingPong, Persistent>;
  auto* kernel =
      &hopper_attention_kernel<T, D, Br, Bc, Consumers, Stages, Overlap, PingPong, Persistent, Instrumented>;
  const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(Shape::kSmemBytes));
  if (err != cudaSuccess) return static_cast<int>(err);
  const dim3 grid(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y),
                  static_cast<unsigned>(grid_z));
  kernel<<<grid, Shape::kThreads, Shape::kSmemBytes, static_cast<cudaStream_t>(stream)>>>(params);
  return static_cast<int>(cudaGetLastError());
}

template <typename T, int D, int Br, int Bc, int Consumers, int Stages, bool Overlap, bool PingPong,
          bool Persistent = false, bool Instrumented = false>
HopperEntry hopper_entry() {
  using Shape = HopperShape<T, D, Br, Bc, Consumers, Stages, Overlap, PingPong, Persistent>;
  return HopperEntry{
      Shape::kDType,
      D,
      Shape::kConfig,
      Shape::kSmemBytes,
      Shape::kThreads,
      Instrumented,
      &launch_hopper_instance<T, D, Br, Bc, Consumers, Stages, Overlap, PingPong, Persistent, Instrumented>};
}

}  // namespace attnscope::kernels::detail
