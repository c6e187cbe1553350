// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/remodel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "attnscope/profiler/join.hpp"
#include "attnscope/profiler/request.hpp"
#include "attnscope/profiler/windows.hpp"
#include "attnscope/reports/from_sim.hpp"
#include "attnscope/sim/dataflow.hpp"
#include "attnscope/version.hpp"

namespace attnscope::profiler {
namespace {

using TileKey = std::tuple<int, int, int, int>;

// Overwrite the modeled side of `into` with `fresh`, leaving measured values untouched. A recorded modeled
// value the fresh model no longer predicts is dropped rather than kept stale.
void replace_modeled(reports::Metrics& into, const reports::Metrics& fresh) {
  for (const vocab::Metric m : vocab::all_metrics())
    if (reports::Value* v = into.contains(m) ? &into[m] : nullptr) v->modeled.reset();
  for (const auto& [metric, v] : fresh) into[metric].modeled = v.modeled;
}

}  // namespace

bool measured_before_kernel_change(std::string_view kernel, std::string_view date, std::int64_t seq_kv) {
  const auto id = vocab::parse_kernel_id(kernel);
  return id && date < vocab::current_since(*id, seq_kv);
}

vocab::CacheProtocol protocol_of(const reports::Report& recorded) {
  return recorded.provenance.cache.value_or(vocab::CacheProtocol::flush);
}

reports::Report remodel_report(const reports::Report& recorded, ModelCache& models,
                               const RemodelOptions& options) {
  reports::Report out = recorded;
  out.format_version = reports::kFormatVersion;  // the modeled side is now this build's
  const vocab::CacheProtocol protocol = protocol_of(recorded);
  const sim::GpuSpec& gpu = models.gpu();
  for (auto& entry : out.kernels) {
    const auto id = sim::parse_kernel_id(entry.name);
    if (!id) continue;  // not one of ours: measured only
    if (measured_before_kernel_change(entry.name, recorded.provenance.date, recorded.workload.seq_kv)) {
      replace_modeled(entry.metrics, {});
      for (auto& t : entry.tiles) {
        replace_modeled(t.metrics, {});
        t.sm_modeled.reset();
        t.start_modeled_s.reset();
        t.end_modeled_s.reset();
      }
      std::erase_if(entry.notes, [](const auto& n) { return n.first.starts_with("model."); });
      entry.notes[std::string(kKernelChangedNote)] = fmt::format(
          "measured on {}, before {} last changed ({}): this is the previous kernel, which this build's "
          "model "
          "does not describe, so it is shown measured only; measure it again to compare",
          recorded.provenance.date, entry.name, vocab::current_since(*id, recorded.workload.seq_kv));
      continue;
    }
    const sim::KernelKind kind = vocab::kind_of(*id);
    // The full run's per-tile records only where the report keeps tiles of the full run (lone windows are
    // modeled on their own): otherwise the same model run as the accuracy table's, shared through `models`.
    const bool full_run_tiles =
        options.full_run_tiles && std::any_of(entry.tiles.begin(), entry.tiles.end(),
                                              [](const reports::TileEntry& t) { return !t.lone_window; });
    const auto model =
        models.kernel(recorded.workload, kind, recorded.tiles, entry.name, protocol, full_run_tiles);
    const reports::KernelEntry fresh = reports::modeled_kernel_entry(*model, gpu);
    replace_modeled(entry.metrics, fresh.metrics);
    // The model's notes (CTAs, occupancy, what it leaves out for this workload) are this model's too.
    std::erase_if(entry.notes, [](const auto& n) { return n.first.starts_with("model."); });
    for (const auto& [key, text] : fresh.notes)
      if (key.starts_with("model.")) entry.notes[key] = text;
    if (full_run_tiles) entry.tiles_total = fresh.tiles_total;

    std::map<TileKey, const reports::TileEntry*> fresh_tiles;
    for (const auto& t : fresh.tiles) fresh_tiles[{t.batch, t.head, t.q_tile, t.kv_tile}] = &t;
    for (auto& t : entry.tiles) {
      auto it = fresh_tiles.find({t.batch, t.head, t.q_tile, t.kv_tile});
      if (it != fresh_tiles.end()) {
        t.sm_modeled = it->second->sm_modeled;
        t.start_modeled_s = it->second->start_modeled_s;
        t.end_modeled_s = it->second->end_modeled_s;
      } else if (!full_run_tiles) {
        t.sm_modeled.reset();
        t.start_modeled_s.reset();
        t.end_modeled_s.reset();
      }
      if (t.lone_window) {
        // A measured window: compare with the model of the same lone launch.
        const WindowSpec w{entry.name, t.batch, t.head, t.q_tile, t.kv_tile};
        replace_modeled(t.metrics,
                        window_metrics(*models.window(recorded.workload, kind, recorded.tiles, w), gpu));
      } else if (it != fresh_tiles.end()) {
        replace_modeled(t.metrics, it->second->metrics);
      } else {
        replace_modeled(t.metrics, {});
      }
    }
    entry.notes["remodeled"] = fmt::format(
        "modeled values recomputed by attnscope {} (git {}) with GPU spec '{}' under the recording's cache "
        "protocol ({}); measured values as recorded on {} ({})",
        kVersion, kGitRevision, gpu.short_name, vocab::to_string(protocol), recorded.provenance.date,
        recorded.provenance.gpu_name);
  }
  out.provenance.gpu_spec = gpu.short_name;
  return out;
}

reports::Report remodel_report(const reports::Report& recorded, const sim::GpuSpec& gpu) {
  ModelCache models(gpu);
  return remodel_report(recorded, models);
}

}  // namespace attnscope::profiler
