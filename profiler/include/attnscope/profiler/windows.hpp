// SPDX-License-Identifier: Apache-2.0
// Tile windows: which tiles to re-launch alone, and what the model predicts for such a lone launch.
//
// A window is one tile of one (batch, head): the kernel is launched for that (batch, head) slice only
// (batch = heads = 1, pointers offset to the slice) and restricted to the tile by the kernels' TileWindow,
// so one CTA does one tile of work from a flushed L2. The model predicts the same lone launch by simulating
// the equivalent small workload (the tile's rows and the keys they see), not by cutting the tile out of the
// full run: a lone tile loads its Q rows and stores its O rows itself, and its DRAM traffic starts cold.
#pragma once
#include <vector>

#include "attnscope/profiler/request.hpp"
#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/result.hpp"

namespace attnscope::profiler {

// Tile counts of one kernel in its own units: q tiles (rows of tiles) and kv tiles (columns).
struct TileGrid {
  int q_tiles = 0;
  int kv_tiles = 0;
};
TileGrid tile_grid(const sim::Workload& w, const sim::TileConfig& t, const std::string& kernel);

// Whether a tile does any work (causal: kv tiles past the diagonal are skipped by the tiled kernel).
bool tile_visited(const sim::Workload& w, const sim::TileConfig& t, const std::string& kernel, int q_tile,
                  int kv_tile);

// The windows a tile mode selects for the kernels of `kind`, in launch order of the kernels.
std::vector<WindowSpec> plan_windows(const sim::Workload& w, sim::KernelKind kind, const sim::TileConfig& t,
                                     TileMode mode);

// The workload whose whole run is the window's lone launch (batch = heads = 1).
sim::Workload window_workload(const sim::Workload& w, const sim::TileConfig& t, const WindowSpec& window);

// The model's prediction for the window's lone launch: the matching kernel of simulate(window_workload).
sim::KernelResult model_window(const sim::GpuSpec& gpu, const sim::Workload& w, sim::KernelKind kind,
                               const sim::TileConfig& t, const WindowSpec& window);

}  // namespace attnscope::profiler
