// SPDX-License-Identifier: Apache-2.0
// Shared-memory microbenchmarks: ldmatrix throughput, load bandwidth per bank-conflict degree, and latency.
//
// ldmatrix      One CTA per SM, 1..32 warps; each warp issues ldmatrix.sync.m8n8.x4 (and .trans) with four
//               independent loads in flight per iteration, lanes pointing at 32 consecutive 16-byte rows
//               (conflict-free; 512 B per instruction). Bytes per SM per cycle (%clock64).
// smem_bank     16 warps per SM issue ld.shared.u32 with lane address = lane x stride words: stride 1
//               (conflict-free), 2, 4, 8, 16, 32 (32-way), 0 (broadcast), and ld.shared.v4.u32 (16 B per
//               lane). Requested bytes per SM per cycle and warp loads per SM per cycle: the n-way conflict's
//               cost.
//
// Both keep every load: ptxas treats an inline-asm ld.shared / ldmatrix like any other load, and a first
// version, whose addresses did not change between iterations, had them hoisted out of the loop (rates above
// the hardware's 128 B per SM per cycle, and an XOR checksum of repeated values that cancelled to 0). Now
// each of the four chains per warp takes its next address from its previous load: smem_bank through words
// that hold their own address (no extra instruction), ldmatrix through `addr + (r[0] & zero)` with `zero` a
// kernel argument that is 0 at run time (one LOP3 and one IADD per 512-byte load).
// smem_latency  One thread chases pointers through shared memory (ld.shared.u32, each load's value is the
//               next address): cycles per load.
#include <algorithm>
#include <string>
#include <vector>

#include "common.cuh"

namespace attnscope::microbench {
namespace {

// Fill the first `words` words of dynamic shared memory with values derived from the index.
__device__ __forceinline__ void fill_smem(std::uint32_t* s, int words) {
  for (int i = threadIdx.x; i < words; i += blockDim.x)
    s[i] = static_cast<std::uint32_t>(i) * 2654435761U + 1U;
  __syncthreads();
}

// `zero` is 0 at run time; the compiler cannot know it, so each chain's next address depends on its previous
// ldmatrix and no load can be hoisted out of the loop or dropped.
template <bool Trans>
__global__ void ldmatrix_kernel(int iters, std::uint32_t zero, std::uint32_t* out, BlockClock* clk) {
  extern __shared__ uint4 dyn[];
  auto* s = reinterpret_cast<std::uint32_t*>(dyn);
  fill_smem(s, 16384 / 4);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  // 32 consecutive 16-byte rows per warp (512 B), warps spread over 16 KB.
  const std::uint32_t addr = dev::smem_addr(s) + static_cast<std::uint32_t>((warp % 8) * 2048 + lane * 16);
  std::uint32_t a[4];
#pragma unroll
  for (int c = 0; c < 4; ++c) a[c] = addr + static_cast<std::uint32_t>(c * 512);
  std::uint32_t acc = 0;
  dev::ClockStamp stamp;
  stamp.begin();
#pragma unroll 2
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      std::uint32_t r[4];
      if constexpr (Trans)
        dev::ldmatrix_x4_trans(r, a[c]);
      else
        dev::ldmatrix_x4(r, a[c]);
      a[c] += r[0] & zero;
      // All four registers feed the sum, so the .x4 cannot be narrowed; a sum (not an XOR) of repeated values
      // does not cancel to 0.
      acc += r[1] + r[2] + r[3];
    }
  }
  stamp.end(clk);
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc + (a[0] ^ a[1] ^ a[2] ^ a[3]);
}

void check_nonzero(Context& ctx, const std::string& bench, const std::string& what,
                   const DeviceBuffer<std::uint32_t>& out) {
  std::uint64_t x = 0;
  for (std::uint32_t v : out.copy_out()) x += v;
  ctx.rec->check(bench, what + ": checksum nonzero", x != 0, "sum " + std::to_string(x));
}

void run_ldmatrix(Context& ctx) {
  const std::string bench = "ldmatrix";
  const int smem = ctx.smem_per_block_optin / 2 + 1024;  // one CTA per SM
  const int blocks = ctx.sm_count;
  for (bool trans : {false, true}) {
    const auto k = trans ? ldmatrix_kernel<true> : ldmatrix_kernel<false>;
    allow_smem(k, smem);
    for (int warps : {1, 2, 4, 8, 16, 32}) {
      const int iters = std::clamp((1 << 17) / warps, 1024, 1 << 16);
      DeviceBuffer<std::uint32_t> out(std::size_t(blocks) * warps * 32);
      DeviceBuffer<BlockClock> clk(blocks);
      std::vector<double> bytes, ghz;
      for (int r = 0; r < ctx.reps(5) + 1; ++r) {
        k<<<blocks, warps * 32, smem>>>(iters, 0u, out.get(), clk.get());
        MB_LAUNCHED();
        MB_CHECK(cudaDeviceSynchronize());
        if (r == 0) continue;
        const ClockSummary c = summarize_clocks(clk.copy_out());
        bytes.push_back(512.0 * 4 * iters * warps / c.mean_cycles);
        ghz.push_back(c.ghz);
      }
      const char* name = trans ? "ldmatrix.x4.trans" : "ldmatrix.x4";
      if (warps == 32) check_nonzero(ctx, bench, name, out);
      ctx.rec->result(bench, "bytes_per_sm_per_cycle", "B/cycle", bytes,
                      {{"instruction", name},
                       {"warps_per_sm", warps},
                       {"loads_in_flight_per_warp", 4},
                       {"bytes_per_instruction", 512}},
                      ghz);
    }
  }
}

// Stride in words between lanes; 0 is a broadcast; Vec loads 16 bytes per lane (conflict-free layout). Every
// word holds its own shared-memory address (Vec: the first word of each 16 bytes; the other three hold 0), so
// each load's value is the chain's next address: the loads form four dependent chains per warp that the
// compiler can neither hoist nor drop, at no extra instruction (Vec: two IADD per 512-byte load).
template <bool Vec>
__global__ void smem_load_kernel(int iters, int stride, std::uint32_t* out, BlockClock* clk) {
  extern __shared__ uint4 dyn[];
  auto* s = reinterpret_cast<std::uint32_t*>(dyn);
  const std::uint32_t s0 = dev::smem_addr(s);
  for (int i = threadIdx.x; i < 49152 / 4; i += blockDim.x)
    s[i] = (!Vec || i % 4 == 0) ? s0 + static_cast<std::uint32_t>(i) * 4U : 0U;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  const std::uint32_t base = s0 + static_cast<std::uint32_t>(Vec ? lane * 16 : lane * stride * 4);
  std::uint32_t a[4];
  // Shifting by 512 B keeps every lane in its bank (and the pattern's conflicts).
#pragma unroll
  for (int c = 0; c < 4; ++c) a[c] = base + static_cast<std::uint32_t>(c * 512);
  const std::uint32_t start = a[0] ^ a[1] ^ a[2] ^ a[3];
  dev::ClockStamp stamp;
  stamp.begin();
#pragma unroll 2
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      if constexpr (Vec) {
        std::uint32_t x, y, z, w;
        asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                     : "r"(a[c]));
        a[c] = x + y + z + w;  // y, z, w are 0; all four used, so the load stays 16 bytes wide
      } else {
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a[c]));
      }
    }
  }
  stamp.end(clk);
  // 1 when every chain ended where it started (each load read the word the fill wrote); the host checks it.
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1U + ((a[0] ^ a[1] ^ a[2] ^ a[3]) ^ start);
}

void run_smem_bank(Context& ctx) {
  const std::string bench = "smem_bank";
  const int smem = std::max(ctx.smem_per_block_optin / 2 + 1024, 49152);
  const int blocks = ctx.sm_count, warps = 16;
  allow_smem(smem_load_kernel<false>, smem);
  allow_smem(smem_load_kernel<true>, smem);
  struct Case {
    const char* name;
    bool vec;
    int stride;
    int ways;
  };
  const Case cases[] = {
      {"u32 stride 1 (conflict-free)", false, 1, 1}, {"u32 stride 2 (2-way)", false, 2, 2},
      {"u32 stride 4 (4-way)", false, 4, 4},         {"u32 stride 8 (8-way)", false, 8, 8},
      {"u32 stride 16 (16-way)", false, 16, 16},     {"u32 stride 32 (32-way)", false, 32, 32},
      {"u32 broadcast (one word)", false, 0, 1},     {"v4.u32 consecutive (16 B/lane)", true, 1, 1}};
  for (const Case& cs : cases) {
    const int iters = std::max(512, 16384 / cs.ways);
    DeviceBuffer<std::uint32_t> out(std::size_t(blocks) * warps * 32);
    DeviceBuffer<BlockClock> clk(blocks);
    std::vector<double> bytes, loads, ghz;
    const auto k = cs.vec ? smem_load_kernel<true> : smem_load_kernel<false>;
    for (int r = 0; r < ctx.reps(5) + 1; ++r) {
      k<<<blocks, warps * 32, smem>>>(iters, cs.stride, out.get(), clk.get());
      MB_LAUNCHED();
      MB_CHECK(cudaDeviceSynchronize());
      if (r == 0) continue;
      const ClockSummary c = summarize_clocks(clk.copy_out());
      const double warp_loads = 4.0 * iters * warps;
      loads.push_back(warp_loads / c.mean_cycles);
      bytes.push_back(warp_loads * 32 * (cs.vec ? 16 : 4) / c.mean_cycles);
      ghz.push_back(c.ghz);
    }
    std::size_t ones = 0;
    for (std::uint32_t v : out.copy_out()) ones += v == 1U;
    ctx.rec->check(bench, std::string(cs.name) + ": every load chain read its own addresses back",
                   ones == out.size(),
                   std::to_string(ones) + " of " + std::to_string(out.size()) + " threads");
    const Params p = {{"access", cs.name},
                      {"stride_words", cs.stride},
                      {"conflict_ways", cs.ways},
                      {"warps_per_sm", warps}};
    ctx.rec->result(bench, "bytes_per_sm_per_cycle", "B/cycle", bytes, p, ghz);
    ctx.rec->result(bench, "warp_loads_per_sm_per_cycle", "1/cycle", loads, p);
  }
}

__global__ void smem_chase_kernel(int hops, int words, std::uint32_t* out, BlockClock* clk) {
  extern __shared__ uint4 dyn[];
  auto* s = reinterpret_cast<std::uint32_t*>(dyn);
  // A cycle through the buffer with a stride of 33 words (odd: visits every word, changes bank each hop).
  for (int i = threadIdx.x; i < words; i += blockDim.x)
    s[i] = dev::smem_addr(s) + static_cast<std::uint32_t>(((i + 33) % words) * 4);
  dev::ClockStamp stamp;
  stamp.begin();
  std::uint32_t p = dev::smem_addr(s);
  if (threadIdx.x == 0) {
    for (int i = 0; i < hops; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
  }
  stamp.end(clk);
  if (threadIdx.x == 0) out[blockIdx.x] = p;
}

void run_smem_latency(Context& ctx) {
  const std::string bench = "smem_latency";
  const int hops = 1 << 16, words = 4096;
  DeviceBuffer<std::uint32_t> out(1);
  DeviceBuffer<BlockClock> clk(1);
  std::vector<double> cyc, ghz;
  for (int r = 0; r < ctx.reps(9) + 1; ++r) {
    smem_chase_kernel<<<1, 32, words * 4>>>(hops, words, out.get(), clk.get());
    MB_LAUNCHED();
    MB_CHECK(cudaDeviceSynchronize());
    if (r == 0) continue;
    const ClockSummary c = summarize_clocks(clk.copy_out());
    cyc.push_back(c.mean_cycles / hops);
    ghz.push_back(c.ghz);
  }
  check_nonzero(ctx, bench, "chase", out);
  ctx.rec->result(bench, "latency", "cycles", cyc, {{"instruction", "ld.shared.u32"}, {"hops", hops}}, ghz,
                  "includes the loop's branch (unrolled by the compiler or not: see the SASS)");
}

}  // namespace

void add_smem_benchmarks(std::vector<Benchmark>& out) {
  out.push_back(
      {"ldmatrix", "ldmatrix.x4 (and .trans) bytes per SM per cycle vs warps per SM", run_ldmatrix});
  out.push_back({"smem_bank",
                 "shared-memory load bandwidth per SM: conflict-free, 2..32-way conflicts, broadcast, 16 B",
                 run_smem_bank});
  out.push_back(
      {"smem_latency", "shared-memory load-to-use latency (pointer chase, one thread)", run_smem_latency});
}

}  // namespace attnscope::microbench
