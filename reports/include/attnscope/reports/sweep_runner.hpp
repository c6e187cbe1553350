// SPDX-License-Identifier: Apache-2.0
// What-if tile studies: the cross product of tile sizes, pipeline depth, problem shape, shared-memory limit
// and GPU spec, each point simulated (modeled metrics only), spread over all cores.
//
//   SweepSpec s;  s.base = sim::preset("llm-4k");  s.brs = {64, 128};  s.bcs = {32, 64, 128};
//   Report r = run_sweep(s, {.threads = 0}, "attnscope sweep ...");   // r.kind == "sweep"
//
// Enumeration order is fixed (GPU, L2 size, HBM bandwidth, SM count, smem per SM, seq, head dim, [naive
// baseline], smem limit, Br, Bc, warps, stages, [backward: Bc, Br, stages], [Hopper: smem limit, Bc,
// consumers, stages, schedule]), so a point's index is the same in every run. A `cycle` sweep's shard i/n
// holds exactly the points with index % n
// == i; a `two` sweep's (sweep_two_fidelity.hpp) the problems with problem index % n == i.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "attnscope/reports/report.hpp"
#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"
#include "attnscope/vocab/fidelity.hpp"

namespace attnscope::reports {

// About a minute of work on 16 cores at the default workload; `attnscope sweep --max-points` raises it.
inline constexpr std::uint64_t kDefaultMaxSweepPoints = 100000;

struct SweepSpec {
  sim::Workload base;  // batch, heads, dtype, causal, scale (and seq/head dim if not swept)
  std::vector<std::string> gpus{"h200"};  // built-in names or spec files
  std::vector<std::int64_t> seqs;         // seq_q = seq_kv; empty: the base workload's lengths
  std::vector<std::int64_t> head_dims;    // empty: the base workload's
  std::vector<int> brs{128}, bcs{64};
  std::vector<int> warps;  // empty: default_sweep_warps(Br), the real kernel's default for that Br
  std::vector<int> stages{2};
  std::vector<std::int64_t> smem_limits;  // per-CTA shared-memory limit; empty: the GPU's own limit
  // What-if GPUs (gpu_variants.hpp): each GPU spec with its L2 size, HBM peak bandwidth, SM count or shared
  // memory per SM replaced by each listed value; empty: the spec's own.
  std::vector<std::int64_t> l2_sizes;
  std::vector<double> hbm_bandwidths;  // bytes/s
  std::vector<int> sm_counts;
  std::vector<std::int64_t> smem_per_sm;  // bytes of shared memory per SM (the per-CTA limit stays <= it)
  sim::LaunchOrder order = sim::LaunchOrder::q_tile_fastest;
  bool tiled = true;            // sweep the tiled kernel's tiles
  bool naive_baseline = false;  // add one naive point per problem
  // The Hopper kernel's tiles (after the tiled points of each problem): Bc x consumers (Br = 64 x
  // consumers) x stages x schedule x persistent (one CTA per SM walking the tiles, or one per tile), each at
  // each smem limit.
  bool hopper = false;
  std::vector<int> hopper_bcs{128}, hopper_consumers{2}, hopper_stages{2};
  std::vector<sim::HopperSchedule> hopper_schedules{sim::HopperSchedule::serial};
  std::vector<bool> hopper_persistent{false};
  // Hopper axes that take each problem's head dim default (vocab::default_hopper_config) instead of the lists
  // above: bits kHopperAxisBc .. kHopperAxisPersistent. parse_sweep_axes sets the bit of every axis not given
  // on the command line, so that a sweep over d 64 and 128 runs each head dim's own default tile.
  static constexpr std::uint8_t kHopperAxisBc = 1, kHopperAxisConsumers = 2, kHopperAxisStages = 4,
                                kHopperAxisSchedule = 8, kHopperAxisPersistent = 16;
  std::uint8_t hopper_from_head_dim = 0;
  // The tiled backward's tiles, used when base.pass is bwd or both (each tiled point then takes every
  // combination of them): keys per CTA, query rows per step, ring stages; 0 = the compiled default at the
  // point's head dim (vocab::default_tiled_bwd_config). With --pass bwd no forward kernel runs, so the
  // forward tile axes must then hold one value each.
  std::vector<int> bwd_bcs{0}, bwd_brs{0}, bwd_stages{0};
  vocab::SweepFidelity fidelity = vocab::SweepFidelity::cycle;
  int top_k = 10;  // a `two` sweep runs the cycle model on (at least) the K fastest points of each problem
  // Refuse sweeps of more points than this (0: no limit): a typo in a list should not start a day-long run.
  std::uint64_t max_points = kDefaultMaxSweepPoints;

  // Canonical one-line description; equal strings mean the same enumeration (checked by merge).
  std::string definition_text() const;
};

struct SweepRunOptions {
  int threads = 0;  // 0: all hardware threads
  int shard_index = 0, shard_count = 1;
  // Called from worker threads (serialised) after each point: points done in this shard, points in it.
  std::function<void(std::size_t done, std::size_t total)> progress;
  // A `two` sweep journals each finished problem here and, when the file exists, skips the problems it
  // holds (sweep_checkpoint.hpp); empty: no checkpoint.
  std::string checkpoint;
  // Called once before any work when the checkpoint already held finished problems: (held, this shard's).
  std::function<void(std::size_t resumed, std::size_t problems)> resumed;
};

// The sweep's axes as typed on the command line: comma-separated lists ("64,128", "1024,4K", "48K,100K"),
// empty for the default; shard is "i/n" or empty.
struct SweepAxesText {
  std::string br, bc, warps, stages, seq, head_dim, smem, gpu{"h200"}, shard;
  std::string l2, hbm_bw, sms, smem_sm;  // GPU-spec overrides: "40M,60M", "3.35TB,4.8TB", "66,132", "456K"
  // The Hopper kernel's axes: "64,128", "1,2,3", "2,3,4", "serial,overlap,pingpong".
  std::string hopper_bc, hopper_consumers, hopper_stages, hopper_schedule;
  std::string hopper_persistent;  // "false,true"
  // The tiled backward's axes (with --pass bwd or both): "64,128", "32,64", "1,2".
  std::string bwd_bc, bwd_br, bwd_stages;
};
// Fills spec's axes (defaults: the tile flags' values) and run's shard. Every value must be a whole number in
// range: "4294967360" is not Br 64, "1000.7" is not 1000. Throws sim::InvalidInput naming the flag.
void parse_sweep_axes(const SweepAxesText& text, const sim::TileConfig& defaults, SweepSpec& spec,
                      SweepRunOptions& run);

// Problems (GPU variant x seq x head dim) and points per problem of the sweep (saturating).
std::uint64_t count_sweep_problems(const SweepSpec& spec);
std::uint64_t count_points_per_problem(const SweepSpec& spec);
// Backward tiles per tiled point (bwd Bc x Br x stages) when the base workload has a backward pass.
std::uint64_t count_backward_tiles(const SweepSpec& spec);
// How many points enumerate_sweep would make (saturating at UINT64_MAX), without making them.
std::uint64_t count_sweep_points(const SweepSpec& spec);

// All points of the sweep, unevaluated (metrics empty), in index order. Throws sim::InvalidInput for an
// empty axis or a bad value, and for more than spec.max_points points.
std::vector<SweepPoint> enumerate_sweep(const SweepSpec& spec);

// Warps per CTA a sweep uses when none are given: the real kernel's default for that Br (4 for Br 64 and
// 128).
int default_sweep_warps(int br);
// Checks every axis (non-empty, positive), the base workload and the point limit; throws sim::InvalidInput.
void check_sweep_spec(const SweepSpec& spec);
// Simulates the shard's points (a `two` sweep: see sweep_two_fidelity.hpp); infeasible points (tile does not
// fit, unsupported shape) are kept with their reason. Throws sim::InvalidInput for an unknown GPU spec or a
// bad shard.
Report run_sweep(const SweepSpec& spec, const SweepRunOptions& options, const std::string& command_line);

}  // namespace attnscope::reports
