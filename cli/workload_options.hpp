// SPDX-License-Identifier: Apache-2.0
// The workload and tile flags shared by `simulate`, `profile` and `sweep`, so each means the same everywhere.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"

namespace attnscope::cli {

struct WorkloadOptions {
  std::string preset{"llm-4k"};
  std::optional<long long> batch, heads, seq, seq_q, seq_kv, head_dim;
  std::optional<std::string> dtype;
  bool causal = false, non_causal = false;
  std::optional<double> scale;
  // Tile flags
  std::optional<int> br, bc, warps, stages;
  std::optional<std::string> order;
  std::string kernel{"both"};  // naive | tiled | both
  std::string gpu{"h200"};     // h200 | h100 | a100 | FILE

  sim::Workload workload() const;    // preset with the flags applied; throws sim::InvalidInput
  sim::TileConfig tile_config() const;
};

// Adds --preset, --batch, --heads, --seq, --seq-q, --seq-kv, --head-dim, --dtype, --causal/--no-causal,
// --scale, --br, --bc, --warps, --stages, --order, --kernel, --gpu.
void add_workload_options(CLI::App& cmd, WorkloadOptions& o);

}  // namespace attnscope::cli
