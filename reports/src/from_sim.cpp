// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/from_sim.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdlib>
#include <ctime>

#include "attnscope/version.hpp"

namespace attnscope::reports {

namespace {

// The model's bytes at each level (not the slices' read count l2_read_lts, which the model does not predict:
// vocab/metric.hpp).
void add_level_bytes(Metrics& m, const sim::LevelBytes& b) {
  m[Metric::dram_read].modeled = static_cast<double>(b.hbm_read);
  m[Metric::dram_write].modeled = static_cast<double>(b.hbm_write);
  m[Metric::l2_read].modeled = static_cast<double>(b.l2_read);
  m[Metric::l2_write].modeled = static_cast<double>(b.l2_write);
  m[Metric::l2_hit].modeled = static_cast<double>(b.l2_hit);
  m[Metric::smem_read].modeled = static_cast<double>(b.smem_read);
  m[Metric::smem_write].modeled = static_cast<double>(b.smem_write);
}

}  // namespace

KernelEntry modeled_kernel_entry(const sim::KernelResult& kernel, const sim::GpuSpec& gpu) {
  KernelEntry e;
  e.name = kernel.name;
  add_level_bytes(e.metrics, kernel.totals);
  e.metrics[Metric::l2_dirty_end].modeled = static_cast<double>(kernel.l2_dirty_end);
  e.metrics[Metric::time].modeled = kernel.time_s;
  e.metrics[Metric::cycles].modeled = static_cast<double>(kernel.cycles);
  e.metrics[Metric::flops].modeled = kernel.flops;
  e.notes["model.ctas"] = std::to_string(kernel.ctas);
  e.notes["model.waves"] = std::to_string(kernel.waves);
  e.notes["model.ctas_per_sm"] = std::to_string(kernel.ctas_per_sm);
  e.notes["model.smem_per_cta"] = std::to_string(kernel.smem_per_cta);
  e.notes["model.l2_resident_end"] = std::to_string(kernel.l2_resident_end);
  if (!kernel.not_modeled.empty()) e.notes["model.not_modeled"] = kernel.not_modeled;
  // Cycles become seconds at the clock the timing model ran at.
  const double seconds_per_cycle = gpu.sm_clock_hz > 0 ? 1.0 / gpu.sm_clock_hz : 0.0;
  e.tiles_total = static_cast<std::int64_t>(kernel.tiles.size());
  e.tiles_kept = TileSubset::all;
  e.tiles.reserve(kernel.tiles.size());
  for (const auto& t : kernel.tiles) {
    TileEntry& te = e.tiles.emplace_back();
    te.batch = t.batch;
    te.head = t.head;
    te.q_tile = t.q_tile;
    te.kv_tile = t.kv_tile;
    te.sm_modeled = t.sm;
    te.start_modeled_s = static_cast<double>(t.start_cycle) * seconds_per_cycle;
    te.end_modeled_s = static_cast<double>(t.end_cycle) * seconds_per_cycle;
    add_level_bytes(te.metrics, t.bytes);
    te.metrics[Metric::flops].modeled = t.flops;
    te.metrics[Metric::cycles].modeled = static_cast<double>(t.end_cycle - t.start_cycle);
  }
  return e;
}

Provenance basic_provenance(const std::string& command_line) {
  Provenance p;
  p.tool_version = kVersion;
  p.git_revision = kGitRevision;
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  // SOURCE_DATE_EPOCH (the reproducible-builds convention): runs to be compared byte for byte, e.g. a sweep
  // over 1 and over 3 MPI ranks, are dated alike.
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH")) {
    char* end = nullptr;
    const long long seconds = std::strtoll(epoch, &end, 10);
    if (end != epoch && *end == '\0' && seconds >= 0) now = static_cast<std::time_t>(seconds);
  }
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
