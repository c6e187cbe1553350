// SPDX-License-Identifier: Apache-2.0
// How each kernel tiles the work: the plain data both the CUDA kernels (kernels/) and their model (sim/)
// are written against. The defaults are the compiled kernels: the tiled kernel's default is the fastest
// configuration measured on the H200 (docs/kernel-notes.md), the naive kernels' tiling is fixed.
// docs/dataflow.md describes what each tile loads and stores.
//
// C++17 and constexpr only: the CUDA translation units of kernels/ include this header.
#pragma once

namespace attnscope::vocab {

// The tiled (FlashAttention-2) CTA tile: Br query rows (a q tile), Bc key/value rows per kv step (a kv
// tile), `warps` warps each owning Br / warps query rows (16, or 32 for the configurations compiled that
// way: every K and V fragment read from shared memory then feeds two MMAs), and a `stages`-deep cp.async
// ring of K/V tiles.
struct TiledConfig {
  int br = 128;
  int bc = 64;
  int warps = 4;
  int stages = 2;
};

// The Hopper (FlashAttention-3-style) CTA tile: Br query rows, Bc key/value rows per kv step, one producer
// warpgroup (an elected thread issues the bulk tensor copies of Q, K and V) and `consumers` consumer
// warpgroups of 64 query rows each (Br = 64 * consumers, the M of one wgmma), a `stages`-deep K/V ring.
// `overlap`: each consumer keeps the S GEMM of kv tile j + 1 and the P V GEMM of tile j in flight together
// and runs the softmax of tile j + 1 meanwhile (false: S, softmax, P V one after the other). `pingpong` (with
// 2 consumers): the two consumer warpgroups take turns issuing their GEMMs, so that one's softmax runs while
// the other's GEMMs do. Same geometry either way. `persistent`: one CTA per SM (at most one per tile) walks
// the tiles in launch order instead of one CTA per tile, so that the producer loads the next tile's Q and
// first K/V tiles while the consumers finish the current one (two Q buffers; O leaves through the buffer of
// its own tile).
struct HopperConfig {
  int br = 128;
  int bc = 128;
  int consumers = 2;
  int stages = 2;
  bool overlap = false;
  bool pingpong = false;
  bool persistent = false;
};

// The Hopper kernel's default tile for a head dim and mask: the fastest in the latest runs of every compiled
// configuration (docs/hopper-kernel.md; H100s and the H200, the same GH100 SM). d 64: three consumer
// warpgroups (Br 192), overlapped, 3 stages (tests/data/h100/hopper-wait-20261206T202426Z); with the causal
// mask the persistent build of that tile, +3.1 to +3.7 % in four runs on both chips
// (tests/data/h100/hopper-persistent-20261207T093952Z, hopper-persistent2-20261207T094943Z,
// tests/data/h200/hopper-d64-h200-20261207T133317Z); without the mask the persistent build was 2-7 % slower.
// d 128: persistent, overlapped with ping-pong at Bc 128, 2 stages (faster than the one-CTA-per-tile 3 stages
// at every d 128 shape in four runs, +1.3-1.9 % and +8.5 % causal: the same two H100 folders). HopperConfig{}
// is the serial two-consumer tile, the default of neither.
constexpr HopperConfig default_hopper_config(int head_dim, bool causal) {
  return head_dim == 128 ? HopperConfig{128, 128, 2, 2, true, true, true}
                         : HopperConfig{192, 128, 3, 3, true, false, causal};
}

// The naive kernels' tiling. naive.qk: 128 x 128 tiles of S, reduction steps of bk = 32, `warps` warps;
// one CTA computes qk_tiles_per_cta consecutive S tiles of one row block, its Q row block loaded once and K
// slices [bn x bk] streaming through a qk_stages-slot ring across the tiles. naive.softmax: one warp per
// row, softmax_rows_per_cta rows per CTA. naive.pv: 128 rows x d of O per CTA, reduction steps of bk through
// a `stages`-slot ring of P and V slices, the P copies carrying an L2 prefetch-size hint of
// pv_l2_prefetch_bytes (0: none).
struct NaiveTiling {
  int bm = 128;
  int bn = 128;
  int bk = 32;
  int warps = 8;
  int stages = 2;  // naive.pv's ring
  int softmax_rows_per_cta = 8;
  int qk_tiles_per_cta = 4;
  int qk_stages = 4;
  int pv_l2_prefetch_bytes = 256;
};

// The tiled backward's CTA tile: Bc keys per CTA (warps = Bc / 16, each warp owns 16 keys of dK and dV),
// Br query rows per step, a `stages`-deep ring of Q, dO, LSE and D tiles.
struct TiledBwdConfig {
  int bc = 128;
  int br = 64;
  int stages = 2;
};

// The naive backward's tiling (fixed in the real kernels): GEMMs of bm rows x (d, or bn for dP) columns,
// reduction steps of bk through a `stages`-slot ring, `warps` warps of 16 rows; naive_bwd.ds one warp per
// row.
struct NaiveBwdTiling {
  int bm = 128;
  int bn = 128;  // columns of naive_bwd.dp's tiles; the d-wide GEMMs use bn = d
  int bk = 32;
  int warps = 8;
  int stages = 2;
  int ds_rows_per_cta = 8;  // naive_bwd.ds: one warp per row
};

}  // namespace attnscope::vocab
