// SPDX-License-Identifier: Apache-2.0
// The workload and tile flags shared by `simulate`, `profile` and `sweep`, so each means the same everywhere.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"

namespace attnscope::cli {

struct WorkloadOptions {
  std::string preset{"llm-4k"};
  std::optional<long long> batch, heads, seq, seq_q, seq_kv, head_dim;
  std::optional<std::string> dtype;
  bool causal = false, non_causal = false;
  std::optional<double> scale;
  std::optional<long long> window;  // sliding window in keys (implies --causal)
  bool alibi = false;
  // Tile flags
  std::optional<int> br, bc, warps, stages;
  std::optional<std::string> order;
  // The Hopper kernel's tile (its own flags: --br/--bc/--stages are the tiled kernel's, and the two kernels'
  // defaults differ, so `--kernel all` can run both with their own tiles).
  std::optional<int> hopper_bc, hopper_consumers, hopper_stages;
  std::optional<std::string> hopper_schedule;
  std::optional<bool> hopper_persistent;
  std::string kernel{"both"};                     // naive | tiled | hopper | both (naive + tiled) | all
  std::string pass{"fwd"};                        // fwd | bwd | both (a training step)
  std::optional<int> bwd_bc, bwd_br, bwd_stages;  // the tiled backward's tile
  std::string gpu{"h200"};                        // h200 | h100 | a100 | FILE

  sim::Workload workload() const;  // preset with the flags applied; throws sim::InvalidInput
  // The tile flags over the defaults; under a sliding window or ALiBi the defaults are the one tile per pass
  // the GPU kernels are compiled for (vocab::general_mask_tiled_config, general_mask_tiled_bwd_config).
  sim::TileConfig tile_config() const;
  // The kinds --kernel names, in order: naive, tiled, hopper; "both" = naive and tiled (as before the Hopper
  // kernel), "all" = the three, the Hopper kernel only for the forward pass (it has no backward).
  std::vector<sim::KernelKind> kinds() const;
};

// Adds --preset, --batch, --heads, --seq, --seq-q, --seq-kv, --head-dim, --dtype, --causal/--no-causal,
// --scale, --window, --alibi, --br, --bc, --warps, --stages, --order, --kernel, --pass, --bwd-bc, --bwd-br,
// --bwd-stages, --hopper-bc, --hopper-consumers, --hopper-stages, --hopper-schedule, --gpu.
void add_workload_options(CLI::App& cmd, WorkloadOptions& o);

}  // namespace attnscope::cli
