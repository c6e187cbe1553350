// SPDX-License-Identifier: Apache-2.0
// Compute-pipe microbenchmarks: the effective SM clock, mma.sync latency and throughput, ex2.approx (MUFU)
// throughput, and the cost of one warp step of the tiled attention kernel's inner loop.
//
// sm_clock      All SMs run a dependent FFMA chain for ~20 ms; per block %clock64 cycles over %globaltimer ns
//               is the SM clock the chip runs at under load (no NVML here).
// mma_latency   One warp, one dependent chain of mma.sync (D += A B, D fed back): cycles per instruction, for
//               m16n8k16 fp16 and bf16 (f32 accumulate), m16n8k8 fp16 (f32) and m16n8k16 fp16 (f16 acc).
// mma_throughput One CTA per SM (forced by its shared-memory request), 1..32 warps, each warp issuing 1..8
//               independent accumulator chains: mma.sync per SM per cycle (%clock64) and TFLOP/s (events),
//               m16n8k16 fp16 and bf16, f32 accumulate. The model's `mma_sync_efficiency` is this rate over
//               the datasheet's dense tensor rate.
// mufu_ex2      ex2.approx.ftz.f32 (the kernels' exp2) per SM per cycle, 1..32 warps x 1..8 chains; and the
//               latency of one dependent chain.
// warp_step     The tiled forward kernel's inner loop (d 64, Bc 64, 4 warps of 32 query rows, K/V tiles in
//               swizzled shared memory): per warp and step 16 ldmatrix.x4 of K, 64 mma (S = Q K^T), online
//               softmax (row max with 2 shuffles per row, 66 ex2, rescale of O), 16 ldmatrix.x4.trans of V
//               and 64 mma (O += P V). Variants add one part at a time: mma only; + ldmatrix; + softmax; +
//               one barrier per step; + the next tile's cp.async (16 KB per step from L2). 1..4 CTAs per SM.
//               Cycles per CTA step minus the mma-only variant's are what `warp_step_overhead_cycles` stands
//               for.
// warp_step_occupancy The warp_step loop (fp16) at 1..8 CTAs of 4 warps per SM (1..8 warps per
// sub-partition):
//               the tiled kernel's shape where it fits (1-2 CTAs) and a 64-register shape (16 rows, d 32, Bc
//               32) to 8. Cycles per warp step; the SASS loop body gives the instructions per step.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common.cuh"

namespace attnscope::microbench {
namespace {

// ---- Random operands (device-side hash; never zeros) -----------------------------------------------------
__device__ __forceinline__ std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}
// Pairs of 16-bit floats (fp16 or bf16) uniform in +-scale, packed in 32-bit words.
__global__ void init_halves(std::uint32_t* out, std::size_t n, std::uint32_t seed, float scale, bool bf16) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::uint32_t h = hash32(static_cast<std::uint32_t>(i) * 2654435761U ^ seed);
    const float lo = (static_cast<float>(h & 0xffffU) / 65535.0f * 2.0f - 1.0f) * scale;
    const float hi = (static_cast<float>(h >> 16) / 65535.0f * 2.0f - 1.0f) * scale;
    std::uint32_t packed;
    if (bf16) {
      const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
      packed = *reinterpret_cast<const std::uint32_t*>(&v);
    } else {
      const __half2 v = __floats2half2_rn(lo, hi);
      packed = *reinterpret_cast<const std::uint32_t*>(&v);
    }
    out[i] = packed;
  }
}

DeviceBuffer<std::uint32_t> random_halves(std::size_t words, std::uint32_t seed, float scale, bool bf16) {
  DeviceBuffer<std::uint32_t> b(words);
  init_halves<<<256, 256>>>(b.get(), words, seed, scale, bf16);
  MB_LAUNCHED();
  MB_CHECK(cudaDeviceSynchronize());
  return b;
}

// ---- sm_clock
// -----------------------------------------------------------------------------------------------
__global__ void clock_probe_kernel(std::uint64_t ns, float* out, BlockClock* clk) {
  dev::ClockStamp stamp;
  stamp.begin();
  float x = 1.0f + threadIdx.x * 1e-7f, y = 0.999999f;
  const std::uint64_t t0 = dev::globaltimer();
  while (dev::globaltimer() - t0 < ns) {
#pragma unroll 16
    for (int i = 0; i < 256; ++i) x = fmaf(x, y, 1e-7f);
  }
  stamp.end(clk);
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

void run_sm_clock(Context& ctx) {
  const int blocks = ctx.sm_count, threads = 256;
  DeviceBuffer<float> out(std::size_t(blocks) * threads);
  DeviceBuffer<BlockClock> clk(blocks);
  std::vector<double> ghz;
  for (int r = 0; r < ctx.reps(5) + 1; ++r) {
    clock_probe_kernel<<<blocks, threads>>>(20'000'000, out.get(), clk.get());
    MB_LAUNCHED();
    MB_CHECK(cudaDeviceSynchronize());
    if (r == 0) continue;  // warmup (the clock ramps up under load)
    ghz.push_back(summarize_clocks(clk.copy_out()).ghz);
  }
  check_finite(ctx, "sm_clock", "FFMA chain", out);
  ctx.rec->result("sm_clock", "sm_clock", "GHz", ghz, {{"blocks", blocks}, {"threads", threads}, {"ms", 20}});
}

// ---- mma.sync --------------------------------------------------------------------------------------------
enum MmaKind { kF16 = 0, kBf16 = 1, kF16K8 = 2, kF16Acc16 = 3 };
const char* kind_name(int k) {
  switch (k) {
    case kF16:
      return "m16n8k16.f32.f16";
    case kBf16:
      return "m16n8k16.f32.bf16";
    case kF16K8:
      return "m16n8k8.f32.f16";
    default:
      return "m16n8k16.f16.f16";
  }
}
constexpr double kind_flops(int k) {
  return k == kF16K8 ? 2.0 * 16 * 8 * 8 : 2.0 * 16 * 8 * 16;
}

// Each warp runs `Ilp` independent accumulator chains of `iters` mma.sync each.
template <int Kind, int Ilp>
__global__ void mma_kernel(int iters, const std::uint32_t* in, float* out, BlockClock* clk) {
  const int lane = threadIdx.x % 32;
  std::uint32_t a[4], b0 = in[128 + lane], b1 = in[160 + lane];
#pragma unroll
  for (int i = 0; i < 4; ++i) a[i] = in[i * 32 + lane];
  float d[Ilp][4];
  std::uint32_t h[Ilp][2];
#pragma unroll
  for (int c = 0; c < Ilp; ++c) {
#pragma unroll
    for (int e = 0; e < 4; ++e) d[c][e] = 0.0f;
    h[c][0] = h[c][1] = 0;
  }
  dev::ClockStamp stamp;
  stamp.begin();
#pragma unroll 4
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < Ilp; ++c) {
      if constexpr (Kind == kF16) dev::mma16816<false>(d[c], a, b0, b1);
      if constexpr (Kind == kBf16) dev::mma16816<true>(d[c], a, b0, b1);
      if constexpr (Kind == kF16K8) {
        const std::uint32_t a2[2] = {a[0], a[1]};
        dev::mma1688(d[c], a2, b0);
      }
      if constexpr (Kind == kF16Acc16) dev::mma16816_f16acc(h[c], a, b0, b1);
    }
  }
  stamp.end(clk);
  float s = 0;
#pragma unroll
  for (int c = 0; c < Ilp; ++c) {
    s += d[c][0] + d[c][1] + d[c][2] + d[c][3];
    if constexpr (Kind == kF16Acc16) {
      const __half2 v0 = *reinterpret_cast<const __half2*>(&h[c][0]);
      const __half2 v1 = *reinterpret_cast<const __half2*>(&h[c][1]);
      s += __low2float(v0) + __high2float(v0) + __low2float(v1) + __high2float(v1);
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

using MmaKernel = void (*)(int, const std::uint32_t*, float*, BlockClock*);
template <int Kind>
MmaKernel mma_kernel_for(int ilp) {
  switch (ilp) {
    case 1:
      return mma_kernel<Kind, 1>;
    case 2:
      return mma_kernel<Kind, 2>;
    case 4:
      return mma_kernel<Kind, 4>;
    default:
      return mma_kernel<Kind, 8>;
  }
}
MmaKernel mma_kernel_for(int kind, int ilp) {
  switch (kind) {
    case kF16:
      return mma_kernel_for<kF16>(ilp);
    case kBf16:
      return mma_kernel_for<kBf16>(ilp);
    case kF16K8:
      return mma_kernel_for<kF16K8>(ilp);
    default:
      return mma_kernel_for<kF16Acc16>(ilp);
  }
}

void run_mma_latency(Context& ctx) {
  const std::string bench = "mma_latency";
  const int iters = 8192;
  DeviceBuffer<float> out(32);
  DeviceBuffer<BlockClock> clk(1);
  for (int kind : {kF16, kBf16, kF16K8, kF16Acc16}) {
    // Small operands: 8192 chained products stay far from overflow, also in fp16 accumulators.
    const auto in = random_halves(256, 17u + static_cast<std::uint32_t>(kind),
                                  kind == kF16Acc16 ? 0.02f : 0.25f, kind == kBf16);
    const MmaKernel k = mma_kernel_for(kind, 1);
    std::vector<double> cyc, ghz;
    for (int r = 0; r < ctx.reps(9) + 1; ++r) {
      k<<<1, 32>>>(iters, in.get(), out.get(), clk.get());
      MB_LAUNCHED();
      MB_CHECK(cudaDeviceSynchronize());
      if (r == 0) continue;
      const ClockSummary c = summarize_clocks(clk.copy_out());
      cyc.push_back(c.mean_cycles / iters);
      ghz.push_back(c.ghz);
    }
    check_finite(ctx, bench, kind_name(kind), out);
    ctx.rec->result(bench, "latency", "cycles", cyc, {{"instruction", kind_name(kind)}, {"chain", iters}},
                    ghz);
  }
}

void run_mma_throughput(Context& ctx) {
  const std::string bench = "mma_throughput";
  // Over half the per-block opt-in shared memory: one CTA per SM, so a CTA's warps are the SM's warps.
  const int smem = ctx.smem_per_block_optin / 2 + 1024;
  const int blocks = ctx.sm_count;
  EventTimer timer;
  for (int kind : {kF16, kBf16}) {
    const auto in = random_halves(256, 29u + static_cast<std::uint32_t>(kind), 0.25f, kind == kBf16);
    for (int warps : {1, 2, 4, 8, 16, 32}) {
      for (int ilp : {1, 2, 4, 8}) {
        const MmaKernel k = mma_kernel_for(kind, ilp);
        allow_smem(k, smem);
        // About a million mma.sync per SM per launch, fewer where the rate is latency-bound.
        const int iters = std::clamp((1 << 20) / (warps * ilp), 2048, 1 << 16);
        DeviceBuffer<float> out(std::size_t(blocks) * warps * 32);
        DeviceBuffer<BlockClock> clk(blocks);
        std::vector<double> per_sm, tflops, ghz;
        for (int r = 0; r < ctx.reps(5) + 1; ++r) {
          timer.start();
          k<<<blocks, warps * 32, smem>>>(iters, in.get(), out.get(), clk.get());
          MB_LAUNCHED();
          const double ms = timer.stop_ms();
          if (r == 0) continue;
          const ClockSummary c = summarize_clocks(clk.copy_out());
          const double mma_per_sm = double(warps) * ilp * iters;
          per_sm.push_back(mma_per_sm / c.mean_cycles);
          tflops.push_back(mma_per_sm * blocks * kind_flops(kind) / (ms * 1e-3) / 1e12);
          ghz.push_back(c.ghz);
        }
        const Params p = {{"instruction", kind_name(kind)},
                          {"warps_per_sm", warps},
                          {"chains_per_warp", ilp},
                          {"iterations", iters}};
        if (warps == 32 && ilp == 8) check_finite(ctx, bench, kind_name(kind), out);
        ctx.rec->result(bench, "mma_per_sm_per_cycle", "1/cycle", per_sm, p, ghz);
        ctx.rec->result(bench, "tflops", "TFLOP/s", tflops, p);
      }
    }
  }
}

// ---- ex2.approx (MUFU)
// -------------------------------------------------------------------------------------
template <int Ilp>
__global__ void ex2_kernel(int iters, float* out, BlockClock* clk) {
  float x[Ilp];
#pragma unroll
  for (int c = 0; c < Ilp; ++c) x[c] = 0.5f + 0.001f * static_cast<float>((threadIdx.x + c) % 97);
  dev::ClockStamp stamp;
  stamp.begin();
#pragma unroll 8
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < Ilp; ++c) x[c] = dev::ex2(-x[c]);  // stays in (0.5, 0.71): no overflow, no denormals
  }
  stamp.end(clk);
  float s = 0;
#pragma unroll
  for (int c = 0; c < Ilp; ++c) s += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
using Ex2Kernel = void (*)(int, float*, BlockClock*);
Ex2Kernel ex2_kernel_for(int ilp) {
  switch (ilp) {
    case 1:
      return ex2_kernel<1>;
    case 4:
      return ex2_kernel<4>;
    default:
      return ex2_kernel<8>;
  }
}

void run_mufu_ex2(Context& ctx) {
  const std::string bench = "mufu_ex2";
  {  // latency: one warp, one chain
    const int iters = 1 << 14;
    DeviceBuffer<float> out(32);
    DeviceBuffer<BlockClock> clk(1);
    std::vector<double> cyc, ghz;
    for (int r = 0; r < ctx.reps(9) + 1; ++r) {
      ex2_kernel<1><<<1, 32>>>(iters, out.get(), clk.get());
      MB_LAUNCHED();
      MB_CHECK(cudaDeviceSynchronize());
      if (r == 0) continue;
      const ClockSummary c = summarize_clocks(clk.copy_out());
      cyc.push_back(c.mean_cycles / iters);
      ghz.push_back(c.ghz);
    }
    check_finite(ctx, bench, "latency chain", out);
    ctx.rec->result(
        bench, "latency", "cycles", cyc, {{"instruction", "ex2.approx.ftz.f32"}, {"chain", iters}}, ghz,
        "includes the negation of the operand (folded into MUFU.EX2 when the SASS shows no FADD)");
  }
  const int smem = ctx.smem_per_block_optin / 2 + 1024;
  const int blocks = ctx.sm_count;
  for (int warps : {1, 4, 8, 16, 32}) {
    for (int ilp : {1, 4, 8}) {
      const Ex2Kernel k = ex2_kernel_for(ilp);
      allow_smem(k, smem);
      const int iters = std::clamp((1 << 18) / (warps * ilp), 1024, 1 << 16);
      DeviceBuffer<float> out(std::size_t(blocks) * warps * 32);
      DeviceBuffer<BlockClock> clk(blocks);
      std::vector<double> per_sm, ghz;
      for (int r = 0; r < ctx.reps(5) + 1; ++r) {
        k<<<blocks, warps * 32, smem>>>(iters, out.get(), clk.get());
        MB_LAUNCHED();
        MB_CHECK(cudaDeviceSynchronize());
        if (r == 0) continue;
        const ClockSummary c = summarize_clocks(clk.copy_out());
        per_sm.push_back(32.0 * warps * ilp * iters / c.mean_cycles);
        ghz.push_back(c.ghz);
      }
      if (warps == 32 && ilp == 8) check_finite(ctx, bench, "throughput", out);
      ctx.rec->result(bench, "ex2_per_sm_per_cycle", "1/cycle", per_sm,
                      {{"instruction", "ex2.approx.ftz.f32"},
                       {"warps_per_sm", warps},
                       {"chains_per_warp", ilp},
                       {"iterations", iters}},
                      ghz);
    }
  }
}

// ---- warp_step
// ---------------------------------------------------------------------------------------------
constexpr int kStepD = 64, kStepBc = 64, kStepM = 2, kStepThreads = 128;
constexpr int kTileBytes = kStepBc * kStepD * 2;  // one K or V tile, 8 KB
enum StepVariant { kMmaOnly = 0, kMmaLdsm = 1, kSoftmax = 2, kBarrier = 3, kCpAsync = 4 };
const char* variant_name(int v) {
  switch (v) {
    case kMmaOnly:
      return "mma";
    case kMmaLdsm:
      return "mma+ldmatrix";
    case kSoftmax:
      return "mma+ldmatrix+softmax";
    case kBarrier:
      return "mma+ldmatrix+softmax+barrier";
    default:
      return "mma+ldmatrix+softmax+barrier+cp.async";
  }
}

__device__ __forceinline__ std::uint32_t pack2(float lo, float hi, bool bf16) {
  std::uint32_t r;
  if (bf16)
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
// Swizzled tile rows of D halves. 128-byte rows (d 64): 16-byte chunk c of row r sits at chunk c ^ (r % 8).
// 64-byte rows (d 32): at chunk c ^ ((r / 2) % 4), so that 8 consecutive rows of one chunk (one ldmatrix
// phase) still fall on 8 distinct 16-byte bank groups.
template <int D>
__device__ __forceinline__ std::uint32_t swz(int row, int chunk) {
  static_assert(D == 64 || D == 32, "swizzle defined for 128- and 64-byte rows");
  if constexpr (D == 64) return static_cast<std::uint32_t>(row * 128 + ((chunk ^ (row & 7)) << 4));
  return static_cast<std::uint32_t>(row * 64 + ((chunk ^ ((row >> 1) & 3)) << 4));
}

// M m-tiles of 16 query rows per warp, head dim D, Bc keys per step; MinCtas goes to __launch_bounds__ (the
// register budget ptxas keeps to). The defaults are the tiled kernel's shape that `warp_step` times; the
// `warp_step_occupancy` benchmark also builds a smaller shape whose registers let 8 CTAs share an SM.
template <bool Bf16, int Variant, int M = kStepM, int D = kStepD, int BC = kStepBc, int MinCtas = 1>
__global__ void __launch_bounds__(kStepThreads, MinCtas)
    warp_step_kernel(int steps, const uint4* kv, int kv_tiles, const std::uint32_t* qin, float* out,
                     BlockClock* clk, std::uint32_t* smids) {
  constexpr int kTile = BC * D * 2, kKt = D / 16, kNt = BC / 8;
  static_assert(2 * kTile % (16 * kStepThreads) == 0, "cp.async chunks split evenly over the threads");
  // K stage 0, K stage 1, V stage 0, V stage 1.
  __shared__ alignas(128) std::uint8_t smem[4 * kTile];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  // Both stages start filled (plain loads): every variant reads initialised tiles.
  for (int i = tid; i < 2 * kTile / 16; i += kStepThreads) {
    reinterpret_cast<uint4*>(smem)[i] = kv[i % (kTile / 16)];
    reinterpret_cast<uint4*>(smem + 2 * kTile)[i] = kv[kTile / 16 + i % (kTile / 16)];
  }
  std::uint32_t q[M][kKt][4];  // Q fragments stay in registers, as in the tiled kernel
#pragma unroll
  for (int mi = 0; mi < M; ++mi)
#pragma unroll
    for (int kk = 0; kk < kKt; ++kk)
#pragma unroll
      for (int e = 0; e < 4; ++e) q[mi][kk][e] = qin[((warp * M + mi) * 4 * kKt + kk * 4 + e) * 32 + lane];
  float o[M][2 * kKt][4], row_max[M][2], row_sum[M][2];
#pragma unroll
  for (int mi = 0; mi < M; ++mi) {
#pragma unroll
    for (int dt = 0; dt < 2 * kKt; ++dt)
#pragma unroll
      for (int e = 0; e < 4; ++e) o[mi][dt][e] = 0.0f;
    row_max[mi][0] = row_max[mi][1] = -1e30f;
    row_sum[mi][0] = row_sum[mi][1] = 0.0f;
  }
  const float scale_log2 = 0.125f * 1.4426950408889634f;
  const std::uint32_t base = dev::smem_addr(smem);
  // ldmatrix lanes: K (B operand of S): rows lane%8 + 8*(lane/16), chunk parity (lane/8)%2.
  const int k_row = lane % 8 + 8 * (lane / 16), k_par = (lane / 8) % 2;
  // V (B operand of P V, transposed): rows lane%16, chunk parity lane/16.
  const int v_row = lane % 16, v_par = lane / 16;
  // S accumulators. Without the softmax nothing reads S within a step, and ptxas drops mma.sync whose results
  // are dead (seen in the SASS): those variants accumulate S over all steps and add it to the checksum.
  float s[M][kNt][4];
#pragma unroll
  for (int mi = 0; mi < M; ++mi)
#pragma unroll
    for (int nt = 0; nt < kNt; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[mi][nt][e] = 0.0f;
  dev::ClockStamp stamp;
  stamp.begin();
  // Not unrolled: one SASS loop iteration is one step, so the loop body's length is the instructions per
  // step.
#pragma unroll 1
  for (int step = 0; step < steps; ++step) {
    const int stage = step & 1;
    if constexpr (Variant >= kBarrier) {
      if constexpr (Variant == kCpAsync) dev::cp_async_wait<0>();  // the tile issued last step has landed
      __syncthreads();  // and everyone is done with the other stage
      if constexpr (Variant == kCpAsync) {
        const uint4* src = kv + std::size_t((step + 1) % kv_tiles) * (2 * kTile / 16);
#pragma unroll
        for (int c = 0; c < 2 * kTile / 16 / kStepThreads; ++c) {
          const int i = tid + c * kStepThreads;  // chunks 0..511 to K, 512..1023 to V, of the other stage
          const int tile = i < kTile / 16 ? 1 - stage : 3 - stage;
          dev::cp_async16(base + static_cast<std::uint32_t>(tile * kTile + (i % (kTile / 16)) * 16), src + i);
        }
        dev::cp_async_commit();
      }
    }
    const std::uint32_t k_tile = base + static_cast<std::uint32_t>(stage * kTile);
    const std::uint32_t v_tile = base + static_cast<std::uint32_t>((2 + stage) * kTile);
    if constexpr (Variant >= kSoftmax) {  // fresh scores each step (the variants before keep accumulating)
#pragma unroll
      for (int mi = 0; mi < M; ++mi)
#pragma unroll
        for (int nt = 0; nt < kNt; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e) s[mi][nt][e] = 0.0f;
    }
    // S = Q K^T
#pragma unroll
    for (int kk = 0; kk < kKt; ++kk) {
#pragma unroll
      for (int np = 0; np < BC / 16; ++np) {
        std::uint32_t b[4];
        if constexpr (Variant == kMmaOnly) {
#pragma unroll
          for (int e = 0; e < 4; ++e) b[e] = q[np % M][kk][e];
        } else {
          dev::ldmatrix_x4(b, k_tile + swz<D>(np * 16 + k_row, kk * 2 + k_par));
        }
#pragma unroll
        for (int mi = 0; mi < M; ++mi) {
          dev::mma16816<Bf16>(s[mi][2 * np], q[mi][kk], b[0], b[1]);
          dev::mma16816<Bf16>(s[mi][2 * np + 1], q[mi][kk], b[2], b[3]);
        }
      }
    }
    // Online softmax into P fragments (or, without it, Q fragments as P V's A operand).
    std::uint32_t p[M][kNt][2];
    if constexpr (Variant >= kSoftmax) {
#pragma unroll
      for (int mr = 0; mr < 2 * M; ++mr) {
        const int mi = mr / 2, r = mr % 2;
        float m = row_max[mi][r];
#pragma unroll
        for (int nt = 0; nt < kNt; ++nt) m = fmaxf(m, fmaxf(s[mi][nt][2 * r], s[mi][nt][2 * r + 1]));
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
        const float m_scaled = m * scale_log2;
        const float alpha = dev::ex2(row_max[mi][r] * scale_log2 - m_scaled);
        row_max[mi][r] = m;
        float sum = 0.0f;
#pragma unroll
        for (int nt = 0; nt < kNt; ++nt) {
          const float p0 = dev::ex2(fmaf(s[mi][nt][2 * r], scale_log2, -m_scaled));
          const float p1 = dev::ex2(fmaf(s[mi][nt][2 * r + 1], scale_log2, -m_scaled));
          p[mi][nt][r] = pack2(p0, p1, Bf16);
          sum += p0 + p1;
        }
        row_sum[mi][r] = row_sum[mi][r] * alpha + sum;
#pragma unroll
        for (int dt = 0; dt < 2 * kKt; ++dt) {
          o[mi][dt][2 * r] *= alpha;
          o[mi][dt][2 * r + 1] *= alpha;
        }
      }
    } else {
#pragma unroll
      for (int mi = 0; mi < M; ++mi)
#pragma unroll
        for (int nt = 0; nt < kNt; ++nt) {
          p[mi][nt][0] = q[mi][(nt / 2) % kKt][(nt % 2) * 2];
          p[mi][nt][1] = q[mi][(nt / 2) % kKt][(nt % 2) * 2 + 1];
        }
    }
    // O += P V
#pragma unroll
    for (int kk = 0; kk < BC / 16; ++kk) {
#pragma unroll
      for (int dp = 0; dp < kKt; ++dp) {
        std::uint32_t b[4];
        if constexpr (Variant == kMmaOnly) {
#pragma unroll
          for (int e = 0; e < 4; ++e) b[e] = q[dp % M][kk % kKt][e];
        } else {
          dev::ldmatrix_x4_trans(b, v_tile + swz<D>(kk * 16 + v_row, dp * 2 + v_par));
        }
#pragma unroll
        for (int mi = 0; mi < M; ++mi) {
          const std::uint32_t a[4] = {p[mi][2 * kk][0], p[mi][2 * kk][1], p[mi][2 * kk + 1][0],
                                      p[mi][2 * kk + 1][1]};
          dev::mma16816<Bf16>(o[mi][2 * dp], a, b[0], b[1]);
          dev::mma16816<Bf16>(o[mi][2 * dp + 1], a, b[2], b[3]);
        }
      }
    }
  }
  if constexpr (Variant == kCpAsync) dev::cp_async_wait<0>();
  stamp.end(clk);
  if (tid == 0) smids[blockIdx.x] = dev::smid();
  float acc = 0;
#pragma unroll
  for (int mi = 0; mi < M; ++mi) {
    acc += row_sum[mi][0] + row_sum[mi][1];
#pragma unroll
    for (int dt = 0; dt < 2 * kKt; ++dt) acc += o[mi][dt][0] + o[mi][dt][1] + o[mi][dt][2] + o[mi][dt][3];
    if constexpr (Variant < kSoftmax) {
#pragma unroll
      for (int nt = 0; nt < kNt; ++nt) acc += s[mi][nt][0] + s[mi][nt][1] + s[mi][nt][2] + s[mi][nt][3];
    }
  }
  out[blockIdx.x * kStepThreads + tid] = acc;
}

using StepKernel = void (*)(int, const uint4*, int, const std::uint32_t*, float*, BlockClock*,
                            std::uint32_t*);
template <bool Bf16, int M = kStepM, int D = kStepD, int BC = kStepBc, int MinCtas = 1>
StepKernel step_kernel_for(int variant) {
  switch (variant) {
    case kMmaOnly:
      return warp_step_kernel<Bf16, kMmaOnly, M, D, BC, MinCtas>;
    case kMmaLdsm:
      return warp_step_kernel<Bf16, kMmaLdsm, M, D, BC, MinCtas>;
    case kSoftmax:
      return warp_step_kernel<Bf16, kSoftmax, M, D, BC, MinCtas>;
    case kBarrier:
      return warp_step_kernel<Bf16, kBarrier, M, D, BC, MinCtas>;
    default:
      return warp_step_kernel<Bf16, kCpAsync, M, D, BC, MinCtas>;
  }
}

// Times `k` at `ctas_per_sm` CTAs of kStepThreads per SM: one warm-up launch, then ctx.reps(5) timed ones,
// each giving its CTAs' mean %clock64 cycles per step and the clock. Checks (named `at`) that the output is
// finite and that no SM ran more CTAs than launched per SM.
struct StepTiming {
  std::vector<double> cycles, ghz;
};
StepTiming time_step_kernel(Context& ctx, const std::string& bench, const std::string& at, StepKernel k,
                            int ctas_per_sm, int steps, const DeviceBuffer<std::uint32_t>& kv, int kv_tiles,
                            const DeviceBuffer<std::uint32_t>& q) {
  const int blocks = ctx.sm_count * ctas_per_sm;
  DeviceBuffer<float> out(std::size_t(blocks) * kStepThreads);
  DeviceBuffer<BlockClock> clk(blocks);
  DeviceBuffer<std::uint32_t> smids(blocks);
  StepTiming t;
  int worst = 0;
  for (int r = 0; r < ctx.reps(5) + 1; ++r) {
    k<<<blocks, kStepThreads>>>(steps, reinterpret_cast<const uint4*>(kv.get()), kv_tiles, q.get(), out.get(),
                                clk.get(), smids.get());
    MB_LAUNCHED();
    MB_CHECK(cudaDeviceSynchronize());
    if (r == 0) continue;
    const ClockSummary c = summarize_clocks(clk.copy_out());
    t.cycles.push_back(c.mean_cycles / steps);
    t.ghz.push_back(c.ghz);
    std::vector<int> per_sm(1024, 0);
    for (std::uint32_t id : smids.copy_out())
      worst = std::max(worst, ++per_sm[std::min<std::uint32_t>(id, 1023)]);
  }
  check_finite(ctx, bench, at, out);
  ctx.rec->check(bench, at + ": CTAs spread evenly over SMs", worst == ctas_per_sm,
                 "most CTAs seen on one SM: " + std::to_string(worst) +
                     ", launched per SM: " + std::to_string(ctas_per_sm));
  return t;
}

void run_warp_step(Context& ctx) {
  const std::string bench = "warp_step";
  const int steps = 512, kv_tiles = 64;  // 64 K/V tile pairs = 1 MB, read by every CTA: L2-resident
  for (bool bf16 : {false, true}) {
    const auto kv = random_halves(std::size_t(kv_tiles) * 2 * kTileBytes / 4, 41u + bf16, 1.0f, bf16);
    const auto q = random_halves(std::size_t(4 * kStepM * 16 * 32), 43u + bf16, 1.0f, bf16);
    for (int variant : {kMmaOnly, kMmaLdsm, kSoftmax, kBarrier, kCpAsync}) {
      const StepKernel k = bf16 ? step_kernel_for<true>(variant) : step_kernel_for<false>(variant);
      const std::string name = std::string(bf16 ? "bf16 " : "fp16 ") + variant_name(variant);
      int fit = 0;
      MB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, k, kStepThreads, 0));
      for (int ctas_per_sm : {1, 2, 3, 4, 5, 6, 7, 8}) {  // as many as fit: the issue rate vs warps per SMSP
        if (ctas_per_sm > fit) {
          ctx.rec->check(bench, name + ": " + std::to_string(ctas_per_sm) + " CTAs per SM not run", true,
                         "only " + std::to_string(fit) + " fit on one SM (registers or shared memory)");
          continue;
        }
        const StepTiming t =
            time_step_kernel(ctx, bench, name + ", " + std::to_string(ctas_per_sm) + " CTA/SM", k,
                             ctas_per_sm, steps, kv, kv_tiles, q);
        ctx.rec->result(bench, "cycles_per_cta_step", "cycles", t.cycles,
                        {{"dtype", bf16 ? "bf16" : "fp16"},
                         {"variant", variant_name(variant)},
                         {"ctas_per_sm", ctas_per_sm},
                         {"warps_per_cta", 4},
                         {"mma_per_warp_step", 128},
                         {"ldmatrix_x4_per_warp_step", variant == kMmaOnly ? 0 : 32},
                         {"ex2_per_thread_step", variant >= kSoftmax ? 68 : 0},
                         {"steps", steps}},
                        t.ghz,
                        "each CTA's %clock64 cycles over its steps; 4 warps x 32 query rows, d 64, Bc 64");
      }
    }
  }
}

// ---- warp_step_occupancy
// The issue rate of the warp_step loop against warps per sub-partition (1 to 8). The tiled kernel's shape
// needs 170-248 registers a thread, so at most 2 of its 4-warp CTAs share an SM; 8
// need at most 64. The same loop body in a smaller shape fits 64: 16 query rows per warp (M 1), d 32, Bc 32
// (registers per thread about a quarter, shared memory 8 KB per CTA). Its mix differs from the tiled kernel's
// (per warp step 16 mma, 8 ldmatrix.x4, 18 ex2 per thread: more softmax per mma), so both shapes run, the
// large one at the occupancies it fits, and the two overlap at 1-2 warps per sub-partition.
struct StepShape {
  const char* name;
  int m, d, bc, steps;
  StepKernel (*kernel)(int variant);
};

void run_warp_step_occupancy(Context& ctx) {
  const std::string bench = "warp_step_occupancy";
  const int kv_tiles = 64;  // L2-resident, read by every CTA, as in warp_step
  const StepShape shapes[] = {
      {"m32 d64 bc64", kStepM, kStepD, kStepBc, 512, step_kernel_for<false>},
      {"m16 d32 bc32", 1, 32, 32, 4096, step_kernel_for<false, 1, 32, 32, 8>},
  };
  for (const StepShape& sh : shapes) {
    const int tile_bytes = sh.bc * sh.d * 2;
    const auto kv = random_halves(std::size_t(kv_tiles) * 2 * tile_bytes / 4, 47u, 1.0f, false);
    const auto q = random_halves(std::size_t(4 * sh.m * sh.d / 4 * 32), 53u, 1.0f, false);
    for (int variant : {kMmaOnly, kMmaLdsm, kSoftmax, kBarrier, kCpAsync}) {
      const StepKernel k = sh.kernel(variant);
      cudaFuncAttributes attr{};
      MB_CHECK(cudaFuncGetAttributes(&attr, k));
      int fit = 0;
      MB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, k, kStepThreads, 0));
      const std::string name = std::string(sh.name) + " " + variant_name(variant);
      // The small shape must fit 8 CTAs. At 64 registers ptxas spills a few values (the clock stamps outside
      // the loop; with cp.async also 8 reloads per step inside it, which then count among the step's
      // instructions): the local bytes go into the detail and the rows, they do not fail the check.
      ctx.rec->check(bench, name + ": registers and shared memory", sh.m == kStepM || fit >= 8,
                     std::to_string(attr.numRegs) + " registers per thread, " +
                         std::to_string(attr.sharedSizeBytes) + " B shared per CTA, " +
                         std::to_string(attr.localSizeBytes) + " B local (spills), " + std::to_string(fit) +
                         " CTAs of 4 warps fit per SM");
      for (int ctas_per_sm = 1; ctas_per_sm <= 8; ++ctas_per_sm) {  // one warp per sub-partition per CTA
        if (ctas_per_sm > fit) continue;                            // the check above says how many fit
        const StepTiming t =
            time_step_kernel(ctx, bench, name + ", " + std::to_string(ctas_per_sm) + " CTA/SM", k,
                             ctas_per_sm, sh.steps, kv, kv_tiles, q);
        const int mma = 4 * sh.m * (sh.d / 16) * (sh.bc / 16);
        // Instructions per sub-partition cycle = (SASS loop body of this kernel) x warps_per_sub_partition /
        // cycles_per_warp_step: the binary cannot read its own SASS, so scripts/gpu_microbench.sh writes the
        // loop bodies (sass_loops.json) and scripts/microbench_summary.py divides.
        ctx.rec->result(
            bench, "cycles_per_warp_step", "cycles", t.cycles,
            {{"dtype", "fp16"},
             {"shape", sh.name},
             {"variant", variant_name(variant)},
             {"ctas_per_sm", ctas_per_sm},
             {"warps_per_cta", 4},
             {"warps_per_sub_partition", ctas_per_sm},
             {"m", sh.m},
             {"d", sh.d},
             {"bc", sh.bc},
             {"mma_per_warp_step", mma},
             {"ldmatrix_x4_per_warp_step", variant == kMmaOnly ? 0 : mma / (2 * sh.m)},
             {"ex2_per_thread_step", variant >= kSoftmax ? 2 * sh.m * (sh.bc / 4 + 1) : 0},
             {"registers_per_thread", attr.numRegs},
             {"smem_per_cta", static_cast<int>(attr.sharedSizeBytes)},
             {"local_bytes_per_thread", static_cast<int>(attr.localSizeBytes)},
             {"kernel", "warp_step_kernel<false, " + std::to_string(variant) + ", " + std::to_string(sh.m) +
                            ", " + std::to_string(sh.d) + ", " + std::to_string(sh.bc) + ", " +
                            (sh.m == kStepM ? "1" : "8") + ">"},
             {"steps", sh.steps}},
            t.ghz,
            "each CTA's %clock64 cycles over its steps (every warp runs one warp step per CTA step, "
            "the CTAs of an SM side by side)");
      }
    }
  }
}

}  // namespace

void add_compute_benchmarks(std::vector<Benchmark>& out) {
  out.push_back({"sm_clock", "effective SM clock under an all-SM FFMA load (%clock64 over %globaltimer)",
                 run_sm_clock});
  out.push_back(
      {"mma_latency", "mma.sync dependent-chain latency per shape and dtype (one warp)", run_mma_latency});
  out.push_back(
      {"mma_throughput",
       "mma.sync m16n8k16 fp16/bf16 rate per SM vs warps per SM (1-32) and independent chains per warp",
       run_mma_throughput});
  out.push_back({"mufu_ex2", "ex2.approx.ftz.f32 latency and rate per SM vs warps and chains", run_mufu_ex2});
  out.push_back({"warp_step",
                 "one step of the tiled kernel's inner loop (ldmatrix + mma + softmax + barrier + cp.async), "
                 "cycles per CTA step, 1-4 CTAs of 4 warps per SM",
                 run_warp_step});
  out.push_back({"warp_step_occupancy",
                 "the warp_step loop (fp16) at 1-8 CTAs of 4 warps per SM (1-8 warps per sub-partition): "
                 "cycles per warp step, the tiled kernel's shape where it fits and a 64-register shape to 8",
                 run_warp_step_occupancy});
}

}  // namespace attnscope::microbench
