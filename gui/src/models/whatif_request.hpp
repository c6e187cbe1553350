// SPDX-License-Identifier: Apache-2.0
// One what-if question for the model: a workload, a kernel and its tiling, a shared-memory limit and a GPU
// spec. computeModel() and computeSweep() answer it; they are plain functions (run on a worker thread by
// WhatIfRunner) and throw sim::InvalidInput / std::exception with the reason on bad input.
#pragma once
#include <QString>
#include <QStringList>
#include <QVector>
#include <atomic>
#include <cstdint>
#include <functional>

#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"
#include "models/report_document.hpp"

namespace attnscope::gui {

enum class KernelChoice { tiled, naive, both };

struct WhatIfRequest {
  QString gpu = QStringLiteral("h200");  // built-in spec name or a spec file path
  sim::Workload workload;                // defaults are the llm-4k preset's shape
  KernelChoice kernels = KernelChoice::tiled;
  sim::TileConfig tiles;
  std::int64_t smem_limit = 0;  // bytes of shared memory one CTA may use; 0 = the GPU spec's own limit
  bool sweep = true;            // also run the tile-size sweep after the main result

  QStringList cliFlags() const;  // --batch ... --gpu: the workload and tile flags of `attnscope`
  QString commandLine() const;   // the equivalent `attnscope simulate ...` command, for provenance
};

// Query rows each warp owns in a tiling (Br / warps), the quantity the sweep keeps fixed while Br changes.
int rowsPerWarp(const sim::TileConfig& tiles);

struct SweepPointResult {
  int br = 0, bc = 0, warps = 0, stages = 0;
  bool feasible = false;
  QString reason;  // why not, when infeasible
  double hbm_bytes = 0, l2_bytes = 0, time_s = 0;
};

// Tile sizes the sweep tries (the tiled kernel with the request's query rows per warp and stages).
inline constexpr int kSweepBr[] = {32, 64, 128, 256};
inline constexpr int kSweepBc[] = {32, 64, 128};

// `cancel`, when given and raised, stops the model mid-run: computeModel then throws sim::Cancelled.
ReportPtr computeModel(const WhatIfRequest& request, const std::atomic<bool>* cancel = nullptr);
// should_stop is asked before each point, and `cancel` stops the point in flight; either way the sweep
// returns the points done so far (a newer request has made them stale, and a sweep of a large workload takes
// seconds).
QVector<SweepPointResult> computeSweep(const WhatIfRequest& request,
                                       const std::function<bool()>& should_stop = {},
                                       const std::atomic<bool>* cancel = nullptr);

}  // namespace attnscope::gui
