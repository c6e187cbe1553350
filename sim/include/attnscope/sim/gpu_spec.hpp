// SPDX-License-Identifier: Apache-2.0
// A GPU as data: the numbers the model needs, read from an editable JSON file (sim/gpus/*.json) so users can
// copy one for a what-if GPU. Each number in those files says where it came from (datasheet, measurement,
// estimate) in a sibling "source" field.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/sim/dtype.hpp"

namespace attnscope::sim {

struct GpuSpec {
  std::string name;        // "NVIDIA H200"
  std::string short_name;  // "h200"
  // Streaming multiprocessors
  int sm_count = 0;
  double sm_clock_hz = 0;                     // clock the timing model runs at
  std::int64_t smem_per_sm = 0;               // bytes of shared memory per SM usable by CTAs
  std::int64_t smem_per_block = 0;            // bytes, max dynamic shared memory per CTA (opt-in limit)
  std::int64_t smem_reserved_per_cta = 1024;  // bytes the driver reserves per resident CTA (sm_80+)
  std::int64_t regs_per_sm = 0;               // 32-bit registers
  int max_threads_per_sm = 0;
  int max_ctas_per_sm = 0;
  // Memory hierarchy
  double hbm_bandwidth = 0;     // bytes/s, peak
  double hbm_efficiency = 1.0;  // achievable fraction of peak for streaming (measured copy / peak)
  double hbm_latency_ns = 0;
  int hbm_channels = 0;
  // HBM capacity (datasheet), what a workload's tensors and scratch must fit in; 0 = not given.
  std::int64_t hbm_capacity_bytes = 0;
  std::int64_t l2_bytes = 0;
  int l2_line_bytes = 128;
  int l2_sector_bytes = 32;
  int l2_ways = 16;
  int l2_partitions = 2;
  // 1: each partition also caches clean copies of lines that live in another partition (their home) when its
  // own SMs read them, so data read from both halves of the chip is held twice (A100/H100 whitepapers: "each
  // L2 partition localizes and caches data for memory accesses from SMs in the GPCs directly connected to the
  // partition"); stores from SMs of the other half pass through their near partition, which keeps a clean
  // copy, and reach the home partition, which holds the line dirty. 0 (field absent): one copy per line.
  int l2_near_copies = 0;
  // Dirty bytes the L2 holds at most (split evenly between the partitions); a store beyond it writes back
  // the partition's oldest dirty line. Measured as what a streaming writer leaves dirty at its end (the DRAM
  // writes of the flush after it). 0 (field absent): no budget, dirty lines leave only when evicted.
  std::int64_t l2_dirty_bytes = 0;
  double l2_bandwidth = 0;  // bytes/s, SM<->L2 aggregate
  double l2_latency_ns = 0;
  double sm_l2_bytes_per_cycle = 64;  // bytes/SM cycle one SM can move to or from L2
  // Math
  double tensor_flops_fp16 = 0;  // dense FLOP/s with fp32 accumulate (fp16 and bf16 alike)
  double tensor_flops_fp32 = 0;  // tf32 dense FLOP/s
  double fp32_flops = 0;         // CUDA-core FLOP/s
  double sfu_exp_per_s = 0;      // ex2 per second, whole chip
  // Fraction of tensor peak that warp-level mma.sync (what our kernels use) reaches; Hopper's datasheet peak
  // needs wgmma, so this is below 1 there.
  double mma_sync_efficiency = 1.0;
  // Warpgroup-level wgmma (the Hopper kernel's GEMMs, operands in shared memory), from the `wgmma_rate`
  // microbenchmark: FLOPs per SM per cycle with two warpgroups keeping the tensor cores busy, and the cycles
  // a warpgroup's round (fence, wgmma, commit, wait) takes beyond its MMAs at that rate. 0 (fields absent):
  // the GPU has no wgmma, and the Hopper kernel cannot run on it.
  double wgmma_flops_per_sm_cycle = 0.0;
  double wgmma_round_latency_cycles = 0.0;
  // The fraction of a warpgroup's ex2 cycles that run beside its own register-operand wgmma (P V) instead of
  // after it, from the `wgmma_overlap` microbenchmark: the Hopper kernel's overlapped schedules run the
  // softmax of S_{j+1} while P_j V_j is in flight. 0 (absent): no overlap.
  double wgmma_exp_hidden = 0.0;
  // Measured per-cycle rates for kernels timed pipe by pipe (KernelDataflow::MathModel::cta_phases; optional
  // in spec files, 0 = absent, and such kernels then fall back to the per-warp chains): mma.sync m16n8k16
  // FLOPs per SM per cycle at its best issue rate, and the SM clock while the tensor pipes are busy.
  double mma_sync_flops_per_sm_cycle = 0.0;
  double sm_clock_tensor_hz = 0.0;
  // Per-SM-sub-partition effects (optional in spec files; defaults keep the older whole-SM model):
  int smsp_per_sm = 4;                   // sub-partitions, each with its own tensor unit and issue port
  double smem_bytes_per_cycle = 128;     // shared-memory (ldmatrix) bandwidth per SM
  double warp_step_overhead_cycles = 0;  // issue cycles a warp spends per CTA step on the non-MMA work
                                         // (barrier, cp.async wait, row reductions), on its sub-partition
  // Kernel launch (optional in spec files; absent: 0, no launch cost). What CUDA events recorded right before
  // and after one launch measure beyond the kernel's CTAs: the launch latency (the launch call, the front
  // end, the grid's setup). The model adds it once to every kernel's time (KernelResult::launch_s), before
  // the first CTA starts; `cycles` and the tile records stay the CTAs' own. The `time` metric is an event
  // pair around one launch after an L2 flush (profiler and kernel benchmarks alike), so the H200 value is the
  // microbenchmark that times the same thing, `cta_dispatch` (event, one launch, event, synchronize), less
  // its CTAs' dispatch: not `launch_overhead`'s back-to-back interval (queued launches overlap), round trip
  // (host clock, includes the host's wake-up) or empty event pair (nothing launched). sim/gpus/h200.json.
  double launch_overhead_ns = 0;

  double tensor_flops(DType t) const { return t == DType::fp32 ? tensor_flops_fp32 : tensor_flops_fp16; }
  // Whether the Hopper kernel can be modeled: a wgmma rate and the clock it runs at.
  bool has_wgmma() const { return wgmma_flops_per_sm_cycle > 0.0 && sm_clock_tensor_hz > 0.0; }
};

// Built-in specs: "h200", "h100", "a100" (files in sim/gpus/). Anything else is taken as a file path.
GpuSpec load_gpu_spec(std::string_view name_or_path);  // throws InvalidInput on an unknown name or bad file
GpuSpec parse_gpu_spec(std::string_view json_text,
                       std::string_view origin);  // origin names the file in errors
std::vector<std::string> builtin_gpu_names();
// Directory the built-in files are read from (ATTNSCOPE_GPU_SPEC_DIR env var overrides the build-time path).
std::filesystem::path gpu_spec_dir();

}  // namespace attnscope::sim
