// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/foreign_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <variant>

#include "attnscope/profiler/foreign_model.hpp"
#include "attnscope/profiler/join.hpp"
#include "attnscope/profiler/profile.hpp"
#include "attnscope/profiler/recognize.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"

namespace attnscope::profiler {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

vocab::ReplayMode replay_mode(ForeignReplay r) {
  return r == ForeignReplay::user ? vocab::ReplayMode::user : vocab::ReplayMode::kernel;
}

std::string replay_note(ForeignReplay r) {
  return r == ForeignReplay::user
             ? "user replay: attnscope saved the program's device memory and, before every replay pass, "
               "restored it and flushed L2"
             : "kernel replay: CUPTI saved and restored the memory the kernel touches; attnscope flushed L2 "
               "before the launch only, so replay passes after the first may have started from the L2 the "
               "pass before left, where the model starts every launch from a flushed L2";
}

std::string workload_text(const sim::Workload& w) {
  return fmt::format("B={} H={} Nq={} Nkv={} d={} {}{}", w.batch, w.heads, w.seq_q, w.seq_kv, w.head_dim,
                     sim::to_string(w.dtype), w.causal ? " causal" : "");
}

// The model of one planned launch, alone from a flushed L2 (both replay modes flush L2 before the launch),
// with the launch's own registers per thread for occupancy. Throws sim::InvalidInput when the model refuses
// the configuration.
sim::KernelResult model_launch(const sim::GpuSpec& gpu, const ForeignModelPlan& plan,
                               const ForeignLaunch& launch) {
  sim::SimOptions o;
  o.l2_start = sim::L2Start::cold;
  o.record_tiles = false;  // kernel totals: a program's launches would otherwise carry every tile each
  o.only = plan.kernel;
  // The phases of attnscope's tiled backward are not FlashAttention-2's: on the H200 its counters read 19.4
  // GB of shared-memory reads where the dataflow has 22.9 GB, and a step 8 % shorter than its phases' sum
  // (tests/data/h200/foreign-20261203T195206Z/bwd.json). Its steps keep the per-warp chains.
  o.cta_phases = false;
  if (launch.registers_per_thread > 0 && launch.registers_per_thread <= 255)
    o.registers_per_thread[static_cast<std::size_t>(plan.kernel)] = launch.registers_per_thread;
  sim::SimResult r = sim::simulate(gpu, plan.workload, vocab::kind_of(plan.kernel), plan.tiles, o);
  if (r.kernels.size() != 1) throw sim::InvalidInput("the model ran no single kernel for this launch");
  return std::move(r.kernels.front());
}

void add_launch_notes(reports::KernelEntry& e, const ForeignLaunch& l) {
  e.notes["launch.kernel"] = l.demangled_name;
  if (l.mangled_name != l.demangled_name) e.notes["launch.mangled"] = l.mangled_name;
  e.notes["launch.index"] = std::to_string(l.launch_index);
  e.notes["launch.grid"] = fmt::format("({}, {}, {})", l.grid[0], l.grid[1], l.grid[2]);
  e.notes["launch.block"] = fmt::format("({}, {}, {})", l.block[0], l.block[1], l.block[2]);
  e.notes["launch.registers"] = l.registers_per_thread > 0
                                    ? fmt::format("{} per thread", l.registers_per_thread)
                                    : std::string("not recorded");
  e.notes["launch.smem"] =
      fmt::format("{} B per CTA ({} B static + {} B dynamic)", l.static_smem_bytes + l.dynamic_smem_bytes,
                  l.static_smem_bytes, l.dynamic_smem_bytes);
  e.notes["launch.local_memory"] = l.local_bytes_per_thread < 0
                                       ? std::string("not recorded")
                                       : fmt::format("{} B per thread", l.local_bytes_per_thread);
  if (!l.nvtx_ranges.empty()) {
    std::string stack;
    for (const auto& r : l.nvtx_ranges) stack += (stack.empty() ? "" : " > ") + r;
    e.notes["launch.nvtx"] = stack;
  }
  e.notes["measure.replay"] = replay_note(l.replay);
  if (l.event_time_s)
    e.notes[std::string(vocab::key(reports::Metric::time))] =
        "measured time: CUDA events around one more launch of the kernel from a flushed L2, replayed by the "
        "collector; the counters' gpu__time_duration.sum is kept under its own name";
}

void add_model_notes(reports::KernelEntry& e, const ForeignModelPlan& plan, const KernelRow& row,
                     const sim::KernelResult& modeled, const ForeignLaunch& l) {
  e.notes["model"] = fmt::format("modeled as attnscope's {} dataflow", vocab::to_string(plan.kernel));
  e.notes["model.workload"] = workload_text(plan.workload);
  e.notes["model.tiles"] = fmt::format("{} (from {})", plan.tile_label, plan.tile_origin);
  e.notes["model.grid"] = fmt::format("the launch's grid {} is the grid of the annotated shape and tile",
                                      grid_text(plan.expected_grid));
  if (!row.assumes.empty()) e.notes["model.assumes"] = std::string(row.assumes);
  const std::int64_t launch_smem = std::int64_t{l.static_smem_bytes} + l.dynamic_smem_bytes;
  e.notes["model.occupancy"] = fmt::format(
      "{} CTAs per SM ({}), from {} registers per thread ({}) and the model's {} B of shared memory per CTA "
      "(the launch: {} B)",
      modeled.ctas_per_sm, modeled.occupancy_limiter, modeled.registers_per_thread,
      l.registers_per_thread > 0 ? "the launch's" : "estimated", modeled.smem_per_cta, launch_smem);
  // Spilled registers live in local memory: cached in L1, and the lines L1 evicts or misses travel to and
  // from L2 like global data, in the same counters. The dataflows have no local memory (attnscope's own
  // kernels are built without spills), so the model's L2 and DRAM rows count the kernel's global traffic
  // only.
  if (l.local_bytes_per_thread > 0)
    e.notes["model.local_memory"] = fmt::format(
        "the kernel has {} B of local memory per thread (register spills or local arrays); the local lines "
        "L1 evicts or misses go to L2 and maybe DRAM and are counted in the measured l2_write, l2_read, "
        "dram_write and dram_read, while the model has no local memory: those rows compare the global "
        "traffic the model describes with global plus local traffic",
        l.local_bytes_per_thread);
}

}  // namespace

std::optional<sim::GpuSpec> gpu_spec_for_device(const DeviceInfo& device) {
  std::vector<sim::GpuSpec> specs;
  for (const auto& name : sim::builtin_gpu_names()) {
    try {
      specs.push_back(sim::load_gpu_spec(name));
    } catch (const std::exception&) {
      // A built-in file that cannot be read is no candidate.
    }
  }
  for (const auto& s : specs)
    if (s.name == device.name) return s;
  std::istringstream words(lower(device.name));
  for (std::string word; words >> word;)
    for (const auto& s : specs)
      if (lower(s.short_name) == word) return s;
  return std::nullopt;
}

reports::Report report_foreign_launches(const std::vector<ForeignLaunch>& launches, const DeviceInfo& device,
                                        const std::string& command_line) {
  return report_foreign_launches(launches, device, command_line, gpu_spec_for_device(device));
}

reports::Report report_foreign_launches(const std::vector<ForeignLaunch>& launches, const DeviceInfo& device,
                                        const std::string& command_line,
                                        const std::optional<sim::GpuSpec>& gpu) {
  reports::Report r;
  r.kind = "profile";
  r.provenance = measured_provenance(device, command_line);
  r.provenance.cache = vocab::CacheProtocol::flush;  // both replay modes flush L2 before the launch
  if (!launches.empty()) r.provenance.replay = replay_mode(launches.front().replay);
  r.provenance.gpu_spec = gpu ? gpu->short_name : "";
  r.workload.name = "measured only: no launch was modeled";

  const sim::GpuSpec no_gpu;
  bool workload_set = false;
  // A program launches the same kernel on the same shape many times (layers, steps): each distinct model run
  // (kernel, shape, tile, registers) is simulated once, its answer or its refusal reused.
  std::map<std::string, std::variant<sim::KernelResult, std::string>> runs;
  for (const ForeignLaunch& l : launches) {
    const Recognition recognition = recognize(l.demangled_name);
    const PlanResult plan = plan_foreign_model(l, recognition, shape_of(l), tile_hint_of(l));
    std::optional<sim::KernelResult> modeled;
    std::string not_modeled = plan.not_modeled;
    if (plan.plan && !gpu)
      not_modeled = fmt::format("not modeled: no GPU spec for the device '{}' (built-in specs: {})",
                                device.name, fmt::join(sim::builtin_gpu_names(), ", "));
    else if (plan.plan) {
      const ForeignModelPlan& p = *plan.plan;
      const std::string key =
          fmt::format("{}|{}|{}|{}|{}", vocab::to_string(p.kernel), workload_text(p.workload), p.tile_label,
                      p.tiles.label(), l.registers_per_thread);
      auto run = runs.find(key);
      if (run == runs.end()) {
        try {
          run = runs.emplace(key, model_launch(*gpu, p, l)).first;
        } catch (const sim::InvalidInput& e) {
          run = runs.emplace(key,
                             fmt::format("not modeled: the model refuses this configuration: {}", e.what()))
                    .first;
        }
      }
      if (const auto* result = std::get_if<sim::KernelResult>(&run->second))
        modeled = *result;
      else
        not_modeled = std::get<std::string>(run->second);
    }

    MeasuredKernel measured;
    measured.name = short_kernel_name(l.demangled_name);
    measured.counters = l.counters;
    measured.event_time_s = l.event_time_s;
    reports::KernelEntry e =
        join_kernel(measured, modeled ? &*modeled : nullptr, gpu ? *gpu : no_gpu, {}, CacheMode::flush);
    // "<kernel>.<launch index>": a gate on "<kernel>.<metric>" sums every launch of the kernel, as
    // "naive.<metric>" sums the naive kernels (reports/gate.hpp).
    e.name = fmt::format("{}.{}", measured.name, l.launch_index);
    e.tiles_total = 0;
    add_launch_notes(e, l);
    e.notes["measure.device"] = device_note(device);
    e.notes["recognition"] =
        recognition.row ? fmt::format("{} {} ({} pass)", recognition.row->family, recognition.row->kernel,
                                      vocab::to_string(recognition.row->pass))
                        : "unknown kernel";
    if (modeled) {
      add_model_notes(e, *plan.plan, *recognition.row, *modeled, l);
      if (!workload_set) {
        r.workload = plan.plan->workload;
        r.tiles = plan.plan->tiles;
        workload_set = true;
      }
    } else {
      e.notes["model"] = not_modeled;
    }
    r.kernels.push_back(std::move(e));
  }
  return r;
}

}  // namespace attnscope::profiler
