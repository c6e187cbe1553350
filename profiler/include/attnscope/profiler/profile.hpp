// SPDX-License-Identifier: Apache-2.0
// `attnscope profile` as a library call: the model simulates the workload on its own thread while the GPU
// runs the real kernels under CUPTI; the two are joined into one report (kind "profile").
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/profiler/gpu_session.hpp"
#include "attnscope/profiler/join.hpp"
#include "attnscope/profiler/measurement.hpp"
#include "attnscope/profiler/request.hpp"
#include "attnscope/reports/report.hpp"
#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/result.hpp"
#include "attnscope/sim/simulate.hpp"

namespace attnscope::profiler {

struct ProfileOptions {
  MeasureRequest request;
  TileMode tile_mode = TileMode::sample;
  std::string gpu_spec = "h200";  // the model's GPU (name or JSON file)
  bool run_model = true;          // false: measured values only (the model can be re-run on the report)
  // Which tile entries the report keeps: all (modeled attribution of every tile, timeline), measured (tiles
  // with a timeline record or a window measurement) or windows (window measurements only: small files).
  std::string keep_tiles = "all";
  // Notes every measured kernel of the report carries (e.g. that the model's GPU spec is not the device's).
  std::vector<std::string> notes;
};

// The GPU spec the model runs with for a measurement on `device`: the one the user `named` (with a note
// when it is not the device's own built-in spec), else the device's built-in spec (gpu_spec_for_device),
// else h200 with a note that no built-in spec describes this device.
struct ModelSpecChoice {
  std::string spec;
  std::optional<std::string> note;
};
ModelSpecChoice model_spec_for(const DeviceInfo& device, const std::optional<std::string>& named);

// Drop tile entries as `keep` says ("all", "measured", "windows"); throws sim::InvalidInput otherwise.
void keep_tiles(reports::Report& report, const std::string& keep);

// Provenance of a measurement on `device`: tool, revision, date, host and command, and the device's name,
// driver, CUDA runtime and clocks (the cache and replay protocol are the caller's).
reports::Provenance measured_provenance(const DeviceInfo& device, const std::string& command_line);

// The "measure.device" note of a measured kernel: "NVIDIA H200 (GH100), 132 SMs, L2 52428800 B".
std::string device_note(const DeviceInfo& device);

// The report of one profiling run: provenance, workload, tiles, kernels with both sides.
reports::Report build_profile_report(const Measurement& measurement,
                                     const std::optional<std::vector<sim::KernelResult>>& model,
                                     const sim::GpuSpec& gpu, const std::vector<WindowModel>& window_models,
                                     const MeasureRequest& request, const std::string& command_line);

// Runs one profile on an open session: plans the windows, starts the model on its own thread, measures,
// joins. Throws ProfilerError (GPU side) or sim::InvalidInput (bad workload / tiles).
reports::Report run_profile(GpuSession& session, const ProfileOptions& options,
                            const std::string& command_line);

}  // namespace attnscope::profiler
