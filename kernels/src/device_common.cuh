// SPDX-License-Identifier: Apache-2.0
// Device building blocks shared by the kernels: element-type traits, cp.async, ldmatrix, mma.sync
// m16n8k16 (fp32 accumulate), the 16-byte-chunk XOR swizzle, and the %smid / %globaltimer readers of the
// instrumented builds. Small inline PTX wrappers so that the SASS is exactly what the dataflow says.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "attnscope/vocab/dtype.hpp"

namespace attnscope::kernels::device {

// ---- Element types -------------------------------------------------------------------------------------
template <typename T>
struct ElementTraits;

template <>
struct ElementTraits<__half> {
  static constexpr vocab::DType kDType = vocab::DType::fp16;
  // Two floats -> one 32-bit register holding two fp16 (low half = first).
  static __device__ __forceinline__ std::uint32_t pack(float lo, float hi) {
    const __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  }
  static __device__ __forceinline__ float2 unpack(std::uint32_t bits) {
    return __half22float2(*reinterpret_cast<const __half2*>(&bits));
  }
  static __device__ __forceinline__ float to_float(std::uint16_t bits) {
    return __half2float(__ushort_as_half(bits));
  }
  static __device__ __forceinline__ std::uint16_t from_float(float x) {
    return __half_as_ushort(__float2half_rn(x));
  }
  // D = A * B + C, A 16x16 row-major, B 16x8 col-major, fp32 accumulate.
  static __device__ __forceinline__ void mma(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                             std::uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

template <>
struct ElementTraits<__nv_bfloat16> {
  static constexpr vocab::DType kDType = vocab::DType::bf16;
  static __device__ __forceinline__ std::uint32_t pack(float lo, float hi) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&h);
  }
  static __device__ __forceinline__ float2 unpack(std::uint32_t bits) {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&bits));
  }
  static __device__ __forceinline__ float to_float(std::uint16_t bits) {
    return __bfloat162float(__ushort_as_bfloat16(bits));
  }
  static __device__ __forceinline__ std::uint16_t from_float(float x) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(x));
  }
  static __device__ __forceinline__ void mma(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                             std::uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

// ---- Shared-memory addressing ----------------------------------------------------------------------------
__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// Tiles whose rows are a multiple of 128 bytes (8 chunks of 16 B): physical chunk = chunk ^ (row % 8), so the
// 8 rows an ldmatrix phase reads (same logical chunk) hit 8 different bank groups.
__device__ __forceinline__ int swizzle128(int row, int chunk) {
  return chunk ^ (row & 7);
}
// Tiles of 64-byte rows (4 chunks): rows r and r+2 share banks; chunk ^ ((row / 2) % 4) spreads the 8 rows.
__device__ __forceinline__ int swizzle64(int row, int chunk) {
  return chunk ^ ((row >> 1) & 3);
}
// A lane's byte offset `at` in a swizzled tile, moved `bytes` (a multiple of 16; below 64 in a swizzle64
// tile) along its row. Both swizzles permute only chunk bits 0-2 (offset bits 4-6) of a row that starts at a
// multiple of 128 bytes (64 for swizzle64), so the move XORs bits 4-6 and adds the rest: logical chunk c
// goes to (c ^ (b % 8)) + 8 (b / 8), b = bytes / 16, which is c + b when c and b % 8 share no bit (lane
// chunks 0 / 1 moved by k16 steps of 2 chunks). With `bytes` known at compile time the add is a constant
// that ldmatrix / ld.shared / st.shared take as their immediate offset, and one XOR serves every move with
// the same bits 4-6 (at d = 128 the k16 steps kk and kk + 4 of a 256-byte row) and every row block: one
// LOP3 per distinct XOR instead of one per load. Tile bases (multiples of 128 bytes) may be added before or
// after.
__device__ __forceinline__ std::uint32_t swizzle_step(std::uint32_t at, std::uint32_t bytes) {
  return (at ^ (bytes & 0x70u)) + (bytes & ~0x70u);
}

// ---- cp.async ------------------------------------------------------------------------------------------
// 16-byte global -> shared copy; when `valid` is false nothing is read from global memory and the 16 bytes
// are zero-filled (src-size 0), so out-of-range rows never touch memory past the tensor.
__device__ __forceinline__ void cp_async_16(std::uint32_t dst, const void* src, bool valid) {
  const int src_size = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_size));
}
// The same copy with an L2 prefetch-size hint: on a miss the L2 fetches the whole aligned `PrefetchBytes`
// block (128 or 256) from DRAM, not only the sectors asked for; 0 = no hint (cp_async_16). For streams that
// read a row in narrow pieces one step after another (naive.pv reads 64 bytes of each P row per step), so
// that DRAM serves whole blocks and the next steps' pieces are L2 hits.
template <int PrefetchBytes>
__device__ __forceinline__ void cp_async_16_prefetch(std::uint32_t dst, const void* src, bool valid) {
  static_assert(PrefetchBytes == 0 || PrefetchBytes == 128 || PrefetchBytes == 256,
                "L2 prefetch: 128 or 256 B");
  const int src_size = valid ? 16 : 0;
  if constexpr (PrefetchBytes == 256) {
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_size));
  } else if constexpr (PrefetchBytes == 128) {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_size));
  } else {
    cp_async_16(dst, src, valid);
  }
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::);
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// ---- Tile copies ----------------------------------------------------------------------------------
// Copies rows [row0, row0 + Rows) of a [n_rows x D] matrix into a swizzled smem tile; rows >= n_rows are
// zero-filled without reading global memory.
template <typename T, int D, int Rows, int Threads>
__device__ __forceinline__ void load_tile(T* tile, const T* global, int row0, int n_rows, int tid) {
  constexpr int kChunksPerRow = D * static_cast<int>(sizeof(T)) / 16;
  constexpr int kChunks = Rows * kChunksPerRow;
  static_assert(kChunks % Threads == 0, "every thread copies the same number of 16-byte chunks");
#pragma unroll
  for (int c = tid; c < kChunks; c += Threads) {
    const int r = c / kChunksPerRow;
    const int ch = c % kChunksPerRow;
    const int grow = row0 + r;
    const bool valid = grow < n_rows;
    const T* src = global + (valid ? static_cast<std::size_t>(grow) * D + ch * 8 : 0);
    cp_async_16(smem_addr(tile + r * D + swizzle128(r, ch) * 8), src, valid);
  }
}

// load_tile with the chunk loop written as a fixed trip count: every thread copies kChunks / Threads chunks.
// load_tile's `for (c = tid; c < kChunks; c += Threads)` has a trip count the compiler cannot know (it
// depends on tid), so it becomes a 4-way unrolled loop with its remainder, run on every call: in the tiled
// backward, which copies Q and dO this way every step, ~360 SASS instructions of the step loop (sm_90a,
// cuobjdump). Here the loop unrolls completely and the per-thread offsets do not change from call to call.
// Thread tid copies chunk tid % kChunksPerRow of rows tid / kChunksPerRow + i kPassRows (the chunks load_tile
// gives it). kPassRows is a multiple of 8, so every pass has the same swizzle and its shared and global
// addresses are the first pass's plus a constant (for shared memory the copy's immediate offset); a tile
// whose rows all exist (a test uniform across the CTA) is copied without the per-chunk row test and select.
template <typename T, int D, int Rows, int Threads>
__device__ __forceinline__ void load_tile_fixed(T* tile, const T* global, int row0, int n_rows, int tid) {
  constexpr int kChunksPerRow = D * static_cast<int>(sizeof(T)) / 16;
  constexpr int kChunks = Rows * kChunksPerRow;
  static_assert(kChunks % Threads == 0, "every thread copies the same number of 16-byte chunks");
  static_assert(Threads % kChunksPerRow == 0 && (Threads / kChunksPerRow) % 8 == 0,
                "each pass copies whole rows, a multiple of 8 of them");
  constexpr int kPassRows = Threads / kChunksPerRow;
  const int r = tid / kChunksPerRow;
  const int ch = tid % kChunksPerRow;
  const std::uint32_t dst = smem_addr(tile + r * D + swizzle128(r, ch) * 8);
  constexpr int kPassBytes = kPassRows * D * static_cast<int>(sizeof(T));
  if (row0 + Rows <= n_rows) {
    const T* src = global + (static_cast<std::size_t>(row0) + r) * D + ch * 8;
#pragma unroll
    for (int i = 0; i < kChunks / Threads; ++i)
      cp_async_16(dst + i * kPassBytes, src + i * kPassRows * D, true);
  } else {
#pragma unroll
    for (int i = 0; i < kChunks / Threads; ++i) {
      const int grow = row0 + r + i * kPassRows;
      const bool valid = grow < n_rows;
      const T* src = global + (valid ? static_cast<std::size_t>(grow) * D + ch * 8 : 0);
      cp_async_16(dst + i * kPassBytes, src, valid);
    }
  }
}

// ---- ldmatrix -----------------------------------------------------------------------------------------
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// ---- Fast math -------------------------------------------------------------------------------------------
// 2^x with the SFU (ex2.approx.ftz): exp2(-inf) = +0, which the online softmax relies on for masked keys.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// ---- Instrumentation -------------------------------------------------------------------------------------
__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
  return t;
}
__device__ __forceinline__ std::uint32_t sm_id() {
  std::uint32_t id;
  asm volatile("mov.u32 %0, %%smid;\n" : "=r"(id));
  return id;
}

}  // namespace attnscope::kernels::device
