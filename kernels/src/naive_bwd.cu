// SPDX-License-Identifier: Apache-2.0
// Naive (standard attention) backward: five launches through [B, H, Nq, Nkv] matrices in HBM, reading the P
// the naive forward stored (attnscope/vocab/backward.hpp has the geometry, docs/dataflow.md the dataflow):
//   naive_bwd.dv  dV = P^T dO                     GEMM, A = P given as [K x M]
//   naive_bwd.dp  dP = dO V^T                     GEMM, B = V given as [N x K]; dP written to HBM
//   naive_bwd.ds  dS = P o (dP - rowsum(dO o O))  one warp per row, dS over dP in place
//   naive_bwd.dq  dQ = scale dS K                 GEMM
//   naive_bwd.dk  dK = scale dS^T Q               GEMM, A = dS given as [K x M]
// One GEMM kernel serves the four products: C [M x N] = alpha op(A) op(B), 128-row blocks x BN columns
// (BN = d for the gradients, 128 for dP), reduction steps of 32 through a 2-stage cp.async ring, 8 warps of
// 16 rows x BN (mma.sync m16n8k16, fp32 accumulate), C staged in shared memory for 16-byte stores. Rows of
// P and dS are 16-byte aligned only when Nkv % 8 == 0; otherwise (and for the last partial chunk of a row)
// the GEMMs copy those pieces with 2-byte loads and store dP with 2-byte stores, a warp on 32 consecutive
// elements of a row (same tiles, same bytes); naive_bwd.ds runs the 16-byte-aligned middle of every row in
// 16-byte vectors and only its ends with 2-byte accesses.
#include <cuda_runtime.h>

#include <cstdint>

#include "attnscope/kernels/backward.hpp"
#include "attnscope/vocab/backward.hpp"
#include "device_common.cuh"

namespace attnscope::kernels::detail {

// Launch state of one GEMM: per (batch, head) slice z, A, B and C start `stride_*` elements apart.
struct NaiveGemmParams {
  const void* a;
  const void* b;
  void* c;
  int m, n, k;
  long long lda, ldb, ldc;  // row pitch in elements, as stored
  long long stride_a, stride_b, stride_c;
  float alpha;
};

// Launch state of naive_bwd.ds.
struct NaiveDsParams {
  const void* o;
  const void* d_o;
  const void* p;
  void* ds;  // dP in, dS out
  int seq_q, seq_kv;
};

namespace {

constexpr vocab::NaiveBwdTiling kTiling{};
constexpr int kBm = kTiling.bm, kBk = kTiling.bk;
constexpr int kThreads = vocab::naive_bwd_gemm_threads(kTiling);
static_assert(kBm == kThreads / 32 * vocab::kMmaTile, "each warp owns 16 rows of C");
static_assert(kBk == 32 && kTiling.stages == 2, "the kernel is written for 32-deep steps and 2 stages");

// Physical chunk in a tile whose rows are `RowBytes` long: 64-byte rows (4 chunks) swizzle64, longer ones
// swizzle128.
template <int RowBytes>
__device__ __forceinline__ int swz(int row, int chunk) {
  if constexpr (RowBytes == 64) {
    return device::swizzle64(row, chunk);
  } else {
    return device::swizzle128(row, chunk);
  }
}

// Copies tile rows [r0, r0 + Rows) x columns [c0, c0 + Cols) of a row-major [rows x cols] matrix (pitch
// ld) into a swizzled shared tile; out of range elements are zero. Whole in-range 16-byte pieces of aligned
// rows go by cp.async, the rest by 2-byte loads.
template <typename T, int Rows, int Cols>
__device__ __forceinline__ void load_block(T* tile, const T* src, long long ld, int r0, int c0, int rows,
                                           int cols, bool aligned, int tid) {
  constexpr int kChunksPerRow = Cols / 8;
  constexpr int kChunks = Rows * kChunksPerRow;
  static_assert(kChunks % kThreads == 0, "every thread copies the same number of 16-byte chunks");
#pragma unroll
  for (int c = tid; c < kChunks; c += kThreads) {
    const int r = c / kChunksPerRow;
    const int ch = c % kChunksPerRow;
    const int gr = r0 + r;
    const int gc = c0 + ch * 8;
    T* dst = tile + r * Cols + swz<Cols * 2>(r, ch) * 8;
    if (aligned && gr < rows && gc + 8 <= cols) {
      device::cp_async_16(device::smem_addr(dst), src + static_cast<long long>(gr) * ld + gc, true);
    } else {
      std::uint16_t e[8];
      const auto* row = reinterpret_cast<const std::uint16_t*>(src) + static_cast<long long>(gr) * ld;
#pragma unroll
      for (int i = 0; i < 8; ++i) e[i] = (gr < rows && gc + i < cols) ? row[gc + i] : std::uint16_t{0};
      uint4 v;
      v.x = e[0] | (std::uint32_t{e[1]} << 16);
      v.y = e[2] | (std::uint32_t{e[3]} << 16);
      v.z = e[4] | (std::uint32_t{e[5]} << 16);
      v.w = e[6] | (std::uint32_t{e[7]} << 16);
      *reinterpret_cast<uint4*>(dst) = v;
    }
  }
}

template <typename T, bool ATrans, bool BTrans, int Bn>
struct GemmStorage {
  // A: [bm x bk] as stored (M x K), or [bk x bm] (K x M); B: [bk x Bn] (K x N), or [Bn x bk] (N x K).
  union {
    struct {
      T a[2][kBm * kBk];
      T b[2][kBk * Bn];
    } ring;
    T c[kBm * Bn];
  };
};

template <typename T, bool ATrans, bool BTrans, int Bn>
__global__ void __launch_bounds__(kThreads) naive_bwd_gemm_kernel(const NaiveGemmParams p) {
  using Traits = device::ElementTraits<T>;
  using Storage = GemmStorage<T, ATrans, BTrans, Bn>;
  static_assert(sizeof(Storage) == static_cast<std::size_t>(vocab::naive_bwd_gemm_smem_bytes(
                                       kTiling, Bn, device::ElementTraits<T>::kDType)),
                "GEMM SharedStorage must be vocab::naive_bwd_gemm_smem_bytes");
  constexpr int kNTiles = Bn / 8;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  Storage& smem = *reinterpret_cast<Storage*>(smem_raw);

  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
  const int n0 = static_cast<int>(blockIdx.x) * Bn;
  const int m0 = static_cast<int>(blockIdx.y) * kBm;
  const T* a = static_cast<const T*>(p.a) + blockIdx.z * p.stride_a;
  const T* b = static_cast<const T*>(p.b) + blockIdx.z * p.stride_b;
  T* c = static_cast<T*>(p.c) + blockIdx.z * p.stride_c;
  const bool a_aligned = p.lda % 8 == 0 && p.stride_a % 8 == 0;
  const bool b_aligned = p.ldb % 8 == 0 && p.stride_b % 8 == 0;
  const int steps = (p.k + kBk - 1) / kBk;

  const auto load_step = [&](int s) {
    const int slot = s % 2, k0 = s * kBk;
    if constexpr (ATrans) {
      load_block<T, kBk, kBm>(smem.ring.a[slot], a, p.lda, k0, m0, p.k, p.m, a_aligned, tid);
    } else {
      load_block<T, kBm, kBk>(smem.ring.a[slot], a, p.lda, m0, k0, p.m, p.k, a_aligned, tid);
    }
    if constexpr (BTrans) {
      load_block<T, Bn, kBk>(smem.ring.b[slot], b, p.ldb, n0, k0, p.n, p.k, b_aligned, tid);
    } else {
      load_block<T, kBk, Bn>(smem.ring.b[slot], b, p.ldb, k0, n0, p.k, p.n, b_aligned, tid);
    }
  };

  float acc[kNTiles][4];
#pragma unroll
  for (int i = 0; i < kNTiles; ++i) {
#pragma unroll
    for (int e = 0; e < 4; ++e) acc[i][e] = 0.0f;
  }
  if (steps > 0) load_step(0);
  device::cp_async_commit();
  for (int s = 0; s < steps; ++s) {
    device::cp_async_wait<0>();
    __syncthreads();  // step s landed; every warp is done with step s - 1's slot
    if (s + 1 < steps) load_step(s + 1);
    device::cp_async_commit();
    const int slot = s % 2;
#pragma unroll
    for (int kk = 0; kk < kBk / 16; ++kk) {
      std::uint32_t af[4];
      if constexpr (ATrans) {  // stored [k][m], 256-byte rows: .trans gives the A fragment of [m][k]
        const int row = kk * 16 + lane % 8 + 8 * (lane / 16);
        const int ch = warp * 2 + ((lane / 8) & 1);
        device::ldmatrix_x4_trans(
            af, device::smem_addr(smem.ring.a[slot] + row * kBm + swz<kBm * 2>(row, ch) * 8));
      } else {  // stored [m][k], 64-byte rows
        const int row = warp * 16 + lane % 16;
        const int ch = kk * 2 + lane / 16;
        device::ldmatrix_x4(af, device::smem_addr(smem.ring.a[slot] + row * kBk + swz<kBk * 2>(row, ch) * 8));
      }
#pragma unroll
      for (int np = 0; np < Bn / 16; ++np) {
        std::uint32_t bf[4];
        if constexpr (BTrans) {  // stored [n][k], 64-byte rows
          const int row = np * 16 + lane % 8 + 8 * (lane / 16);
          const int ch = kk * 2 + ((lane / 8) & 1);
          device::ldmatrix_x4(bf,
                              device::smem_addr(smem.ring.b[slot] + row * kBk + swz<kBk * 2>(row, ch) * 8));
        } else {  // stored [k][n], .trans
          const int row = kk * 16 + lane % 8 + 8 * ((lane / 8) & 1);
          const int ch = np * 2 + lane / 16;
          device::ldmatrix_x4_trans(
              bf, device::smem_addr(smem.ring.b[slot] + row * Bn + swz<Bn * 2>(row, ch) * 8));
        }
        Traits::mma(acc[2 * np], af, bf[0], bf[1]);
        Traits::mma(acc[2 * np + 1], af, bf[2], bf[3]);
      }
    }
  }
  device::cp_async_wait<0>();
  __syncthreads();  // the ring's memory becomes C's staging

  // alpha * C in the input dtype, this warp's 16 rows, then 16-byte stores where the row allows it.
#pragma unroll
  for (int nt = 0; nt < kNTiles; ++nt) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const int row = warp * 16 + g + 8 * r;
      *reinterpret_cast<std::uint32_t*>(smem.c + row * Bn + swz<Bn * 2>(row, nt) * 8 + 2 * t) =
          Traits::pack(acc[nt][2 * r] * p.alpha, acc[nt][2 * r + 1] * p.alpha);
    }
  }
  __syncwarp();
  const bool c_aligned = p.ldc % 8 == 0 && p.stride_c % 8 == 0;
  constexpr int kChunksPerRow = Bn / 8;
  if (c_aligned) {
    for (int i = lane; i < 16 * kChunksPerRow; i += 32) {
      const int r = warp * 16 + i / kChunksPerRow;
      const int ch = i % kChunksPerRow;
      const int gr = m0 + r, gc = n0 + ch * 8;
      if (gr >= p.m || gc >= p.n) continue;
      const T* srcp = smem.c + r * Bn + swz<Bn * 2>(r, ch) * 8;
      T* dst = c + static_cast<long long>(gr) * p.ldc + gc;
      if (gc + 8 <= p.n) {
        *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(srcp);
      } else {
        for (int e = 0; e < 8 && gc + e < p.n; ++e) dst[e] = srcp[e];
      }
    }
  } else {
    // Rows off 16-byte boundaries (dP when Nkv % 8 != 0): 2-byte stores, the warp's 32 lanes on 32
    // consecutive elements of one row, so that each store instruction writes one 64-byte piece of the row
    // (not 32 pieces 16 bytes apart, which wrote every sector in eight parts).
    for (int i = lane; i < 16 * Bn; i += 32) {
      const int r = warp * 16 + i / Bn;
      const int col = i % Bn;
      const int gr = m0 + r, gc = n0 + col;
      if (gr >= p.m || gc >= p.n) continue;
      c[static_cast<long long>(gr) * p.ldc + gc] = smem.c[r * Bn + swz<Bn * 2>(r, col / 8) * 8 + col % 8];
    }
  }
}

// naive_bwd.ds: one warp per row: D = rowsum(dO o O), then dS = P o (dP - D) over the row, in place of dP.
template <typename T, int D>
__global__ void __launch_bounds__(32 * kTiling.ds_rows_per_cta) naive_bwd_ds_kernel(const NaiveDsParams p) {
  using Traits = device::ElementTraits<T>;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int row = static_cast<int>(blockIdx.x) * kTiling.ds_rows_per_cta + warp;
  if (row >= p.seq_q) return;
  const std::size_t bh = blockIdx.y;
  const std::size_t qrow = (bh * p.seq_q + row) * D;
  float sum = 0.0f;
  const auto* o = reinterpret_cast<const std::uint32_t*>(static_cast<const T*>(p.o) + qrow);
  const auto* d_o = reinterpret_cast<const std::uint32_t*>(static_cast<const T*>(p.d_o) + qrow);
#pragma unroll
  for (int i = lane; i < D / 2; i += 32) {
    const float2 x = Traits::unpack(o[i]), y = Traits::unpack(d_o[i]);
    sum = fmaf(x.x, y.x, fmaf(x.y, y.y, sum));
  }
#pragma unroll
  for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  const std::size_t srow = (bh * p.seq_q + row) * static_cast<std::size_t>(p.seq_kv);
  const T* prow = static_cast<const T*>(p.p) + srow;
  T* dsrow = static_cast<T*>(p.ds) + srow;
  const auto ds_of = [sum](float pp, float dp) { return pp * (dp - sum); };
  // P and dS rows start at the same element offset, 16-byte aligned when Nkv % 8 == 0 and off by srow % 8
  // elements otherwise: a scalar head up to the row's first 16-byte boundary (fewer than 8 elements), the
  // body in 16-byte vectors (8 elements a lane, 512 bytes a warp access), a scalar tail (fewer than 8). One
  // path for either: head and tail are empty on aligned rows.
  const int head = min(static_cast<int>((8 - srow % 8) % 8), p.seq_kv);
  const int body_end = head + (p.seq_kv - head) / 8 * 8;
  // The scalar elements as their 16-bit patterns (ElementTraits converts those).
  const auto* pb = reinterpret_cast<const std::uint16_t*>(prow);
  auto* db = reinterpret_cast<std::uint16_t*>(dsrow);
  if (lane < head)
    db[lane] = Traits::from_float(ds_of(Traits::to_float(pb[lane]), Traits::to_float(db[lane])));
  for (int c = head + lane * 8; c < body_end; c += 256) {
    const uint4 pv = *reinterpret_cast<const uint4*>(prow + c);
    uint4 dv = *reinterpret_cast<const uint4*>(dsrow + c);
    std::uint32_t* dw = &dv.x;
    const std::uint32_t* pw = &pv.x;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float2 pp = Traits::unpack(pw[i]), dp = Traits::unpack(dw[i]);
      dw[i] = Traits::pack(ds_of(pp.x, dp.x), ds_of(pp.y, dp.y));
    }
    *reinterpret_cast<uint4*>(dsrow + c) = dv;
  }
  if (body_end + lane < p.seq_kv) {
    const int c = body_end + lane;
    db[c] = Traits::from_float(ds_of(Traits::to_float(pb[c]), Traits::to_float(db[c])));
  }
}

template <typename T, bool ATrans, bool BTrans, int Bn>
int launch_gemm(const NaiveGemmParams& p, int slices, cudaStream_t s) {
  auto* kernel = &naive_bwd_gemm_kernel<T, ATrans, BTrans, Bn>;
  constexpr int kSmem = static_cast<int>(sizeof(GemmStorage<T, ATrans, BTrans, Bn>));
  cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  if (err != cudaSuccess) return static_cast<int>(err);
  const vocab::Dim3 grid = vocab::naive_bwd_gemm_grid(kTiling, p.m, p.n, Bn, slices);
  kernel<<<dim3(static_cast<unsigned>(grid.x), static_cast<unsigned>(grid.y), static_cast<unsigned>(grid.z)),
           kThreads, kSmem, s>>>(p);
  return static_cast<int>(cudaGetLastError());
}

template <typename T, int D>
int launch_all(const AttentionShape& sh, const BackwardTensors& x, int parts, cudaStream_t s) {
  const int slices = sh.batch * sh.heads;
  const long long nq = sh.seq_q, nkv = sh.seq_kv;
  const long long qd = nq * D, kd = nkv * D, qk = nq * nkv;
  // dV [Nkv x d] = P^T dO: A = P stored [K = Nq][M = Nkv], B = dO [K = Nq][N = d].
  int err = 0;
  if (parts & 1)
    err = launch_gemm<T, true, false, D>(
        NaiveGemmParams{x.p, x.d_o, x.dv, sh.seq_kv, D, sh.seq_q, nkv, D, D, qk, qd, kd, 1.0f}, slices, s);
  if (err != 0) return err;
  // dP [Nq x Nkv] = dO V^T: A = dO [M = Nq][K = d], B = V stored [N = Nkv][K = d].
  if (parts & 2)
    err = launch_gemm<T, false, true, kTiling.bn>(
        NaiveGemmParams{x.d_o, x.v, x.ds, sh.seq_q, sh.seq_kv, D, D, D, nkv, qd, kd, qk, 1.0f}, slices, s);
  if (err != 0) return err;
  // dS = P o (dP - rowsum(dO o O)), in place of dP.
  if (parts & 4) {
    const vocab::Dim3 dsg = vocab::naive_bwd_ds_grid(kTiling, sh.seq_q, slices);
    naive_bwd_ds_kernel<T, D>
        <<<dim3(static_cast<unsigned>(dsg.x), static_cast<unsigned>(dsg.y)), 32 * kTiling.ds_rows_per_cta, 0,
           s>>>(NaiveDsParams{x.o, x.d_o, x.p, x.ds, sh.seq_q, sh.seq_kv});
    err = static_cast<int>(cudaGetLastError());
  }
  if (err != 0) return err;
  // dQ [Nq x d] = scale dS K: A = dS [M = Nq][K = Nkv], B = K [K = Nkv][N = d].
  if (parts & 8)
    err = launch_gemm<T, false, false, D>(
        NaiveGemmParams{x.ds, x.k, x.dq, sh.seq_q, D, sh.seq_kv, nkv, D, D, qk, kd, qd, sh.scale}, slices, s);
  if (err != 0) return err;
  // dK [Nkv x d] = scale dS^T Q: A = dS stored [K = Nq][M = Nkv], B = Q [K = Nq][N = d].
  if (parts & 16)
    err = launch_gemm<T, true, false, D>(
        NaiveGemmParams{x.ds, x.q, x.dk, sh.seq_kv, D, sh.seq_q, nkv, D, D, qk, qd, kd, sh.scale}, slices, s);
  return err;
}

}  // namespace

int launch_naive_backward_kernels(const AttentionShape& shape, const BackwardTensors& tensors, int parts,
                                  Stream stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  const bool bf16 = shape.dtype == DType::bf16;
  if (shape.head_dim == 64)
    return bf16 ? launch_all<__nv_bfloat16, 64>(shape, tensors, parts, s)
                : launch_all<__half, 64>(shape, tensors, parts, s);
  return bf16 ? launch_all<__nv_bfloat16, 128>(shape, tensors, parts, s)
              : launch_all<__half, 128>(shape, tensors, parts, s);
}

}  // namespace attnscope::kernels::detail
