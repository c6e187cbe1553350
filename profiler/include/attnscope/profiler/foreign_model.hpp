// SPDX-License-Identifier: Apache-2.0
// From a recognised launch of another program to the model's input: the workload its annotation announces,
// the tile its name (or the Triton tile hint) gives, the dataflow its table row maps to, and the grid that
// workload and tile must launch. Every check that fails says why the launch is not modeled; nothing is
// guessed.
#pragma once
#include <optional>
#include <string>

#include "attnscope/profiler/foreign.hpp"
#include "attnscope/profiler/recognize.hpp"
#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"
#include "attnscope/vocab/geometry.hpp"

namespace attnscope::profiler {

struct ForeignModelPlan {
  vocab::KernelId kernel = vocab::KernelId::tiled;
  sim::Workload workload;
  sim::TileConfig tiles;
  vocab::Dim3 expected_grid;
  std::string tile_label;   // "Br128-Bc128-w4-s2" (forward) or "bwd-Bc128-Br128-s2" (backward)
  std::string tile_origin;  // where the tile came from ("the kernel name's template arguments", ...)
};

struct PlanResult {
  std::optional<ForeignModelPlan> plan;
  std::string not_modeled;  // "not modeled: <why>" when `plan` is empty
};

// The model's input for `launch`, recognised as `recognition`, with its shape and tile hint as read from
// its NVTX ranges (shape_of, tile_hint_of).
PlanResult plan_foreign_model(const ForeignLaunch& launch, const Recognition& recognition,
                              const ParsedAnnotation& shape, const ParsedTileHint& hint);

// "(32, 1, 32)".
std::string grid_text(const vocab::Dim3& grid);

}  // namespace attnscope::profiler
