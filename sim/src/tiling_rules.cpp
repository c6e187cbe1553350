// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/tiling_rules.hpp"

#include <algorithm>
#include <string>

#include "attnscope/sim/error.hpp"
#include "attnscope/vocab/geometry.hpp"

namespace attnscope::sim {
namespace {

void require(bool ok, KernelId k, const std::string& why) {
  if (!ok) throw InvalidInput(std::string(to_string(k)) + ": " + why);
}

void require_range(int v, int lo, int hi, KernelId k, const char* field) {
  require(v >= lo && v <= hi, k,
          std::string(field) + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
              std::to_string(v));
}

void require_multiple_of_16(int v, KernelId k, const char* field) {
  require(v >= 16 && v % 16 == 0, k,
          std::string(field) + " must be a positive multiple of 16 (the MMA tile), got " + std::to_string(v));
}

}  // namespace

void validate_tiling(KernelId k, const Workload& w, const TileConfig& t) {
  validate(w);
  const auto e = static_cast<std::int64_t>(bytes_of(w.dtype));
  if (pass_of(k) == Pass::bwd) {
    // Both backward kinds are compiled for fp16 and bf16, d = 64 and 128 (kernels/backward.hpp).
    require(vocab::is_compiled_dtype(w.dtype), k,
            "dtype fp32 is not supported (the backward kernels are compiled for fp16 and bf16)");
    require(vocab::is_compiled_head_dim(w.head_dim), k,
            "head_dim " + std::to_string(w.head_dim) + " is not supported (compiled for 64 and 128)");
    if (k != KernelId::tiled_bwd && k != KernelId::tiled_bwd_pre && k != KernelId::tiled_bwd_post) return;
    const vocab::TiledBwdConfig c = t.tiled_bwd(w.head_dim);
    require_multiple_of_16(c.bc, k, "backward Bc");
    require_multiple_of_16(c.br, k, "backward Br");
    require_range(c.bc / vocab::kMmaTile, 1, 32, k, "backward warps (Bc / 16)");
    // dQ_i = dS K_j [Br x d]: one 16-row slab per warp, the warps of a slab splitting d into 16-column
    // blocks (vocab::tiled_bwd_dq_split).
    require(
        vocab::tiled_bwd_dq_split(c, w.head_dim).cols > 0, k,
        "the warps (Bc / 16) must split evenly over Br / 16 row slabs of dQ, each slab's warps into whole "
        "16-column blocks of d: Bc " +
            std::to_string(c.bc) + ", Br " + std::to_string(c.br) + ", d " + std::to_string(w.head_dim));
    require(c.br % 4 == 0 && c.br / 4 * 2 <= vocab::tiled_bwd_threads_per_cta(c), k,
            "one thread per 16-byte piece of LSE and D: Br / 2 must not exceed the CTA's threads");
    require_range(c.stages, 1, 8, k, "backward stages");
    return;
  }
  if (k == KernelId::hopper) {
    const vocab::HopperConfig c = t.hopper();
    require(vocab::is_compiled_dtype(w.dtype), k,
            "dtype fp32 is not supported (wgmma runs fp16 and bf16 here; the kernel is compiled for those)");
    require(vocab::is_compiled_head_dim(w.head_dim), k,
            "head_dim " + std::to_string(w.head_dim) + " is not supported (compiled for 64 and 128)");
    require(!w.general_mask(), k, "no sliding window or ALiBi (the kernel is not built for them)");
    require_range(c.consumers, 1, 3, k, "consumers (warpgroups of 64 query rows: Br = 64 x consumers)");
    require_multiple_of_16(c.bc, k, "Bc");
    require(c.bc <= 256, k,
            "Bc must be at most 256 (the N of one wgmma and the box of one bulk tensor copy), got " +
                std::to_string(c.bc));
    require_range(c.stages, 2, 8, k,
                  "stages (the K/V ring: the producer refills a slot the consumers freed)");
    require(!c.pingpong || c.consumers == 2, k, "the ping-pong schedules need 2 consumer warpgroups");
    const std::int64_t smem = vocab::hopper_smem_bytes(c, w.head_dim, w.dtype);
    require(smem <= 232448, k,
            "shared memory " + std::to_string(smem) +
                " bytes (Q, the K/V ring and the barriers) exceeds the 232448 bytes one CTA may hold");
    require(vocab::hopper_config_valid(c, w.head_dim, w.dtype), k,
            "not a configuration the kernel can be built as (vocab::hopper_config_valid)");
    return;
  }
  if (k == KernelId::tiled) {
    require(vocab::is_compiled_dtype(w.dtype), k,
            "dtype fp32 is not supported (the tiled kernel is compiled for fp16 and bf16)");
    require(vocab::is_compiled_head_dim(w.head_dim), k,
            "head_dim " + std::to_string(w.head_dim) + " is not supported (compiled for 64 and 128)");
    require_multiple_of_16(t.br, k, "Br");
    require_multiple_of_16(t.bc, k, "Bc");
    require_range(t.warps, 1, 32, k, "warps");
    require(t.br % t.warps == 0 && vocab::tiled_rows_per_warp(t.tiled()) % vocab::kMmaTile == 0, k,
            "each warp owns a multiple of 16 query rows, so Br (" + std::to_string(t.br) +
                ") must be a multiple of 16 * warps (" + std::to_string(t.warps) + ")");
    require_range(t.stages, 1, 8, k, "stages");
    return;
  }
  require((w.head_dim * e) % 16 == 0, k,
          "head_dim * element size must be a multiple of 16 bytes (cp.async rows), got head_dim " +
              std::to_string(w.head_dim));
  require_multiple_of_16(t.gemm_bm, k, "gemm_bm");
  require_multiple_of_16(t.gemm_bn, k, "gemm_bn");
  require_multiple_of_16(t.gemm_bk, k, "gemm_bk");
  require_range(t.gemm_warps, 1, 32, k, "gemm_warps");
  require_range(t.gemm_stages, 1, 8, k, "gemm_stages");
  require_range(t.softmax_rows_per_cta, 1, kMaxLoadsPerStep, k, "softmax_rows_per_cta");
  require_range(t.gemm_qk_tiles_per_cta, 1, 64, k, "gemm_qk_tiles_per_cta");
  require_range(t.gemm_qk_stages, 1, 8, k, "gemm_qk_stages");
  require(t.gemm_pv_l2_fetch_bytes == 0 || t.gemm_pv_l2_fetch_bytes == 64 ||
              t.gemm_pv_l2_fetch_bytes == 128 || t.gemm_pv_l2_fetch_bytes == 256,
          k,
          "gemm_pv_l2_fetch_bytes must be 0, 64, 128 or 256 (the L2 prefetch-size hints), got " +
              std::to_string(t.gemm_pv_l2_fetch_bytes));
  require(t.gemm_bm % (16 * t.gemm_warps) == 0 || k != KernelId::naive_pv, k,
          "gemm_bm must be a multiple of 16 * gemm_warps (each warp owns 16-row slabs of O)");
}

std::int64_t smem_bytes_per_cta(KernelId k, const Workload& w, const TileConfig& t) {
  switch (k) {
    case KernelId::tiled:
      return vocab::tiled_smem_bytes(t.tiled(), w.head_dim, w.dtype);
    case KernelId::naive_qk:
      return vocab::naive_qk_smem_bytes(t.naive(), w.head_dim, w.dtype);
    case KernelId::naive_softmax:
      return vocab::naive_softmax_smem_bytes(t.naive(), w.seq_kv, w.dtype, w.general_mask());
    case KernelId::naive_pv:
      return vocab::naive_pv_smem_bytes(t.naive(), w.head_dim, w.dtype);
    case KernelId::tiled_bwd:
      return vocab::tiled_bwd_smem_bytes(t.tiled_bwd(w.head_dim), w.head_dim, w.dtype);
    case KernelId::tiled_bwd_pre:
      return vocab::tiled_bwd_pre_smem_bytes(w.head_dim);
    case KernelId::tiled_bwd_post:
    case KernelId::naive_bwd_ds:
      return 0;  // registers only
    case KernelId::naive_bwd_dp:
      return vocab::naive_bwd_gemm_smem_bytes(vocab::NaiveBwdTiling{}, vocab::NaiveBwdTiling{}.bn, w.dtype);
    case KernelId::naive_bwd_dv:
    case KernelId::naive_bwd_dq:
    case KernelId::naive_bwd_dk:
      return vocab::naive_bwd_gemm_smem_bytes(vocab::NaiveBwdTiling{}, w.head_dim, w.dtype);
    case KernelId::hopper:
      return vocab::hopper_smem_bytes(t.hopper(), w.head_dim, w.dtype);
  }
  return 0;
}

int estimate_registers_per_thread(KernelId k, const Workload& w, const TileConfig& t) {
  constexpr std::int64_t kOverhead = 32;  // addresses, loop counters, indices
  const auto e = static_cast<std::int64_t>(bytes_of(w.dtype));
  const std::int64_t d = w.head_dim;
  std::int64_t regs = kOverhead;
  switch (k) {
    case KernelId::tiled: {
      const std::int64_t rows = t.br / t.warps;    // query rows per warp
      regs += rows * d / 32;                       // O accumulator, fp32
      regs += rows * t.bc / 32;                    // S accumulator, fp32
      if (d == 64) regs += rows * d * e / 4 / 32;  // Q fragments kept in registers (d = 128 re-reads smem)
      regs += rows * t.bc * 2 / 4 / 32;            // P as 16-bit A fragments
      regs += rows / 16 * 4;                       // running max and sum per row
      break;
    }
    case KernelId::naive_qk: {
      const int warp_rows = t.gemm_warps % 2 == 0 ? 2 : 1;
      const std::int64_t wm = t.gemm_bm / warp_rows, wn = t.gemm_bn / (t.gemm_warps / warp_rows);
      regs += wm * wn / 32 + (wm + wn) * 16 * e / 4 / 32;
      break;
    }
    case KernelId::naive_pv: {
      const std::int64_t wm = t.gemm_bm / t.gemm_warps;
      regs += wm * d / 32 + (wm + d) * 16 * e / 4 / 32;
      // The compiled d = 64 kernels (docs/kernel-notes.md): 64 registers under __launch_bounds__(256, 4) when
      // P's rows are 16-byte aligned (Nkv % 8 == 0), 106 under (256, 2) for the 2-byte-load unaligned path.
      if (d == 64) regs = vocab::naive_rows_aligned(w.seq_kv) ? 64 : 106;
      break;
    }
    case KernelId::tiled_bwd:
      // dK and dV accumulators [16 keys x d] per warp (fp32), S^T and dP^T [16 x Br], K and V fragments at
      // d = 64: the compiled kernels use 245-255 registers (__launch_bounds__ with 1 or 2 CTAs per SM), so
      // the register file, not shared memory, sets their occupancy.
      regs = 255;
      break;
    case KernelId::tiled_bwd_pre:
    case KernelId::tiled_bwd_post:
      regs = 24;  // the compiled pre and post kernels use 17-21 registers; allocated in units of 8
      break;
    case KernelId::naive_bwd_dv:
    case KernelId::naive_bwd_dp:
    case KernelId::naive_bwd_dq:
    case KernelId::naive_bwd_dk: {
      // Each warp owns 16 rows x bn of C (fp32) and its A and B fragments, like naive.pv. The compiled
      // kernels (ptxas -v, sm_90a, fp16 and bf16 alike) use 128 registers at bn = 128 (dP; d 128), and at bn
      // = d = 64 64 for dV and dK (A transposed) and 76 for dQ: those, where compiled; the estimate
      // elsewhere.
      const vocab::NaiveBwdTiling n{};
      const std::int64_t bn = k == KernelId::naive_bwd_dp ? n.bn : d;
      regs += vocab::kMmaTile * bn / 32 + (vocab::kMmaTile + bn) * 16 * e / 4 / 32;
      if (vocab::is_compiled_dtype(w.dtype) && (bn == 64 || bn == 128))
        regs = bn == 128 ? 128 : k == KernelId::naive_bwd_dq ? 76 : 64;
      break;
    }
    case KernelId::naive_bwd_ds:
      // One 16-byte piece of each row and a running sum per lane: 32 registers compiled for fp16, 40 for bf16
      // (ptxas -v, sm_90a).
      regs = w.dtype == DType::bf16 ? 40 : 32;
      break;
    case KernelId::hopper:
      // The launch bound (threads, 1 CTA per SM) caps every thread at 65536 / threads rounded down to 8: 168
      // at 2 consumers, 128 at 3 (ptxas allocates every branch within it although setmaxnreg moves registers
      // from the producer to the consumers at run time; docs/hopper-kernel.md).
      regs = 65536 / vocab::hopper_threads_per_cta(t.hopper()) / 8 * 8;
      break;
    case KernelId::naive_softmax:
      // The row lives in shared memory (or streams through twice): a few running values per lane. The
      // compiled kernels use 25-32 registers (docs/kernel-notes.md); occupancy is set by shared memory or
      // threads.
      regs = 32;
      break;
  }
  regs = (regs + 7) / 8 * 8;
  // __launch_bounds__(threads, min_blocks) of the real kernels (vocab::tiled_min_blocks_per_sm,
  // naive_pv_min_blocks_per_sm) caps registers so min_blocks CTAs fit the 64 K-register file (the compiler
  // spills beyond it). naive.qk's bound (2 CTAs of 256 threads: 128 registers) is not applied: its estimate
  // stays below it for the dtypes the kernel is compiled for, and the model's fp32 naive.qk (not compiled)
  // keeps its estimate.
  int min_blocks = 0;
  std::int64_t threads = 0;
  if (k == KernelId::tiled) {
    threads = vocab::tiled_threads_per_cta(t.tiled());
    min_blocks = vocab::tiled_min_blocks_per_sm(t.tiled(), w.head_dim);
  } else if (k == KernelId::naive_pv) {
    threads = vocab::naive_gemm_threads_per_cta(t.naive());
    min_blocks = vocab::naive_pv_min_blocks_per_sm(w.head_dim, vocab::naive_rows_aligned(w.seq_kv));
  }
  // Only where the kernels are built that way: every compiled configuration leaves >= 128 registers under its
  // bound (256 threads x 2, 128 x 2); a bound tighter than that would be a kernel nobody compiled (it would
  // spill), so the estimate stands and occupancy may refuse it.
  if (min_blocks > 0 && threads > 0) {
    const std::int64_t cap = 65536 / (min_blocks * threads) / 8 * 8;
    if (cap >= 128) regs = std::min(regs, cap);
  }
  return static_cast<int>(std::clamp<std::int64_t>(regs, 16, 255));
}

}  // namespace attnscope::sim
