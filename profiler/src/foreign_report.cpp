// SPDX-License-Identifier: Apache-2.0
// The minimal body: every launch measured only (see foreign_report.hpp).
#include "attnscope/profiler/foreign_report.hpp"

#include <fmt/format.h>

#include "attnscope/profiler/foreign_kernel_list.hpp"
#include "attnscope/reports/from_sim.hpp"

namespace attnscope::profiler {

namespace {

std::string dims_text(const std::array<std::uint32_t, 3>& d) {
  return fmt::format("({}, {}, {})", d[0], d[1], d[2]);
}

reports::KernelEntry measured_only_entry(const ForeignLaunch& l, const DeviceInfo& device) {
  reports::KernelEntry e;
  e.name = fmt::format("{}.{}", kernel_function_name(l.demangled_name), l.launch_index);
  for (const auto& [metric, value] : derive_report_metrics(l.counters))
    e.metrics[metric].measured = value.measured;
  for (const auto& [name, value] : l.counters)
    if (value) e.counters[name] = *value;
  if (l.event_time_s) {
    e.metrics[reports::Metric::time].measured = *l.event_time_s;
    e.notes[std::string(vocab::key(reports::Metric::time))] =
        "measured time: CUDA events around replays of the launch from a flushed L2 (median of 3); the "
        "counters' gpu__time_duration.sum is kept under its own name";
  }
  e.notes["launch.kernel"] = l.demangled_name;
  if (l.mangled_name != l.demangled_name) e.notes["launch.mangled"] = l.mangled_name;
  e.notes["launch.index"] = std::to_string(l.launch_index);
  e.notes["launch.grid"] = dims_text(l.grid);
  e.notes["launch.block"] = dims_text(l.block);
  e.notes["launch.registers"] = fmt::format("{} per thread", l.registers_per_thread);
  e.notes["launch.smem"] =
      fmt::format("{} B per CTA ({} B static + {} B dynamic)", l.static_smem_bytes + l.dynamic_smem_bytes,
                  l.static_smem_bytes, l.dynamic_smem_bytes);
  std::string stack;
  for (const auto& r : l.nvtx_ranges) stack += (stack.empty() ? "" : " / ") + r;
  if (!stack.empty()) e.notes["launch.nvtx"] = stack;
  e.notes["measure.replay"] =
      l.replay == ForeignReplay::user
          ? "user replay: memory restored and L2 flushed before every pass"
          : "kernel replay: CUPTI restored memory between passes; L2 flushed before the launch only";
  e.notes["measure.device"] =
      fmt::format("{} ({}), {} SMs, L2 {} B", device.name, device.chip, device.sm_count, device.l2_bytes);
  e.notes["model"] = "not modeled: unknown kernel";
  e.notes["cache_mode"] = "flush";
  return e;
}

}  // namespace

reports::Report report_foreign_launches(const std::vector<ForeignLaunch>& launches, const DeviceInfo& device,
                                        const std::string& command_line) {
  reports::Report r;
  r.kind = "profile";
  r.provenance = reports::basic_provenance(command_line);
  r.provenance.gpu_name = device.name;
  r.provenance.driver = device.driver;
  r.provenance.cuda_runtime = device.cuda_runtime;
  r.provenance.sm_clock_mhz = device.sm_clock_mhz;
  r.provenance.mem_clock_mhz = device.mem_clock_mhz;
  r.provenance.cache = vocab::CacheProtocol::flush;
  // One replay mode per report: user unless a launch fell back to CUPTI's kernel replay (each entry's
  // measure.replay note says its own).
  bool any_kernel_replay = false;
  for (const auto& l : launches) any_kernel_replay |= l.replay == ForeignReplay::kernel;
  if (!launches.empty())
    r.provenance.replay = any_kernel_replay ? vocab::ReplayMode::kernel : vocab::ReplayMode::user;
  for (const auto& l : launches) r.kernels.push_back(measured_only_entry(l, device));
  return r;
}

}  // namespace attnscope::profiler
