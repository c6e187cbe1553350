// SPDX-License-Identifier: Apache-2.0
// Memory-hierarchy microbenchmarks: L2 and HBM latency and bandwidth, cp.async and bulk-copy latency and
// throughput.
//
// Pointer chases: a buffer of 128-byte lines, each line's first 8 bytes holding the address of the next line
// in the order i -> (a i + c) mod N (N a power of two, a = 1 mod 4, c odd: one cycle through every line, in
// an order without a stride the prefetchers or DRAM pages favour). One thread follows it with ld.global.cg
// (L1 not allocated), so every hop is one dependent L2 access (or HBM, when the buffer is larger than the
// L2).
//
// l2_latency    8 MB chase (L2-resident after a warming pass): cycles per hop; then per-hop latencies (clock
//               read around each load, its value stored to shared memory so the read waits for it) from two
//               SMs (the lowest %smid seen and the middle one) over the same address sequence: histograms,
//               and how often an address that is slow from one SM is slow from the other (near/far L2
//               partition).
// l2_bandwidth  All SMs (2 CTAs of 1024 threads each) read a 4/16/32/48 MB buffer over and over with 16-byte
//               ld.global.cg, 4 loads in flight per thread: TB/s (events), bytes per SM per cycle.
// hbm_latency   Chase over 256 MB and 2 GB (cold L2: every hop misses): ns and cycles per hop, histogram;
//               then the 2 GB chase while the other SMs stream-read a separate 4 GB buffer (latency under
//               load) with the load's bandwidth.
// hbm_bandwidth Read (16-byte loads, sum-reduced), write (16-byte stores), copy (load + store) over 4 GB
//               buffers, and cudaMemcpy device-to-device: TB/s, counting bytes read plus bytes written.
// cp_async      cp.async.cg 16 B global->shared throughput from an 8 MB L2-resident buffer (one CTA per
// SM, 4..32
//               warps, 4 groups in flight per thread), and its latency (a chase whose every hop is cp.async,
//               wait_group 0, ld.shared).
// bulk_copy     cp.async.bulk (1D, non-tensor) global->shared completing on an mbarrier: throughput with one
//               issuing thread per SM, 4 stages of 4/16/32 KB, from the 8 MB L2-resident buffer; latency of a
//               16-byte bulk copy (a chase, as above).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common.cuh"

namespace attnscope::microbench {
namespace {

constexpr int kLine = 128;
constexpr std::uint64_t kChaseA = 0x5851F42D4C957F2DULL;  // = 1 mod 4
constexpr std::uint64_t kChaseC = 0x14057B7EF767814FULL;  // odd

__global__ void build_chase(std::uint8_t* buf, std::uint64_t lines) {
  const std::uint64_t mask = lines - 1;
  for (std::uint64_t i = blockIdx.x * std::uint64_t{blockDim.x} + threadIdx.x; i < lines;
       i += std::uint64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t next = (kChaseA * i + kChaseC) & mask;
    *reinterpret_cast<std::uint64_t*>(buf + i * kLine) = reinterpret_cast<std::uint64_t>(buf + next * kLine);
  }
}

// A chase buffer of `bytes` (a power of two), built on the device.
DeviceBuffer<std::uint8_t> chase_buffer(std::size_t bytes) {
  DeviceBuffer<std::uint8_t> b(bytes);
  build_chase<<<1024, 256>>>(b.get(), bytes / kLine);
  MB_LAUNCHED();
  MB_CHECK(cudaDeviceSynchronize());
  return b;
}

// Whole-chase timing on one thread: `hops` dependent loads, cycles and ns from block 0's stamps.
enum ChaseMethod { kLdCg = 0, kCpAsync = 1, kBulk = 2 };

__device__ __forceinline__ std::uint32_t mbar_wait_done(std::uint32_t bar, std::uint32_t parity) {
  std::uint32_t done;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(done)
               : "r"(bar), "r"(parity)
               : "memory");
  return done;
}
// Set when an mbarrier wait gave up (a copy that never completed): the host turns it into a failed check
// instead of a hung run.
__device__ int g_mbar_timeout = 0;
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, std::uint32_t parity) {
  for (int tries = 0; !mbar_wait_done(bar, parity); ++tries) {
    if (tries == (1 << 22)) {
      atomicExch(&g_mbar_timeout, 1);
      return;
    }
  }
}
// Reads and clears the timeout flag.
bool mbar_timed_out() {
  int flag = 0, zero = 0;
  MB_CHECK(cudaMemcpyFromSymbol(&flag, g_mbar_timeout, sizeof flag));
  MB_CHECK(cudaMemcpyToSymbol(g_mbar_timeout, &zero, sizeof zero));
  return flag != 0;
}
__device__ __forceinline__ void mbar_init(std::uint32_t bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void bulk_copy(std::uint32_t dst, const void* src, std::uint32_t bytes,
                                          std::uint32_t bar) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
      "l"(src), "r"(bytes), "r"(bar)
      : "memory");
}

constexpr int kRecordMax = 4096;

// One block (the first whose SM is `target_smid`, or any when target_smid < 0) runs the chase on thread 0:
// `warm` untimed hops, then `hops` timed hops; with `record` > 0 each of the first `record` timed hops is
// timed on its own (latency into lat[]).
template <int Method>
__global__ void chase_kernel(const std::uint8_t* start, std::int64_t warm, std::int64_t hops, int record,
                             int target_smid, int* claimed, std::uint32_t* lat, std::uint64_t* out,
                             BlockClock* clk) {
  __shared__ std::uint32_t s_lat[kRecordMax];
  __shared__ std::uint32_t s_idx[kRecordMax];
  __shared__ alignas(16) std::uint64_t s_line[2];
  __shared__ alignas(8) std::uint64_t s_bar;
  __shared__ int s_mine;
  if (threadIdx.x == 0) {
    const bool here = target_smid < 0 || dev::smid() == static_cast<std::uint32_t>(target_smid);
    s_mine = here && atomicCAS(claimed, 0, 1) == 0;
  }
  __syncthreads();
  if (!s_mine) return;
  const std::uint32_t line = dev::smem_addr(s_line), bar = dev::smem_addr(&s_bar);
  if (threadIdx.x == 0 && Method == kBulk) mbar_init(bar);
  __syncthreads();
  std::uint32_t phase = 0;
  auto hop = [&](std::uint64_t p) -> std::uint64_t {
    if constexpr (Method == kLdCg) {
      return dev::ld_cg_u64(reinterpret_cast<const std::uint64_t*>(p));
    } else if constexpr (Method == kCpAsync) {
      dev::cp_async16(line, reinterpret_cast<const void*>(p));
      dev::cp_async_commit();
      dev::cp_async_wait<0>();
      std::uint64_t v;
      asm volatile("ld.shared.u64 %0, [%1];" : "=l"(v) : "r"(line) : "memory");
      return v;
    } else {
      bulk_copy(line, reinterpret_cast<const void*>(p), 16, bar);
      mbar_wait(bar, phase);
      phase ^= 1;
      std::uint64_t v;
      asm volatile("ld.shared.u64 %0, [%1];" : "=l"(v) : "r"(line) : "memory");
      return v;
    }
  };
  dev::ClockStamp stamp;
  std::uint64_t p = reinterpret_cast<std::uint64_t>(start);
  if (threadIdx.x == 0)
    for (std::int64_t i = 0; i < warm; ++i) p = hop(p);
  stamp.begin();
  if (threadIdx.x == 0) {
    for (std::int64_t i = 0; i < hops; ++i) p = hop(p);
  }
  stamp.end(clk);
  if (threadIdx.x == 0) {
    for (int i = 0; i < record; ++i) {
      const std::uint64_t t0 = dev::clock64();
      p = hop(p);
      s_idx[i] = static_cast<std::uint32_t>(p);  // waits for the load
      const std::uint64_t t1 = dev::clock64();
      s_lat[i] = static_cast<std::uint32_t>(t1 - t0);
    }
    for (int i = 0; i < record; ++i) lat[i] = s_lat[i];
    out[0] = p + s_idx[record > 0 ? record - 1 : 0];
    out[1] = dev::smid();
  }
}

using ChaseKernel = void (*)(const std::uint8_t*, std::int64_t, std::int64_t, int, int, int*, std::uint32_t*,
                             std::uint64_t*, BlockClock*);
ChaseKernel chase_for(int method) {
  switch (method) {
    case kLdCg:
      return chase_kernel<kLdCg>;
    case kCpAsync:
      return chase_kernel<kCpAsync>;
    default:
      return chase_kernel<kBulk>;
  }
}

struct ChaseRun {
  double cycles_per_hop = 0, ns_per_hop = 0, ghz = 0;
  std::vector<std::uint32_t> lat;
  int smid = -1;
  bool ran = false;
  std::uint64_t value = 0;
};

ChaseRun run_chase(Context& ctx, int method, const DeviceBuffer<std::uint8_t>& buf, std::int64_t warm,
                   std::int64_t hops, int record, int target_smid) {
  DeviceBuffer<int> claimed(1);
  DeviceBuffer<std::uint32_t> lat(kRecordMax);
  DeviceBuffer<std::uint64_t> out(2);
  DeviceBuffer<BlockClock> clk(std::size_t(ctx.sm_count) * 2);
  MB_CHECK(cudaMemset(claimed.get(), 0, sizeof(int)));
  MB_CHECK(cudaMemset(clk.get(), 0, clk.size() * sizeof(BlockClock)));
  // Enough one-warp blocks that every SM gets one: the block on the target SM claims the chase.
  const int blocks = target_smid < 0 ? 1 : 2 * ctx.sm_count;
  chase_for(method)<<<blocks, 32>>>(buf.get(), warm, hops, std::min(record, kRecordMax), target_smid,
                                    claimed.get(), lat.get(), out.get(), clk.get());
  MB_LAUNCHED();
  MB_CHECK(cudaDeviceSynchronize());
  ChaseRun r;
  r.ran = claimed.copy_out()[0] == 1;
  if (!r.ran) return r;
  const auto o = out.copy_out();
  r.value = o[0];
  r.smid = static_cast<int>(o[1]);
  for (const BlockClock& b : clk.copy_out()) {
    if (b.c1 == 0) continue;
    r.cycles_per_hop = static_cast<double>(b.c1 - b.c0) / static_cast<double>(hops);
    r.ns_per_hop = static_cast<double>(b.g1 - b.g0) / static_cast<double>(hops);
    r.ghz = r.cycles_per_hop / r.ns_per_hop;
  }
  if (record > 0) {
    r.lat = lat.copy_out();
    r.lat.resize(std::min(record, kRecordMax));
  }
  return r;
}

std::vector<std::int64_t> bins(const std::vector<std::uint32_t>& v, double first, double width, int n) {
  std::vector<std::int64_t> c(n, 0);
  for (std::uint32_t x : v) {
    const int b = static_cast<int>(std::floor((x - first) / width));
    ++c[std::clamp(b, 0, n - 1)];
  }
  return c;
}

// Evicts the L2 (writes a scratch buffer of four times its size).
void flush_l2(Context& ctx) {
  static DeviceBuffer<std::uint8_t>* scratch = nullptr;  // lives until the process ends
  if (scratch == nullptr) scratch = new DeviceBuffer<std::uint8_t>(std::size_t(4) * ctx.l2_bytes);
  MB_CHECK(cudaMemset(scratch->get(), 0x33, scratch->size()));
  MB_CHECK(cudaDeviceSynchronize());
}

double median_u32(std::vector<std::uint32_t> v) {
  std::vector<double> d(v.begin(), v.end());
  return summarize(d).median;
}

__global__ void smid_probe(std::uint32_t* ids) {
  if (threadIdx.x == 0) ids[blockIdx.x] = dev::smid();
}

// The SM ids blocks land on (%smid need not be contiguous): distinct, sorted.
std::vector<int> sm_ids(Context& ctx) {
  const int blocks = 4 * ctx.sm_count;
  DeviceBuffer<std::uint32_t> ids(blocks);
  smid_probe<<<blocks, 32>>>(ids.get());
  MB_LAUNCHED();
  MB_CHECK(cudaDeviceSynchronize());
  std::vector<int> v;
  for (std::uint32_t id : ids.copy_out()) v.push_back(static_cast<int>(id));
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

void run_l2_latency(Context& ctx) {
  const std::string bench = "l2_latency";
  const std::size_t bytes = 8u << 20;
  const auto buf = chase_buffer(bytes);
  const std::int64_t lines = bytes / kLine;
  // Whole-chase timing (no per-hop clock reads): a warming pass over every line, then 16k hops.
  std::vector<double> cyc, ns, ghz;
  for (int r = 0; r < ctx.reps(7); ++r) {
    const ChaseRun c = run_chase(ctx, kLdCg, buf, r == 0 ? lines : 0, 16384, 0, -1);
    cyc.push_back(c.cycles_per_hop);
    ns.push_back(c.ns_per_hop);
    ghz.push_back(c.ghz);
  }
  const Params p = {{"buffer_bytes", static_cast<std::int64_t>(bytes)},
                    {"instruction", "ld.global.cg.u64"},
                    {"hops", 16384}};
  ctx.rec->result(bench, "latency", "cycles", cyc, p, ghz);
  ctx.rec->result(bench, "latency_ns", "ns", ns, p);
  // Per-hop latencies from two SMs over the same addresses.
  const std::vector<int> ids = sm_ids(ctx);
  const int sms[2] = {ids.front(), ids[ids.size() / 2]};
  std::vector<std::uint32_t> lat[2];
  for (int k = 0; k < 2; ++k) {
    ChaseRun c;
    for (int r = 0; r < ctx.reps(3); ++r) c = run_chase(ctx, kLdCg, buf, lines, 0, kRecordMax, sms[k]);
    ctx.rec->check(bench, "chase ran on SM " + std::to_string(sms[k]), c.ran && c.smid == sms[k],
                   "ran " + std::to_string(c.ran) + " on SM " + std::to_string(c.smid));
    if (!c.ran) return;
    lat[k] = c.lat;
    const Params hp = {{"buffer_bytes", static_cast<std::int64_t>(bytes)},
                       {"smid", sms[k]},
                       {"hops", kRecordMax},
                       {"note", "per-hop clock64 around load + st.shared (adds a few cycles)"}};
    ctx.rec->histogram(bench, "per_hop_latency", "cycles", 0, 10, bins(c.lat, 0, 10, 200), hp);
    std::vector<double> d(c.lat.begin(), c.lat.end());
    ctx.rec->result(bench, "per_hop_latency", "cycles", d, hp, {},
                    "samples are hops, not repetitions: min/median/max over one chase of 4096 addresses");
  }
  // An address is 'slow' from an SM when its latency is above that SM's median.
  const double m0 = median_u32(lat[0]), m1 = median_u32(lat[1]);
  int agree = 0;
  for (std::size_t i = 0; i < lat[0].size(); ++i) agree += (lat[0][i] > m0) == (lat[1][i] > m1);
  const double frac = static_cast<double>(agree) / static_cast<double>(lat[0].size());
  ctx.rec->result(bench, "slow_agreement_fraction", "fraction", {frac},
                  {{"smid_a", sms[0]}, {"smid_b", sms[1]}, {"hops", kRecordMax}}, {},
                  "fraction of addresses on the same side of each SM's median latency from both SMs: ~1 the "
                  "slow addresses are the same from everywhere, ~0 they are complementary (near/far by SM), "
                  "~0.5 unrelated; read with the histograms (bimodal or not)");
}

void run_hbm_latency(Context& ctx) {
  const std::string bench = "hbm_latency";
  for (std::size_t mb : {256u, 2048u}) {
    const std::size_t bytes = mb << 20;
    const auto buf = chase_buffer(bytes);
    std::vector<double> cyc, ns, ghz;
    ChaseRun last;
    for (int r = 0; r < ctx.reps(5); ++r) {
      // Each repetition times lines no earlier one touched (the warm hops skip past them), L2 flushed.
      flush_l2(ctx);
      last = run_chase(ctx, kLdCg, buf, 8192 * std::int64_t{r}, 4096, r == 0 ? kRecordMax : 0, -1);
      if (r == 0) {
        ctx.rec->histogram(bench, "per_hop_latency", "cycles", 0, 50, bins(last.lat, 0, 50, 200),
                           {{"buffer_bytes", static_cast<std::int64_t>(bytes)}, {"hops", kRecordMax}});
        continue;  // the first run (cold TLBs too) is kept as the histogram only
      }
      cyc.push_back(last.cycles_per_hop);
      ns.push_back(last.ns_per_hop);
      ghz.push_back(last.ghz);
    }
    const Params p = {{"buffer_bytes", static_cast<std::int64_t>(bytes)},
                      {"instruction", "ld.global.cg.u64"},
                      {"hops", 4096},
                      {"load", "idle"}};
    ctx.rec->result(bench, "latency", "cycles", cyc, p, ghz);
    ctx.rec->result(bench, "latency_ns", "ns", ns, p);
  }
}

// ---- Loaded latency: block 0 chases, every other block streams until it is done
// -------------------------------
__global__ void loaded_chase_kernel(const std::uint8_t* start, int hops, const uint4* stream, std::size_t n16,
                                    volatile int* done, unsigned long long* streamed, std::uint64_t* out,
                                    BlockClock* clk) {
  dev::ClockStamp stamp;
  stamp.begin();
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      std::uint64_t p = reinterpret_cast<std::uint64_t>(start);
      for (int i = 0; i < hops; ++i) p = dev::ld_cg_u64(reinterpret_cast<const std::uint64_t*>(p));
      out[0] = p;
      __threadfence();
      *done = 1;
    }
  } else {
    std::uint32_t acc = 0;
    std::size_t i = (blockIdx.x - 1) * std::size_t{blockDim.x} + threadIdx.x;
    const std::size_t step = (gridDim.x - 1) * std::size_t{blockDim.x};
    unsigned long long n = 0;
    // The flag is read once per 64 loads: every thread polling one line would load one L2 slice.
    while (*done == 0) {
#pragma unroll 1
      for (int k = 0; k < 16; ++k) {
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const uint4 v = stream[i];
          acc ^= v.x ^ v.y ^ v.z ^ v.w;
          i += step;
          if (i >= n16) i -= n16;
        }
      }
      n += 64;
    }
    atomicAdd(streamed, n * 16);
    if (acc == 0x12345678u) out[1] = acc;  // keeps the loads
  }
  stamp.end(clk);
}

void run_hbm_loaded_latency(Context& ctx) {
  const std::string bench = "hbm_latency";
  const std::size_t bytes = 2048u << 20, stream_bytes = std::size_t{4} << 30;
  const auto buf = chase_buffer(bytes);
  DeviceBuffer<uint4> stream(stream_bytes / 16);
  MB_CHECK(cudaMemset(stream.get(), 0x5a, stream_bytes));
  DeviceBuffer<int> done(1);
  DeviceBuffer<unsigned long long> streamed(1);
  DeviceBuffer<std::uint64_t> out(2);
  const int blocks = 2 * ctx.sm_count, threads = 512, hops = 4096;
  DeviceBuffer<BlockClock> clk(blocks);
  flush_l2(ctx);
  std::vector<double> ns, cyc, bw, ghz;
  for (int r = 0; r < ctx.reps(5) + 1; ++r) {
    MB_CHECK(cudaMemset(done.get(), 0, sizeof(int)));
    MB_CHECK(cudaMemset(streamed.get(), 0, sizeof(unsigned long long)));
    loaded_chase_kernel<<<blocks, threads>>>(buf.get() + std::size_t(r) * 1024 * 1024 * 64, hops,
                                             stream.get(), stream.size(), done.get(), streamed.get(),
                                             out.get(), clk.get());
    MB_LAUNCHED();
    MB_CHECK(cudaDeviceSynchronize());
    if (r == 0) continue;
    const auto c = clk.copy_out();
    const BlockClock& b0 = c[0];
    cyc.push_back(static_cast<double>(b0.c1 - b0.c0) / hops);
    ns.push_back(static_cast<double>(b0.g1 - b0.g0) / hops);
    ghz.push_back(static_cast<double>(b0.c1 - b0.c0) / static_cast<double>(b0.g1 - b0.g0));
    std::uint64_t g0 = ~std::uint64_t{0}, g1 = 0;
    for (std::size_t i = 1; i < c.size(); ++i) {
      g0 = std::min(g0, c[i].g0);
      g1 = std::max(g1, c[i].g1);
    }
    bw.push_back(static_cast<double>(streamed.copy_out()[0]) / static_cast<double>(g1 - g0) * 1e-3);  // TB/s
  }
  const Params p = {{"buffer_bytes", static_cast<std::int64_t>(bytes)},
                    {"instruction", "ld.global.cg.u64"},
                    {"hops", hops},
                    {"load", "other blocks stream-read 4 GB (2 CTAs x 512 threads per SM)"}};
  ctx.rec->result(bench, "latency", "cycles", cyc, p, ghz);
  ctx.rec->result(bench, "latency_ns", "ns", ns, p);
  ctx.rec->result(bench, "background_read_bandwidth", "TB/s", bw, p, {},
                  "bytes the streaming blocks read over their globaltimer span (starts at the start pointer "
                  "offset per repetition)");
}

void run_hbm_latency_all(Context& ctx) {
  run_hbm_latency(ctx);
  run_hbm_loaded_latency(ctx);
}

// ---- Bandwidth kernels
// --------------------------------------------------------------------------------------- Each thread reads
// `per_thread` (a multiple of 4) 16-byte words per pass, grid-strided, wrapping.
template <bool Cg>
__global__ void read_kernel(const uint4* __restrict__ src, std::size_t n16, std::size_t per_thread,
                            int passes, std::uint32_t* out, BlockClock* clk) {
  dev::ClockStamp stamp;
  stamp.begin();
  std::uint32_t acc = 0;
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  // The grid's stride modulo the buffer: stepping by it from an index below n16 needs at most one wrap, also
  // when the grid has more threads than the buffer has 16-byte words.
  const std::size_t step = stride % n16;
  for (int pass = 0; pass < passes; ++pass) {
    // Each block starts at a different place per pass, so that the SMs don't move in lockstep over lines.
    const std::size_t off = (std::size_t(pass) * 7919u * blockDim.x) % n16;
    std::size_t i = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x + off) % n16;
    for (std::size_t k = 0; k < per_thread; k += 4) {
      uint4 v[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        if constexpr (Cg)
          asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                       : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
                       : "l"(src + i));
        else
          v[u] = src[i];
        i += step;
        if (i >= n16) i -= n16;
      }
#pragma unroll
      // A sum, not an XOR: with a buffer that fits the L2 every thread reads the same words an even number of
      // times over the passes, and an XOR of them cancelled to 0 (the 4 MB checksum of a first version).
      for (int u = 0; u < 4; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
    }
  }
  stamp.end(clk);
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void write_kernel(uint4* __restrict__ dst, std::size_t n16, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n16;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const auto x = static_cast<std::uint32_t>(i) ^ seed;
    dst[i] = make_uint4(x, x + 1, x + 2, x + 3);
  }
}
__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n16) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n16;
       i += std::size_t{gridDim.x} * blockDim.x)
    dst[i] = src[i];
}

// 16-byte loads per thread and pass: the buffer once over (rounded up to a multiple of 4, at least 4).
std::size_t read_per_thread(std::size_t n16, std::size_t stride) {
  return std::max<std::size_t>(4, ((n16 + stride - 1) / stride + 3) / 4 * 4);
}

void run_l2_bandwidth(Context& ctx) {
  const std::string bench = "l2_bandwidth";
  const int blocks = 2 * ctx.sm_count, threads = 1024;
  EventTimer timer;
  DeviceBuffer<std::uint32_t> out(std::size_t(blocks) * threads);
  DeviceBuffer<BlockClock> clk(blocks);
  for (std::size_t mb : {4u, 16u, 32u, 48u}) {
    const std::size_t bytes = mb << 20;
    DeviceBuffer<uint4> buf(bytes / 16);
    write_kernel<<<1024, 256>>>(buf.get(), buf.size(), 7u);
    MB_LAUNCHED();
    const int passes = static_cast<int>(std::max<std::size_t>(4, (std::size_t{8} << 30) / bytes));
    std::vector<double> tbps, per_sm, ghz;
    const std::size_t stride = std::size_t(blocks) * threads;
    const std::size_t per_thread = read_per_thread(buf.size(), stride);
    for (int r = 0; r < ctx.reps(5) + 1; ++r) {
      timer.start();
      read_kernel<true><<<blocks, threads>>>(buf.get(), buf.size(), per_thread, passes, out.get(), clk.get());
      MB_LAUNCHED();
      const double ms = timer.stop_ms();
      if (r == 0) continue;
      const double total = static_cast<double>(per_thread) * stride * 16 * passes;
      const ClockSummary c = summarize_clocks(clk.copy_out());
      tbps.push_back(total / (ms * 1e-3) / 1e12);
      per_sm.push_back(total / ctx.sm_count / c.mean_cycles);
      ghz.push_back(c.ghz);
    }
    std::uint64_t x = 0;
    for (std::uint32_t v : out.copy_out()) x += v;
    ctx.rec->check(bench, std::to_string(mb) + " MB: checksum nonzero", x != 0, std::to_string(x));
    const Params p = {{"buffer_bytes", static_cast<std::int64_t>(bytes)},
                      {"instruction", "ld.global.cg.v4.u32"},
                      {"ctas", blocks},
                      {"threads", threads},
                      {"passes", passes}};
    ctx.rec->result(bench, "read_bandwidth", "TB/s", tbps, p, ghz);
    ctx.rec->result(bench, "bytes_per_sm_per_cycle", "B/cycle", per_sm, p);
  }
}

void run_hbm_bandwidth(Context& ctx) {
  const std::string bench = "hbm_bandwidth";
  const std::size_t bytes = std::size_t{4} << 30;
  DeviceBuffer<uint4> a(bytes / 16), b(bytes / 16);
  const int blocks = 4 * ctx.sm_count, threads = 512;
  EventTimer timer;
  DeviceBuffer<std::uint32_t> out(std::size_t(blocks) * threads);
  DeviceBuffer<BlockClock> clk(blocks);
  write_kernel<<<1024, 256>>>(a.get(), a.size(), 11u);
  MB_LAUNCHED();
  auto time = [&](const char* what, double moved, auto launch) {
    std::vector<double> tbps;
    for (int r = 0; r < ctx.reps(7) + 1; ++r) {
      timer.start();
      launch();
      const double ms = timer.stop_ms();
      if (r > 0) tbps.push_back(moved / (ms * 1e-3) / 1e12);
    }
    ctx.rec->result(bench, std::string(what) + "_bandwidth", "TB/s", tbps,
                    {{"buffer_bytes", static_cast<std::int64_t>(bytes)},
                     {"ctas", blocks},
                     {"threads", threads},
                     {"bytes_counted", moved}});
  };
  const std::size_t stride = std::size_t(blocks) * threads;
  const std::size_t per_thread = read_per_thread(a.size(), stride);
  const double read_bytes = static_cast<double>(per_thread * stride * 16);
  time("read", read_bytes, [&] {
    read_kernel<false><<<blocks, threads>>>(a.get(), a.size(), per_thread, 1, out.get(), clk.get());
    MB_LAUNCHED();
  });
  time("write", static_cast<double>(bytes), [&] {
    write_kernel<<<blocks, threads>>>(b.get(), b.size(), 13u);
    MB_LAUNCHED();
  });
  {  // the write's result, sampled
    const std::size_t idx[3] = {0, b.size() / 2 + 5, b.size() - 1};
    bool ok = true;
    for (std::size_t i : idx) {
      uint4 v;
      MB_CHECK(cudaMemcpy(&v, b.get() + i, 16, cudaMemcpyDeviceToHost));
      const auto x = static_cast<std::uint32_t>(i) ^ 13u;
      ok = ok && v.x == x && v.w == x + 3;
    }
    ctx.rec->check(bench, "write kernel wrote the pattern (3 samples)", ok, "");
  }
  time("copy", 2.0 * static_cast<double>(bytes), [&] {
    copy_kernel<<<blocks, threads>>>(a.get(), b.get(), a.size());
    MB_LAUNCHED();
  });
  {
    const std::size_t i = a.size() / 3 + 1;
    uint4 v;
    MB_CHECK(cudaMemcpy(&v, b.get() + i, 16, cudaMemcpyDeviceToHost));
    ctx.rec->check(bench, "copy kernel copied (1 sample)", v.x == (static_cast<std::uint32_t>(i) ^ 11u), "");
  }
  time("memcpy_d2d", 2.0 * static_cast<double>(bytes),
       [&] { MB_CHECK(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice)); });
  std::uint64_t x = 0;
  for (std::uint32_t v : out.copy_out()) x += v;
  ctx.rec->check(bench, "read checksum nonzero", x != 0, std::to_string(x));
}

// ---- cp.async throughput
// ---------------------------------------------------------------------------------------
constexpr int kCpStages = 4, kCpPerThread = 2;  // 4 groups of 2 x 16 B in flight per thread

__global__ void cp_async_kernel(const uint4* src, std::size_t n16, int iters, std::uint32_t* out,
                                BlockClock* clk) {
  extern __shared__ uint4 dyn[];
  const int t = threadIdx.x, n = blockDim.x;
  const std::uint32_t base = dev::smem_addr(dyn);
  std::size_t g = (blockIdx.x * std::size_t{4099} * static_cast<std::size_t>(n)) % n16;
  dev::ClockStamp stamp;
  stamp.begin();
  for (int i = 0; i < iters; ++i) {
    const int stage = i % kCpStages;
#pragma unroll
    for (int c = 0; c < kCpPerThread; ++c) {
      std::size_t j = g + c * n + t;
      if (j >= n16) j -= n16;
      dev::cp_async16(base + static_cast<std::uint32_t>(((stage * kCpPerThread + c) * n + t) * 16), src + j);
    }
    dev::cp_async_commit();
    dev::cp_async_wait<kCpStages - 1>();
    g += std::size_t{kCpPerThread} * n;
    if (g >= n16) g -= n16;
  }
  dev::cp_async_wait<0>();
  stamp.end(clk);
  // What landed (this thread's own copies; no barrier needed).
  out[blockIdx.x * n + t] = dyn[t].x ^ dyn[(kCpStages * kCpPerThread - 1) * n + t].y;
}

void run_cp_async(Context& ctx) {
  const std::string bench = "cp_async";
  const std::size_t bytes = 8u << 20;
  DeviceBuffer<uint4> src(bytes / 16);
  write_kernel<<<1024, 256>>>(src.get(), src.size(), 3u);
  MB_LAUNCHED();
  const int blocks = ctx.sm_count;
  EventTimer timer;
  for (int warps : {4, 8, 16, 32}) {
    const int threads = warps * 32;
    const int smem = std::max(ctx.smem_per_block_optin / 2 + 1024, kCpStages * kCpPerThread * threads * 16);
    allow_smem(cp_async_kernel, smem);
    const int iters = std::max(256, (1 << 16) / warps);
    DeviceBuffer<std::uint32_t> out(std::size_t(blocks) * threads);
    DeviceBuffer<BlockClock> clk(blocks);
    std::vector<double> tbps, per_sm, ghz;
    for (int r = 0; r < ctx.reps(5) + 1; ++r) {
      timer.start();
      cp_async_kernel<<<blocks, threads, smem>>>(src.get(), src.size(), iters, out.get(), clk.get());
      MB_LAUNCHED();
      const double ms = timer.stop_ms();
      if (r == 0) continue;
      const double total = double(blocks) * threads * iters * kCpPerThread * 16;
      const ClockSummary c = summarize_clocks(clk.copy_out());
      tbps.push_back(total / (ms * 1e-3) / 1e12);
      per_sm.push_back(total / blocks / c.mean_cycles);
      ghz.push_back(c.ghz);
    }
    std::uint64_t x = 0;
    for (std::uint32_t v : out.copy_out()) x += v;
    ctx.rec->check(bench, std::to_string(warps) + " warps: data landed (checksum nonzero)", x != 0,
                   std::to_string(x));
    const Params p = {{"instruction", "cp.async.cg.shared.global 16"},
                      {"source_bytes", static_cast<std::int64_t>(bytes)},
                      {"warps_per_sm", warps},
                      {"groups_in_flight", kCpStages},
                      {"copies_per_group", kCpPerThread}};
    ctx.rec->result(bench, "bytes_per_sm_per_cycle", "B/cycle", per_sm, p, ghz);
    ctx.rec->result(bench, "bandwidth", "TB/s", tbps, p);
  }
  // Latency: a chase whose hops are cp.async + wait_group 0 + ld.shared, in an L2-resident buffer.
  const auto buf = chase_buffer(bytes);
  std::vector<double> cyc, ns, ghz;
  for (int r = 0; r < ctx.reps(7); ++r) {
    const ChaseRun c = run_chase(ctx, kCpAsync, buf, r == 0 ? std::int64_t(bytes / kLine) : 0, 16384, 0, -1);
    cyc.push_back(c.cycles_per_hop);
    ns.push_back(c.ns_per_hop);
    ghz.push_back(c.ghz);
  }
  const Params p = {{"instruction", "cp.async.cg 16 + wait_group 0 + ld.shared.u64"},
                    {"buffer_bytes", static_cast<std::int64_t>(bytes)},
                    {"hops", 16384}};
  ctx.rec->result(bench, "latency", "cycles", cyc, p, ghz);
  ctx.rec->result(bench, "latency_ns", "ns", ns, p);
}

// ---- Bulk copy (cp.async.bulk, 1D)
// ---------------------------------------------------------------------------
constexpr int kBulkStages = 4;
__global__ void bulk_kernel(const std::uint8_t* src, std::size_t src_bytes, int chunk, int iters,
                            std::uint32_t* out, BlockClock* clk) {
  extern __shared__ uint4 dyn[];
  __shared__ alignas(8) std::uint64_t bars[kBulkStages];
  const std::uint32_t base = dev::smem_addr(dyn);
  if (threadIdx.x == 0)
    for (int s = 0; s < kBulkStages; ++s) mbar_init(dev::smem_addr(&bars[s]));
  __syncthreads();
  dev::ClockStamp stamp;
  stamp.begin();
  if (threadIdx.x == 0) {
    std::size_t g = (blockIdx.x * std::size_t{65536}) % src_bytes;
    for (int i = 0; i < iters; ++i) {
      const int s = i % kBulkStages;
      const std::uint32_t bar = dev::smem_addr(&bars[s]);
      if (i >= kBulkStages) mbar_wait(bar, static_cast<std::uint32_t>((i / kBulkStages - 1) & 1));
      bulk_copy(base + static_cast<std::uint32_t>(s * chunk), src + g, static_cast<std::uint32_t>(chunk),
                bar);
      g += static_cast<std::size_t>(chunk);
      if (g + chunk > src_bytes) g = 0;
    }
    for (int i = max(0, iters - kBulkStages); i < iters; ++i)
      mbar_wait(dev::smem_addr(&bars[i % kBulkStages]), static_cast<std::uint32_t>((i / kBulkStages) & 1));
  }
  stamp.end(clk);
  out[blockIdx.x * blockDim.x + threadIdx.x] = dyn[threadIdx.x].x;
}

void run_bulk_copy(Context& ctx) {
  const std::string bench = "bulk_copy";
  const std::size_t bytes = 8u << 20;
  DeviceBuffer<uint4> src(bytes / 16);
  write_kernel<<<1024, 256>>>(src.get(), src.size(), 5u);
  MB_LAUNCHED();
  const int blocks = ctx.sm_count, threads = 128;
  EventTimer timer;
  for (int chunk : {4096, 16384, 32768}) {
    const int smem = std::max(ctx.smem_per_block_optin / 2 + 1024, kBulkStages * chunk);
    allow_smem(bulk_kernel, smem);
    const int iters = std::max(512, (64 << 20) / chunk / 8);
    DeviceBuffer<std::uint32_t> out(std::size_t(blocks) * threads);
    DeviceBuffer<BlockClock> clk(blocks);
    std::vector<double> tbps, per_sm, ghz;
    for (int r = 0; r < ctx.reps(5) + 1; ++r) {
      timer.start();
      bulk_kernel<<<blocks, threads, smem>>>(reinterpret_cast<const std::uint8_t*>(src.get()), bytes, chunk,
                                             iters, out.get(), clk.get());
      MB_LAUNCHED();
      const double ms = timer.stop_ms();
      if (r == 0) continue;
      const double total = double(blocks) * iters * chunk;
      const ClockSummary c = summarize_clocks(clk.copy_out());
      tbps.push_back(total / (ms * 1e-3) / 1e12);
      per_sm.push_back(total / blocks / c.mean_cycles);
      ghz.push_back(c.ghz);
    }
    std::uint64_t x = 0;
    for (std::uint32_t v : out.copy_out()) x += v;
    ctx.rec->check(bench, std::to_string(chunk) + " B chunks: data landed (checksum nonzero)", x != 0,
                   std::to_string(x));
    ctx.rec->check(bench, std::to_string(chunk) + " B chunks: every mbarrier wait completed",
                   !mbar_timed_out(), "");
    const Params p = {{"instruction", "cp.async.bulk.shared::cluster.global (1D)"},
                      {"source_bytes", static_cast<std::int64_t>(bytes)},
                      {"chunk_bytes", chunk},
                      {"stages", kBulkStages},
                      {"issuing_threads_per_sm", 1}};
    ctx.rec->result(bench, "bytes_per_sm_per_cycle", "B/cycle", per_sm, p, ghz);
    ctx.rec->result(bench, "bandwidth", "TB/s", tbps, p);
  }
  const auto buf = chase_buffer(bytes);
  std::vector<double> cyc, ns, ghz;
  for (int r = 0; r < ctx.reps(7); ++r) {
    const ChaseRun c = run_chase(ctx, kBulk, buf, r == 0 ? std::int64_t(bytes / kLine) : 0, 16384, 0, -1);
    cyc.push_back(c.cycles_per_hop);
    ns.push_back(c.ns_per_hop);
    ghz.push_back(c.ghz);
  }
  ctx.rec->check(bench, "every mbarrier wait completed (no copy lost)", !mbar_timed_out(), "");
  const Params p = {{"instruction", "cp.async.bulk 16 B + mbarrier try_wait + ld.shared.u64"},
                    {"buffer_bytes", static_cast<std::int64_t>(bytes)},
                    {"hops", 16384}};
  ctx.rec->result(bench, "latency", "cycles", cyc, p, ghz);
  ctx.rec->result(bench, "latency_ns", "ns", ns, p);
}

}  // namespace

void add_memory_benchmarks(std::vector<Benchmark>& out) {
  out.push_back({"l2_latency", "L2 hit latency (8 MB chase), per-hop histograms from two SMs (near/far)",
                 run_l2_latency});
  out.push_back({"l2_bandwidth", "L2 hit read bandwidth, all SMs, 4-48 MB buffers", run_l2_bandwidth});
  out.push_back({"hbm_latency", "HBM latency (256 MB and 2 GB chases), idle and under a streaming load",
                 run_hbm_latency_all});
  out.push_back({"hbm_bandwidth", "HBM read, write, copy bandwidth over 4 GB buffers, and cudaMemcpy",
                 run_hbm_bandwidth});
  out.push_back(
      {"cp_async", "cp.async 16 B global->shared throughput (L2-resident source) and latency", run_cp_async});
  out.push_back({"bulk_copy", "cp.async.bulk (1D) global->shared throughput and latency", run_bulk_copy});
}

}  // namespace attnscope::microbench
