// SPDX-License-Identifier: Apache-2.0
#include "models/whatif_request.hpp"

#include <algorithm>
#include <exception>
#include <utility>

#include "attnscope/reports/from_sim.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"

namespace attnscope::gui {
namespace {

sim::GpuSpec resolveGpu(const WhatIfRequest& request) {
  sim::GpuSpec gpu = sim::load_gpu_spec(request.gpu.toStdString());
  if (request.smem_limit > 0) {
    // A what-if limit replaces the per-CTA opt-in limit; an SM must hold at least one such CTA.
    gpu.smem_per_block = request.smem_limit;
    gpu.smem_per_sm = std::max(gpu.smem_per_sm, request.smem_limit);
  }
  return gpu;
}

}  // namespace

int rowsPerWarp(const sim::TileConfig& tiles) {
  // The real kernel gives each warp a multiple of 16 rows (16 or 32); fall back to 16 for odd inputs.
  if (tiles.warps <= 0 || tiles.br % tiles.warps != 0 || (tiles.br / tiles.warps) % 16 != 0) return 16;
  return tiles.br / tiles.warps;
}

QStringList WhatIfRequest::cliFlags() const {
  const auto& w = workload;
  const std::string_view dtype = sim::to_string(w.dtype);
  const QString kernel = kernels == KernelChoice::tiled   ? QStringLiteral("tiled")
                         : kernels == KernelChoice::naive ? QStringLiteral("naive")
                                                          : QStringLiteral("both");
  return {QStringLiteral("--batch"),
          QString::number(w.batch),
          QStringLiteral("--heads"),
          QString::number(w.heads),
          QStringLiteral("--seq-q"),
          QString::number(w.seq_q),
          QStringLiteral("--seq-kv"),
          QString::number(w.seq_kv),
          QStringLiteral("--head-dim"),
          QString::number(w.head_dim),
          QStringLiteral("--dtype"),
          QString::fromUtf8(dtype.data(), static_cast<qsizetype>(dtype.size())),
          w.causal ? QStringLiteral("--causal") : QStringLiteral("--no-causal"),
          QStringLiteral("--kernel"),
          kernel,
          QStringLiteral("--br"),
          QString::number(tiles.br),
          QStringLiteral("--bc"),
          QString::number(tiles.bc),
          QStringLiteral("--warps"),
          QString::number(tiles.warps),
          QStringLiteral("--stages"),
          QString::number(tiles.stages),
          QStringLiteral("--gpu"),
          gpu};
}

QString WhatIfRequest::commandLine() const {
  QString line = QStringLiteral("attnscope simulate ") + cliFlags().join(QLatin1Char(' '));
  if (smem_limit > 0)
    line += QStringLiteral("  (GUI what-if: shared-memory limit %1 B per CTA)").arg(smem_limit);
  return line;
}

ReportPtr computeModel(const WhatIfRequest& request, const std::atomic<bool>* cancel) {
  const sim::GpuSpec gpu = resolveGpu(request);
  sim::SimOptions options;
  options.record_tiles = true;  // the heatmap and the timeline need the per-tile records
  options.cancel = cancel;
  const std::string command = request.commandLine().toStdString();
  std::vector<sim::KernelKind> kinds;
  if (request.kernels != KernelChoice::tiled) kinds.push_back(sim::KernelKind::naive);
  if (request.kernels != KernelChoice::naive) kinds.push_back(sim::KernelKind::tiled);
  std::optional<reports::Report> merged;
  for (const auto kind : kinds) {
    reports::Report part =
        reports::report_from_simulation(sim::simulate(gpu, request.workload, kind, request.tiles, options), command);
    if (!merged) {
      merged = std::move(part);
    } else {
      for (auto& k : part.kernels) merged->kernels.push_back(std::move(k));
    }
  }
  return std::make_shared<const reports::Report>(std::move(*merged));
}

QVector<SweepPointResult> computeSweep(const WhatIfRequest& request, const std::function<bool()>& should_stop,
                                       const std::atomic<bool>* cancel) {
  const sim::GpuSpec gpu = resolveGpu(request);
  sim::SimOptions options;
  options.record_tiles = false;  // totals are all a sweep needs
  options.cancel = cancel;
  QVector<SweepPointResult> points;
  const int rows = rowsPerWarp(request.tiles);
  for (const int br : kSweepBr) {
    for (const int bc : kSweepBc) {
      if (should_stop && should_stop()) return points;
      SweepPointResult p;
      sim::TileConfig tiles = request.tiles;
      tiles.br = br;
      tiles.bc = bc;
      tiles.warps = std::max(1, br / rows);
      p.br = br;
      p.bc = bc;
      p.warps = tiles.warps;
      p.stages = tiles.stages;
      try {
        const sim::SimResult r = sim::simulate(gpu, request.workload, sim::KernelKind::tiled, tiles, options);
        p.feasible = true;
        p.hbm_bytes = static_cast<double>(r.totals.hbm_read + r.totals.hbm_write);
        p.l2_bytes = static_cast<double>(r.totals.l2_read + r.totals.l2_write);
        p.time_s = r.time_s;
      } catch (const sim::InvalidInput& e) {
        p.reason = QString::fromStdString(e.what());
      } catch (const sim::Cancelled&) {
        return points;  // stale: the runner drops these points
      }
      points.push_back(p);
    }
  }
  return points;
}

}  // namespace attnscope::gui
