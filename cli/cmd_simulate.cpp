// SPDX-License-Identifier: Apache-2.0
// `attnscope simulate`: predict bytes at every memory level and the time of the naive and/or tiled kernels
// for a workload on a GPU spec, with no GPU present. Prints a table; --json writes the report.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "attnscope/reports/from_sim.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/units.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/memory_footprint.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/vocab/backward.hpp"
#include "attnscope/vocab/geometry.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "matrix_totals.hpp"
#include "workload_options.hpp"

namespace attnscope::cli {
namespace {

struct SimulateFlags {
  WorkloadOptions workload;
  std::string json;
  bool no_l2_reuse = false;
  std::string l2_start{"cold"};
  std::string matrix;
  std::string against;
};

double hit_rate(const sim::LevelBytes& b) {
  const auto requests = static_cast<double>(b.l2_read + b.l2_write);
  return requests > 0 ? static_cast<double>(b.l2_hit) / requests : 0.0;
}

void print_row(const std::string& name, const sim::LevelBytes& b, double flops, double time_s,
               const std::string& ctas, const std::string& waves) {
  const double hbm = static_cast<double>(b.hbm_read + b.hbm_write);
  std::printf("%-15s %10s %10s %10s %10s %7s %10s %10s %11s %8.1f %9s %7s %6s\n", name.c_str(),
              reports::format_bytes(static_cast<double>(b.hbm_read)).c_str(),
              reports::format_bytes(static_cast<double>(b.hbm_write)).c_str(),
              reports::format_bytes(static_cast<double>(b.l2_read)).c_str(),
              reports::format_bytes(static_cast<double>(b.l2_write)).c_str(),
              fmt::format("{:.1f}%", 100.0 * hit_rate(b)).c_str(),
              reports::format_bytes(static_cast<double>(b.smem_read + b.smem_write)).c_str(),
              fmt::format("{:.3g}", flops).c_str(), reports::format_seconds(time_s).c_str(),
              time_s > 0 ? flops / time_s / 1e12 : 0.0,
              fmt::format("{:.0f}", time_s > 0 ? hbm / time_s / 1e9 : 0.0).c_str(), ctas.c_str(),
              waves.c_str());
}

std::string tiles_line(const sim::SimResult& r) {
  const sim::Pass pass = r.workload.pass;
  std::string s;
  if (r.kind == sim::KernelKind::naive) {
    if (pass != sim::Pass::bwd) s = "naive GEMM tiles 128x128x32, softmax 8 rows per CTA";
    if (pass != sim::Pass::fwd)
      s +=
          std::string(s.empty() ? "" : "; ") + "backward GEMM tiles 128 x (d or 128) x 32, dS 8 rows per CTA";
    return s;
  }
  if (r.kind == sim::KernelKind::hopper) return r.tiles.hopper_label();
  if (pass != sim::Pass::bwd) s = r.tiles.label();
  if (pass != sim::Pass::fwd) s += (s.empty() ? "" : ", ") + r.tiles.bwd_label(r.workload.head_dim);
  return s;
}

void print_result(const sim::SimResult& r) {
  std::printf("\n%s kernel, %s pass, tiles %s\n", std::string(sim::to_string(r.kind)).c_str(),
              std::string(sim::to_string(r.workload.pass)).c_str(), tiles_line(r).c_str());
  std::printf("%-15s %10s %10s %10s %10s %7s %10s %10s %11s %8s %9s %7s %6s\n", "kernel", "HBM read",
              "HBM write", "L2 read", "L2 write", "L2 hit", "smem r+w", "FLOPs", "Time", "TFLOP/s",
              "HBM GB/s", "CTAs", "waves");
  for (const sim::KernelResult& k : r.kernels)
    print_row(k.name, k.totals, k.flops, k.time_s, std::to_string(k.ctas), std::to_string(k.waves));
  if (r.workload.pass == sim::Pass::both) {
    print_row("forward", r.forward.bytes, r.forward.flops, r.forward.time_s, "", "");
    print_row("backward", r.backward.bytes, r.backward.flops, r.backward.time_s, "", "");
    print_row("training step", r.totals, r.flops, r.time_s, "", "");
  } else if (r.kernels.size() > 1) {
    print_row("total", r.totals, r.flops, r.time_s, "", "");
  }
  for (const sim::KernelResult& k : r.kernels)
    std::printf(
        "  %-14s %d CTA/SM (limited by %s; %lld B smem, %d regs/thread); L2 at end: %s resident, %s dirty\n",
        k.name.c_str(), k.ctas_per_sm, k.occupancy_limiter.c_str(), static_cast<long long>(k.smem_per_cta),
        k.registers_per_thread, reports::format_bytes(static_cast<double>(k.l2_resident_end)).c_str(),
        reports::format_bytes(static_cast<double>(k.l2_dirty_end)).c_str());
  for (const sim::KernelResult& k : r.kernels)
    if (!k.not_modeled.empty())
      std::printf("  %-14s not modeled: %s\n", k.name.c_str(), k.not_modeled.c_str());
  const char* times = r.workload.pass == sim::Pass::fwd   ? ""
                      : r.workload.pass == sim::Pass::bwd ? "2.5*"
                                                          : "3.5*";
  std::printf("  attention FLOPs (%s%s): %.3g -> %.1f TFLOP/s\n", times,
              r.workload.window > 0 ? "4*B*H*d*visible pairs"
              : r.workload.causal   ? "4*B*H*Nq*Nkv*d/2"
                                    : "4*B*H*Nq*Nkv*d",
              r.workload.flops(), r.tflops_achieved());
  const sim::MemoryFootprint m = sim::memory_footprint(r.workload, r.kind, r.tiles);
  std::printf("  HBM held: %s (%s tensors + %s scratch)%s\n",
              reports::format_bytes(static_cast<double>(m.total())).c_str(),
              reports::format_bytes(static_cast<double>(m.tensors)).c_str(),
              reports::format_bytes(static_cast<double>(m.scratch)).c_str(),
              r.gpu.hbm_capacity_bytes > 0
                  ? fmt::format(" of {}'s {}", r.gpu.name,
                                reports::format_bytes(static_cast<double>(r.gpu.hbm_capacity_bytes)))
                        .c_str()
                  : "");
}

int run_simulate(const SimulateFlags& f) {
  if (!f.matrix.empty()) return run_matrix_totals(f.matrix, f.against, f.workload.gpu);
  if (!f.against.empty()) {
    std::fprintf(stderr, "attnscope simulate: --against needs --matrix NAME (the matrix the log measured)\n");
    return kBadInput;
  }
  sim::GpuSpec gpu;
  sim::Workload w;
  sim::TileConfig tiles;
  sim::SimOptions options;
  std::vector<sim::KernelKind> kinds;
  try {
    gpu = sim::load_gpu_spec(f.workload.gpu);
    w = f.workload.workload();
    tiles = f.workload.tile_config();
    options.l2_reuse = !f.no_l2_reuse;
    if (f.l2_start == "warm")
      options.l2_start = sim::L2Start::warm;
    else if (f.l2_start != "cold")
      throw sim::InvalidInput("--l2-start '" + f.l2_start + "' is not one of cold, warm");
    kinds = f.workload.kinds();
    // `--kernel all` with a mask the Hopper kernel is not built for (a sliding window, ALiBi) or on a GPU
    // without wgmma: the other kinds are still simulated.
    if (kinds.size() > 1 && std::find(kinds.begin(), kinds.end(), sim::KernelKind::hopper) != kinds.end()) {
      try {
        sim::check_config(gpu, w, sim::KernelKind::hopper, tiles);
        if (!gpu.has_wgmma())
          throw sim::InvalidInput("hopper: the GPU spec '" + gpu.short_name +
                                  "' has no wgmma_flops_per_sm_cycle (a GPU without wgmma)");
      } catch (const sim::InvalidInput& e) {
        std::printf("attnscope simulate: not simulated: %s\n", e.what());
        kinds.erase(std::find(kinds.begin(), kinds.end(), sim::KernelKind::hopper));
      }
    }
    // A kind whose tensors do not fit the GPU's HBM (the naive backward's two N x N matrices) is refused
    // with what it would need; with both kinds asked for, the other one is still simulated.
    for (auto k = kinds.begin(); k != kinds.end();) {
      try {
        if (w.pass != sim::Pass::fwd) sim::check_hbm_capacity(gpu, w, *k, tiles);
        ++k;
      } catch (const sim::InvalidInput& e) {
        if (kinds.size() == 1) throw;
        std::printf("attnscope simulate: not simulated: %s\n", e.what());
        k = kinds.erase(k);
      }
    }
    for (sim::KernelKind k : kinds) sim::check_config(gpu, w, k, tiles);
  } catch (const sim::InvalidInput& e) {
    std::fprintf(stderr, "attnscope simulate: %s\n", e.what());
    return kBadInput;
  }
  std::printf(
      "attnscope simulate: %s (B=%lld H=%lld Nq=%lld Nkv=%lld d=%lld %s%s) on %s (model, %s L2, reuse %s)\n",
      w.name.c_str(), static_cast<long long>(w.batch), static_cast<long long>(w.heads),
      static_cast<long long>(w.seq_q), static_cast<long long>(w.seq_kv), static_cast<long long>(w.head_dim),
      std::string(sim::to_string(w.dtype)).c_str(), sim::mask_label(w).c_str(), gpu.name.c_str(),
      f.l2_start.c_str(), options.l2_reuse ? "on" : "off");
  if (w.general_mask()) {
    // The model prices any tile; the GPU kernels for these masks exist for one tile each (vocab).
    const vocab::TiledConfig fwd = vocab::general_mask_tiled_config(w.head_dim);
    const vocab::TiledBwdConfig bwd = vocab::general_mask_tiled_bwd_config();
    std::printf(
        "  note: the GPU kernels for sliding window / ALiBi are compiled for Br %d Bc %d warps %d stages %d "
        "(forward) and Bc %d Br %d stages %d (backward); other tiles are a what-if\n",
        fwd.br, fwd.bc, fwd.warps, fwd.stages, bwd.bc, bwd.br, bwd.stages);
  }
  // A forward pass past the GPU's memory is still priced (a what-if), and said so first: the GPU could not
  // hold it, and the model takes minutes over it. Large runs print each kernel as it starts (stderr).
  constexpr std::int64_t kProgressAbove = std::int64_t{4} << 30;  // bytes held: the model takes ~10 s
  std::int64_t largest = 0;
  for (sim::KernelKind k : kinds) {
    const sim::MemoryFootprint m = sim::memory_footprint(w, k, tiles);
    largest = std::max(largest, m.total());
    if (gpu.hbm_capacity_bytes > 0 && m.total() > gpu.hbm_capacity_bytes)
      std::printf(
          "  note: %s needs %s of HBM at this shape (%s of tensors + %s of scratch), more than %s's %s: "
          "the GPU cannot hold it; modeled as a what-if\n",
          std::string(sim::to_string(k)).c_str(),
          reports::format_bytes(static_cast<double>(m.total())).c_str(),
          reports::format_bytes(static_cast<double>(m.tensors)).c_str(),
          reports::format_bytes(static_cast<double>(m.scratch)).c_str(), gpu.name.c_str(),
          reports::format_bytes(static_cast<double>(gpu.hbm_capacity_bytes)).c_str());
  }
  std::fflush(stdout);
  const auto started = std::chrono::steady_clock::now();
  if (largest > kProgressAbove)
    options.on_kernel_start = [&](const std::string& kernel, int index, int count) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "attnscope simulate: modeling %s (%d of %d), %.0f s so far\n", kernel.c_str(),
                   index + 1, count, s);
    };
  std::vector<sim::SimResult> results;
  for (sim::KernelKind k : kinds) {
    results.push_back(sim::simulate(gpu, w, k, tiles, options));
    print_result(results.back());
  }
  if (!f.json.empty()) {
    try {
      // One report: the first result's entry, then the other kind's kernels.
      reports::Report report = reports::report_from_simulation(results.front(), invoked_command_line());
      for (std::size_t i = 1; i < results.size(); ++i)
        for (const sim::KernelResult& k : results[i].kernels)
          report.kernels.push_back(reports::modeled_kernel_entry(k, results[i].gpu));
      reports::write_report_json(report, f.json);
    } catch (const reports::ReportError& e) {
      std::fprintf(stderr, "attnscope simulate: %s\n", e.what());
      return kIoError;
    }
    std::printf("\nwrote %s\n", f.json.c_str());
  }
  return kOk;
}

}  // namespace

void add_simulate_command(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<SimulateFlags>();
  auto* cmd = app.add_subcommand("simulate",
                                 "predict bytes per memory level and time with the model (no GPU needed)");
  add_workload_options(*cmd, flags->workload);
  cmd->add_option("--json", flags->json, "write the modeled report (totals and per-tile records) to FILE");
  cmd->add_flag("--no-l2-reuse", flags->no_l2_reuse, "every L2 request misses (the closed-form check)");
  cmd->add_option("--l2-start", flags->l2_start, "L2 state before the first kernel: cold (flushed) or warm")
      ->check(CLI::IsMember({"cold", "warm"}))
      ->capture_default_str();
  cmd->add_option("--matrix", flags->matrix,
                  "the model's totals per point of a measurement matrix (accuracy, quick, fresh[:SEED], "
                  "backward, fresh-bwd[:SEED]), "
                  "each kernel from a flushed L2 as `profile --matrix` measures");
  cmd->add_option(
      "--against", flags->against,
      "with --matrix: the log a `profile --matrix` run printed; its measured totals beside the model's");
  cmd->callback([flags, exit_code] { *exit_code = run_simulate(*flags); });
}

}  // namespace attnscope::cli
