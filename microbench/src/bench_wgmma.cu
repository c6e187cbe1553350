// SPDX-License-Identifier: Apache-2.0
// wgmma microbenchmarks: the rate and the round-trip latency of Hopper's warpgroup MMA with both operands in
// shared memory, as the Hopper attention kernel issues it for S = Q K^T (kernels/src/hopper_kernel.cuh).
//
// wgmma_rate   One CTA per SM (forced by its shared-memory request) of 1..3 warpgroups; each warpgroup runs
//              `iters` rounds of: wgmma.fence, W wgmma.mma_async m64nNk16 (fp16 in, f32 accumulate) into one
//              accumulator, commit_group, wait_group 0. A is [64 x 64] and B [N x 64], K-major, 128-byte
//              swizzled in shared memory (the kernel's layout and descriptors; the K step moves the start by
//              32 bytes). W = 4 is one d-64 S tile per round (the kernel's per-step GEMM), W = 8 a d-128 one,
//              W = 1 a round trip per instruction. Reports FLOP per SM per cycle (%clock64) and TFLOP/s
//              (events) for N = 64 and 128: what the model's `wgmma_efficiency` (its rate over the
//              datasheet's 989.4 TFLOP/s) stands for, and how much of it the wait after each round costs.
#include <cuda_fp16.h>

#include <string>
#include <vector>

#include "common.cuh"
#include "wgmma_ops.cuh"  // kernels/src: the kernel's own generated wrappers

namespace attnscope::microbench {
namespace {

constexpr int kRowBytes = 128;          // 64 fp16 per row: one 128-byte swizzle atom row
constexpr int kTileK = 64;              // K of the tiles in shared memory
constexpr int kSteps = kTileK / 16;     // wgmma k16 steps inside one tile
constexpr int kWarpgroupThreads = 128;  // four warps

// The Hopper kernel's descriptor for a K-major 128-byte-row tile: leading byte offset 16, stride byte offset
// 1024 (8 rows of 128 B).
__device__ __forceinline__ std::uint64_t smem_desc(std::uint32_t addr) {
  return dev::wgmma_desc(addr, 16, 1024);
}

template <int N, int W>
__global__ void __launch_bounds__(3 * kWarpgroupThreads)
    wgmma_rate_kernel(int iters, float* out, BlockClock* clk) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  // 1024-byte alignment of the swizzled tiles (the dynamic shared memory base is only 16-byte aligned).
  const std::uint32_t base = (dev::smem_addr(smem_raw) + 1023u) & ~1023u;
  unsigned char* aligned = smem_raw + (base - dev::smem_addr(smem_raw));
  // A [64 x 64] then B [N x 64], small nonzero values (the products stay far from overflow over any run).
  auto* tiles = reinterpret_cast<__half*>(aligned);
  const int halves = (64 + N) * kTileK;
  for (int i = static_cast<int>(threadIdx.x); i < halves; i += static_cast<int>(blockDim.x))
    tiles[i] = __float2half(0.001f * static_cast<float>((i % 7) + 1));
  // The fills are generic-proxy stores; wgmma reads shared memory through the async proxy.
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  const std::uint32_t a_base = base, b_base = base + 64 * kRowBytes;
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.0f;
  dev::ClockStamp stamp;
  stamp.begin();
  for (int it = 0; it < iters; ++it) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int w = 0; w < W; ++w) {
      const std::uint32_t k_off = static_cast<std::uint32_t>((w % kSteps) * 32);
      kernels::device::Wgmma<__half, N>::ss(d, smem_desc(a_base + k_off), smem_desc(b_base + k_off), 1);
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  }
#pragma unroll
  for (int i = 0; i < N / 2; ++i) asm volatile("" : "+f"(d[i])::"memory");
  stamp.end(clk);
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += d[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

using RateKernel = void (*)(int, float*, BlockClock*);
template <int N>
RateKernel rate_kernel_for(int w) {
  switch (w) {
    case 1:
      return wgmma_rate_kernel<N, 1>;
    case 4:
      return wgmma_rate_kernel<N, 4>;
    default:
      return wgmma_rate_kernel<N, 8>;
  }
}

void run_wgmma_rate(Context& ctx) {
  const std::string bench = "wgmma_rate";
  // Over half the per-block opt-in shared memory: one CTA per SM, so a CTA's warpgroups are the SM's.
  const int smem = ctx.smem_per_block_optin / 2 + 1024;
  const int blocks = ctx.sm_count;
  EventTimer timer;
  for (int n : {64, 128}) {
    for (int w : {1, 4, 8}) {
      const RateKernel k = n == 64 ? rate_kernel_for<64>(w) : rate_kernel_for<128>(w);
      allow_smem(k, smem);
      for (int warpgroups : {1, 2, 3}) {
        // 2^15 wgmma per warpgroup per launch at W = 4 and 8; 2^12 round trips at W = 1.
        const int iters = (1 << 15) * (w == 1 ? 1 : 8 / w) / 8;
        const int threads = warpgroups * kWarpgroupThreads;
        DeviceBuffer<float> out(std::size_t(blocks) * threads);
        DeviceBuffer<BlockClock> clk(blocks);
        std::vector<double> per_sm, tflops, round_cycles, ghz;
        const double flops_per_wgmma = 2.0 * 64 * n * 16;
        for (int r = 0; r < ctx.reps(5) + 1; ++r) {
          timer.start();
          k<<<blocks, threads, smem>>>(iters, out.get(), clk.get());
          MB_LAUNCHED();
          const double ms = timer.stop_ms();
          if (r == 0) continue;
          const ClockSummary c = summarize_clocks(clk.copy_out());
          const double flops_per_sm = double(warpgroups) * iters * w * flops_per_wgmma;
          per_sm.push_back(flops_per_sm / c.mean_cycles);
          tflops.push_back(flops_per_sm * blocks / (ms * 1e-3) / 1e12);
          round_cycles.push_back(c.mean_cycles / iters);
          ghz.push_back(c.ghz);
        }
        const Params p = {{"instruction", n == 64 ? "m64n64k16.f32.f16.f16" : "m64n128k16.f32.f16.f16"},
                          {"wgmma_per_commit", w},
                          {"warpgroups_per_sm", warpgroups},
                          {"rounds", iters}};
        if (warpgroups == 3)
          check_finite(ctx, bench, "n" + std::to_string(n) + " w" + std::to_string(w), out);
        ctx.rec->result(bench, "flop_per_sm_per_cycle", "FLOP/cycle", per_sm, p, ghz);
        ctx.rec->result(bench, "tflops", "TFLOP/s", tflops, p);
        ctx.rec->result(bench, "cycles_per_round", "cycles", round_cycles, p);
      }
    }
  }
}

}  // namespace

void add_wgmma_benchmarks(std::vector<Benchmark>& out) {
  out.push_back(
      {"wgmma_rate",
       "wgmma m64nNk16 fp16 (N 64, 128) with operands in swizzled shared memory: FLOP per SM per cycle "
       "and round-trip cycles vs wgmmas per commit (1, 4, 8) and warpgroups per SM (1-3)",
       run_wgmma_rate});
}

}  // namespace attnscope::microbench
