// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/remodel.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

#include "attnscope/profiler/profile.hpp"
#include "attnscope/profiler/request.hpp"
#include "attnscope/profiler/windows.hpp"
#include "attnscope/reports/from_sim.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/version.hpp"

namespace attnscope::profiler {
namespace {

using TileKey = std::tuple<int, int, int, int>;

bool has_measured_bytes(const reports::TileEntry& t) {
  for (const auto& [key, v] : t.metrics)
    if (v.measured) return true;
  return false;
}

// Overwrite the modeled side of `into` with `fresh`, leaving measured values untouched. A recorded modeled
// value the fresh model no longer predicts is dropped rather than kept stale.
void replace_modeled(reports::Metrics& into, const reports::Metrics& fresh) {
  for (auto& [key, v] : into) v.modeled.reset();
  for (const auto& [key, v] : fresh) {
    auto& slot = into[key];
    slot.modeled = v.modeled;
    if (slot.unit.empty()) slot.unit = v.unit;
  }
}

}  // namespace

reports::Report remodel_report(const reports::Report& recorded, const sim::GpuSpec& gpu) {
  reports::Report out = recorded;
  const CacheMode cache = recorded.provenance.cache_mode == "warm" ? CacheMode::warm : CacheMode::flush;
  for (auto kind : {sim::KernelKind::naive, sim::KernelKind::tiled}) {
    bool present = false;
    for (const auto& name : kernel_names(kind)) present |= reports::find_kernel(recorded, name) != nullptr;
    if (!present) continue;
    const sim::SimResult model =
        sim::simulate(gpu, recorded.workload, kind, recorded.tiles, sim_options_for(cache, true));
    for (const auto& k : model.kernels) {
      reports::KernelEntry* entry = nullptr;
      for (auto& e : out.kernels)
        if (e.name == k.name) entry = &e;
      if (entry == nullptr) continue;
      const reports::KernelEntry fresh = reports::modeled_kernel_entry(k, gpu);
      replace_modeled(entry->metrics, fresh.metrics);
      if (auto it = entry->metrics.find("l2_dirty_end"); it != entry->metrics.end())
        it->second.modeled = static_cast<double>(k.l2_dirty_end);

      std::map<TileKey, const reports::TileEntry*> fresh_tiles;
      for (const auto& t : fresh.tiles) fresh_tiles[{t.batch, t.head, t.q_tile, t.kv_tile}] = &t;
      for (auto& t : entry->tiles) {
        auto it = fresh_tiles.find({t.batch, t.head, t.q_tile, t.kv_tile});
        if (it != fresh_tiles.end()) {
          t.sm_modeled = it->second->sm_modeled;
          t.start_modeled_s = it->second->start_modeled_s;
          t.end_modeled_s = it->second->end_modeled_s;
        }
        if (has_measured_bytes(t)) {
          // A measured window: compare with the model of the same lone launch.
          const WindowSpec w{k.name, t.batch, t.head, t.q_tile, t.kv_tile};
          const auto lone = model_window(gpu, recorded.workload, kind, recorded.tiles, w);
          replace_modeled(t.metrics, reports::modeled_kernel_entry(lone, gpu).metrics);
        } else if (it != fresh_tiles.end()) {
          replace_modeled(t.metrics, it->second->metrics);
        }
      }
      entry->notes["remodeled"] = fmt::format(
          "modeled values recomputed by attnscope {} (git {}) with GPU spec '{}'; measured values "
          "as recorded on {} ({})",
          kVersion, kGitRevision, gpu.short_name, recorded.provenance.date, recorded.provenance.gpu_name);
    }
  }
  out.provenance.gpu_spec = gpu.short_name;
  return out;
}

}  // namespace attnscope::profiler
