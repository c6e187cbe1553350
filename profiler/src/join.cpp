// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/join.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "attnscope/reports/from_sim.hpp"

namespace attnscope::profiler {

namespace {

using TileKey = std::tuple<int, int, int, int>;

std::string mb(double bytes) {
  return fmt::format("{:.2f} MB", bytes / 1e6);
}

// What the L2 write-back did to this kernel's DRAM writes, with its numbers.
std::string writeback_note(const reports::Metrics& m, CacheMode cache) {
  const auto l2_write = reports::measured_of(m, reports::Metric::l2_write);
  const auto dram_write = reports::measured_of(m, reports::Metric::dram_write);
  const auto dirty = reports::measured_of(m, reports::Metric::l2_dirty_end);
  if (!l2_write || !dram_write) return "";
  std::string s = fmt::format(
      "L2 is write-back: the kernel wrote {} to L2 (l2_write, logical stores) but DRAM received {} while it "
      "ran "
      "(dram_write, {:.1f}% of l2_write). ",
      mb(*l2_write), mb(*dram_write), *l2_write > 0 ? 100.0 * *dram_write / *l2_write : 0.0);
  if (cache != CacheMode::warm) {
    s += cache == CacheMode::flush ? "L2 was flushed before the kernel, so no dirty lines of earlier work "
                                     "were written back during it: "
                                     "dram_write is the kernel's own lines evicted while it ran. "
                                   : "L2 was flushed before the kernel sequence, which then ran back to "
                                     "back: dram_write includes dirty "
                                     "lines the previous kernel of the sequence left in L2. ";
    if (dirty)
      s += fmt::format(
          "{} were still dirty in L2 when it ended and reached DRAM only during the flush that followed "
          "(l2_dirty_end, measured as that flush's DRAM writes); dram_write + l2_dirty_end = {}. ",
          mb(*dirty), mb(*dram_write + *dirty));
    s += "Without a flush, dirty lines left by earlier work are written back during a later kernel and "
         "counted "
         "there, so DRAM writes depend on what ran before.";
  } else {
    s += "L2 was warm (the same launch ran just before, unmeasured): dram_write includes the write-back of "
         "lines "
         "that run left dirty, and lines this run leaves dirty are not counted.";
  }
  return s;
}

}  // namespace

reports::Metrics window_metrics(const sim::KernelResult& lone, const sim::GpuSpec& gpu) {
  return reports::modeled_kernel_entry(lone, gpu).metrics;
}

reports::Counters raw_counters(const CounterValues& counters) {
  reports::Counters out;
  for (const auto& [name, value] : counters)
    if (value) out[name] = *value;
  return out;
}

void merge_measured(reports::Metrics& into, const reports::Metrics& measured) {
  for (const auto& [metric, value] : measured) into[metric].measured = value.measured;
}

reports::KernelEntry join_kernel(const MeasuredKernel& measured, const sim::KernelResult* modeled,
                                 const sim::GpuSpec& gpu, const std::vector<WindowModel>& window_models,
                                 CacheMode cache) {
  reports::KernelEntry e;
  if (modeled) {
    e = reports::modeled_kernel_entry(*modeled, gpu);
  } else {
    e.name = measured.name;
  }
  const vocab::BulkCopies bulk = vocab::bulk_copies_of(measured.name);
  merge_measured(e.metrics, derive_report_metrics(measured.counters, bulk));
  e.counters = raw_counters(measured.counters);
  for (const auto& smp : measured.samples) {
    reports::CounterSample c{smp.start_s, smp.end_s, {}};
    for (const auto& [name, value] : smp.counters)
      if (value) c.counters[name] = *value;
    e.samples.push_back(std::move(c));
  }
  if (measured.event_time_s) {
    e.metrics[reports::Metric::time].measured = *measured.event_time_s;
    e.notes[std::string(vocab::key(reports::Metric::time))] =
        "measured time: CUDA events around separate launches of the kernel from the same L2 state "
        "(median of 3); the counters' gpu__time_duration.sum is kept under its own name";
  }

  if (measured.writeback_after) {
    const auto after = derive_report_metrics(*measured.writeback_after, bulk);
    if (const auto written = reports::measured_of(after, reports::Metric::dram_write))
      e.metrics[reports::Metric::l2_dirty_end].measured = written;
  }
  if (const std::string note = writeback_note(e.metrics, cache); !note.empty())
    e.notes["l2_writeback"] = note;
  e.notes["cache_mode"] = std::string(to_string(cache));

  std::map<TileKey, std::size_t> index;
  for (std::size_t i = 0; i < e.tiles.size(); ++i) {
    const auto& t = e.tiles[i];
    index[{t.batch, t.head, t.q_tile, t.kv_tile}] = i;
  }
  auto tile_at = [&](int b, int h, int q, int kv) -> reports::TileEntry& {
    auto [it, inserted] = index.try_emplace(TileKey{b, h, q, kv}, e.tiles.size());
    if (inserted) {
      reports::TileEntry t;
      t.batch = b;
      t.head = h;
      t.q_tile = q;
      t.kv_tile = kv;
      e.tiles.push_back(t);
    }
    return e.tiles[it->second];
  };

  for (const auto& r : measured.timeline) {
    auto& t = tile_at(r.batch, r.head, r.q_tile, r.kv_tile);
    t.start_measured_s = r.start_s;
    t.end_measured_s = r.end_s;
    t.sm_measured = r.sm;
  }

  std::size_t windows_modeled = 0;
  for (const auto& w : measured.windows) {
    auto& t = tile_at(w.batch, w.head, w.q_tile, w.kv_tile);
    reports::Metrics m;
    for (const auto& wm : window_models) {
      const auto& s = wm.window;
      if (s.kernel == measured.name && s.batch == w.batch && s.head == w.head && s.q_tile == w.q_tile &&
          s.kv_tile == w.kv_tile) {
        m = window_metrics(wm.result, gpu);
        ++windows_modeled;
        break;
      }
    }
    merge_measured(m, derive_report_metrics(w.counters, bulk));
    t.metrics = std::move(m);
    t.counters = raw_counters(w.counters);
    t.lone_window = true;
  }
  e.tiles_total = modeled ? static_cast<std::int64_t>(modeled->tiles.size()) : 0;
  if (!measured.windows.empty())
    e.notes["tile_windows"] = fmt::format(
        "{} tiles carry measured bytes: each was launched alone (batch 0 / head 0 slice, one CTA doing one "
        "tile, "
        "from a flushed L2) and measured under its own CUPTI range. Their modeled values are the model of "
        "that "
        "same lone launch ({} of {} modeled), not the tile's share of the full run: a lone tile loads its "
        "own Q "
        "rows and stores its own O rows and starts from a cold L2. Other tiles carry the full run's modeled "
        "attribution only.",
        measured.windows.size(), windows_modeled, measured.windows.size());
  if (!measured.timeline.empty()) {
    std::string note = fmt::format(
        "{} tiles carry measured start/end times (%globaltimer, seconds from the first record) and SM "
        "(%smid) "
        "from one instrumented launch of the kernel, run outside the counter ranges.",
        measured.timeline.size());
    // The instrumented build writes a record at every step, so it runs slower than the kernel whose time
    // the report gives (on the H200 the Hopper kernel's by 6 % at d 128 and 23 % at d 64): say by how much.
    double first = measured.timeline.front().start_s, last = measured.timeline.front().end_s;
    for (const auto& r : measured.timeline) {
      first = std::min(first, r.start_s);
      last = std::max(last, r.end_s);
    }
    if (measured.event_time_s && *measured.event_time_s > 0.0 && last > first)
      note += fmt::format(
          " That launch spanned {:.1f} us from its first record to its last; the kernel's measured time "
          "is {:.1f} us ({:+.1f} %): compare the tiles' times with each other rather than with the kernel's "
          "time.",
          (last - first) * 1e6, *measured.event_time_s * 1e6,
          ((last - first) / *measured.event_time_s - 1) * 100);
    e.notes["tile_timeline"] = std::move(note);
  }
  return e;
}

}  // namespace attnscope::profiler
