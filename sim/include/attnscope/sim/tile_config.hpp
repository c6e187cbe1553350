// SPDX-License-Identifier: Apache-2.0
// Which kernel, and how it tiles the work. The kernel ids and the plain tiling data are the shared
// vocabulary's (attnscope/vocab/kernel.hpp, tile_config.hpp), which the real CUDA kernels (kernels/) are
// written against too; TileConfig adds what only the model varies (the launch order) and carries both
// tilings in one value, so that a sweep can price configurations nobody compiled.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "attnscope/vocab/backward.hpp"
#include "attnscope/vocab/kernel.hpp"
#include "attnscope/vocab/tile_config.hpp"

namespace attnscope::sim {

using vocab::KernelId;
using vocab::KernelKind;
using vocab::parse_kernel_kind;  // "naive" | "tiled" (or "flash") | "hopper"
using vocab::to_string;

// Order in which CTAs are launched (blockIdx.x fastest). The real tiled kernel uses q_tile_fastest.
enum class LaunchOrder : std::uint8_t { q_tile_fastest, head_fastest };
std::string_view to_string(LaunchOrder o);
std::optional<LaunchOrder> parse_launch_order(std::string_view s);

// How the Hopper kernel's consumer warpgroups order their work per kv tile (vocab::HopperConfig's overlap and
// pingpong flags): serial (S GEMM, softmax, P V GEMM one after the other), overlap (the softmax of tile j + 1
// runs while the GEMMs are in flight), pingpong (overlap, and the two consumers take turns on the GEMMs),
// serial_pingpong (serial, the two consumers taking turns on the GEMMs).
enum class HopperSchedule : std::uint8_t { serial, overlap, pingpong, serial_pingpong };
std::string_view to_string(HopperSchedule s);
// "serial" | "overlap" | "pingpong" | "serial-pingpong".
std::optional<HopperSchedule> parse_hopper_schedule(std::string_view s);

struct TileConfig {
  // Tiled (FlashAttention-2) kernel: vocab::TiledConfig, defaults = the compiled default.
  int br = vocab::TiledConfig{}.br;          // query rows per CTA (q-tile)
  int bc = vocab::TiledConfig{}.bc;          // key/value rows per inner step (kv-tile)
  int warps = vocab::TiledConfig{}.warps;    // warps per CTA; each owns br/warps query rows (16 or 32 in
                                             // the real kernel)
  int stages = vocab::TiledConfig{}.stages;  // cp.async pipeline depth for K/V tiles in shared memory
  LaunchOrder order = LaunchOrder::q_tile_fastest;

  // Naive kernels' tiling: vocab::NaiveTiling (fixed in the real kernels; docs/dataflow.md).
  int gemm_bm = vocab::NaiveTiling{}.bm;  // rows of the output tile per CTA
  int gemm_bn = vocab::NaiveTiling{}.bn;  // columns of the output tile per CTA (QK^T); PV uses bn = head_dim
  int gemm_bk = vocab::NaiveTiling{}.bk;  // reduction step per shared-memory stage
  int gemm_warps = vocab::NaiveTiling{}.warps;
  int gemm_stages = vocab::NaiveTiling{}.stages;  // naive.pv's cp.async ring (P and V slices)
  int softmax_rows_per_cta = vocab::NaiveTiling{}.softmax_rows_per_cta;  // one warp per row
  // naive.qk: a CTA computes this many consecutive S tiles of one row block, one after another; its Q row
  // block is loaded once and K slices stream through a gemm_qk_stages-slot ring across the tiles, so the
  // next tile's K is in flight during this tile's math. (Measurements dated before kNaiveMultiTileDate ran
  // the one-tile kernel: naive_tiling_measured_at.)
  int gemm_qk_tiles_per_cta = vocab::NaiveTiling{}.qk_tiles_per_cta;
  int gemm_qk_stages = vocab::NaiveTiling{}.qk_stages;
  // naive.pv: the L2 prefetch-size hint on the P copies when P's rows are 16-byte aligned (0: none): a miss
  // makes L2 fetch the whole aligned block from HBM, so the next steps' P pieces of that row hit.
  int gemm_pv_l2_fetch_bytes = vocab::NaiveTiling{}.pv_l2_prefetch_bytes;

  // Tiled backward (tiled_bwd): vocab::TiledBwdConfig; 0 = the compiled default for the workload's head dim
  // (vocab::default_tiled_bwd_config: Bc 128, Br 64 at d = 64 and 128; 2 stages).
  int bwd_bc = 0;      // keys per CTA (a kv tile); warps = bwd_bc / 16
  int bwd_br = 0;      // query rows per step (a q tile)
  int bwd_stages = 0;  // cp.async ring of Q, dO, LSE and D tiles
  // Query rows per CTA of tiled_bwd.pre and .post; 0 = attnscope's kernels (256 threads, one 16-byte piece
  // of a row each: 256 / (d / 8) rows). Another program's pre/post kernels mapped onto these dataflows set
  // their own (FlashAttention-2's are kBlockM rows per CTA).
  int bwd_row_block = 0;
  // (The naive backward's tiling is fixed: vocab::NaiveBwdTiling{}.)

  // Hopper kernel: vocab::HopperConfig, defaults = HopperConfig{} (the serial two-consumer tile; the command
  // line starts from vocab::default_hopper_config of the workload's head dim and mask,
  // docs/hopper-kernel.md). Its Br is 64 query rows per consumer warpgroup (the M of one wgmma), so the
  // consumers set it.
  int hopper_bc = vocab::HopperConfig{}.bc;                // keys per kv step
  int hopper_consumers = vocab::HopperConfig{}.consumers;  // consumer warpgroups, 64 query rows each
  int hopper_stages = vocab::HopperConfig{}.stages;        // slots of the K/V ring in shared memory
  HopperSchedule hopper_schedule = HopperSchedule::serial;
  bool hopper_persistent = false;  // one CTA per SM walking the tiles (vocab::HopperConfig::persistent)

  // Sets the tiled forward's fields to `c` (e.g. vocab::general_mask_tiled_config of the head dim).
  constexpr void set_tiled(const vocab::TiledConfig& c) {
    br = c.br;
    bc = c.bc;
    warps = c.warps;
    stages = c.stages;
  }
  // Sets the tiled backward's fields to `c` (e.g. vocab::general_mask_tiled_bwd_config()).
  constexpr void set_tiled_bwd(const vocab::TiledBwdConfig& c) {
    bwd_bc = c.bc;
    bwd_br = c.br;
    bwd_stages = c.stages;
  }

  // Sets the Hopper fields to `c` (e.g. vocab::default_hopper_config of the workload's head dim and mask).
  constexpr void set_hopper(const vocab::HopperConfig& c) {
    hopper_bc = c.bc;
    hopper_consumers = c.consumers;
    hopper_stages = c.stages;
    hopper_schedule = c.overlap ? (c.pingpong ? HopperSchedule::pingpong : HopperSchedule::overlap)
                                : (c.pingpong ? HopperSchedule::serial_pingpong : HopperSchedule::serial);
    hopper_persistent = c.persistent;
  }

  constexpr vocab::HopperConfig hopper() const {
    return vocab::HopperConfig{
        64 * hopper_consumers,
        hopper_bc,
        hopper_consumers,
        hopper_stages,
        hopper_schedule == HopperSchedule::overlap || hopper_schedule == HopperSchedule::pingpong,
        hopper_schedule == HopperSchedule::pingpong || hopper_schedule == HopperSchedule::serial_pingpong,
        hopper_persistent};
  }

  // The same tilings as the vocabulary's plain data, for its geometry functions.
  constexpr vocab::TiledBwdConfig tiled_bwd(std::int64_t head_dim) const {
    const vocab::TiledBwdConfig d = vocab::default_tiled_bwd_config(head_dim);
    return vocab::TiledBwdConfig{bwd_bc > 0 ? bwd_bc : d.bc, bwd_br > 0 ? bwd_br : d.br,
                                 bwd_stages > 0 ? bwd_stages : d.stages};
  }
  constexpr vocab::TiledConfig tiled() const { return vocab::TiledConfig{br, bc, warps, stages}; }
  constexpr vocab::NaiveTiling naive() const {
    return vocab::NaiveTiling{gemm_bm,
                              gemm_bn,
                              gemm_bk,
                              gemm_warps,
                              gemm_stages,
                              softmax_rows_per_cta,
                              gemm_qk_tiles_per_cta,
                              gemm_qk_stages,
                              gemm_pv_l2_fetch_bytes};
  }

  std::string label() const;  // e.g. "Br128-Bc64-w4-s2"
  // The Hopper kernel's tile, e.g. "hopper-Br128-Bc128-c2-s2-serial".
  std::string hopper_label() const;
  // The tile kernel `k` runs with: hopper_label() for the Hopper kernel, bwd_label() for tiled_bwd, label()
  // otherwise.
  std::string label_of(KernelId k, std::int64_t head_dim) const;
  // The backward tile at head dim `head_dim`, e.g. "bwd-Bc128-Br64-s2".
  std::string bwd_label(std::int64_t head_dim) const;
  // Whether the naive kernels' qk and pv fields equal other's (label() covers the tiled kernel's only).
  bool same_naive_tiling(const TileConfig& other) const;
};

// The naive kernels changed on this date (the multi-tile naive kernels, docs/kernel-notes.md): before it,
// naive.qk computed one S tile per CTA through a gemm_stages-deep ring and naive.pv copied P without a
// prefetch hint. Measurements dated before it (ISO 8601 dates compare as text) were taken with those kernels.
inline constexpr std::string_view kNaiveMultiTileDate = "2026-12-03";
// `t` with the naive tiling of the kernels measured at `date` (ISO 8601): unchanged, or before
// kNaiveMultiTileDate 1 tile per qk CTA, gemm_stages slots and no prefetch hint.
TileConfig naive_tiling_measured_at(TileConfig t, std::string_view date);

}  // namespace attnscope::sim
