// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/profile.hpp"

#include <fmt/format.h>

#include <future>

#include "attnscope/profiler/foreign_report.hpp"
#include "attnscope/profiler/model_cache.hpp"
#include "attnscope/profiler/windows.hpp"
#include "attnscope/reports/from_sim.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"

namespace attnscope::profiler {

reports::Provenance measured_provenance(const DeviceInfo& device, const std::string& command_line) {
  reports::Provenance p = reports::basic_provenance(command_line);
  p.gpu_name = device.name;
  p.driver = device.driver;
  p.cuda_runtime = device.cuda_runtime;
  p.sm_clock_mhz = device.sm_clock_mhz;
  p.mem_clock_mhz = device.mem_clock_mhz;
  return p;
}

std::string device_note(const DeviceInfo& device) {
  return fmt::format("{} ({}), {} SMs, L2 {} B", device.name, device.chip, device.sm_count, device.l2_bytes);
}

reports::Report build_profile_report(const Measurement& m,
                                     const std::optional<std::vector<sim::KernelResult>>& model,
                                     const sim::GpuSpec& gpu, const std::vector<WindowModel>& window_models,
                                     const MeasureRequest& request, const std::string& command_line) {
  reports::Report r;
  r.kind = "profile";
  r.provenance = measured_provenance(m.device, command_line);
  r.provenance.cache = request.cache;
  r.provenance.replay = request.replay;
  r.provenance.gpu_spec = model ? gpu.short_name : "";
  r.workload = request.workload;
  r.tiles = request.tiles;
  std::string unavailable;
  for (const auto& name : m.unavailable_metrics) unavailable += (unavailable.empty() ? "" : ", ") + name;
  std::string not_collected;
  for (const auto& name : m.not_collected_metrics)
    not_collected += (not_collected.empty() ? "" : ", ") + name;
  for (const auto& mk : m.kernels) {
    const sim::KernelResult* modeled = nullptr;
    if (model)
      for (const auto& k : *model)
        if (k.name == mk.name) modeled = &k;
    reports::KernelEntry e = join_kernel(mk, modeled, gpu, window_models, request.cache);
    e.notes["measure.device"] = device_note(m.device);
    e.notes["measure.replay"] = fmt::format("{} replay, {} passes", m.replay_mode, m.passes);
    if (!unavailable.empty()) e.notes["measure.unavailable_metrics"] = unavailable;
    if (!not_collected.empty())
      e.notes["measure.not_collected_metrics"] = not_collected + " (--only-metrics)";
    for (std::size_t i = 0; i < m.notes.size(); ++i) e.notes[fmt::format("measure.note{}", i)] = m.notes[i];
    if (!model) e.notes["model"] = "not run (--no-model): measured values only";
    r.kernels.push_back(std::move(e));
  }
  return r;
}

void keep_tiles(reports::Report& report, const std::string& keep) {
  const auto subset = reports::parse_tile_subset(keep);
  if (!subset)
    throw sim::InvalidInput("--keep-tiles '" + keep + "' is not one of all, head0, measured, windows");
  if (*subset == reports::TileSubset::all) return;
  for (auto& k : report.kernels) {
    if (k.tiles_total == 0) k.tiles_total = static_cast<std::int64_t>(k.tiles.size());
    std::vector<reports::TileEntry> kept;
    for (auto& t : k.tiles) {
      // head0: every tile of (batch 0, head 0), enough for the heatmaps and timelines, a few MB at most.
      const bool head0 = *subset == reports::TileSubset::head0 && t.batch == 0 && t.head == 0;
      if (t.lone_window || head0 || (*subset == reports::TileSubset::measured && t.start_measured_s))
        kept.push_back(std::move(t));
    }
    k.tiles = std::move(kept);
    k.tiles_kept = *subset;
  }
}

ModelSpecChoice model_spec_for(const DeviceInfo& device, const std::optional<std::string>& named) {
  const std::optional<sim::GpuSpec> own = gpu_spec_for_device(device);
  if (named) {
    ModelSpecChoice c{*named, std::nullopt};
    const sim::GpuSpec asked = sim::load_gpu_spec(*named);
    if (!own || own->name != asked.name)
      c.note = fmt::format(
          "the model ran with the GPU spec '{}' ({}), named on the command line, while the "
          "measurement ran on {}: modeled and measured values describe different GPUs",
          asked.short_name, asked.name, device.name);
    return c;
  }
  if (own) return {own->short_name, std::nullopt};
  return {"h200", fmt::format("no built-in GPU spec describes {}: the model ran with the h200 spec (name one "
                              "with --gpu, or a JSON file of the device's numbers)",
                              device.name)};
}

reports::Report run_profile(GpuSession& session, const ProfileOptions& options,
                            const std::string& command_line) {
  MeasureRequest request = options.request;
  sim::validate(request.workload);
  request.windows = plan_windows(request.workload, request.kind, request.tiles, options.tile_mode);
  const sim::GpuSpec gpu = sim::load_gpu_spec(options.gpu_spec);

  // The model runs on its own thread while the GPU measures; its failure is reported, not fatal.
  struct ModelOutput {
    std::optional<std::vector<sim::KernelResult>> result;
    std::vector<WindowModel> windows;
    std::string error;
  };
  std::future<ModelOutput> model;
  if (options.run_model) {
    model = std::async(std::launch::async, [&gpu, &request] {
      ModelOutput out;
      try {
        // Under the measurement's cache protocol: with a flush before every kernel, each kernel alone.
        out.result = model_kernels(gpu, request.workload, request.kind, request.tiles, request.cache, true);
        for (const auto& w : request.windows)
          out.windows.push_back({w, model_window(gpu, request.workload, request.kind, request.tiles, w)});
      } catch (const std::exception& e) {
        out.error = e.what();
      }
      return out;
    });
  }
  Measurement measurement = session.measure(request);
  measurement.notes.insert(measurement.notes.end(), options.notes.begin(), options.notes.end());
  if (request.workload.general_mask() && options.tile_mode != TileMode::none)
    measurement.notes.push_back(
        "no tile windows: a lone tile cannot reproduce a sliding window's or ALiBi's position in the grid");
  ModelOutput modeled;
  if (model.valid()) modeled = model.get();
  if (!modeled.error.empty()) measurement.notes.push_back("the model failed: " + modeled.error);
  reports::Report report =
      build_profile_report(measurement, modeled.result, gpu, modeled.windows, request, command_line);
  keep_tiles(report, options.keep_tiles);
  return report;
}

}  // namespace attnscope::profiler
