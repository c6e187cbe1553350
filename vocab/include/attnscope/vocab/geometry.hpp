// SPDX-License-Identifier: Apache-2.0
// Each kernel's launch geometry, written once: grid, threads per CTA, shared memory per CTA, the
// __launch_bounds__ minimum of CTAs per SM, tile counts, which kv tiles a q tile sees under each mask and
// how many timeline records a tile window holds. The kernels static_assert their SharedStorage against
// these formulas and launch with them; the model prices the same numbers. docs/dataflow.md is the readable
// form, with what each tile loads and stores.
//
// Tile windows count in the kernel's own tile units: tiled q tiles (Br rows) x kv tiles (Bc rows); naive.qk
// row blocks (bm) x column blocks (bn) of S; naive.softmax row blocks (softmax_rows_per_cta rows, no kv
// dimension); naive.pv row blocks (bm) x reduction steps (bk).
//
// C++17 and constexpr only: the CUDA translation units of kernels/ include this header (and call the
// functions from device code, through --expt-relaxed-constexpr).
#pragma once
#include <algorithm>
#include <cstdint>

#include "attnscope/vocab/dtype.hpp"
#include "attnscope/vocab/kernel.hpp"
#include "attnscope/vocab/tile_config.hpp"

namespace attnscope::vocab {

// Causal masking is bottom-right aligned: query row i sees key j iff j <= i + Nkv - Nq.
enum class Mask : std::uint8_t { none, causal };

constexpr Mask mask_of(bool causal) {
  return causal ? Mask::causal : Mask::none;
}

// A CUDA grid (x fastest in launch order).
struct Dim3 {
  std::int64_t x = 1;
  std::int64_t y = 1;
  std::int64_t z = 1;
};

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

inline constexpr int kWarpThreads = 32;
// Rows and the reduction depth of one tensor-core MMA (mma.sync m16n8k16): tile sizes are multiples of it.
inline constexpr int kMmaTile = 16;

// Keys [0, visible_keys) of query row `row` are visible: all of them without a mask, up to the row's
// diagonal (bottom-right aligned) with the causal mask; 0 when the row sees none.
constexpr std::int64_t visible_keys(std::int64_t row, std::int64_t seq_q, std::int64_t seq_kv, Mask mask) {
  if (mask == Mask::none) return seq_kv;
  const std::int64_t keys = row + seq_kv - seq_q + 1;
  return keys < 0 ? 0 : (keys > seq_kv ? seq_kv : keys);
}

// Sliding-window (local) attention narrows the causal mask from the left: query row i sees only the
// `window` keys ending at its diagonal, i + Nkv - Nq - window < j <= i + Nkv - Nq (each token attends to
// itself and the window - 1 before it, the convention of local-attention language models). window = 0
// means no window. A window is always causal; ALiBi (a bias on the scores) changes no visibility and no
// tile, only values, and needs nothing here.
constexpr std::int64_t first_visible_key(std::int64_t row, std::int64_t seq_q, std::int64_t seq_kv,
                                         std::int64_t window) {
  if (window <= 0) return 0;
  const std::int64_t first = row + seq_kv - seq_q - window + 1;
  return first < 0 ? 0 : (first > seq_kv ? seq_kv : first);
}

// The head dimensions and dtypes every kernel is compiled for: rows of 128 or 256 bytes, the unit of the
// shared-memory swizzles; fp16 or bf16 inputs for the tensor cores. (The model also prices other head
// dimensions for the naive kernels, and fp32, which no kernel is compiled for.)
constexpr bool is_compiled_head_dim(std::int64_t head_dim) {
  return head_dim == 64 || head_dim == 128;
}
constexpr bool is_compiled_dtype(DType t) {
  return t == DType::fp16 || t == DType::bf16;
}

// ---- tiled: one CTA per (q tile, head, batch) -------------------------------------------------------------

constexpr int tiled_rows_per_warp(const TiledConfig& c) {
  return c.br / c.warps;
}
constexpr int tiled_threads_per_cta(const TiledConfig& c) {
  return kWarpThreads * c.warps;
}

// SharedStorage: the Q tile [Br x d] (later the staging of O) and a `stages`-slot ring of K and V tiles
// [Bc x d], unpadded (the swizzle avoids bank conflicts): (Br + 2 * stages * Bc) * d elements.
constexpr std::int64_t tiled_smem_bytes(const TiledConfig& c, std::int64_t head_dim, DType t) {
  return (std::int64_t{c.br} + std::int64_t{2} * c.stages * c.bc) * head_dim * bytes_of(t);
}

// __launch_bounds__ minimum of CTAs per SM: two where the register budget of 65536 / (2 x threads) holds
// the accumulators (32 rows per warp: 4 warps keep 255 registers each; 16 rows per warp at d = 64 with
// Bc <= 64), one otherwise.
constexpr int tiled_min_blocks_per_sm(const TiledConfig& c, std::int64_t head_dim) {
  return (tiled_rows_per_warp(c) == 2 * kMmaTile || (head_dim == 64 && c.bc <= 64)) ? 2 : 1;
}

constexpr std::int64_t tiled_q_tiles(const TiledConfig& c, std::int64_t seq_q) {
  return ceil_div(seq_q, c.br);
}
constexpr std::int64_t tiled_kv_tiles(const TiledConfig& c, std::int64_t seq_kv) {
  return ceil_div(seq_kv, c.bc);
}

// The launched grid for `q_tiles` q tiles (those of the window): x = q tile, y = head, z = batch.
constexpr Dim3 tiled_grid(std::int64_t q_tiles, std::int64_t heads, std::int64_t batch) {
  return Dim3{q_tiles, heads, batch};
}

// kv tiles [0, n) that q tile `q_tile` (of `tile_rows` rows, kv tiles of `tile_keys` keys) visits: all of
// them without a mask; with the causal mask it stops after the tile holding its last row's diagonal, and
// visits none when no row of it sees a key (Nq > Nkv). A template on the integer type: the model counts in
// std::int64_t, the kernel per CTA in int. Keep the form: the 8-warp d = 64 Br 128 Bc 64 stages-3 kernel sits
// at its register bound, and computing this in 64 bits, or with conditional expressions for the minima
// instead of std::min, made ptxas spill 24 bytes there.
template <typename Int>
constexpr Int visible_kv_tiles(Int tile_rows, Int tile_keys, Int seq_q, Int seq_kv, Mask mask, Int q_tile) {
  Int tiles = (seq_kv + tile_keys - 1) / tile_keys;
  if (mask == Mask::causal) {
    const Int last_row = std::min(q_tile * tile_rows + tile_rows, seq_q) - 1;
    const Int last_key = last_row + (seq_kv - seq_q);  // the last key the tile's last row sees
    tiles = last_key < 0 ? 0 : std::min(tiles, last_key / tile_keys + 1);
  }
  return tiles;
}

// The first kv tile q tile `q_tile` visits under a sliding window of `window` keys (0: no window, then 0):
// the tile holding the first key its first row sees. Tiles before it hold no visible key of any of its
// rows (rows further down see keys further right) and are skipped.
template <typename Int>
constexpr Int first_visible_kv_tile(Int tile_rows, Int tile_keys, Int seq_q, Int seq_kv, Int window,
                                    Int q_tile) {
  if (window <= 0) return 0;
  const Int first_key = q_tile * tile_rows + (seq_kv - seq_q) - window + 1;
  return first_key <= 0 ? 0 : first_key / tile_keys;
}

// The one tile the tiled forward's sliding-window / ALiBi variant is compiled for, per head dim: Br 128, Bc
// 64, stages 2; 4 warps of 32 rows at d = 64 (the default tile), 8 warps of 16 rows at d = 128 (with 4 warps
// the band test and bias per score made ptxas spill).
constexpr TiledConfig general_mask_tiled_config(std::int64_t head_dim) {
  return head_dim == 128 ? TiledConfig{128, 64, 8, 2} : TiledConfig{128, 64, 4, 2};
}

constexpr std::int64_t tiled_visible_kv_tiles(const TiledConfig& c, std::int64_t seq_q, std::int64_t seq_kv,
                                              Mask mask, std::int64_t q_tile) {
  return visible_kv_tiles<std::int64_t>(c.br, c.bc, seq_q, seq_kv, mask, q_tile);
}

// ---- hopper: one CTA per (q tile, head, batch); a producer warpgroup and `consumers` consumer warpgroups

inline constexpr int kWarpgroupThreads = 128;  // 4 consecutive warps: the unit that issues a wgmma
inline constexpr int kWgmmaRows = 64;          // M of one wgmma: the query rows of one consumer warpgroup

constexpr int hopper_threads_per_cta(const HopperConfig& c) {
  return kWarpgroupThreads * (1 + c.consumers);
}

// Registers per thread after setmaxnreg: the producer gives its registers back (it only issues copies) and
// the consumers take them; both stay within the 64 K registers of one CTA per SM at the launch bound's cap
// of 65536 / threads (rounded down to 8): 128 x 24 + 256 x 240 = 64512 (2 consumers), 128 x 24 + 384 x 160
// = 64512 (3 consumers).
constexpr int hopper_producer_registers() {
  return 24;
}
constexpr int hopper_consumer_registers(const HopperConfig& c) {
  return c.consumers >= 3 ? 160 : 240;
}

// The shared-memory tile of a [rows x d] operand: d / 64 column blocks of rows x 128 bytes (the width of the
// 128-byte swizzle the bulk tensor copy writes and wgmma reads).
constexpr std::int64_t hopper_tile_bytes(std::int64_t rows, std::int64_t head_dim, DType t) {
  return rows * head_dim * bytes_of(t);
}

// Q buffers: one, or two in the persistent kernel (tile i + 1's Q lands while tile i runs; each buffer also
// carries its tile's O out).
constexpr int hopper_q_buffers(const HopperConfig& c) {
  return c.persistent ? 2 : 1;
}

// Bytes of the block at the end of SharedStorage: the mbarriers (8 bytes each: Q full per Q buffer; full K,
// full V and empty per stage; in the persistent kernel also O full per Q buffer, and empty twice per stage,
// K and V released apart) and one 4-byte word per consumer warp (the store that orders the overlapped
// schedule's softmax ahead of its wait), rounded up to the 1024-byte alignment of the swizzled tiles.
constexpr std::int64_t hopper_barrier_bytes(const HopperConfig& c) {
  const std::int64_t barriers = std::int64_t{hopper_q_buffers(c)} * (c.persistent ? 2 : 1) +
                                (c.persistent ? 4 : 3) * std::int64_t{c.stages};
  return ceil_div(std::int64_t{8} * barriers + 4 * 4 * std::int64_t{c.consumers}, 1024) * 1024;
}

// SharedStorage: the Q tile(s) [Br x d], a `stages`-slot ring of K and V tiles [Bc x d] (all 128-byte
// swizzled, 1024-byte aligned, unpadded) and the barrier block.
constexpr std::int64_t hopper_smem_bytes(const HopperConfig& c, std::int64_t head_dim, DType t) {
  return hopper_q_buffers(c) * hopper_tile_bytes(c.br, head_dim, t) +
         2 * std::int64_t{c.stages} * hopper_tile_bytes(c.bc, head_dim, t) + hopper_barrier_bytes(c);
}

// One CTA per SM (the consumers' registers and the ring fill it): the kernel's __launch_bounds__ minimum.
constexpr int hopper_min_blocks_per_sm() {
  return 1;
}

constexpr std::int64_t hopper_q_tiles(const HopperConfig& c, std::int64_t seq_q) {
  return ceil_div(seq_q, c.br);
}
constexpr std::int64_t hopper_kv_tiles(const HopperConfig& c, std::int64_t seq_kv) {
  return ceil_div(seq_kv, c.bc);
}

// The launched grid: x = q tile, y = head, z = batch (the kernel runs q tile gridDim.x - 1 - blockIdx.x, so
// the last q tiles, the longest under the causal mask, are launched first).
constexpr Dim3 hopper_grid(const HopperConfig& c, std::int64_t seq_q, std::int64_t heads,
                           std::int64_t batch) {
  return Dim3{hopper_q_tiles(c, seq_q), heads, batch};
}

// The persistent kernel's grid: one CTA per SM, no more CTAs than tiles (`tiles`: q tiles x heads x batch of
// the launch). CTA c runs the tiles of the launch order (q tile fastest, last q tile first, then head, then
// batch: hopper_grid's order) at positions c, 2G - 1 - c, 2G + c, 4G - 1 - c, ... (G CTAs): every other
// round backwards, so that the CTA given the longest tile of one round gets the shortest of the next.
constexpr std::int64_t hopper_persistent_ctas(std::int64_t tiles, std::int64_t sms) {
  return tiles < sms ? tiles : sms;
}
constexpr std::int64_t hopper_persistent_tile(std::int64_t cta, std::int64_t round, std::int64_t ctas) {
  return round * ctas + (round % 2 == 0 ? cta : ctas - 1 - cta);
}

// kv tiles [0, n) q tile `q_tile` visits (the causal cut of visible_kv_tiles, in Hopper tiles).
constexpr std::int64_t hopper_visible_kv_tiles(const HopperConfig& c, std::int64_t seq_q, std::int64_t seq_kv,
                                               Mask mask, std::int64_t q_tile) {
  return visible_kv_tiles<std::int64_t>(c.br, c.bc, seq_q, seq_kv, mask, q_tile);
}

// Whether a configuration is one the kernel can be built as: Br = 64 x consumers (1 to 3), Bc a multiple of
// 16 up to 256 (the N of one wgmma and the box of one bulk tensor copy), at least 2 stages, within the 227
// KiB of shared memory one CTA may hold; the ping-pong schedule only with 2 consumers.
constexpr bool hopper_config_valid(const HopperConfig& c, std::int64_t head_dim, DType t) {
  return c.consumers >= 1 && c.consumers <= 3 && c.br == kWgmmaRows * c.consumers && c.bc >= 16 &&
         (!c.pingpong || c.consumers == 2) && c.bc <= 256 && c.bc % 16 == 0 && c.stages >= 2 &&
         is_compiled_head_dim(head_dim) && is_compiled_dtype(t) &&
         hopper_smem_bytes(c, head_dim, t) <= 232448;
}

// ---- naive: three launches through S / P [B, H, Nq, Nkv] in HBM
// ---------------------------------------------

// Threads of the GEMM CTAs (naive.qk, naive.pv) and of the softmax CTA (one warp per row).
constexpr int naive_gemm_threads_per_cta(const NaiveTiling& n) {
  return kWarpThreads * n.warps;
}
constexpr int naive_softmax_threads_per_cta(const NaiveTiling& n) {
  return kWarpThreads * n.softmax_rows_per_cta;
}

// naive.qk SharedStorage: the Q row block [bm x d] (loaded once), the K ring of qk_stages slices [bn x bk]
// and the staging buffer of one S tile [bm x bn].
constexpr std::int64_t naive_qk_smem_bytes(const NaiveTiling& n, std::int64_t head_dim, DType t) {
  return (std::int64_t{n.bm} * head_dim + std::int64_t{n.qk_stages} * n.bn * n.bk +
          std::int64_t{n.bm} * n.bn) *
         bytes_of(t);
}

// naive.pv SharedStorage: `stages` slots of a P slice [bm x bk] and a V slice [bk x d] (O is staged in the
// ring's memory once the reduction is done).
constexpr std::int64_t naive_pv_smem_bytes(const NaiveTiling& n, std::int64_t head_dim, DType t) {
  return std::int64_t{n.stages} * (std::int64_t{n.bm} * n.bk + std::int64_t{n.bk} * head_dim) * bytes_of(t);
}

// naive.softmax: rows of up to this many keys are read once into shared memory (each warp its own row);
// longer rows are read twice (running max and sum, then normalise and write) without shared memory.
inline constexpr std::int64_t kSoftmaxSharedRowLimit = 8192;

// Shared-memory pitch of one softmax row, in elements: whole 16-byte chunks (8 elements of 2 bytes). A
// template on the integer type: the kernel computes it in int, per row.
template <typename Int>
constexpr Int naive_softmax_row_pitch(Int seq_kv) {
  return (seq_kv + 7) / 8 * 8;
}

// naive.softmax dynamic shared memory: softmax_rows_per_cta padded rows, or 0 for the two-pass kernels
// (rows longer than kSoftmaxSharedRowLimit, and any row under a sliding window or ALiBi: `general_mask`).
constexpr std::int64_t naive_softmax_smem_bytes(const NaiveTiling& n, std::int64_t seq_kv, DType t,
                                                bool general_mask = false) {
  return seq_kv <= kSoftmaxSharedRowLimit && !general_mask
             ? std::int64_t{n.softmax_rows_per_cta} * naive_softmax_row_pitch<std::int64_t>(seq_kv) *
                   bytes_of(t)
             : 0;
}

// Whether the rows of S / P [.., Nq, Nkv] (2-byte elements) start 16-byte aligned: then naive.qk stores and
// naive.pv copies them in 16-byte pieces (cp.async); otherwise in 2-byte elements, one warp covering 64
// contiguous bytes of a row (separate instantiations of the kernels).
constexpr bool naive_rows_aligned(std::int64_t seq_kv) {
  return seq_kv % 8 == 0;
}

// Since when kernel `k` runs as it does now on a problem with `seq_kv` keys: current_since(k), or later where
// only some shapes' code changed since.
//   naive_bwd.ds and .dp 2026-12-07T23:20Z on rows off 16-byte boundaries: dS runs each row's aligned
//   middle in 16-byte vectors (it ran the whole row 2 bytes a lane, one 64-byte piece at a time: 9.7x slower
//   on the H100 at Nkv 1707), and dP's epilogue stores 64 contiguous bytes per warp store (it stored 32
//   pieces of 2 bytes 16 bytes apart: 4.2x the new epilogue's L2 writes). Aligned rows run the code they ran
//   before.
constexpr std::string_view current_since(KernelId k, std::int64_t seq_kv) {
  if ((k == KernelId::naive_bwd_ds || k == KernelId::naive_bwd_dp) && !naive_rows_aligned(seq_kv))
    return "2026-12-07T23:20:00Z";
  return current_since(k);
}

// __launch_bounds__ minimum of CTAs per SM (0: no minimum given). naive.qk asks for 2. naive.pv, which
// streams P from HBM, asks for 4 at d = 64 when P's rows are aligned (cp.async copies) to keep more P tiles
// in flight, and 2 otherwise (the unaligned copy stages 2-byte loads in registers and spilled under 4).
// naive.softmax gives none.
constexpr int naive_qk_min_blocks_per_sm() {
  return 2;
}
constexpr int naive_pv_min_blocks_per_sm(std::int64_t head_dim, bool rows_aligned) {
  return head_dim == 64 && rows_aligned ? 4 : 2;
}

constexpr std::int64_t naive_qk_row_blocks(const NaiveTiling& n, std::int64_t seq_q) {
  return ceil_div(seq_q, n.bm);
}
constexpr std::int64_t naive_qk_column_blocks(const NaiveTiling& n, std::int64_t seq_kv) {
  return ceil_div(seq_kv, n.bn);
}
constexpr std::int64_t naive_softmax_row_blocks(const NaiveTiling& n, std::int64_t seq_q) {
  return ceil_div(seq_q, n.softmax_rows_per_cta);
}
constexpr std::int64_t naive_pv_row_blocks(const NaiveTiling& n, std::int64_t seq_q) {
  return ceil_div(seq_q, n.bm);
}
constexpr std::int64_t naive_pv_steps(const NaiveTiling& n, std::int64_t seq_kv) {
  return ceil_div(seq_kv, n.bk);
}

// Grids for a window of `row_blocks` x `column_blocks` (naive.qk) or `row_blocks` (the others), over
// `slices` = batch x heads. naive.qk: x = groups of qk_tiles_per_cta column blocks (the last may be
// shorter), y = row block, z = slice. naive.softmax and naive.pv: x = row block, y = slice.
constexpr Dim3 naive_qk_grid(const NaiveTiling& n, std::int64_t column_blocks, std::int64_t row_blocks,
                             std::int64_t slices) {
  return Dim3{ceil_div(column_blocks, n.qk_tiles_per_cta), row_blocks, slices};
}
constexpr Dim3 naive_softmax_grid(std::int64_t row_blocks, std::int64_t slices) {
  return Dim3{row_blocks, slices, 1};
}
constexpr Dim3 naive_pv_grid(std::int64_t row_blocks, std::int64_t slices) {
  return Dim3{row_blocks, slices, 1};
}

// Threads of the backward pass's row kernels (tiled_bwd.pre and .post; backward.hpp): one 16-byte piece of
// a row each.
inline constexpr int kBwdRowThreadsPerCta = 256;

// ---- every kernel
// ---------------------------------------------------------------------------------------------

// Tiles of the whole problem in the kernel's window units: q (rows) and kv (columns; 1 for naive.softmax,
// whose window has no kv dimension). The backward kernels' units (their tile is `b`, default the d = 64
// default; `head_dim` sets the rows of a pre/post CTA):
//   tiled_bwd             q = kv tiles of Bc keys (the CTAs), kv = q tiles of Br rows (the CTA's steps);
//   tiled_bwd.pre, .post  q = row blocks of 256 / (d / 8) padded query rows, kv = 1;
//   naive_bwd.dv, .dk     q = row blocks of bm keys, kv = reduction steps of bk query rows;
//   naive_bwd.dq          q = row blocks of bm query rows, kv = reduction steps of bk keys;
//   naive_bwd.dp          q = row blocks of bm query rows, kv = column blocks of bn keys;
//   naive_bwd.ds          q = blocks of ds_rows_per_cta query rows, kv = 1.
struct WindowTiles {
  std::int64_t q = 0;
  std::int64_t kv = 0;
};

constexpr WindowTiles window_tiles(KernelId k, const TiledConfig& c, const NaiveTiling& n, std::int64_t seq_q,
                                   std::int64_t seq_kv, const TiledBwdConfig& b = TiledBwdConfig{},
                                   std::int64_t head_dim = 64) {
  constexpr NaiveBwdTiling nb{};
  const std::int64_t padded_rows = ceil_div(seq_q, b.br) * b.br;
  switch (k) {
    case KernelId::tiled:
      return {tiled_q_tiles(c, seq_q), tiled_kv_tiles(c, seq_kv)};
    case KernelId::naive_qk:
      return {naive_qk_row_blocks(n, seq_q), naive_qk_column_blocks(n, seq_kv)};
    case KernelId::naive_softmax:
      return {naive_softmax_row_blocks(n, seq_q), 1};
    case KernelId::naive_pv:
      return {naive_pv_row_blocks(n, seq_q), naive_pv_steps(n, seq_kv)};
    case KernelId::tiled_bwd:
      return {ceil_div(seq_kv, b.bc), ceil_div(seq_q, b.br)};
    case KernelId::tiled_bwd_pre:
    case KernelId::tiled_bwd_post:
      return {ceil_div(padded_rows, kBwdRowThreadsPerCta / (head_dim / 8)), 1};
    case KernelId::naive_bwd_dv:
    case KernelId::naive_bwd_dk:
      return {ceil_div(seq_kv, nb.bm), ceil_div(seq_q, nb.bk)};
    case KernelId::naive_bwd_dq:
      return {ceil_div(seq_q, nb.bm), ceil_div(seq_kv, nb.bk)};
    case KernelId::naive_bwd_dp:
      return {ceil_div(seq_q, nb.bm), ceil_div(seq_kv, nb.bn)};
    case KernelId::naive_bwd_ds:
      return {ceil_div(seq_q, nb.ds_rows_per_cta), 1};
    case KernelId::hopper:
      return {};  // Hopper tiles come from its HopperConfig: hopper_q_tiles / hopper_kv_tiles
  }
  return {};
}

// Timeline records of a window of `q_tiles` x `kv_tiles` over `slices` = batch x heads: one per (q tile,
// kv tile) for the tiled and Hopper kernels (a kv step past the causal diagonal leaves its record unwritten;
// a CTA that sees no key writes one, at the window's first kv tile) and for naive.qk (one per S tile); one
// per CTA (row block) for naive.softmax and naive.pv. Backward: one per CTA step for tiled_bwd (kv tile, q
// step; a CTA with no visible q tile writes one, like the forward), one per tile of dP for naive_bwd.dp,
// one per CTA for the others.
constexpr std::int64_t records_per_window(KernelId k, std::int64_t q_tiles, std::int64_t kv_tiles,
                                          std::int64_t slices) {
  return k == KernelId::tiled || k == KernelId::naive_qk || k == KernelId::tiled_bwd ||
                 k == KernelId::naive_bwd_dp || k == KernelId::hopper
             ? slices * q_tiles * kv_tiles
             : slices * q_tiles;
}

}  // namespace attnscope::vocab
