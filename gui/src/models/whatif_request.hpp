// SPDX-License-Identifier: Apache-2.0
// One what-if question for the model: a workload (with its pass: forward, backward or a training step), a
// kernel and its tilings (forward and backward), a shared-memory limit and a GPU spec. computeModel() and
// computeSweep() answer it; they are plain functions (run on a worker thread by WhatIfRunner) and throw
// sim::InvalidInput / std::exception with the reason on bad input.
#pragma once
#include <QString>
#include <QStringList>
#include <QVector>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>

#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"
#include "models/report_document.hpp"

namespace attnscope::gui {

enum class KernelChoice { tiled, naive, both, hopper };  // hopper: its default tile, forward only

struct WhatIfRequest {
  QString gpu = QStringLiteral("h200");  // built-in spec name or a spec file path
  // Defaults are the llm-4k preset's shape; workload.pass picks the forward (fwd), the backward (bwd) or a
  // training step (both), as `attnscope simulate --pass` does.
  sim::Workload workload;
  KernelChoice kernels = KernelChoice::tiled;
  // The forward tile (br, bc, warps, stages) and the tiled backward's (bwd_bc, bwd_br, bwd_stages: 0 = the
  // compiled default for the head dim, vocab::default_tiled_bwd_config, as the command line's default).
  sim::TileConfig tiles;
  std::int64_t smem_limit = 0;  // bytes of shared memory one CTA may use; 0 = the GPU spec's own limit
  bool sweep = true;            // also run the tile-size sweep after the main result
  bool preview = true;          // a large workload: show a scaled preview first (computePreview)

  QStringList cliFlags() const;  // --batch ... --gpu: the workload and tile flags of `attnscope`
  QString commandLine() const;   // the equivalent `attnscope simulate ...` command, for provenance
};

// Query rows each warp owns in a tiling (Br / warps), the quantity the sweep keeps fixed while Br changes.
int rowsPerWarp(const sim::TileConfig& tiles);

// The tiles the model runs the request with: its own, and for the Hopper kernel (which has no tile controls
// here) the default tile of the workload's head dim, as the command line starts from
// (vocab::default_hopper_config).
sim::TileConfig modelTiles(const WhatIfRequest& request);

// The tiled backward's tile the request runs: its bwd_* fields, each 0 replaced by the head dim's compiled
// default (sim::TileConfig::tiled_bwd).
vocab::TiledBwdConfig backwardTile(const WhatIfRequest& request);

// The tiles a result ran with, as `attnscope simulate` prints them: the forward tile (fwd), the backward's
// (bwd, "bwd-Bc128-Br64-s2") or both (a training step).
QString tilesLabel(const reports::Report& report);

// Checks the request as the model will run it, with the library's own validation (sim::check_config for
// every kind the request runs, its pass included: a kernel without a backward, a tile that does not fit
// shared memory, a head dim or dtype the kernels are not built for, a backward whose tensors exceed the GPU's
// HBM). Throws sim::InvalidInput with the reason.
void checkRequest(const WhatIfRequest& request);

// One point of the tile-size sweep. A forward sweep varies the tiled kernel's Br x Bc (warps keep the query
// rows per warp); a backward sweep (a request whose pass is bwd or both) varies the tiled backward's Br
// (query rows per step) x Bc (keys per CTA; warps = Bc / 16) at the request's backward stages, the forward
// tile fixed; its bytes and time are those of the whole pass or step the request runs.
struct SweepPointResult {
  int br = 0, bc = 0, warps = 0, stages = 0;
  bool feasible = false;
  QString reason;  // why not, when infeasible
  double hbm_bytes = 0, l2_bytes = 0, time_s = 0;
  bool backward = false;  // a backward tile
};

// Tile sizes the sweep tries, forward and backward alike.
inline constexpr int kSweepBr[] = {32, 64, 128, 256};
inline constexpr int kSweepBc[] = {32, 64, 128};

// What a request's sweep varies, and the request's own point in it (the sweep grid marks it).
struct SweepTarget {
  int br = 0, bc = 0;
  bool backward = false;
};
SweepTarget sweepTarget(const WhatIfRequest& request);

// `cancel`, when given and raised, stops the model mid-run: computeModel then throws sim::Cancelled.
ReportPtr computeModel(const WhatIfRequest& request, const std::atomic<bool>* cancel = nullptr);

// A coarse preview of a large what-if: 1/factor of the (batch, head) pairs on a slice of the GPU with the
// same share of every resource (SMs, HBM channels and bandwidth, L2 sets and bandwidth, math rates), so each
// SM sees the same occupancy, waves and memory contention per SM as in the full run. Every (batch, head)
// pair of a kernel runs the same tile program on its own tensors, so bytes scale with the pairs kept and
// time with the number of waves (the slice holds as many CTAs per SM as the full GPU). It is an estimate, not
// the model's answer (the L2 set mapping and the HBM channel hash see other addresses): the views label it
// until the full model arrives.
struct PreviewShape {
  std::int64_t batch = 1, heads = 1;              // the preview's (batch, head) pairs
  std::int64_t total_batch = 1, total_heads = 1;  // the request's
  int sms = 0, total_sms = 0;
  int factor = 1;           // total pairs / preview pairs
  double time_scale = 1.0;  // work share / GPU share: the time scale when a kernel's waves are unknown
  QString label() const;    // "preview: 4 of 32 heads on 16 of 132 SMs, scaled"
};
// The preview for `request` on `gpu`, or nothing when the full model is small enough to wait for (fewer than
// kPreviewMinTiles tiles) or the pairs do not split.
inline constexpr std::int64_t kPreviewMinTiles = 16384;
std::optional<PreviewShape> previewShape(const WhatIfRequest& request, const sim::GpuSpec& gpu);
// The scaled preview report (its kernels carry the label in a "model.preview" note and the scaling in
// "model.preview_scaling"), or null when previewShape() gives nothing. Throws as computeModel does.
ReportPtr computePreview(const WhatIfRequest& request, const std::atomic<bool>* cancel = nullptr);
// The label of a preview report, empty for a full one.
QString previewLabel(const reports::Report& report);
// should_stop is asked before each point, and `cancel` stops the point in flight; either way the sweep
// returns the points done so far (a newer request has made them stale, and a sweep of a large workload takes
// seconds). on_point, when given, gets each point as soon as it is modeled (on the calling thread).
QVector<SweepPointResult> computeSweep(const WhatIfRequest& request,
                                       const std::function<bool()>& should_stop = {},
                                       const std::atomic<bool>* cancel = nullptr,
                                       const std::function<void(const SweepPointResult&)>& on_point = {});

}  // namespace attnscope::gui
