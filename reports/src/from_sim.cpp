// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/from_sim.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <ctime>

#include "attnscope/version.hpp"

namespace attnscope::reports {

namespace {

Value modeled(double v, std::string_view unit) {
  Value out;
  out.modeled = v;
  out.unit = std::string(unit);
  return out;
}

void add_level_bytes(Metrics& m, const sim::LevelBytes& b) {
  m["dram_read"] = modeled(static_cast<double>(b.hbm_read), "B");
  m["dram_write"] = modeled(static_cast<double>(b.hbm_write), "B");
  m["l2_read"] = modeled(static_cast<double>(b.l2_read), "B");
  m["l2_write"] = modeled(static_cast<double>(b.l2_write), "B");
  m["l2_hit"] = modeled(static_cast<double>(b.l2_hit), "B");
  m["smem_read"] = modeled(static_cast<double>(b.smem_read), "B");
  m["smem_write"] = modeled(static_cast<double>(b.smem_write), "B");
}

}  // namespace

KernelEntry modeled_kernel_entry(const sim::KernelResult& kernel, const sim::GpuSpec& gpu) {
  KernelEntry e;
  e.name = kernel.name;
  add_level_bytes(e.metrics, kernel.totals);
  e.metrics["time"] = modeled(kernel.time_s, "s");
  e.metrics["cycles"] = modeled(static_cast<double>(kernel.cycles), "cycles");
  e.metrics["flops"] = modeled(kernel.flops, "FLOP");
  e.notes["model.ctas"] = std::to_string(kernel.ctas);
  e.notes["model.waves"] = std::to_string(kernel.waves);
  e.notes["model.ctas_per_sm"] = std::to_string(kernel.ctas_per_sm);
  e.notes["model.smem_per_cta"] = std::to_string(kernel.smem_per_cta);
  e.notes["model.l2_resident_end"] = std::to_string(kernel.l2_resident_end);
  e.notes["model.l2_dirty_end"] = std::to_string(kernel.l2_dirty_end);
  // Cycles become seconds at the clock the timing model ran at.
  const double seconds_per_cycle = gpu.sm_clock_hz > 0 ? 1.0 / gpu.sm_clock_hz : 0.0;
  e.tiles.reserve(kernel.tiles.size());
  for (const auto& t : kernel.tiles) {
    TileEntry te;
    te.batch = t.batch;
    te.head = t.head;
    te.q_tile = t.q_tile;
    te.kv_tile = t.kv_tile;
    te.sm_modeled = t.sm;
    te.start_modeled_s = static_cast<double>(t.start_cycle) * seconds_per_cycle;
    te.end_modeled_s = static_cast<double>(t.end_cycle) * seconds_per_cycle;
    add_level_bytes(te.metrics, t.bytes);
    te.metrics["flops"] = modeled(t.flops, "FLOP");
    te.metrics["cycles"] = modeled(static_cast<double>(t.end_cycle - t.start_cycle), "cycles");
    e.tiles.push_back(std::move(te));
  }
  return e;
}

Provenance basic_provenance(const std::string& command_line) {
  Provenance p;
  p.tool_version = kVersion;
  p.git_revision = kGitRevision;
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> date{};
  std::strftime(date.data(), date.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  p.date = date.data();
  std::array<char, 256> host{};
  if (::gethostname(host.data(), host.size() - 1) == 0) p.host = host.data();
  p.command = command_line;
  return p;
}

Report report_from_simulation(const sim::SimResult& result, const std::string& command_line) {
  Report r;
  r.kind = "simulate";
  r.provenance = basic_provenance(command_line);
  r.provenance.gpu_name = result.gpu.name;
  r.provenance.gpu_spec = result.gpu.short_name;
  r.provenance.sm_clock_mhz = result.gpu.sm_clock_hz / 1e6;
  r.workload = result.workload;
  r.tiles = result.tiles;
  for (const auto& k : result.kernels) r.kernels.push_back(modeled_kernel_entry(k, result.gpu));
  return r;
}

}  // namespace attnscope::reports
