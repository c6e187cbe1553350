// SPDX-License-Identifier: Apache-2.0
// The backward pass's kernels and their geometry, written once: tile configurations, grids, threads,
// shared memory, the workspace the tiled backward needs and which q tiles a kv tile visits. The CUDA
// kernels static_assert their SharedStorage against these formulas and launch with them; the model prices
// the same numbers. docs/dataflow.md ("Backward pass") is the readable form.
//
// Gradients of O = softmax(scale * Q K^T) V given dO, with P = softmax(...) and D = rowsum(dO o O):
//   dV = P^T dO      dP = dO V^T      dS = P o (dP - D)      dQ = scale * dS K      dK = scale * dS^T Q
//
// Tiled backward (FlashAttention-2 style, recomputation): three launches.
//   tiled_bwd.pre   per query row: D = rowsum(dO o O), LSE * log2(e) (both fp32, in a workspace padded to
//                   whole q tiles), and the fp32 dQ accumulator zeroed;
//   tiled_bwd       one CTA per (kv tile of Bc keys, head, batch): K and V tiles resident in shared memory,
//                   dK and dV accumulated in registers (each warp owns 16 keys); Q, dO, LSE and D tiles of
//                   Br rows stream through a `stages`-deep cp.async ring; P is recomputed from LSE; dS is
//                   staged in shared memory and dQ += dS K is added into the fp32 accumulator with
//                   atomics (red.global.add.v2.f32, resolved in L2);
//   tiled_bwd.post  dQ = scale * accumulator, converted to the input dtype.
// Naive backward (standard attention: P was stored by the naive forward): five launches through
// [B, H, Nq, Nkv] matrices in HBM: naive_bwd.dv, naive_bwd.dp (dP written), naive_bwd.ds (dS in place of
// dP), naive_bwd.dq, naive_bwd.dk.
//
// C++17 and constexpr only: the CUDA translation units of kernels/ include this header.
#pragma once
#include <cstdint>

#include "attnscope/vocab/dtype.hpp"
#include "attnscope/vocab/geometry.hpp"

namespace attnscope::vocab {

// TiledBwdConfig and NaiveBwdTiling, the plain tile data, are in tile_config.hpp.

// The compiled default tile per head dim: Bc 128, Br 64, 2 stages at d = 64 and at d = 128 (where Br 64 ran
// 5 % faster than Br 32 on an H100, once P^T and dS^T were packed early enough for it not to spill).
// (kernels::default_tiled_bwd_config returns the same.)
constexpr TiledBwdConfig default_tiled_bwd_config(std::int64_t /*head_dim*/) {
  return TiledBwdConfig{128, 64, 2};
}

// The one tile the sliding-window / ALiBi variant of the tiled backward is compiled for: Bc 128, Br 32,
// stages 2 at both head dims (at d = 64, Br 64 spilled with the band test and bias per score).
constexpr TiledBwdConfig general_mask_tiled_bwd_config() {
  return TiledBwdConfig{128, 32, 2};
}

constexpr int tiled_bwd_warps(const TiledBwdConfig& c) {
  return c.bc / kMmaTile;
}
constexpr int tiled_bwd_threads_per_cta(const TiledBwdConfig& c) {
  return kWarpThreads * tiled_bwd_warps(c);
}

// __launch_bounds__ minimum of CTAs per SM: two for the 4-warp tiles (Bc 64; 2 x 128 threads keep 255
// registers each), one for the 8-warp tiles (Bc 128), whose dK and dV accumulators need more than 128.
constexpr int tiled_bwd_min_blocks_per_sm(const TiledBwdConfig& c) {
  return tiled_bwd_warps(c) <= 4 ? 2 : 1;
}

// How the warps of tiled_bwd share dQ_i += dS K [Br x d]: one 16-row slab of dS per warp (warps_m = Br / 16
// warps along the rows), the slab's warps splitting d into `cols` columns each. Per k16 step (16 keys) a
// warp loads its dS slab (one ldmatrix x4, the A operand) and its columns of K (one x4 per 16 columns) for
// cols / 8 MMAs. No split (cols 0) when the warps do not divide over the slabs or a warp's columns are not
// whole 16-column blocks. (Two slabs per warp would load fewer bytes at d 128 with Br 64, 2 + 2 x4 per k16
// step instead of 1 + 4, but their second A fragment does not fit the 255 registers the kernel already uses
// there: ptxas spilled 8 bytes.)
struct TiledBwdDqSplit {
  int warps_m = 1;  // warps along Br: one 16-row slab each
  int warps_n = 1;  // warps along d
  int cols = 0;     // columns per warp: head_dim / warps_n
};
constexpr TiledBwdDqSplit tiled_bwd_dq_split(const TiledBwdConfig& c, std::int64_t head_dim) {
  const int warps = tiled_bwd_warps(c);
  const int slabs = c.br / kMmaTile;
  if (slabs <= 0 || warps % slabs != 0) return {};
  const int warps_n = warps / slabs;
  if (head_dim % (std::int64_t{warps_n} * kMmaTile) != 0) return {};  // whole ldmatrix x4 column blocks
  return {slabs, warps_n, static_cast<int>(head_dim / warps_n)};
}

// SharedStorage of tiled_bwd: K and V [Bc x d] (loaded once), `stages` slots of Q and dO [Br x d] and of
// LSE and D [Br] (fp32), and two slots of dS^T [Bc x Br] (the operand of dQ += dS K: written by one step,
// read by the next, so that dQ needs no barrier of its own).
constexpr std::int64_t tiled_bwd_smem_bytes(const TiledBwdConfig& c, std::int64_t head_dim, DType t) {
  return (std::int64_t{2} * c.bc * head_dim + std::int64_t{2} * c.stages * c.br * head_dim +
          std::int64_t{2} * c.bc * c.br) *
             bytes_of(t) +
         std::int64_t{2} * c.stages * c.br * 4;
}

constexpr std::int64_t tiled_bwd_kv_tiles(const TiledBwdConfig& c, std::int64_t seq_kv) {
  return ceil_div(seq_kv, c.bc);
}
constexpr std::int64_t tiled_bwd_q_tiles(const TiledBwdConfig& c, std::int64_t seq_q) {
  return ceil_div(seq_q, c.br);
}
// Query rows of the padded fp32 vectors (LSE * log2 e, D) per (batch, head): whole q tiles, so that every
// step's 16-byte copies stay inside the workspace and need no bounds.
constexpr std::int64_t tiled_bwd_padded_rows(const TiledBwdConfig& c, std::int64_t seq_q) {
  return tiled_bwd_q_tiles(c, seq_q) * c.br;
}

// Grid of tiled_bwd: x = kv tile, y = head, z = batch.
constexpr Dim3 tiled_bwd_grid(const TiledBwdConfig& c, std::int64_t seq_kv, std::int64_t heads,
                              std::int64_t batch) {
  return Dim3{tiled_bwd_kv_tiles(c, seq_kv), heads, batch};
}

// q tiles [first, q_tiles) that kv tile `kv_tile` visits: all without a mask; with the causal mask
// (bottom-right aligned: row i sees key j iff j <= i + Nkv - Nq) from the first q tile holding a row that
// sees the tile's first key. first == q_tiles: none (its dK and dV are zero).
template <typename Int>
constexpr Int bwd_first_q_tile(Int tile_rows, Int tile_keys, Int seq_q, Int seq_kv, Mask mask, Int kv_tile) {
  const Int q_tiles = (seq_q + tile_rows - 1) / tile_rows;
  if (mask == Mask::none) return 0;
  const Int first_row = kv_tile * tile_keys - (seq_kv - seq_q);  // first row that sees key kv_tile * Bc
  if (first_row <= 0) return 0;
  const Int first = first_row / tile_rows;
  return first < q_tiles ? first : q_tiles;
}

// The end (exclusive) of the q tiles kv tile `kv_tile` visits under a sliding window of `window` keys (0:
// no window, then all q tiles): the tile holding the last row that still sees the tile's last key (row i
// sees key j iff j > i + Nkv - Nq - window). 0 when no row sees it.
template <typename Int>
constexpr Int bwd_end_q_tile(Int tile_rows, Int tile_keys, Int seq_q, Int seq_kv, Int window, Int kv_tile) {
  const Int q_tiles = (seq_q + tile_rows - 1) / tile_rows;
  if (window <= 0) return q_tiles;
  const Int last_key = (kv_tile + 1) * tile_keys < seq_kv ? (kv_tile + 1) * tile_keys - 1 : seq_kv - 1;
  const Int last_row = last_key - (seq_kv - seq_q) + window - 1;  // the last row that sees last_key
  if (last_row < 0) return 0;
  const Int end = last_row / tile_rows + 1;
  return end < q_tiles ? end : q_tiles;
}

// The pre- and post-processing kernels: 256 threads, one 16-byte piece of a row per thread, so
// 256 / (d / 8) rows per CTA; grid x = row blocks of the padded rows, y = batch x heads.
inline constexpr int kBwdRowThreads = kBwdRowThreadsPerCta;  // geometry.hpp
constexpr std::int64_t bwd_rows_per_cta(std::int64_t head_dim) {
  return kBwdRowThreads / (head_dim / 8);
}
// tiled_bwd.pre gathers D and LSE * log2 e of its rows in shared memory (fp32) before storing them.
constexpr std::int64_t tiled_bwd_pre_smem_bytes(std::int64_t head_dim) {
  return 2 * bwd_rows_per_cta(head_dim) * 4;
}
// Rows per CTA of a pre/post kernel: `row_block` when it is given (another program's kernels, e.g.
// FlashAttention-2's, whose CTAs are kBlockM-row blocks), else attnscope's 256 / (d / 8).
constexpr std::int64_t bwd_row_block_rows(std::int64_t head_dim, std::int64_t row_block) {
  return row_block > 0 ? row_block : bwd_rows_per_cta(head_dim);
}
constexpr Dim3 tiled_bwd_row_grid(const TiledBwdConfig& c, std::int64_t seq_q, std::int64_t head_dim,
                                  std::int64_t slices, std::int64_t row_block = 0) {
  return Dim3{ceil_div(tiled_bwd_padded_rows(c, seq_q), bwd_row_block_rows(head_dim, row_block)), slices, 1};
}

// Workspace of the tiled backward, fp32: LSE * log2(e) and D [B, H, padded rows], then the dQ accumulator
// [B, H, Nq, d].
struct BwdWorkspace {
  std::int64_t lse_log2_offset = 0;  // bytes from the workspace's start
  std::int64_t delta_offset = 0;
  std::int64_t dq_accum_offset = 0;
  std::int64_t bytes = 0;
};
constexpr BwdWorkspace tiled_bwd_workspace(const TiledBwdConfig& c, std::int64_t batch, std::int64_t heads,
                                           std::int64_t seq_q, std::int64_t head_dim) {
  const std::int64_t vec = batch * heads * tiled_bwd_padded_rows(c, seq_q) * 4;
  BwdWorkspace w;
  w.lse_log2_offset = 0;
  w.delta_offset = vec;
  w.dq_accum_offset = 2 * vec;
  w.bytes = 2 * vec + batch * heads * seq_q * head_dim * 4;
  return w;
}

// ---- naive backward: GEMMs of 128-row blocks x (d or 128) columns, reduction steps of 32 ----------------
// The five launches share one GEMM kernel: C [M x N] = alpha * op(A) op(B) with A given as [M x K] or
// [K x M] and B as [K x N] or [N x K] (row-major), 8 warps of 16 rows x BN, a 2-stage cp.async ring of
// A and B slices, C staged in shared memory for 16-byte stores. (NaiveBwdTiling: tile_config.hpp.)

constexpr int naive_bwd_gemm_threads(const NaiveBwdTiling& n) {
  return kWarpThreads * n.warps;
}
// SharedStorage of the GEMM with `bn` columns: the ring of A [bm x bk] and B [bk x bn] slices, and the
// staging of C [bm x bn] over it (a union: the larger of the two).
constexpr std::int64_t naive_bwd_gemm_smem_bytes(const NaiveBwdTiling& n, std::int64_t bn, DType t) {
  const std::int64_t ring = std::int64_t{n.stages} * (std::int64_t{n.bm} * n.bk + std::int64_t{n.bk} * bn);
  const std::int64_t stage = std::int64_t{n.bm} * bn;
  return (ring > stage ? ring : stage) * bytes_of(t);
}
// Grid of a GEMM: x = column block, y = row block, z = batch x heads.
constexpr Dim3 naive_bwd_gemm_grid(const NaiveBwdTiling& n, std::int64_t m, std::int64_t cols,
                                   std::int64_t bn, std::int64_t slices) {
  return Dim3{ceil_div(cols, bn), ceil_div(m, n.bm), slices};
}
constexpr Dim3 naive_bwd_ds_grid(const NaiveBwdTiling& n, std::int64_t seq_q, std::int64_t slices) {
  return Dim3{ceil_div(seq_q, n.ds_rows_per_cta), slices, 1};
}

// HBM a backward pass needs beyond its inputs (Q, K, V, O, dO, LSE) and outputs (dQ, dK, dV): the tiled
// backward's workspace; the naive backward's P (stored by the forward) and dP/dS, two [B, H, Nq, Nkv]
// matrices of the input dtype.
constexpr std::int64_t naive_bwd_scratch_bytes(std::int64_t batch, std::int64_t heads, std::int64_t seq_q,
                                               std::int64_t seq_kv, DType t) {
  return 2 * batch * heads * seq_q * seq_kv * bytes_of(t);
}

}  // namespace attnscope::vocab
