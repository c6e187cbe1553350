// SPDX-License-Identifier: Apache-2.0
// Issue-level latencies for the warp-level SASS model of the kernels (scripts/sass_warp_model.py in the
// lab notebook of 2026-12-06): the machine parameters that model used without a measurement.
//
// alu_latency       One warp, one dependent chain of an ALU instruction (IADD3, IMAD, LOP3, SHF, FFMA, FMUL,
//                   FADD, F2FP f16/bf16 pack, HADD2, HFMA2): cycles per link; and 8 independent chains in the
//                   same warp: cycles per instruction at issue (the warp's issue interval for that pipe).
// ldmatrix_latency  One warp, a pointer chase through ldmatrix .x1/.x2/.x4 (and .trans) whose loaded value is
//                   the next address, no other instruction in the chain; ld.shared.u32 and .v4 by a whole
//                   warp beside them: load-to-use cycles per hop.
// barrier           bar.sync in a loop, every warp of the CTA arriving together: cycles per barrier for CTAs
//                   of 1..32 warps, one and two CTAs per SM.
// async_src_release One warp (1 or 32 active lanes), a loop of cp.async.ca (LDGSTS) or red.global.add.f32
//                   (REDG), each followed by an instruction that overwrites one of its source registers and
//                   feeds the next one, against the same loop whose added instruction writes an unrelated
//                   register: the difference is how long the source register stays held after issue
//                   (write-after-read); alone and beside 7 warps of ldmatrix traffic.
// mio_issue         Bursts of K independent ld.shared.u32 or ldmatrix.x4 from 1, 4 or 8 warps of one CTA:
//                   cycles from before the first to after the last issue. Flat cycles per instruction up to
//                   the queue's depth, then the drain rate.
//
// Every chain is written as a chain in inline PTX (each instruction's output is the next one's input, and the
// asm statement that overwrites a register is the same one that reads it), and every kernel writes what it
// computed to global memory. The SASS of this build was checked (docs/microbenchmarks.md, "Checked in the
// machine code"); on the GPU machine scripts/gpu_microbench.sh repeats it (sass_latency.txt).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common.cuh"

namespace attnscope::microbench {
namespace {

// ---- alu_latency
// -------------------------------------------------------------------------------------------
enum AluOp { kIadd3, kImad, kLop3, kShf, kFfma, kFmul, kFadd, kF2fpF16, kF2fpBf16, kHadd2, kHfma2, kAluOps };
struct AluInfo {
  const char* sass;
  const char* ptx;
  const char*
      note;  // what the SASS of this build holds where it is not one instruction of that name per link
};
constexpr AluInfo kAlu[kAluOps] = {
    {"IADD3", "add.u32 x2 (x = x + a + b)", "ptxas fuses the two adds into one IADD3"},
    {"IMAD", "mad.lo.u32 (x = x * a + b)", ""},
    {"LOP3", "lop3.b32 0x96 (x = x ^ a ^ b)", ""},
    {"SHF", "shf.l.wrap.b32 (rotate x by a)", ""},
    {"FFMA", "fma.rn.f32 (x = x * a + b)", ""},
    {"FMUL", "mul.rn.f32 (x = x * a)", ""},
    {"FADD", "add.rn.f32 (x = x + a)", ""},
    {"F2FP.F16", "cvt.rn.f16x2.f32 (x = pack(x, a))", ""},
    {"F2FP.BF16", "cvt.rn.bf16x2.f32 (x = pack(x, a))", ""},
    {"HADD2", "add.rn.f16x2 (x = x + a)",
     "ptxas alternates HADD2 and HFMA2.MMA (x * 1 + a): the mean of the two"},
    {"HFMA2", "fma.rn.f16x2 (x = x * a + b)", "ptxas alternates HFMA2 and HFMA2.MMA: the mean of the two"},
};
constexpr int kAluLinks = 64;  // links per loop iteration (unrolled)

// One link: x is overwritten by the instruction that reads it. a and b are loaded at run time, and two
// consecutive links use four distinct operands (see the loop), so ptxas cannot merge two links into one
// IADD3 or LOP3.
template <int Op>
__device__ __forceinline__ void alu_link(std::uint32_t& x, std::uint32_t a, std::uint32_t b) {
  if constexpr (Op == kIadd3)
    asm volatile("add.u32 %0, %0, %1;\n\tadd.u32 %0, %0, %2;" : "+r"(x) : "r"(a), "r"(b));
  if constexpr (Op == kImad) asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b));
  if constexpr (Op == kLop3) asm volatile("lop3.b32 %0, %0, %1, %2, 0x96;" : "+r"(x) : "r"(a), "r"(b));
  if constexpr (Op == kShf) asm volatile("shf.l.wrap.b32 %0, %0, %0, %1;" : "+r"(x) : "r"(a));
  if constexpr (Op == kFfma) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b));
  if constexpr (Op == kFmul) asm volatile("mul.rn.f32 %0, %0, %1;" : "+r"(x) : "r"(a));
  if constexpr (Op == kFadd) asm volatile("add.rn.f32 %0, %0, %1;" : "+r"(x) : "r"(a));
  // The packed pair's bits are the next link's f32 operand (no instruction between: same register).
  if constexpr (Op == kF2fpF16) asm volatile("cvt.rn.f16x2.f32 %0, %0, %1;" : "+r"(x) : "r"(a));
  if constexpr (Op == kF2fpBf16) asm volatile("cvt.rn.bf16x2.f32 %0, %0, %1;" : "+r"(x) : "r"(a));
  if constexpr (Op == kHadd2) asm volatile("add.rn.f16x2 %0, %0, %1;" : "+r"(x) : "r"(a));
  if constexpr (Op == kHfma2) asm volatile("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(x) : "r"(a), "r"(b));
}

// `Chains` independent chains per thread, interleaved: 1 gives the dependent-issue latency, 8 the issue
// interval of one warp.
template <int Op, int Chains>
__global__ void alu_chain_kernel(int iters, const std::uint32_t* in, std::uint32_t* out, BlockClock* clk) {
  std::uint32_t v[8], x[Chains];
#pragma unroll
  for (int k = 0; k < 8; ++k) v[k] = in[k];
#pragma unroll
  for (int c = 0; c < Chains; ++c) x[c] = in[8 + c % 8];
  dev::ClockStamp stamp;
  stamp.begin();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < kAluLinks; ++k) {
#pragma unroll
      for (int c = 0; c < Chains; ++c) alu_link<Op>(x[c], v[k % 8], v[(k + 1 + 2 * (k / 8)) % 8]);
    }
  }
  stamp.end(clk);
  std::uint32_t s = 0;
#pragma unroll
  for (int c = 0; c < Chains; ++c) s ^= x[c] + static_cast<std::uint32_t>(c);
  out[threadIdx.x] = s;
}

using AluKernel = void (*)(int, const std::uint32_t*, std::uint32_t*, BlockClock*);
template <int Op>
AluKernel alu_kernel_op(bool ilp) {
  return ilp ? alu_chain_kernel<Op, 8> : alu_chain_kernel<Op, 1>;
}
AluKernel alu_kernel_for(int op, bool ilp) {
  switch (op) {
    case kIadd3:
      return alu_kernel_op<kIadd3>(ilp);
    case kImad:
      return alu_kernel_op<kImad>(ilp);
    case kLop3:
      return alu_kernel_op<kLop3>(ilp);
    case kShf:
      return alu_kernel_op<kShf>(ilp);
    case kFfma:
      return alu_kernel_op<kFfma>(ilp);
    case kFmul:
      return alu_kernel_op<kFmul>(ilp);
    case kFadd:
      return alu_kernel_op<kFadd>(ilp);
    case kF2fpF16:
      return alu_kernel_op<kF2fpF16>(ilp);
    case kF2fpBf16:
      return alu_kernel_op<kF2fpBf16>(ilp);
    case kHadd2:
      return alu_kernel_op<kHadd2>(ilp);
    default:
      return alu_kernel_op<kHfma2>(ilp);
  }
}

std::uint32_t f32_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
// Operands that keep every chain finite and away from denormals for the whole run (the F2FP chains settle on
// a fixed pattern, which changes nothing in how long a conversion takes).
std::vector<std::uint32_t> alu_operands(int op) {
  std::vector<std::uint32_t> v(16);
  for (int k = 0; k < 16; ++k) {
    const auto u = static_cast<std::uint32_t>(k);
    switch (op) {
      case kFfma:  // x = x * 0.5 + 0.5 -> 1
        v[k] = f32_bits(0.5f);
        break;
      case kFmul:  // alternately x 1.0001 and x 0.9999
        v[k] = f32_bits(k % 2 == 0 ? 1.0001f : 0.9999f);
        break;
      case kFadd:  // alternately +0.25 and -0.25
        v[k] = f32_bits(k % 2 == 0 ? 0.25f : -0.25f);
        break;
      case kF2fpF16:
      case kF2fpBf16:
        v[k] = f32_bits(1.0f + 0.125f * static_cast<float>(k));
        break;
      case kHadd2:  // +-0.25 in both halves
        v[k] = k % 2 == 0 ? 0x34003400U : 0xb400b400U;
        break;
      case kHfma2:  // 0.5 in both halves: x = x * 0.5 + 0.5 -> 1
        v[k] = 0x38003800U;
        break;
      default:  // odd integers (IMAD keeps its bits mixing)
        v[k] = (u * 2654435761U) | 1U;
    }
  }
  return v;
}

void run_alu_latency(Context& ctx) {
  const std::string bench = "alu_latency";
  const int iters = 128;  // x 64 links = 8192 links per chain
  DeviceBuffer<std::uint32_t> in(16), out(32);
  DeviceBuffer<BlockClock> clk(1);
  for (int op = 0; op < kAluOps; ++op) {
    const std::vector<std::uint32_t> h = alu_operands(op);
    MB_CHECK(cudaMemcpy(in.get(), h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    for (bool ilp : {false, true}) {
      const AluKernel k = alu_kernel_for(op, ilp);
      std::vector<double> cyc, ghz;
      for (int r = 0; r < ctx.reps(9) + 1; ++r) {
        k<<<1, 32>>>(iters, in.get(), out.get(), clk.get());
        MB_LAUNCHED();
        MB_CHECK(cudaDeviceSynchronize());
        if (r == 0) continue;
        const ClockSummary c = summarize_clocks(clk.copy_out());
        cyc.push_back(c.mean_cycles / (double(iters) * kAluLinks * (ilp ? 8 : 1)));
        ghz.push_back(c.ghz);
      }
      const double m = summarize(cyc).median;
      // One instruction per link and one warp: below one cycle per instruction the compiler has merged or
      // dropped links (Hopper issues at most one instruction per warp per cycle).
      ctx.rec->check(bench,
                     std::string(kAlu[op].sass) + (ilp ? " 8 chains" : " 1 chain") +
                         ": at least 1 cycle per instruction",
                     m >= 0.95, "median " + std::to_string(m) + " cycles");
      const Params p = {{"instruction", kAlu[op].sass},
                        {"ptx", kAlu[op].ptx},
                        {"chains_per_warp", ilp ? 8 : 1},
                        {"links_per_chain", iters * kAluLinks}};
      const std::string sass_note =
          kAlu[op].note[0] ? std::string("; SASS: ") + kAlu[op].note : std::string();
      if (ilp)
        ctx.rec->result(bench, "issue_interval", "cycles", cyc, p, ghz,
                        "one warp, 8 independent chains interleaved: cycles per instruction" + sass_note);
      else
        ctx.rec->result(
            bench, "latency", "cycles", cyc, p, ghz,
            "one warp, one dependent chain: cycles per link (the loop's counter and branch, once per "
            "64 links, issue in the chain's shadow)" +
                sass_note);
    }
  }
}

// ---- ldmatrix_latency
// ---------------------------------------------------------------------------------------- 64 blocks of 512
// bytes (four 8x8 matrices of 16-bit elements, 16-byte rows). Lane l of a warp reads row l of the current
// block (lanes 0-7 address matrix 0, 8-15 matrix 1, ...; .x1 and .x2 use the first 8 or 16 addresses). Every
// matrix of block b holds, in the registers ldmatrix gives lane l, the address of row l of block b + 1: the
// value loaded is the next address, for any of the four registers, plain or transposed.
constexpr int kChaseBlocks = 64, kChaseBlockBytes = 512, kChaseBytes = kChaseBlocks * kChaseBlockBytes;
constexpr int kChaseLinks = 64;

template <int N, bool Trans>
__device__ __forceinline__ void ldsm_n(std::uint32_t (&r)[4], std::uint32_t addr) {
  if constexpr (N == 1 && !Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
  if constexpr (N == 1 && Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r[0]) : "r"(addr));
  if constexpr (N == 2 && !Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
  if constexpr (N == 2 && Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
  if constexpr (N == 4 && !Trans) dev::ldmatrix_x4(r, addr);
  if constexpr (N == 4 && Trans) dev::ldmatrix_x4_trans(r, addr);
}

template <int N, bool Trans>
__global__ void ldsm_chase_kernel(int iters, std::uint32_t* out, BlockClock* clk) {
  __shared__ alignas(128) std::uint16_t s[kChaseBytes / 2];
  const std::uint32_t base = dev::smem_addr(s);
  // One item per (block, matrix, lane): the 32-bit value that lane gets from that matrix.
  for (int item = threadIdx.x; item < kChaseBlocks * 4 * 32; item += blockDim.x) {
    const int b = item / 128, m = (item / 32) % 4, l = item % 32;
    const std::uint32_t next =
        base + static_cast<std::uint32_t>(((b + 1) % kChaseBlocks) * kChaseBlockBytes + l * 16);
    const int mat = (b * kChaseBlockBytes + m * 128) / 2;  // the matrix's first element
    if (Trans) {  // lane l: elements (2 (l % 4), l / 4) low half and (2 (l % 4) + 1, l / 4) high half
      s[mat + (2 * (l % 4)) * 8 + l / 4] = static_cast<std::uint16_t>(next & 0xffffU);
      s[mat + (2 * (l % 4) + 1) * 8 + l / 4] = static_cast<std::uint16_t>(next >> 16);
    } else {  // lane l: elements 2 (l % 4) and 2 (l % 4) + 1 of row l / 4 = the matrix's word l
      s[mat + 2 * l] = static_cast<std::uint16_t>(next & 0xffffU);
      s[mat + 2 * l + 1] = static_cast<std::uint16_t>(next >> 16);
    }
  }
  const std::uint32_t start = base + static_cast<std::uint32_t>((threadIdx.x % 32) * 16);
  std::uint32_t a = start;
  dev::ClockStamp stamp;
  stamp.begin();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < kChaseLinks; ++k) {
      std::uint32_t r[4];
      ldsm_n<N, Trans>(r, a);
      a = r[k % N];  // every register of the .x2/.x4 is some link's next address
    }
  }
  stamp.end(clk);
  // 1 where the chase ended where it started (iters x 64 hops through 64 blocks); the host checks it.
  out[threadIdx.x] = 1U + (a ^ start);
}

// ld.shared.u32 (lane l at word l of a 128-byte row) or .v4.u32 (lane l at 16 l of a 512-byte row), the same
// 64-block cycle through 32 KB; each word holds the address its lane reads next.
template <bool Vec>
__global__ void lds_warp_chase_kernel(int iters, std::uint32_t* out, BlockClock* clk) {
  __shared__ alignas(128) std::uint32_t s[kChaseBytes / 4];
  const std::uint32_t base = dev::smem_addr(s);
  constexpr int kStride = Vec ? 512 : 128;
  for (int w = threadIdx.x; w < kChaseBytes / 4; w += blockDim.x) {
    const int row = (w * 4) / kStride, next_row = (row + 1) % (kChaseBytes / kStride);
    s[w] =
        (!Vec || w % 4 == 0) ? base + static_cast<std::uint32_t>(next_row * kStride + (w * 4) % kStride) : 0U;
  }
  const std::uint32_t start = base + static_cast<std::uint32_t>((threadIdx.x % 32) * (Vec ? 16 : 4));
  std::uint32_t a = start, side = 0;
  dev::ClockStamp stamp;
  stamp.begin();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < kChaseLinks; ++k) {
      if constexpr (Vec) {
        std::uint32_t x, y, z, w;
        asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(w) : "r"(a));
        a = x;
        side += y ^ z ^ w;  // off the chain; without a use of y, z, w ptxas narrows the load to LDS.32
      } else {
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a));
      }
    }
  }
  stamp.end(clk);
  out[threadIdx.x] = 1U + (a ^ start) + side;  // side is 0: y, z, w hold 0
}

void run_ldmatrix_latency(Context& ctx) {
  const std::string bench = "ldmatrix_latency";
  const int iters =
      64;  // x 64 links = 4096 hops; a multiple of the 64 blocks: every chase ends where it began
  DeviceBuffer<std::uint32_t> out(32);
  DeviceBuffer<BlockClock> clk(1);
  struct Case {
    const char* name;
    int matrices;
    bool trans;
    void (*k)(int, std::uint32_t*, BlockClock*);
    const char* note;
  };
  const Case cases[] = {
      {"ldmatrix.x1", 1, false, ldsm_chase_kernel<1, false>, ""},
      {"ldmatrix.x2", 2, false, ldsm_chase_kernel<2, false>, ""},
      {"ldmatrix.x4", 4, false, ldsm_chase_kernel<4, false>, ""},
      {"ldmatrix.x1.trans", 1, true, ldsm_chase_kernel<1, true>, ""},
      {"ldmatrix.x2.trans", 2, true, ldsm_chase_kernel<2, true>, ""},
      {"ldmatrix.x4.trans", 4, true, ldsm_chase_kernel<4, true>, ""},
      {"ld.shared.u32 (32 lanes, one 128-byte row)", 0, false, lds_warp_chase_kernel<false>, ""},
      {"ld.shared.v4.u32 (32 lanes, 512 bytes)", 0, false, lds_warp_chase_kernel<true>,
       "the other three words go to an XOR off the chain (one LOP3 per hop)"},
  };
  for (const Case& cs : cases) {
    std::vector<double> cyc, ghz;
    for (int r = 0; r < ctx.reps(9) + 1; ++r) {
      cs.k<<<1, 32>>>(iters, out.get(), clk.get());
      MB_LAUNCHED();
      MB_CHECK(cudaDeviceSynchronize());
      if (r == 0) continue;
      const ClockSummary c = summarize_clocks(clk.copy_out());
      cyc.push_back(c.mean_cycles / (double(iters) * kChaseLinks));
      ghz.push_back(c.ghz);
    }
    std::size_t ones = 0;
    for (std::uint32_t v : out.copy_out()) ones += v == 1U;
    ctx.rec->check(bench, std::string(cs.name) + ": every lane's chase read its own addresses back",
                   ones == 32, std::to_string(ones) + " of 32 lanes");
    ctx.rec->result(
        bench, "latency", "cycles", cyc,
        {{"instruction", cs.name},
         {"matrices", cs.matrices},
         {"trans", cs.trans ? "yes" : "no"},
         {"hops", iters * kChaseLinks}},
        ghz,
        std::string("one warp; each load's value is its lane's next address (no other instruction "
                    "in the chain)") +
            (cs.note[0] ? std::string("; ") + cs.note : std::string()));
  }
}

// ---- barrier
// ---------------------------------------------------------------------------------------------------
constexpr int kBarriersPerIter = 16;
__global__ void barrier_kernel(int iters, std::uint32_t* smids, BlockClock* clk) {
  dev::ClockStamp stamp;
  stamp.begin();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < kBarriersPerIter; ++k) asm volatile("bar.sync 0;" ::: "memory");
  }
  stamp.end(clk);
  if (threadIdx.x == 0) smids[blockIdx.x] = dev::smid();
}

void run_barrier(Context& ctx) {
  const std::string bench = "barrier";
  int smem_per_sm = 0;
  MB_CHECK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, ctx.device));
  const int iters = 256;  // x 16 = 4096 barriers
  for (int ctas_per_sm : {1, 2}) {
    // The shared-memory request sets how many CTAs fit: over half the opt-in (one), over a third of the SM's
    // (two); the occupancy query below confirms it.
    const int smem = ctas_per_sm == 1 ? ctx.smem_per_block_optin / 2 + 1024 : smem_per_sm / 3 + 1024;
    allow_smem(barrier_kernel, smem);
    for (int warps : {1, 2, 4, 8, 16, 32}) {
      int fit = 0;
      MB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, barrier_kernel, warps * 32, smem));
      const std::string name = std::to_string(warps) + " warps, " + std::to_string(ctas_per_sm) + " CTA/SM";
      if (fit != ctas_per_sm) {
        ctx.rec->check(bench, name + ": CTAs per SM as meant", false,
                       std::to_string(fit) + " fit with " + std::to_string(smem) + " B of shared memory");
        continue;
      }
      const int blocks = ctx.sm_count * ctas_per_sm;
      DeviceBuffer<std::uint32_t> smids(blocks);
      DeviceBuffer<BlockClock> clk(blocks);
      std::vector<double> cyc, ghz;
      int worst = 0;
      for (int r = 0; r < ctx.reps(7) + 1; ++r) {
        barrier_kernel<<<blocks, warps * 32, smem>>>(iters, smids.get(), clk.get());
        MB_LAUNCHED();
        MB_CHECK(cudaDeviceSynchronize());
        if (r == 0) continue;
        const ClockSummary c = summarize_clocks(clk.copy_out());
        cyc.push_back(c.mean_cycles / (double(iters) * kBarriersPerIter));
        ghz.push_back(c.ghz);
        std::vector<int> per_sm(1024, 0);
        for (std::uint32_t id : smids.copy_out())
          worst = std::max(worst, ++per_sm[std::min<std::uint32_t>(id, 1023)]);
      }
      ctx.rec->check(bench, name + ": CTAs spread evenly over SMs", worst == ctas_per_sm,
                     "most CTAs seen on one SM: " + std::to_string(worst));
      ctx.rec->result(
          bench, "cycles_per_barrier", "cycles", cyc,
          {{"warps_per_cta", warps}, {"ctas_per_sm", ctas_per_sm}, {"barriers", iters * kBarriersPerIter}},
          ghz,
          "bar.sync 0 back to back, all warps arriving together; each CTA's %clock64 cycles over "
          "its barriers (the loop's counter and branch once per 16 barriers)");
    }
  }
}

// ---- async_src_release
// ---------------------------------------------------------------------------------------
enum AsyncInst { kCpAsync = 0, kRedF32 = 1 };
// After each cp.async / red: nothing; an IADD3 on an unrelated chained register; an IADD3 that overwrites the
// instruction's 32-bit source (cp.async: the shared address; red: the data) and feeds the next one; a 64-bit
// add on an unrelated chained pair; a 64-bit add that overwrites the global address and feeds the next one.
enum ReleaseVariant { kAlone, kIndep32, kOverwrite32, kIndep64, kOverwrite64, kReleaseVariants };
const char* release_variant_name(int v) {
  switch (v) {
    case kAlone:
      return "alone";
    case kIndep32:
      return "+ add.u32 on an unrelated register";
    case kOverwrite32:
      return "+ add.u32 overwriting its 32-bit source";
    case kIndep64:
      return "+ add.u64 on an unrelated register pair";
    default:
      return "+ add.u64 overwriting its global address";
  }
}
constexpr int kReleaseLinks = 4096, kReleaseLinksPerWait = 256;

template <int Inst, int Variant>
__device__ __forceinline__ void release_link(std::uint32_t& s32, std::uint64_t& g64, std::uint32_t& t32,
                                             std::uint64_t& t64, std::uint32_t zero, std::uint64_t zero64) {
  // The overwriting add sits in the same asm statement as the instruction whose register it overwrites, on
  // the same operand, so the two name one register (the SASS check shows it).
  if constexpr (Inst == kCpAsync) {
    if constexpr (Variant == kOverwrite32)
      asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n\tadd.u32 %0, %0, %2;"
                   : "+r"(s32)
                   : "l"(g64), "r"(zero)
                   : "memory");
    else if constexpr (Variant == kOverwrite64)
      asm volatile("cp.async.ca.shared.global [%1], [%0], 16;\n\tadd.u64 %0, %0, %2;"
                   : "+l"(g64)
                   : "r"(s32), "l"(zero64)
                   : "memory");
    else
      asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(s32), "l"(g64) : "memory");
  } else {
    if constexpr (Variant == kOverwrite32)
      asm volatile("red.global.add.f32 [%1], %0;\n\tadd.u32 %0, %0, %2;"
                   : "+r"(s32)
                   : "l"(g64), "r"(zero)
                   : "memory");
    else if constexpr (Variant == kOverwrite64)
      asm volatile("red.global.add.f32 [%0], %1;\n\tadd.u64 %0, %0, %2;"
                   : "+l"(g64)
                   : "r"(s32), "l"(zero64)
                   : "memory");
    else
      asm volatile("red.global.add.f32 [%0], %1;" ::"l"(g64), "r"(s32) : "memory");
  }
  if constexpr (Variant == kIndep32) asm volatile("add.u32 %0, %0, %1;" : "+r"(t32) : "r"(zero));
  if constexpr (Variant == kIndep64) asm volatile("add.u64 %0, %0, %1;" : "+l"(t64) : "l"(zero64));
}

// Warp 0 runs the loop on its first `lanes` lanes and times it itself; warps 1.. (if any) run ldmatrix.x4
// chains (4 per warp, as the `ldmatrix` benchmark) until warp 0 is done. cp.async: every 256 links a commit
// and wait_group 0 (inside the timed loop, the same in every variant).
template <int Inst, int Variant>
__global__ void async_release_kernel(int lanes, std::uint32_t zero, const float* src, float* dst,
                                     std::uint32_t* out, BlockClock* clk) {
  __shared__ alignas(128) std::uint32_t s[4096 + 32 * 4];  // 16 KB of ldmatrix rows, then 512 B of landing
  __shared__ int done;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int i = threadIdx.x; i < 4096 + 128; i += blockDim.x)
    s[i] = static_cast<std::uint32_t>(i) * 2654435761U;
  if (threadIdx.x == 0) done = 0;
  __syncthreads();
  std::uint32_t t32 = zero + 7U;
  std::uint64_t t64 = zero + 11U;
  if (warp == 0) {
    std::uint32_t s32 = Inst == kCpAsync ? dev::smem_addr(s + 4096 + lane * 4) : __float_as_uint(1.0f);
    std::uint64_t g64 = reinterpret_cast<std::uint64_t>(Inst == kCpAsync ? src + lane * 4 : dst + lane);
    const std::uint64_t zero64 = zero;
    std::uint64_t c0 = 0, c1 = 0, g0 = 0, g1 = 0;
    if (lane < lanes) {
      g0 = dev::globaltimer();
      c0 = dev::clock64();
#pragma unroll 1
      for (int i = 0; i < kReleaseLinks / kReleaseLinksPerWait; ++i) {
        // One link per iteration, not unrolled: in straight-line code ptxas gives each new value of the
        // overwritten register a register of its own (seen in the SASS: the chain rotates through a dozen
        // registers, and no instruction waits on a source still held); around a loop's back edge the value
        // must come back to the register the next iteration reads, so the overwrite is real. The loop's
        // counter, compare and branch are the same in every variant.
#pragma unroll 1
        for (int k = 0; k < kReleaseLinksPerWait; ++k)
          release_link<Inst, Variant>(s32, g64, t32, t64, zero, zero64);
        if constexpr (Inst == kCpAsync) {
          dev::cp_async_commit();
          dev::cp_async_wait<0>();
        }
      }
      c1 = dev::clock64();
      g1 = dev::globaltimer();
    }
    __syncwarp();
    if (lane == 0) {
      clk[blockIdx.x] = BlockClock{c0, c1, g0, g1};
      atomicExch(&done, 1);
    }
    // cp.async: the landed 16 bytes (they must equal the source); red: the registers' end values.
    out[threadIdx.x] =
        Inst == kCpAsync ? s[4096 + lane * 4] ^ (t32 + static_cast<std::uint32_t>(t64))
                         : (s32 + static_cast<std::uint32_t>(g64)) ^ (t32 + static_cast<std::uint32_t>(t64));
  } else {
    // Background: ldmatrix.x4 chains through 16 KB until warp 0 is done (checked every 16 loads).
    const std::uint32_t zero_bg = zero;
    std::uint32_t a[4];
#pragma unroll
    for (int c = 0; c < 4; ++c)
      a[c] = dev::smem_addr(s) + static_cast<std::uint32_t>((warp % 8) * 2048 + c * 512 + lane * 16) % 16384U;
    std::uint32_t acc = 0;
    while (*static_cast<volatile int*>(&done) == 0) {
#pragma unroll
      for (int k = 0; k < 4; ++k) {
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          std::uint32_t r[4];
          dev::ldmatrix_x4(r, a[c]);
          a[c] += r[0] & zero_bg;
          acc += r[1] + r[2] + r[3];
        }
      }
    }
    out[threadIdx.x] = acc;
  }
}

using ReleaseKernel = void (*)(int, std::uint32_t, const float*, float*, std::uint32_t*, BlockClock*);
template <int Inst>
ReleaseKernel release_kernel_for(int variant) {
  switch (variant) {
    case kAlone:
      return async_release_kernel<Inst, kAlone>;
    case kIndep32:
      return async_release_kernel<Inst, kIndep32>;
    case kOverwrite32:
      return async_release_kernel<Inst, kOverwrite32>;
    case kIndep64:
      return async_release_kernel<Inst, kIndep64>;
    default:
      return async_release_kernel<Inst, kOverwrite64>;
  }
}

void run_async_src_release(Context& ctx) {
  const std::string bench = "async_src_release";
  DeviceBuffer<float> src(128), dst(32);
  std::vector<float> hsrc(128);
  for (int i = 0; i < 128; ++i) hsrc[i] = 1.0f + 0.5f * static_cast<float>(i);
  MB_CHECK(cudaMemcpy(src.get(), hsrc.data(), 128 * sizeof(float), cudaMemcpyHostToDevice));
  DeviceBuffer<std::uint32_t> out(8 * 32);
  DeviceBuffer<BlockClock> clk(1);
  for (int inst : {kCpAsync, kRedF32}) {
    const char* inst_name =
        inst == kCpAsync ? "cp.async.ca.shared.global 16 (LDGSTS)" : "red.global.add.f32 (REDG)";
    for (int bg : {0, 7}) {
      for (int lanes : {1, 32}) {
        std::vector<double> per_variant[kReleaseVariants];
        for (int v = 0; v < kReleaseVariants; ++v) {
          const ReleaseKernel k =
              inst == kCpAsync ? release_kernel_for<kCpAsync>(v) : release_kernel_for<kRedF32>(v);
          std::vector<double> cyc, ghz;
          bool landed = true;
          for (int r = 0; r < ctx.reps(7) + 1; ++r) {
            MB_CHECK(cudaMemset(dst.get(), 0, 32 * sizeof(float)));
            k<<<1, (1 + bg) * 32>>>(lanes, 0u, src.get(), dst.get(), out.get(), clk.get());
            MB_LAUNCHED();
            MB_CHECK(cudaDeviceSynchronize());
            // Every red landed (4096 x 1.0 per active lane, exact in f32); every cp.async lane holds its
            // source.
            if (inst == kRedF32) {
              const std::vector<float> h = dst.copy_out();
              for (int l = 0; l < 32; ++l)
                landed = landed && h[l] == (l < lanes ? float(kReleaseLinks) : 0.0f);
            } else {
              const std::vector<std::uint32_t> h = out.copy_out();
              for (int l = 0; l < lanes; ++l) {
                std::uint32_t want;
                std::memcpy(&want, &hsrc[l * 4], 4);
                landed = landed && (h[l] ^ 18U) == want;  // 18: the unrelated registers' end values, 7 + 11
              }
            }
            if (r == 0) continue;
            const ClockSummary c = summarize_clocks(clk.copy_out());
            cyc.push_back(c.mean_cycles / kReleaseLinks);
            ghz.push_back(c.ghz);
          }
          const std::string name = std::string(inst == kCpAsync ? "cp.async" : "red") + " " +
                                   release_variant_name(v) + ", " + std::to_string(lanes) + " lanes, " +
                                   std::to_string(bg) + " ldmatrix warps";
          ctx.rec->check(bench,
                         name + (inst == kCpAsync ? ": every lane's 16 bytes landed" : ": every add landed"),
                         landed, landed ? "yes" : "a value differs");
          per_variant[v] = cyc;
          ctx.rec->result(bench, "cycles_per_link", "cycles", cyc,
                          {{"instruction", inst_name},
                           {"variant", release_variant_name(v)},
                           {"lanes", lanes},
                           {"background_ldmatrix_warps", bg},
                           {"links", kReleaseLinks}},
                          ghz,
                          inst == kCpAsync
                              ? "one warp; a commit + wait_group 0 every 256 links (in every variant)"
                              : "one warp; each active lane adds to its own word");
        }
        // The source register's hold: overwriting minus unrelated, per repetition (paired by index).
        for (int width : {32, 64}) {
          const std::vector<double>& over = per_variant[width == 32 ? kOverwrite32 : kOverwrite64];
          const std::vector<double>& ind = per_variant[width == 32 ? kIndep32 : kIndep64];
          std::vector<double> diff;
          for (std::size_t i = 0; i < std::min(over.size(), ind.size()); ++i)
            diff.push_back(over[i] - ind[i]);
          ctx.rec->result(
              bench, "war_extra_cycles", "cycles", diff,
              {{"instruction", inst_name},
               {"register", width == 32 ? (inst == kCpAsync ? "shared address (32-bit)" : "data (32-bit)")
                                        : "global address (64-bit)"},
               {"lanes", lanes},
               {"background_ldmatrix_warps", bg}},
              {},
              "cycles per link of the overwriting loop minus the unrelated one: how much longer the "
              "chain through the source register is than the same add's own latency");
        }
      }
    }
  }
}

// ---- mio_issue
// ------------------------------------------------------------------------------------------------- Each
// warp: a barrier, %clock64, K independent loads (the offsets fold into the instructions' immediates)
// (ld.shared.u32 at lane x 4 + k x 128: conflict-free, one wavefront each; or ldmatrix.x4 at lane x 16 + k x
// 512: four wavefronts), %clock64, then the loads' values are summed (waiting for all of them). The loads'
// base address depends on the previous burst's sum (& a zero from the host), so no burst can be hoisted or
// merged with another.
constexpr int kMioBursts = 64;
template <bool Ldsm, int K>
__global__ void mio_burst_kernel(std::uint32_t zero, std::uint32_t* out, std::uint32_t* cycles) {
  __shared__ alignas(128) std::uint32_t s[16384 / 4];
  for (int i = threadIdx.x; i < 16384 / 4; i += blockDim.x)
    s[i] = static_cast<std::uint32_t>(i) * 2654435761U + 1U;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::uint32_t base = dev::smem_addr(s) + static_cast<std::uint32_t>(Ldsm ? lane * 16 : lane * 4);
  std::uint32_t acc = 0;
#pragma unroll 1
  for (int b = 0; b < kMioBursts; ++b) {
    const std::uint32_t a = base + (acc & zero);
    __syncthreads();
    const std::uint64_t c0 = dev::clock64();
    std::uint32_t r[K > 0 ? K : 1][Ldsm ? 4 : 1];
#pragma unroll
    for (int k = 0; k < K; ++k) {
      if constexpr (Ldsm)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r[k][0]), "=r"(r[k][1]), "=r"(r[k][2]), "=r"(r[k][3])
                     : "r"(a + static_cast<std::uint32_t>(k * 512)));
      else
        asm volatile("ld.shared.u32 %0, [%1];"
                     : "=r"(r[k][0])
                     : "r"(a + static_cast<std::uint32_t>(k * 128)));
    }
    const std::uint64_t c1 = dev::clock64();
#pragma unroll
    for (int k = 0; k < K; ++k) {
#pragma unroll
      for (int e = 0; e < (Ldsm ? 4 : 1); ++e) acc += r[k][e];
    }
    if (lane == 0) cycles[warp * kMioBursts + b] = static_cast<std::uint32_t>(c1 - c0);
  }
  out[threadIdx.x] = acc;
}

using MioKernel = void (*)(std::uint32_t, std::uint32_t*, std::uint32_t*);
template <bool Ldsm>
MioKernel mio_kernel_for(int k) {
  switch (k) {
    case 0:
      return mio_burst_kernel<Ldsm, 0>;
    case 1:
      return mio_burst_kernel<Ldsm, 1>;
    case 2:
      return mio_burst_kernel<Ldsm, 2>;
    case 4:
      return mio_burst_kernel<Ldsm, 4>;
    case 8:
      return mio_burst_kernel<Ldsm, 8>;
    case 12:
      return mio_burst_kernel<Ldsm, 12>;
    case 16:
      return mio_burst_kernel<Ldsm, 16>;
    case 24:
      return mio_burst_kernel<Ldsm, 24>;
    case 32:
      return mio_burst_kernel<Ldsm, 32>;
    default:
      break;
  }
  if constexpr (Ldsm) {
    return mio_burst_kernel<Ldsm, 32>;  // 4 registers per ldmatrix.x4: 32 in flight is 128 registers already
  } else {
    return k == 48 ? mio_burst_kernel<Ldsm, 48> : mio_burst_kernel<Ldsm, 64>;
  }
}

void run_mio_issue(Context& ctx) {
  const std::string bench = "mio_issue";
  DeviceBuffer<std::uint32_t> out(8 * 32), cycles(8 * kMioBursts);
  for (bool ldsm : {false, true}) {
    const std::vector<int> ks = ldsm ? std::vector<int>{0, 1, 2, 4, 8, 12, 16, 24, 32}
                                     : std::vector<int>{0, 1, 2, 4, 8, 16, 24, 32, 48, 64};
    for (int warps : {1, 4, 8}) {
      for (int k : ks) {
        const MioKernel kern = ldsm ? mio_kernel_for<true>(k) : mio_kernel_for<false>(k);
        std::vector<double> issue, per_inst;
        for (int r = 0; r < ctx.reps(7) + 1; ++r) {
          kern<<<1, warps * 32>>>(0u, out.get(), cycles.get());
          MB_LAUNCHED();
          MB_CHECK(cudaDeviceSynchronize());
          if (r == 0) continue;
          // The median burst of every warp (the first bursts run with a cold instruction cache).
          std::vector<double> bursts;
          const std::vector<std::uint32_t> h = cycles.copy_out();
          for (int i = 0; i < warps * kMioBursts; ++i) bursts.push_back(h[i]);
          const double m = summarize(bursts).median;
          issue.push_back(m);
          if (k > 0) per_inst.push_back(m / k);
        }
        if (k == 64 || (ldsm && k == 32)) {
          std::uint64_t x = 0;
          for (std::uint32_t v : out.copy_out()) x += v;
          ctx.rec->check(bench,
                         std::string(ldsm ? "ldmatrix.x4" : "ld.shared.u32") + " " + std::to_string(warps) +
                             " warps: checksum nonzero",
                         x != 0, "sum " + std::to_string(x));
        }
        const Params p = {{"instruction", ldsm ? "ldmatrix.x4" : "ld.shared.u32"},
                          {"burst", k},
                          {"warps_per_sm", warps},
                          {"warps_per_subpartition", warps / 4 > 0 ? warps / 4 : 1},
                          {"bytes_per_instruction", ldsm ? 512 : 128}};
        ctx.rec->result(bench, "issue_cycles", "cycles", issue, p, {},
                        "median over bursts and warps of %clock64 after the last load minus before the first "
                        "(burst 0: the two clock reads alone)");
        if (k > 0) ctx.rec->result(bench, "cycles_per_instruction", "cycles", per_inst, p);
      }
    }
  }
}

}  // namespace

void add_latency_benchmarks(std::vector<Benchmark>& out) {
  out.push_back(
      {"alu_latency",
       "ALU dependent-issue latency (one chain) and one warp's issue interval (8 chains): IADD3, IMAD, "
       "LOP3, SHF, FFMA, FMUL, FADD, F2FP f16/bf16, HADD2, HFMA2",
       run_alu_latency});
  out.push_back(
      {"ldmatrix_latency",
       "ldmatrix .x1/.x2/.x4 (.trans) load-to-use latency (pointer chase, one warp), ld.shared .u32/.v4 "
       "beside",
       run_ldmatrix_latency});
  out.push_back({"barrier",
                 "bar.sync cycles per barrier, all warps arriving together, 1-32 warps, 1 and 2 CTAs per SM",
                 run_barrier});
  out.push_back({"async_src_release",
                 "LDGSTS / REDG source-register hold: a loop overwriting the source after each, against an "
                 "unrelated register; alone and with 7 warps of ldmatrix",
                 run_async_src_release});
  out.push_back(
      {"mio_issue",
       "bursts of K independent ld.shared.u32 / ldmatrix.x4 from 1, 4, 8 warps: cycles to issue them "
       "(the MIO queue's depth and drain rate)",
       run_mio_issue});
}

}  // namespace attnscope::microbench
