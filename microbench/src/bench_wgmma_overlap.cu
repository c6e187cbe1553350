// SPDX-License-Identifier: Apache-2.0
// wgmma_overlap: can an SM run warpgroup MMAs and exponentials (MUFU ex2) at the same time, and at what cost?
// The Hopper attention kernel's kv step issues its GEMMs (asynchronous wgmma) and then computes the softmax
// of a tile (ex2.approx per score) while they run; its measured step is close to the sum of the two pipes'
// times, not the longer of them (docs/hopper-kernel.md). This benchmark asks the question without attention
// around it.
//
// One CTA per SM (forced by its shared-memory request) of four warpgroups. One round is 1 024 cycles of
// tensor work at the datasheet's 4 096 dense fp16 FLOP per SM per cycle (two warpgroups each issuing 8 x
// m64n128k16, or 16 x m64n64k16) and 1 024 cycles of exponentials at 16 per SM per cycle (16 384 ex2.approx,
// 8 independent chains per thread). Modes, each `iters` rounds:
//   tensor    warpgroups 0-1 issue the wgmmas (fence, W wgmma, commit, wait), 2-3 idle
//   exp       warpgroups 2-3 run the exponentials (64 per thread per round), 0-1 idle
//   separate  both at once, in different warpgroups (0-1 the wgmmas, 2-3 the exponentials)
//   same      warpgroups 0-1 issue the wgmmas, then run the exponentials (64 per thread) while they
//             are in flight, then wait: the attention kernel's overlapped schedule
// The operand kinds: SS m64n128k16 x 8 (both operands in shared memory, as for S = Q K^T), RS m64n64k16 x 16
// and RS m64n128k16 x 8 (A from registers, B MN-major in shared memory, as for O += P V). Reported: cycles
// per round (%clock64 over the CTA). If `separate` and `same` take max(tensor, exp) the SM overlaps the two;
// if they take tensor + exp, it does not.
#include <cuda_fp16.h>

#include <string>
#include <vector>

#include "common.cuh"
#include "wgmma_ops.cuh"  // kernels/src: the kernel's own generated wrappers

namespace attnscope::microbench {
namespace {

constexpr int kWarpgroupThreads = 128;
constexpr int kRowBytes = 128;                            // one 128-byte swizzle atom row (64 fp16)
constexpr int kKSteps = 8;                                // k16 steps the B tile holds (128 rows along K)
constexpr int kColBlockBytes = 16 * kKSteps * kRowBytes;  // one 64-column block of the MN-major B tile
constexpr int kExpChains = 8;

enum class Operands { ss_n128, rs_n64, rs_n128 };
enum class Mode { tensor, exp, separate, same };

template <Operands Op>
struct Tensor {
  static constexpr int kN = Op == Operands::rs_n64 ? 64 : 128;
  static constexpr int kPerRound = Op == Operands::rs_n64 ? 16 : 8;  // 2^21 FLOP per warpgroup per round
  float d[kN / 2];
  std::uint32_t a[4];
  __device__ __forceinline__ void init() {
#pragma unroll
    for (int i = 0; i < kN / 2; ++i) d[i] = 0.0f;
#pragma unroll
    for (int i = 0; i < 4; ++i) a[i] = 0x1C001C00u;  // two fp16 0.0039
  }
  __device__ __forceinline__ void issue(std::uint32_t a_base, std::uint32_t b_base) {
#pragma unroll
    for (int w = 0; w < kPerRound; ++w) {
      const int k = w % kKSteps;
      if constexpr (Op == Operands::ss_n128) {
        // K-major A [64 x 64] and B [128 x 64]: the K step moves the start by 32 bytes inside the atom.
        const std::uint32_t k_off = static_cast<std::uint32_t>((k % 4) * 32);
        kernels::device::Wgmma<__half, 128>::ss(d, dev::wgmma_desc(a_base + k_off, 16, 1024),
                                                dev::wgmma_desc(b_base + k_off, 16, 1024), 1);
      } else {
        // MN-major B: 16 rows of K per step; the next 64 columns one column block further.
        const std::uint64_t db =
            dev::wgmma_desc(b_base + static_cast<std::uint32_t>(k * 16 * kRowBytes), kColBlockBytes, 1024);
        kernels::device::Wgmma<__half, kN>::rs_trans_b(d, a, db, 1);
      }
    }
  }
  __device__ __forceinline__ float sum() {
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < kN / 2; ++i) s += d[i];
    return s;
  }
};

template <int PerThread>
__device__ __forceinline__ void exps(float (&x)[kExpChains]) {
#pragma unroll
  for (int r = 0; r < PerThread / kExpChains; ++r) {
#pragma unroll
    for (int c = 0; c < kExpChains; ++c) x[c] = dev::ex2(-x[c]);  // stays in (0.5, 0.71)
  }
}

template <Operands Op, Mode M>
__global__ void __launch_bounds__(4 * kWarpgroupThreads, 1)
    wgmma_overlap_kernel(int iters, float* out, BlockClock* clk) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const std::uint32_t base = (dev::smem_addr(smem_raw) + 1023u) & ~1023u;
  unsigned char* aligned = smem_raw + (base - dev::smem_addr(smem_raw));
  // A [64 x 64] (8 KiB) then B: 2 column blocks of 128 K rows (32 KiB), small nonzero values.
  auto* tiles = reinterpret_cast<__half*>(aligned);
  const int halves = (8192 + 2 * kColBlockBytes) / 2;
  for (int i = static_cast<int>(threadIdx.x); i < halves; i += static_cast<int>(blockDim.x))
    tiles[i] = __float2half(0.001f * static_cast<float>((i % 7) + 1));
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // generic stores, async-proxy reads
  const std::uint32_t a_base = base, b_base = base + 8192;
  const int warpgroup = static_cast<int>(threadIdx.x) / kWarpgroupThreads;
  const bool tensor_role = warpgroup < 2 && M != Mode::exp;
  const bool exp_role = (warpgroup >= 2 && (M == Mode::exp || M == Mode::separate));
  Tensor<Op> t;
  t.init();
  float x[kExpChains];
#pragma unroll
  for (int c = 0; c < kExpChains; ++c) x[c] = 0.5f + 0.01f * static_cast<float>(c + threadIdx.x % 7);
  // The `same` mode's ordering store: one word per warp, written before the wait so that ptxas keeps the
  // exponentials ahead of it (it would otherwise hoist the wait above them, as in the attention kernel).
  const std::uint32_t flag = base + 8192 + 2 * kColBlockBytes + 4 * (threadIdx.x / 32);
  const bool lane0 = threadIdx.x % 32 == 0;

  dev::ClockStamp stamp;
  stamp.begin();
  if (tensor_role) {
    for (int it = 0; it < iters; ++it) {
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
      t.issue(a_base, b_base);
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      if constexpr (M == Mode::same) {
        exps<64>(x);
        float s = 0.0f;
#pragma unroll
        for (int c = 0; c < kExpChains; ++c) s += x[c];
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %2, 0;\n@p st.shared.f32 [%0], %1;\n}\n" ::"r"(flag),
                     "f"(s), "r"(static_cast<std::uint32_t>(lane0))
                     : "memory");
      }
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    }
  } else if (exp_role) {
    for (int it = 0; it < iters; ++it) exps<64>(x);
  }
#pragma unroll
  for (int i = 0; i < Tensor<Op>::kN / 2; ++i) asm volatile("" : "+f"(t.d[i])::"memory");
  stamp.end(clk);
  float s = t.sum();
#pragma unroll
  for (int c = 0; c < kExpChains; ++c) s += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

using OverlapKernel = void (*)(int, float*, BlockClock*);
template <Operands Op>
OverlapKernel overlap_kernel_for(Mode m) {
  switch (m) {
    case Mode::tensor:
      return wgmma_overlap_kernel<Op, Mode::tensor>;
    case Mode::exp:
      return wgmma_overlap_kernel<Op, Mode::exp>;
    case Mode::separate:
      return wgmma_overlap_kernel<Op, Mode::separate>;
    default:
      return wgmma_overlap_kernel<Op, Mode::same>;
  }
}

void run_wgmma_overlap(Context& ctx) {
  const std::string bench = "wgmma_overlap";
  const int smem = ctx.smem_per_block_optin / 2 + 1024;  // over half: one CTA per SM
  const int blocks = ctx.sm_count;
  const int threads = 4 * kWarpgroupThreads;
  const int iters = 4096;  // ~4 M cycles per launch
  const struct {
    Operands op;
    const char* name;
  } ops[] = {{Operands::ss_n128, "ss m64n128k16 x 8"},
             {Operands::rs_n64, "rs m64n64k16 x 16"},
             {Operands::rs_n128, "rs m64n128k16 x 8"}};
  const struct {
    Mode m;
    const char* name;
  } modes[] = {
      {Mode::tensor, "tensor"}, {Mode::exp, "exp"}, {Mode::separate, "separate"}, {Mode::same, "same"}};
  for (const auto& op : ops) {
    for (const auto& mode : modes) {
      OverlapKernel k = op.op == Operands::ss_n128  ? overlap_kernel_for<Operands::ss_n128>(mode.m)
                        : op.op == Operands::rs_n64 ? overlap_kernel_for<Operands::rs_n64>(mode.m)
                                                    : overlap_kernel_for<Operands::rs_n128>(mode.m);
      allow_smem(k, smem);
      DeviceBuffer<float> out(std::size_t(blocks) * threads);
      DeviceBuffer<BlockClock> clk(blocks);
      std::vector<double> cycles, ghz;
      for (int r = 0; r < ctx.reps(5) + 1; ++r) {
        k<<<blocks, threads, smem>>>(iters, out.get(), clk.get());
        MB_LAUNCHED();
        MB_CHECK(cudaDeviceSynchronize());
        if (r == 0) continue;  // warm-up
        const ClockSummary c = summarize_clocks(clk.copy_out());
        cycles.push_back(c.mean_cycles / iters);
        ghz.push_back(c.ghz);
      }
      const Params p = {{"operands", op.name},
                        {"mode", mode.name},
                        {"tensor_cycles_ideal", 1024},
                        {"exp_cycles_ideal", 1024},
                        {"rounds", iters}};
      check_finite(ctx, bench, std::string(op.name) + " " + mode.name, out);
      ctx.rec->result(bench, "cycles_per_round", "cycles", cycles, p, ghz);
    }
  }
}

}  // namespace

void add_wgmma_overlap_benchmarks(std::vector<Benchmark>& out) {
  out.push_back({"wgmma_overlap",
                 "wgmma (SS m64n128k16, RS m64n64k16, RS m64n128k16) beside ex2.approx: cycles per round of "
                 "1 024 ideal cycles of each, alone, in separate warpgroups and in the same warpgroups",
                 run_wgmma_overlap});
}

}  // namespace attnscope::microbench
