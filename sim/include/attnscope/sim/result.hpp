// SPDX-License-Identifier: Apache-2.0
// What the model predicts: bytes at each memory level, FLOPs and time, in total and per tile.
// Per-tile records sum exactly to the totals (a tested invariant).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"

namespace attnscope::sim {

// Bytes moved at each level of the hierarchy. HBM = DRAM traffic; L2 = requests from the SMs to L2
// (what lts__t_sectors_srcunit_tex_* count); shared memory = bytes read and written by the CTA.
struct LevelBytes {
  std::uint64_t hbm_read = 0;
  std::uint64_t hbm_write = 0;
  std::uint64_t l2_read = 0;
  std::uint64_t l2_write = 0;
  std::uint64_t l2_hit = 0;  // bytes of l2_read + l2_write that hit in L2
  std::uint64_t smem_read = 0;
  std::uint64_t smem_write = 0;

  LevelBytes& operator+=(const LevelBytes& o);
  friend LevelBytes operator+(LevelBytes a, const LevelBytes& b) { return a += b; }
  friend bool operator==(const LevelBytes&, const LevelBytes&) = default;
};

// One tile of work: for the tiled kernel a (q-tile, kv-tile) step of one CTA; for the naive kernels one
// output tile of a GEMM (q_tile = row block, kv_tile = column block) or one row block of the softmax.
struct TileRecord {
  int batch = 0;
  int head = 0;
  int q_tile = 0;
  int kv_tile = 0;
  int sm = 0;
  std::uint64_t start_cycle = 0;  // SM cycles from kernel start
  std::uint64_t end_cycle = 0;
  LevelBytes bytes;
  double flops = 0;
};

struct KernelResult {
  std::string name;  // vocab::to_string(KernelId): "tiled", "naive.qk", ..., "tiled_bwd", "naive_bwd.dv", ...
  LevelBytes totals;
  double flops = 0;
  std::uint64_t cycles = 0;  // SM cycles from first CTA start to last CTA end
  // Seconds, what CUDA events around the launch measure: launch_s, then the CTAs (cycles / sm_clock_hz).
  double time_s = 0;
  double launch_s = 0;  // the launch cost in time_s (GpuSpec::launch_overhead_ns)
  int ctas = 0;
  int waves = 0;
  int ctas_per_sm = 0;  // occupancy the model chose
  std::string
      occupancy_limiter;  // what bounds ctas_per_sm: "shared memory", "registers", "threads", "CTA slots"
  int registers_per_thread = 0;   // used for occupancy (estimated unless SimOptions gave the real number)
  std::int64_t smem_per_cta = 0;  // bytes
  // L2 state when the kernel ended (what the next kernel inherits): resident and dirty bytes.
  std::uint64_t l2_resident_end = 0;
  std::uint64_t l2_dirty_end = 0;
  // What the kernel does on the chip, for this workload, that the model leaves out and that is known to
  // move its numbers (KernelDataflow::not_modeled); empty when nothing is known. Reports show it beside the
  // kernel's rows.
  std::string not_modeled;
  std::vector<TileRecord> tiles;
};

// One pass's share of a simulation: the sum over its kernels (forward or backward).
struct PassTotals {
  LevelBytes bytes;
  double flops = 0;   // the kernels' tensor FLOPs
  double time_s = 0;  // sum over the pass's kernels
  int kernels = 0;    // 0: the pass did not run
};

struct SimResult {
  GpuSpec gpu;
  Workload workload;
  TileConfig tiles;
  KernelKind kind = KernelKind::tiled;
  std::vector<KernelResult> kernels;  // in launch order
  LevelBytes totals;                  // sum over kernels: the whole step (workload.pass)
  PassTotals forward, backward;       // per pass; a pass that did not run has kernels == 0
  double flops = 0;
  double time_s = 0;                      // sum over kernels
  double hbm_bandwidth_achieved() const;  // bytes/s
  double tflops_achieved() const;         // workload.flops() / time_s / 1e12
};

}  // namespace attnscope::sim
