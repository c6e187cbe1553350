// SPDX-License-Identifier: Apache-2.0
// Experiment harness, not part of the build: variants of naive.qk and naive.pv at llm-4k (fp16, d 64,
// B 1, H 32, N 4096) timed in one process beside copies of the committed kernels and three HBM probes
// (cudaMemcpy copy, store-only, load-only), so every ratio in docs/kernel-notes.md comes from one run.
// Each variant's output is compared bit for bit with the committed kernel's (same math, same order).
//
//   nvcc -O3 -std=c++17 --generate-code=arch=compute_90a,code=sm_90a -I kernels/include -o naive_variants
//        naive_variants.cu <committed>/naive_qk.cu <committed>/naive_pv.cu
// (the committed kernels, launched through their own launch functions, are the controls "qk/pv committed")
//   ./naive_variants [reps]        (./naive_variants ncu: one launch of each kernel, for Nsight Compute)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../../kernels/src/device_common.cuh"
#include "../../../kernels/src/launch_registry.hpp"

namespace dev = attnscope::kernels::device;
using T = __half;

namespace {

constexpr int kHeads = 32, kN = 4096, kD = 64, kThreads = 256;

// ---- loads with an L2 prefetch-size hint -------------------------------------------------------------------
// Hint 0: none (the committed kernels); 128 / 256: the L2 fetches the whole 128- or 256-byte block of a miss.
template <int Hint>
__device__ __forceinline__ void cp_async_16(std::uint32_t dst, const void* src, bool valid) {
  const int n = valid ? 16 : 0;
  if constexpr (Hint == 128) {
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n));
  } else if constexpr (Hint == 256) {
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n));
  } else {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n));
  }
}

// =========================================== naive.qk ======================================================
// Store: 0 = st.global (committed), 1 = st.global.cs (evict-first), 2 = bulk async copy shared -> global per
// row (unswizzled staging, rows padded by 16 B), 3 = plain stores with the staging padded instead of swizzled.
constexpr int kBm = 128, kBn = 128, kBk = 32;

template <int Store>
struct QkSmem {
  static constexpr int kRowElems = Store >= 2 ? kBn + 8 : kBn;  // padded rows for the unswizzled staging
  static constexpr int kBytes =
      std::max(2 * (kBm + kBn) * kBk * 2, kBm * kRowElems * 2);  // ring (2 stages Q + K) or S staging
};

template <int Hint>
__device__ __forceinline__ void qk_load_slab(T* tile, const T* global, int row0, int col0, int tid) {
#pragma unroll
  for (int c = tid; c < 128 * 4; c += kThreads) {
    const int r = c / 4, ch = c % 4;
    const T* src = global + static_cast<std::size_t>(row0 + r) * kD + col0 + ch * 8;
    cp_async_16<Hint>(dev::smem_addr(tile + r * kBk + dev::swizzle64(r, ch) * 8), src, true);
  }
}

template <int Store, int Hint>
__global__ void __launch_bounds__(kThreads) qk_kernel(const T* q_all, const T* k_all, T* s_all, float scale) {
  using Traits = dev::ElementTraits<T>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  T* ring_q[2] = {reinterpret_cast<T*>(smem_raw), reinterpret_cast<T*>(smem_raw) + kBm * kBk};
  T* ring_k[2] = {reinterpret_cast<T*>(smem_raw) + 2 * kBm * kBk,
                  reinterpret_cast<T*>(smem_raw) + 2 * kBm * kBk + kBn * kBk};
  T* stile = reinterpret_cast<T*>(smem_raw);
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int warp_m = warp / 4, warp_n = warp % 4;
  const std::size_t bh = blockIdx.z;
  const T* q = q_all + bh * kN * kD;
  const T* k = k_all + bh * kN * kD;
  const int row0 = static_cast<int>(blockIdx.y) * kBm, col0 = static_cast<int>(blockIdx.x) * kBn;
  qk_load_slab<Hint>(ring_q[0], q, row0, 0, tid);
  qk_load_slab<Hint>(ring_k[0], k, col0, 0, tid);
  dev::cp_async_commit();
  qk_load_slab<Hint>(ring_q[1], q, row0, kBk, tid);
  qk_load_slab<Hint>(ring_k[1], k, col0, kBk, tid);
  dev::cp_async_commit();
  float acc[4][4][4] = {};
#pragma unroll
  for (int step = 0; step < 2; ++step) {
    if (step == 0) dev::cp_async_wait<1>();
    else dev::cp_async_wait<0>();
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBk / 16; ++kk) {
      std::uint32_t a[4][4];
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        const int r = warp_m * 64 + mt * 16 + lane % 16;
        const int ch = kk * 2 + lane / 16;
        dev::ldmatrix_x4(a[mt], dev::smem_addr(ring_q[step] + r * kBk + dev::swizzle64(r, ch) * 8));
      }
#pragma unroll
      for (int np = 0; np < 2; ++np) {
        const int r = warp_n * 32 + np * 16 + lane % 8 + 8 * (lane / 16);
        const int ch = kk * 2 + ((lane / 8) & 1);
        std::uint32_t b[4];
        dev::ldmatrix_x4(b, dev::smem_addr(ring_k[step] + r * kBk + dev::swizzle64(r, ch) * 8));
#pragma unroll
        for (int mt = 0; mt < 4; ++mt) {
          Traits::mma(acc[mt][2 * np], a[mt], b[0], b[1]);
          Traits::mma(acc[mt][2 * np + 1], a[mt], b[2], b[3]);
        }
      }
    }
  }
  __syncthreads();  // the ring becomes the S staging tile
  constexpr int kRow = QkSmem<Store>::kRowElems;
#pragma unroll
  for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
    for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int row = warp_m * 64 + mt * 16 + g + 8 * r;
        const int col = warp_n * 32 + nt * 8 + 2 * t;
        const int off = Store >= 2 ? row * kRow + col : row * kRow + dev::swizzle128(row, col / 8) * 8 + 2 * t;
        *reinterpret_cast<std::uint32_t*>(stile + off) =
            Traits::pack(acc[mt][nt][2 * r] * scale, acc[mt][nt][2 * r + 1] * scale);
      }
    }
  }
  T* s = s_all + bh * kN * static_cast<std::size_t>(kN);
  if constexpr (Store == 2) {
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    if (tid < kBm) {
      T* dst = s + static_cast<std::size_t>(row0 + tid) * kN + col0;
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(dst),
                   "r"(dev::smem_addr(stile + tid * kRow)), "n"(kBn * 2)
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
    }
  } else {
    __syncthreads();
#pragma unroll
    for (int c = tid; c < kBm * 16; c += kThreads) {
      const int r = c / 16, ch = c % 16;
      const uint4 x = *reinterpret_cast<const uint4*>(
          stile + (Store == 3 ? r * kRow + ch * 8 : r * kRow + dev::swizzle128(r, ch) * 8));
      uint4* dst = reinterpret_cast<uint4*>(s + static_cast<std::size_t>(row0 + r) * kN + col0 + ch * 8);
      if constexpr (Store == 1) {
        asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};\n" ::"l"(dst), "r"(x.x), "r"(x.y), "r"(x.z),
                     "r"(x.w)
                     : "memory");
      } else {
        *dst = x;
      }
    }
  }
}


// Tiles per CTA: one CTA computes NT consecutive S tiles of one row block (column blocks NT x .. NT x + NT - 1).
// Q [128 x 64] loaded once; K tiles through a 2-deep ring (tile j + 2 issued once tile j is consumed), so the
// next tile's K is in flight during this tile's math, and this tile's S stores drain during the next one's.
// Staging for S separate from the ring. Dataflow change: grid x = 32 / NT, Q read once per NT tiles.
template <int NT>
__global__ void __launch_bounds__(kThreads) qk_multi_kernel(const T* q_all, const T* k_all, T* s_all, float scale) {
  using Traits = dev::ElementTraits<T>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  T* qt = reinterpret_cast<T*>(smem_raw);   // [128 x 64], 128-byte rows, swizzle128
  T* kt0 = qt + kBm * kD;                    // two K tiles [128 x 64]
  T* stile = kt0 + 2 * kBn * kD;             // S staging [128 x 128], swizzle128
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int warp_m = warp / 4, warp_n = warp % 4;
  const std::size_t bh = blockIdx.z;
  const T* q = q_all + bh * kN * kD;
  const T* k = k_all + bh * kN * kD;
  T* s = s_all + bh * kN * static_cast<std::size_t>(kN);
  const int row0 = static_cast<int>(blockIdx.y) * kBm;
  const int col_base = static_cast<int>(blockIdx.x) * NT * kBn;
  const auto load_tile = [&](T* tile, const T* src, int r0) {
#pragma unroll
    for (int c = tid; c < 128 * 8; c += kThreads) {
      const int r = c / 8, ch = c % 8;
      cp_async_16<0>(dev::smem_addr(tile + r * kD + dev::swizzle128(r, ch) * 8),
                     src + static_cast<std::size_t>(r0 + r) * kD + ch * 8, true);
    }
  };
  load_tile(qt, q, row0);
  load_tile(kt0, k, col_base);
  dev::cp_async_commit();
  if (NT > 1) load_tile(kt0 + kBn * kD, k, col_base + kBn);
  dev::cp_async_commit();
#pragma unroll 1
  for (int j = 0; j < NT; ++j) {
    const T* kt = kt0 + (j % 2) * kBn * kD;
    dev::cp_async_wait<1>();
    __syncthreads();  // K tile j landed; every thread is done reading the staging of tile j - 1
    float acc[4][4][4] = {};
#pragma unroll
    for (int kk = 0; kk < kD / 16; ++kk) {
      std::uint32_t a[4][4];
#pragma unroll
      for (int mt = 0; mt < 4; ++mt) {
        const int r = warp_m * 64 + mt * 16 + lane % 16;
        const int ch = kk * 2 + lane / 16;
        dev::ldmatrix_x4(a[mt], dev::smem_addr(qt + r * kD + dev::swizzle128(r, ch) * 8));
      }
#pragma unroll
      for (int np = 0; np < 2; ++np) {
        const int r = warp_n * 32 + np * 16 + lane % 8 + 8 * (lane / 16);
        const int ch = kk * 2 + ((lane / 8) & 1);
        std::uint32_t b[4];
        dev::ldmatrix_x4(b, dev::smem_addr(kt + r * kD + dev::swizzle128(r, ch) * 8));
#pragma unroll
        for (int mt = 0; mt < 4; ++mt) {
          Traits::mma(acc[mt][2 * np], a[mt], b[0], b[1]);
          Traits::mma(acc[mt][2 * np + 1], a[mt], b[2], b[3]);
        }
      }
    }
    __syncthreads();  // every warp is done with K tile j: refill its buffer with tile j + 2
    if (j + 2 < NT) load_tile(const_cast<T*>(kt), k, col_base + (j + 2) * kBn);
    dev::cp_async_commit();
#pragma unroll
    for (int mt = 0; mt < 4; ++mt) {
#pragma unroll
      for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const int row = warp_m * 64 + mt * 16 + g + 8 * r;
          const int col = warp_n * 32 + nt * 8 + 2 * t;
          *reinterpret_cast<std::uint32_t*>(stile + row * kBn + dev::swizzle128(row, col / 8) * 8 + 2 * t) =
              Traits::pack(acc[mt][nt][2 * r] * scale, acc[mt][nt][2 * r + 1] * scale);
        }
      }
    }
    __syncthreads();
    const int col0 = col_base + j * kBn;
#pragma unroll
    for (int c = tid; c < kBm * 16; c += kThreads) {
      const int r = c / 16, ch = c % 16;
      *reinterpret_cast<uint4*>(s + static_cast<std::size_t>(row0 + r) * kN + col0 + ch * 8) =
          *reinterpret_cast<const uint4*>(stile + r * kBn + dev::swizzle128(r, ch) * 8);
    }
  }
}

// =========================================== naive.pv ======================================================
// Stages: ring depth (the committed kernel: 2, both in flight); Hint: L2 prefetch size on the P copies;
// Pf: distance in steps of an explicit L2 bulk prefetch of 256 B (4 steps) of every P row (0 = none).
template <int Stages>
struct PvSmem {
  static constexpr int kP = kBm * kBk, kV = kBk * kD;
  static constexpr int kBytes = std::max(Stages * (kP + kV) * 2, kBm * kD * 2);
};

template <int Stages, int Hint, int Pf, int MinBlocks>
__global__ void __launch_bounds__(kThreads, MinBlocks) pv_kernel(const T* p_all, const T* v_all, T* o_all) {
  using Traits = dev::ElementTraits<T>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  T* ring_p = reinterpret_cast<T*>(smem_raw);
  T* ring_v = ring_p + Stages * PvSmem<Stages>::kP;
  const int tid = static_cast<int>(threadIdx.x), warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const std::size_t bh = blockIdx.y;
  const T* pm = p_all + bh * kN * static_cast<std::size_t>(kN);
  const T* v = v_all + bh * kN * kD;
  const int row0 = static_cast<int>(blockIdx.x) * kBm;
  // Copy plan as committed: P chunk p_ch of rows p_row + 64 i; V chunk of rows v_row + 32 i.
  const int p_row = tid / 4, p_ch = tid % 4;
  const T* p_src = pm + static_cast<std::size_t>(row0 + p_row) * kN + p_ch * 8;
  const std::uint32_t p_dst = dev::smem_addr(ring_p + p_row * kBk + dev::swizzle64(p_row, p_ch) * 8);
  const int v_row = tid / 8, v_ch = tid % 8;
  const T* v_src = v + static_cast<std::size_t>(v_row) * kD + v_ch * 8;
  const std::uint32_t v_dst = dev::smem_addr(ring_v + v_row * kD + dev::swizzle128(v_row, v_ch) * 8);
  constexpr int kSteps = kN / kBk;
  const auto load_real = [&](int stage, int step) {
    const int key0 = step * kBk;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      cp_async_16<Hint>(p_dst + static_cast<std::uint32_t>((stage * kBm * kBk + i * 64 * kBk) * 2),
                        p_src + static_cast<std::size_t>(i) * 64 * kN + key0, true);
    }
    // V tile [32 keys x 64]: 256 chunks, one per thread.
    cp_async_16<0>(v_dst + static_cast<std::uint32_t>(stage * kBk * kD * 2),
                   v_src + static_cast<std::size_t>(key0) * kD, true);
  };
  const auto prefetch = [&](int step) {
    if constexpr (Pf > 0) {
      const int ahead = step + Pf;
      if (step % 4 == 0 && ahead < kSteps && tid < kBm) {
        const T* src = pm + static_cast<std::size_t>(row0 + tid) * kN + ahead * kBk;
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], 256;\n" ::"l"(src) : "memory");
      }
    }
  };
  if constexpr (Pf > 0) {
    for (int s0 = 0; s0 < Pf; s0 += 4) {  // the first Pf steps: prefetch too, so the ramp is covered
      if (tid < kBm) {
        const T* src = pm + static_cast<std::size_t>(row0 + tid) * kN + s0 * kBk;
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], 256;\n" ::"l"(src) : "memory");
      }
    }
  }
#pragma unroll
  for (int s0 = 0; s0 < Stages; ++s0) {
    load_real(s0, s0);
    dev::cp_async_commit();
  }
  std::uint32_t a_base, b_base;
  {
    const int r = warp * 16 + lane % 16;
    a_base = dev::smem_addr(ring_p + r * kBk + dev::swizzle64(r, lane / 16) * 8);
    const int rv = lane % 8 + 8 * ((lane / 8) & 1);
    b_base = dev::smem_addr(ring_v + rv * kD + dev::swizzle128(rv, lane / 16) * 8);
  }
  float acc[kD / 8][4] = {};
#pragma unroll 1
  for (int step = 0; step < kSteps; ++step) {
    const int stage = step % Stages;
    dev::cp_async_wait<Stages - 1>();
    __syncthreads();
    prefetch(step);
    // Per-lane ldmatrix bases, XORed with the k-step / d-block chunk (the swizzles only touch bits 4..6).
    const std::uint32_t pa = a_base + static_cast<std::uint32_t>(stage * kBm * kBk * 2);
    const std::uint32_t vb = b_base + static_cast<std::uint32_t>(stage * kBk * kD * 2);
#pragma unroll
    for (int kk = 0; kk < kBk / 16; ++kk) {
      std::uint32_t a[4];
      dev::ldmatrix_x4(a, pa ^ static_cast<std::uint32_t>(kk * 32));
#pragma unroll
      for (int dp = 0; dp < kD / 16; ++dp) {
        std::uint32_t b[4];
        dev::ldmatrix_x4_trans(b, (vb + static_cast<std::uint32_t>(kk * 16 * kD * 2)) ^ static_cast<std::uint32_t>(dp * 32));
        Traits::mma(acc[2 * dp], a, b[0], b[1]);
        Traits::mma(acc[2 * dp + 1], a, b[2], b[3]);
      }
    }
    if (step + Stages < kSteps) {
      __syncthreads();
      load_real(stage, step + Stages);
    }
    dev::cp_async_commit();
  }
  dev::cp_async_wait<0>();
  __syncthreads();
  T* ot = reinterpret_cast<T*>(smem_raw);
#pragma unroll
  for (int dt = 0; dt < kD / 8; ++dt) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = warp * 16 + g + 8 * r;
      *reinterpret_cast<std::uint32_t*>(ot + row * kD + dev::swizzle128(row, dt) * 8 + 2 * t) =
          Traits::pack(acc[dt][2 * r], acc[dt][2 * r + 1]);
    }
  }
  __syncthreads();
  T* o = o_all + bh * kN * kD;
#pragma unroll
  for (int c = tid; c < kBm * 8; c += kThreads) {
    const int r = c / 8, ch = c % 8;
    *reinterpret_cast<uint4*>(o + static_cast<std::size_t>(row0 + r) * kD + ch * 8) =
        *reinterpret_cast<const uint4*>(ot + r * kD + dev::swizzle128(r, ch) * 8);
  }
}

// ========================================== probes =========================================================
__global__ void store_probe(uint4* dst, std::size_t n) {
  const uint4 x = make_uint4(threadIdx.x, 1, 2, 3);
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    dst[i] = x;
}
__global__ void load_probe(const uint4* src, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 x = __ldcs(src + i);
    acc ^= x.x ^ x.y ^ x.z ^ x.w;
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;  // never in practice; keeps the loads
}
__global__ void count_mismatch(const uint4* a, const uint4* b, std::size_t n, unsigned long long* bad) {
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 x = a[i], y = b[i];
    local += (x.x != y.x) || (x.y != y.y) || (x.z != y.z) || (x.w != y.w);
  }
  if (local) atomicAdd(bad, local);
}

#define CHECK(x)                                                                            \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

struct Bench {
  int reps = 9;
  void* flush = nullptr;
  cudaEvent_t a{}, b{};
  Bench() {
    CHECK(cudaMalloc(&flush, std::size_t{256} << 20));
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
  }
  template <typename F>
  double median_ms(F&& launch) {
    launch();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int i = 0; i < reps; ++i) {
      CHECK(cudaMemsetAsync(flush, i & 0xff, std::size_t{256} << 20));
      CHECK(cudaEventRecord(a));
      launch();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float x = 0;
      CHECK(cudaEventElapsedTime(&x, a, b));
      ms.push_back(x);
    }
    CHECK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }
};

unsigned long long mismatches(const void* x, const void* y, std::size_t bytes) {
  static unsigned long long* d = nullptr;
  if (!d) CHECK(cudaMalloc(&d, sizeof *d));
  CHECK(cudaMemset(d, 0, sizeof *d));
  count_mismatch<<<1056, 256>>>(static_cast<const uint4*>(x), static_cast<const uint4*>(y), bytes / 16, d);
  unsigned long long h = 0;
  CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

template <int Store, int Hint>
void launch_qk(const T* q, const T* k, T* s) {
  constexpr int smem = QkSmem<Store>::kBytes;
  static bool once = [] {
    CHECK(cudaFuncSetAttribute(qk_kernel<Store, Hint>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return true;
  }();
  (void)once;
  qk_kernel<Store, Hint><<<dim3(kN / kBn, kN / kBm, kHeads), kThreads, smem>>>(q, k, s, 0.125f);
}


template <int NT>
void launch_qk_multi(const T* q, const T* k, T* s) {
  constexpr int smem = (kBm * kD + 2 * kBn * kD + kBm * kBn) * 2;
  static bool once = [] {
    CHECK(cudaFuncSetAttribute(qk_multi_kernel<NT>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    return true;
  }();
  (void)once;
  qk_multi_kernel<NT><<<dim3(kN / kBn / NT, kN / kBm, kHeads), kThreads, smem>>>(q, k, s, 0.125f);
}

template <int Stages, int Hint, int Pf, int MinBlocks>
void launch_pv(const T* p, const T* v, T* o) {
  constexpr int smem = PvSmem<Stages>::kBytes;
  static bool once = [] {
    CHECK(cudaFuncSetAttribute(pv_kernel<Stages, Hint, Pf, MinBlocks>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               smem));
    return true;
  }();
  (void)once;
  pv_kernel<Stages, Hint, Pf, MinBlocks><<<dim3(kN / kBm, kHeads), kThreads, smem>>>(p, v, o);
}

}  // namespace

namespace ad = attnscope::kernels::detail;

void launch_committed_qk(const T* q, const T* k, T* s) {
  const ad::NaiveParams p{q, k, nullptr, nullptr, s, kHeads, kN, kN, kD, 0, 0.125f, 0, 0, kN / kBn, nullptr};
  CHECK(static_cast<cudaError_t>(
      ad::launch_naive_qk_kernel(attnscope::kernels::DType::fp16, p, kN / kBn, kN / kBm, kHeads, nullptr)));
}
void launch_committed_pv(const T* pm, const T* v, T* o) {
  const ad::NaiveParams p{nullptr, nullptr, v, o, const_cast<T*>(pm), kHeads, kN, kN, kD, 0, 0.125f, 0, 0,
                          kN / kBk, nullptr};
  CHECK(static_cast<cudaError_t>(
      ad::launch_naive_pv_kernel(attnscope::kernels::DType::fp16, p, kN / kBm, kHeads, nullptr)));
}

int main(int argc, char** argv) {
  const bool ncu = argc > 1 && std::strcmp(argv[1], "ncu") == 0;
  Bench bench;
  if (argc > 1 && !ncu) bench.reps = std::atoi(argv[1]);
  const std::size_t qkv = std::size_t{kHeads} * kN * kD, sn = std::size_t{kHeads} * kN * kN;
  T *q, *k, *v, *o, *o_ref, *s, *s_ref;
  CHECK(cudaMalloc(&q, qkv * 2));
  CHECK(cudaMalloc(&k, qkv * 2));
  CHECK(cudaMalloc(&v, qkv * 2));
  CHECK(cudaMalloc(&o, qkv * 2));
  CHECK(cudaMalloc(&o_ref, qkv * 2));
  CHECK(cudaMalloc(&s, sn * 2));
  CHECK(cudaMalloc(&s_ref, sn * 2));
  {
    std::vector<std::uint16_t> h(qkv);
    std::uint64_t x = 88172645463325252ull;
    for (int which = 0; which < 3; ++which) {
      for (auto& e : h) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        e = __half_as_ushort(__float2half(static_cast<float>(static_cast<int>(x % 2001) - 1000) * 1e-3f));
      }
      CHECK(cudaMemcpy(which == 0 ? q : which == 1 ? k : v, h.data(), qkv * 2, cudaMemcpyHostToDevice));
    }
  }
  const double qk_bytes = 2.0 * qkv * 2 + sn * 2, pv_bytes = sn * 2 + 2.0 * qkv * 2;

  if (ncu) {  // one launch each, for ncu -k regex
    launch_committed_qk(q, k, s);
    launch_committed_pv(s, v, o);
    launch_qk<0, 0>(q, k, s);
    launch_qk<2, 0>(q, k, s);
    launch_qk_multi<4>(q, k, s);
    launch_pv<2, 256, 0, 4>(s, v, o);
    launch_pv<4, 0, 0, 4>(s, v, o);
    CHECK(cudaDeviceSynchronize());
    return 0;
  }

  // Probes: 1 GiB.
  const std::size_t probe = std::size_t{1} << 30;
  void *pa, *pb;
  unsigned* sink;
  CHECK(cudaMalloc(&pa, probe));
  CHECK(cudaMalloc(&pb, probe));
  CHECK(cudaMalloc(&sink, 4));
  CHECK(cudaMemset(pa, 1, probe));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const double copy_ms = bench.median_ms([&] { CHECK(cudaMemcpyAsync(pb, pa, probe, cudaMemcpyDeviceToDevice)); });
  const double copy_bw = 2.0 * probe / (copy_ms * 1e-3);
  const double store_ms = bench.median_ms([&] { store_probe<<<sms * 8, 256>>>(static_cast<uint4*>(pb), probe / 16); });
  const double load_ms =
      bench.median_ms([&] { load_probe<<<sms * 8, 256>>>(static_cast<const uint4*>(pa), probe / 16, sink); });
  std::printf("probe copy  %.3f ms  %.0f GB/s (read + write)\n", copy_ms, copy_bw * 1e-9);
  std::printf("probe store %.3f ms  %.0f GB/s\n", store_ms, probe / (store_ms * 1e-3) * 1e-9);
  std::printf("probe load  %.3f ms  %.0f GB/s\n", load_ms, probe / (load_ms * 1e-3) * 1e-9);

  const auto report = [&](const char* name, double ms, double bytes, unsigned long long bad) {
    std::printf("%-34s %.4f ms  x_copy %.3f  %.0f GB/s  mismatches %llu\n", name, ms,
                ms * 1e-3 / (bytes / copy_bw), bytes / (ms * 1e-3) * 1e-9, bad);
  };
  // qk: the committed kernel's output is the reference.
  launch_committed_qk(q, k, s_ref);
  CHECK(cudaDeviceSynchronize());
  {
    CHECK(cudaMemset(s, 0xff, sn * 2));
    const double ms = bench.median_ms([&] { launch_committed_qk(q, k, s); });
    report("qk committed", ms, qk_bytes, mismatches(s, s_ref, sn * 2));
  }
#define QK(STORE, HINT, NAME)                                                          \
  do {                                                                                 \
    CHECK(cudaMemset(s, 0xff, sn * 2));                                                \
    const double ms = bench.median_ms([&] { launch_qk<STORE, HINT>(q, k, s); });       \
    report(NAME, ms, qk_bytes, mismatches(s, s_ref, sn * 2));                          \
  } while (0)
  QK(0, 0, "qk copy");
  QK(1, 0, "qk st.global.cs");
  QK(2, 0, "qk bulk store");
  QK(3, 0, "qk padded staging");
  QK(0, 128, "qk L2::128B loads");
  QK(2, 128, "qk bulk store + L2::128B");
#define QKM(NT, NAME)                                                                  \
  do {                                                                                 \
    CHECK(cudaMemset(s, 0xff, sn * 2));                                                \
    const double ms = bench.median_ms([&] { launch_qk_multi<NT>(q, k, s); });          \
    report(NAME, ms, qk_bytes, mismatches(s, s_ref, sn * 2));                          \
  } while (0)
  QKM(1, "qk 1 tile/CTA, whole d");
  QKM(2, "qk 2 tiles/CTA");
  QKM(4, "qk 4 tiles/CTA");
  QKM(8, "qk 8 tiles/CTA");
  QK(0, 0, "qk copy (again)");
  {
    const double ms = bench.median_ms([&] { launch_committed_qk(q, k, s); });
    report("qk committed (again)", ms, qk_bytes, mismatches(s, s_ref, sn * 2));
  }

  // pv: P = S (scores), the committed kernel's O is the reference.
  launch_committed_pv(s_ref, v, o_ref);
  CHECK(cudaDeviceSynchronize());
  {
    CHECK(cudaMemset(o, 0xff, qkv * 2));
    const double ms = bench.median_ms([&] { launch_committed_pv(s_ref, v, o); });
    report("pv committed", ms, pv_bytes, mismatches(o, o_ref, qkv * 2));
  }
#define PV(ST, HINT, PF, MB, NAME)                                                     \
  do {                                                                                 \
    CHECK(cudaMemset(o, 0xff, qkv * 2));                                               \
    const double ms = bench.median_ms([&] { launch_pv<ST, HINT, PF, MB>(s_ref, v, o); }); \
    report(NAME, ms, pv_bytes, mismatches(o, o_ref, qkv * 2));                         \
  } while (0)
  PV(2, 0, 0, 4, "pv copy");
  PV(2, 128, 0, 4, "pv L2::128B");
  PV(2, 256, 0, 4, "pv L2::256B");
  PV(3, 0, 0, 4, "pv stages 3");
  PV(4, 0, 0, 4, "pv stages 4");
  PV(4, 256, 0, 4, "pv stages 4 + L2::256B");
  PV(2, 0, 8, 4, "pv bulk prefetch 8");
  PV(2, 0, 16, 4, "pv bulk prefetch 16");
  PV(2, 256, 8, 4, "pv bulk prefetch 8 + L2::256B");
  PV(3, 256, 8, 4, "pv stages 3 + pf 8 + L2::256B");
  PV(3, 256, 0, 4, "pv stages 3 + L2::256B");
  PV(4, 128, 0, 4, "pv stages 4 + L2::128B");
  PV(2, 256, 16, 4, "pv bulk prefetch 16 + L2::256B");
  PV(4, 0, 16, 4, "pv stages 4 + pf 16");
  PV(2, 0, 0, 4, "pv copy (again)");
  {
    const double ms = bench.median_ms([&] { launch_committed_pv(s_ref, v, o); });
    report("pv committed (again)", ms, pv_bytes, mismatches(o, o_ref, qkv * 2));
  }
  std::printf("done\n");
  return 0;
}
