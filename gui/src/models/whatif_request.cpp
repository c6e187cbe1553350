// SPDX-License-Identifier: Apache-2.0
#include "models/whatif_request.hpp"

#include <algorithm>
#include <cmath>
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

sim::TileConfig modelTiles(const WhatIfRequest& request) {
  sim::TileConfig t = request.tiles;
  t.set_hopper(
      vocab::default_hopper_config(static_cast<int>(request.workload.head_dim), request.workload.causal));
  return t;
}

vocab::TiledBwdConfig backwardTile(const WhatIfRequest& request) {
  return request.tiles.tiled_bwd(request.workload.head_dim);
}

QString tilesLabel(const reports::Report& report) {
  const sim::Pass pass = report.workload.pass;
  std::string s;
  if (pass != sim::Pass::bwd) s = report.tiles.label();
  if (pass != sim::Pass::fwd) s += (s.empty() ? "" : ", ") + report.tiles.bwd_label(report.workload.head_dim);
  return QString::fromStdString(s);
}

SweepTarget sweepTarget(const WhatIfRequest& request) {
  if (request.workload.pass == sim::Pass::fwd) return {request.tiles.br, request.tiles.bc, false};
  const vocab::TiledBwdConfig b = backwardTile(request);
  return {b.br, b.bc, true};
}

int rowsPerWarp(const sim::TileConfig& tiles) {
  // The real kernel gives each warp a multiple of 16 rows (16 or 32); fall back to 16 for odd inputs.
  if (tiles.warps <= 0 || tiles.br % tiles.warps != 0 || (tiles.br / tiles.warps) % 16 != 0) return 16;
  return tiles.br / tiles.warps;
}

QStringList WhatIfRequest::cliFlags() const {
  const auto& w = workload;
  const std::string_view dtype = sim::to_string(w.dtype);
  const QString kernel = kernels == KernelChoice::tiled    ? QStringLiteral("tiled")
                         : kernels == KernelChoice::naive  ? QStringLiteral("naive")
                         : kernels == KernelChoice::hopper ? QStringLiteral("hopper")
                                                           : QStringLiteral("both");
  QStringList flags{QStringLiteral("--batch"),
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
  if (w.window > 0) flags << QStringLiteral("--window") << QString::number(w.window);
  if (w.alibi) flags << QStringLiteral("--alibi");
  if (w.pass != sim::Pass::fwd) {
    const std::string_view pass = sim::to_string(w.pass);
    flags << QStringLiteral("--pass") << QString::fromUtf8(pass.data(), static_cast<qsizetype>(pass.size()));
    // A field left at 0 is the head dim's default tile, which is the command line's own default (no flag)
    // except under a sliding window or ALiBi, where the command line defaults to the general-mask tile: then
    // every field is spelled out.
    const vocab::TiledBwdConfig b = tiles.tiled_bwd(w.head_dim);
    const bool all = w.general_mask();
    if (all || tiles.bwd_bc > 0) flags << QStringLiteral("--bwd-bc") << QString::number(b.bc);
    if (all || tiles.bwd_br > 0) flags << QStringLiteral("--bwd-br") << QString::number(b.br);
    if (all || tiles.bwd_stages > 0) flags << QStringLiteral("--bwd-stages") << QString::number(b.stages);
  }
  return flags;
}

QString WhatIfRequest::commandLine() const {
  QString line = QStringLiteral("attnscope simulate ") + cliFlags().join(QLatin1Char(' '));
  if (smem_limit > 0)
    line += QStringLiteral("  (GUI what-if: shared-memory limit %1 B per CTA)").arg(smem_limit);
  return line;
}

namespace {

std::vector<sim::KernelKind> kindsOf(const WhatIfRequest& request) {
  std::vector<sim::KernelKind> kinds;
  if (request.kernels == KernelChoice::hopper) return {sim::KernelKind::hopper};
  if (request.kernels != KernelChoice::tiled) kinds.push_back(sim::KernelKind::naive);
  if (request.kernels != KernelChoice::naive) kinds.push_back(sim::KernelKind::tiled);
  return kinds;
}

// Tiles of the largest kernel the request runs, roughly: (batch, head) pairs x query tiles x key tiles, of
// the forward tile or the backward's, whichever the pass runs (both: the larger).
std::int64_t estimatedTiles(const WhatIfRequest& request) {
  const sim::Workload& w = request.workload;
  const auto tiles = [&w](int br, int bc) {
    br = std::max(1, br);
    bc = std::max(1, bc);
    return w.batch * w.heads * ((w.seq_q + br - 1) / br) * ((w.seq_kv + bc - 1) / bc);
  };
  const vocab::TiledBwdConfig b = backwardTile(request);
  const std::int64_t forward = w.pass != sim::Pass::bwd ? tiles(request.tiles.br, request.tiles.bc) : 0;
  const std::int64_t backward = w.pass != sim::Pass::fwd ? tiles(b.br, b.bc) : 0;
  return std::max(forward, backward);
}

sim::GpuSpec previewGpu(const sim::GpuSpec& gpu, int sms) {
  // Every chip-wide resource gets the same share as the SMs, so a preview SM sees what a full-run SM sees.
  const double share = static_cast<double>(sms) / gpu.sm_count;
  sim::GpuSpec p = gpu;
  p.sm_count = sms;
  p.tensor_flops_fp16 *= share;
  p.tensor_flops_fp32 *= share;
  p.fp32_flops *= share;
  p.sfu_exp_per_s *= share;
  p.hbm_channels = std::max(1, static_cast<int>(std::lround(gpu.hbm_channels * share)));
  p.hbm_bandwidth *= share;
  const std::int64_t set_bytes = std::int64_t{gpu.l2_line_bytes} * gpu.l2_ways;
  const std::int64_t parts = std::max(1, gpu.l2_partitions);
  const auto sets =
      static_cast<std::int64_t>(std::llround(static_cast<double>(gpu.l2_bytes / set_bytes) * share));
  p.l2_bytes = std::max(parts, sets / parts * parts) * set_bytes;  // whole sets, as many in each partition
  p.l2_bandwidth *= share;
  return p;
}

void scale(sim::LevelBytes& b, std::uint64_t k) {
  for (std::uint64_t* v :
       {&b.hbm_read, &b.hbm_write, &b.l2_read, &b.l2_write, &b.l2_hit, &b.smem_read, &b.smem_write})
    *v *= k;
}

}  // namespace

void checkRequest(const WhatIfRequest& request) {
  const sim::GpuSpec gpu = resolveGpu(request);
  for (const auto kind : kindsOf(request))
    sim::check_config(gpu, request.workload, kind, modelTiles(request));
}

QString PreviewShape::label() const {
  const QString pairs = total_batch > 1 && batch != total_batch
                            ? QStringLiteral("%1 of %2 batch entries").arg(batch).arg(total_batch)
                            : QStringLiteral("%1 of %2 heads").arg(heads).arg(total_heads);
  return QStringLiteral("preview: %1 on %2 of %3 SMs, scaled").arg(pairs).arg(sms).arg(total_sms);
}

std::optional<PreviewShape> previewShape(const WhatIfRequest& request, const sim::GpuSpec& gpu) {
  if (!request.preview || estimatedTiles(request) < kPreviewMinTiles) return std::nullopt;
  const sim::Workload& w = request.workload;
  const int parts = std::max(1, gpu.l2_partitions);
  // An eighth of the work costs an eighth of the model's time; fewer factors where the pairs do not split.
  for (const int k : {8, 4, 2}) {
    PreviewShape s;
    s.total_batch = w.batch;
    s.total_heads = w.heads;
    s.total_sms = gpu.sm_count;
    s.factor = k;
    if (w.heads % k == 0) {
      s.heads = w.heads / k;
      s.batch = w.batch;
    } else if (w.batch % k == 0) {
      s.batch = w.batch / k;
      s.heads = w.heads;
    } else {
      continue;
    }
    // SMs alternate between the L2 partitions: keep as many on each side.
    s.sms = gpu.sm_count / k / parts * parts;
    if (s.sms < parts) continue;
    s.time_scale = static_cast<double>(s.sms) * k / gpu.sm_count;  // work share / GPU share
    return s;
  }
  return std::nullopt;
}

QString previewLabel(const reports::Report& report) {
  for (const auto& k : report.kernels)
    if (const auto it = k.notes.find("model.preview"); it != k.notes.end())
      return QString::fromStdString(it->second);
  return {};
}

ReportPtr computePreview(const WhatIfRequest& request, const std::atomic<bool>* cancel) {
  const sim::GpuSpec gpu = resolveGpu(request);
  const std::optional<PreviewShape> shape = previewShape(request, gpu);
  if (!shape) return nullptr;
  // The full shape must be valid on the full GPU (an infeasible tiling is an error, not a preview).
  checkRequest(request);
  sim::Workload w = request.workload;
  w.batch = shape->batch;
  w.heads = shape->heads;
  const sim::GpuSpec small = previewGpu(gpu, shape->sms);
  sim::SimOptions options;
  options.record_tiles = true;
  options.cancel = cancel;
  const std::string command = request.commandLine().toStdString();
  const std::string label = shape->label().toStdString();
  const auto k = static_cast<std::uint64_t>(shape->factor);
  std::optional<reports::Report> merged;
  for (const auto kind : kindsOf(request)) {
    sim::SimResult r = sim::simulate(small, w, kind, modelTiles(request), options);
    std::vector<std::int64_t> tiles_total;
    r.totals = {};
    r.flops = 0;
    r.time_s = 0;
    std::vector<double> time_scales;
    for (sim::KernelResult& kr : r.kernels) {
      // The slice runs the same CTAs per SM as the full GPU, so its time is that of as many waves; the full
      // run takes ceil(all CTAs / all slots) waves (time_scale alone, the work share over the GPU share,
      // ignores that a wave is either run or not: 3 % off for llm-4k).
      const std::int64_t ctas = std::int64_t{kr.ctas} * shape->factor;
      const std::int64_t cta_slots = std::int64_t{gpu.sm_count} * std::max(1, kr.ctas_per_sm);
      const double waves = static_cast<double>((ctas + cta_slots - 1) / cta_slots);
      const double t = kr.waves > 0 ? waves / kr.waves : shape->time_scale;
      time_scales.push_back(t);
      scale(kr.totals, k);
      kr.flops *= static_cast<double>(k);
      kr.time_s = kr.launch_s + (kr.time_s - kr.launch_s) * t;  // one launch, whatever the waves
      kr.cycles = static_cast<std::uint64_t>(std::llround(static_cast<double>(kr.cycles) * t));
      kr.ctas = static_cast<int>(ctas);
      kr.waves = static_cast<int>(waves);
      tiles_total.push_back(static_cast<std::int64_t>(kr.tiles.size()) * shape->factor);
      r.totals += kr.totals;
      r.flops += kr.flops;
      r.time_s += kr.time_s;
    }
    // The report describes the question asked (workload and GPU), not the slice that answered it.
    r.workload = request.workload;
    r.gpu = gpu;
    reports::Report part = reports::report_from_simulation(std::move(r), command);
    for (std::size_t i = 0; i < part.kernels.size(); ++i) {
      part.kernels[i].tiles_total = tiles_total[i];
      part.kernels[i].notes["model.preview"] = label;
      part.kernels[i].notes["model.preview_scaling"] = "bytes x" + std::to_string(k) + ", time x" +
                                                       QString::number(time_scales[i], 'f', 3).toStdString() +
                                                       " (full-GPU waves / slice waves); per-tile values and "
                                                       "the timeline are the slice's; the full model follows";
    }
    if (!merged) {
      merged = std::move(part);
    } else {
      for (auto& kernel : part.kernels) merged->kernels.push_back(std::move(kernel));
    }
  }
  return std::make_shared<const reports::Report>(std::move(*merged));
}

ReportPtr computeModel(const WhatIfRequest& request, const std::atomic<bool>* cancel) {
  const sim::GpuSpec gpu = resolveGpu(request);
  sim::SimOptions options;
  options.record_tiles = true;  // the heatmap and the timeline need the per-tile records
  options.cancel = cancel;
  const std::string command = request.commandLine().toStdString();
  const std::vector<sim::KernelKind> kinds = kindsOf(request);
  // Every kind is checked before any runs, so that an invalid one (the Hopper kernel asked for a backward, a
  // backward tile past shared memory) is an error with the library's reason, not a partial answer.
  checkRequest(request);
  std::optional<reports::Report> merged;
  for (const auto kind : kinds) {
    reports::Report part = reports::report_from_simulation(
        sim::simulate(gpu, request.workload, kind, modelTiles(request), options), command);
    if (!merged) {
      merged = std::move(part);
    } else {
      for (auto& k : part.kernels) merged->kernels.push_back(std::move(k));
    }
  }
  return std::make_shared<const reports::Report>(std::move(*merged));
}

QVector<SweepPointResult> computeSweep(const WhatIfRequest& request, const std::function<bool()>& should_stop,
                                       const std::atomic<bool>* cancel,
                                       const std::function<void(const SweepPointResult&)>& on_point) {
  const sim::GpuSpec gpu = resolveGpu(request);
  sim::SimOptions options;
  options.record_tiles = false;  // totals are all a sweep needs
  options.cancel = cancel;
  QVector<SweepPointResult> points;
  const int rows = rowsPerWarp(request.tiles);
  const bool backward = request.workload.pass != sim::Pass::fwd;
  const int bwd_stages = backwardTile(request).stages;
  for (const int br : kSweepBr) {
    for (const int bc : kSweepBc) {
      if (should_stop && should_stop()) return points;
      SweepPointResult p;
      sim::TileConfig tiles = modelTiles(request);
      p.br = br;
      p.bc = bc;
      p.backward = backward;
      if (backward) {
        // The backward tile varies (its warps follow from Bc); the forward tile of a training step stays.
        tiles.bwd_br = br;
        tiles.bwd_bc = bc;
        tiles.bwd_stages = bwd_stages;
        p.warps = vocab::tiled_bwd_warps(tiles.tiled_bwd(request.workload.head_dim));
        p.stages = bwd_stages;
      } else {
        tiles.br = br;
        tiles.bc = bc;
        tiles.warps = std::max(1, br / rows);
        p.warps = tiles.warps;
        p.stages = tiles.stages;
      }
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
      if (on_point) on_point(p);
    }
  }
  return points;
}

}  // namespace attnscope::gui
