// SPDX-License-Identifier: Apache-2.0
// Which kernel, and how it tiles the work. The same fields describe the real CUDA kernels (kernels/) and
// their model (sim/): Br x Bc tiles of the tiled kernel, its warps and cp.async pipeline depth, and the
// fixed GEMM tiling of the naive kernels.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace attnscope::sim {

enum class KernelKind : std::uint8_t {
  naive,  // three kernels: S = QK^T*scale -> HBM; softmax(S) -> P in place; O = P V
  tiled,  // FlashAttention-2 forward: one CTA per (q-tile, head, batch), online softmax
};
std::string_view to_string(KernelKind k);
std::optional<KernelKind> parse_kernel_kind(std::string_view s);

// Order in which CTAs are launched (blockIdx.x fastest). The real tiled kernel uses q_tile_fastest.
enum class LaunchOrder : std::uint8_t { q_tile_fastest, head_fastest };
std::string_view to_string(LaunchOrder o);
std::optional<LaunchOrder> parse_launch_order(std::string_view s);

struct TileConfig {
  // Tiled (FlashAttention-2) kernel.
  int br = 128;    // query rows per CTA (q-tile)
  int bc = 64;     // key/value rows per inner step (kv-tile)
  int warps = 4;   // warps per CTA; each warp owns br/warps query rows (16 or 32 in the real kernel;
                   // 4 warps x 32 rows is the fastest measured on the H200: docs/kernel-notes.md)
  int stages = 2;  // cp.async pipeline depth for K/V tiles in shared memory
  LaunchOrder order = LaunchOrder::q_tile_fastest;

  // Naive kernels' GEMM tiling (fixed in the real kernels; documented in kernels/README.md).
  int gemm_bm = 128;  // rows of the output tile per CTA
  int gemm_bn = 128;  // columns of the output tile per CTA (QK^T); PV uses bn = head_dim
  int gemm_bk = 32;   // reduction step per shared-memory stage
  int gemm_warps = 8;
  int gemm_stages = 2;           // naive.pv's cp.async ring (P and V slices)
  int softmax_rows_per_cta = 8;  // naive softmax: one warp per row
  // naive.qk: a CTA computes this many consecutive S tiles of one row block, one after another; its Q row
  // block is loaded once and K slices stream through a gemm_qk_stages-slot ring across the tiles, so the
  // next tile's K is in flight during this tile's math. (Measurements dated before kNaiveMultiTileDate ran
  // the one-tile kernel: naive_tiling_measured_at.)
  int gemm_qk_tiles_per_cta = 4;
  int gemm_qk_stages = 4;
  // naive.pv: the L2 prefetch-size hint on the P copies when P's rows are 16-byte aligned (0: none): a miss
  // makes L2 fetch the whole aligned block from HBM, so the next steps' P pieces of that row hit.
  int gemm_pv_l2_fetch_bytes = 256;

  std::string label() const;  // e.g. "Br128-Bc64-w4-s2"
  // Whether the naive kernels' qk and pv fields equal other's (label() covers the tiled kernel's only).
  bool same_naive_tiling(const TileConfig& other) const;
};

// The naive kernels changed on this date (docs/kernel-notes.md, fourth shift): before it, naive.qk computed
// one S tile per CTA through a gemm_stages-deep ring and naive.pv copied P without a prefetch hint.
// Measurements dated before it (ISO 8601 dates compare as text) were taken with those kernels.
inline constexpr std::string_view kNaiveMultiTileDate = "2026-12-03";
// `t` with the naive tiling of the kernels measured at `date` (ISO 8601): unchanged, or before
// kNaiveMultiTileDate 1 tile per qk CTA, gemm_stages slots and no prefetch hint.
TileConfig naive_tiling_measured_at(TileConfig t, std::string_view date);

}  // namespace attnscope::sim
