// SPDX-License-Identifier: Apache-2.0
// `attnscope profile`: run the real kernels under CUPTI counters while the model simulates the same workload,
// and write one report with both side by side. Also the drivers the measurement script needs: --launch-only
// (run each kernel once with no counters, for ncu) and --matrix (many workloads in one process).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "attnscope/profiler/error.hpp"
#include "attnscope/profiler/gpu_session.hpp"
#include "attnscope/profiler/matrix.hpp"
#include "attnscope/profiler/metric_set.hpp"
#include "attnscope/profiler/profile.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/writers.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/vocab/backward.hpp"
#include "attnscope/vocab/geometry.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "workload_options.hpp"

namespace attnscope::cli {

// The exit code of each profiler error (tested in tests/profiler/test_exit_codes.cpp).
int exit_code_for(profiler::ErrorCode code) {
  using profiler::ErrorCode;
  switch (code) {
    case ErrorCode::no_cuda_device:
      return kNoCudaDevice;
    case ErrorCode::driver_too_old:
      return kDriverTooOld;
    case ErrorCode::no_counter_permission:
      return kNoCounterPermission;
    case ErrorCode::metric_unsupported:
      return kMetricUnsupported;
    case ErrorCode::config_not_compiled:
      return kConfigNotCompiled;
    case ErrorCode::bad_input:
      return kBadInput;
    case ErrorCode::io_error:
      return kIoError;
    case ErrorCode::cuda_error:
    case ErrorCode::cupti_error:
      return kFailure;
  }
  return kFailure;
}

namespace {

struct ProfileFlags {
  WorkloadOptions workload;
  std::string cache = "flush";
  std::string replay = "user";
  std::string flush = "read-discard";
  std::string tiles = "sample";
  std::vector<std::string> metrics;
  std::string out = "attnscope-profile.json";
  bool no_model = false;
  bool launch_only = false;
  bool no_cupti = false;
  bool only_metrics = false;
  std::uint64_t pm_sampling_ns = 0;
  bool no_timeline = false;
  std::string matrix;
  std::string out_dir = "attnscope-matrix";
  double deadline_s = 0;
  std::size_t first_point = 1;
  unsigned long long seed = 0x5eed;
  bool print_metrics = false;
  bool gpu_named = false;  // --gpu given: the model runs with that spec, not the measured device's
  std::string keep_tiles = "all";
};

// The first screen the report's terminal table shows (one definition: reports/overview.hpp).
void print_summary(const reports::Report& r) {
  std::printf("%s", reports::overview_text(r).c_str());
}

profiler::ProfileOptions options_from(const ProfileFlags& f, const sim::Workload& w, sim::KernelKind kind) {
  profiler::ProfileOptions o;
  o.request.workload = w;
  o.request.kind = kind;
  o.request.tiles = f.workload.tile_config();
  if (f.only_metrics && f.metrics.empty())
    throw sim::InvalidInput("--only-metrics needs at least one --metric NAME to collect");
  auto cache = profiler::parse_cache_mode(f.cache);
  if (!cache) throw sim::InvalidInput("--cache '" + f.cache + "' is not one of flush, sequence, warm");
  o.request.cache = *cache;
  o.request.replay = *profiler::parse_replay_mode(f.replay);
  o.request.extra_metrics = f.metrics;
  o.request.timeline = !f.no_timeline;
  o.request.pm_sampling_ns = f.pm_sampling_ns;
  o.request.use_cupti = !(f.launch_only || f.no_cupti);
  o.request.seed = f.seed;
  auto tiles = profiler::parse_tile_mode(f.tiles);
  if (!tiles) throw sim::InvalidInput("--tiles '" + f.tiles + "' is not one of all, row, sample, none");
  // Tile windows are measured for the forward pass alone (a pass with the backward measures whole kernels).
  o.tile_mode = o.request.use_cupti && w.pass == sim::Pass::fwd ? *tiles : profiler::TileMode::none;
  o.gpu_spec = f.workload.gpu;
  o.run_model = !f.no_model && o.request.use_cupti;
  o.keep_tiles = f.keep_tiles;
  return o;
}

// The sliding-window / ALiBi kernels are compiled for one tile per pass (vocab): another tile is a what-if
// for `simulate` and `sweep`, not something the GPU can run.
void require_general_mask_tiles(const sim::Workload& w, const sim::TileConfig& t) {
  const vocab::TiledConfig f = vocab::general_mask_tiled_config(w.head_dim), asked = t.tiled();
  if (w.pass != sim::Pass::bwd &&
      (asked.br != f.br || asked.bc != f.bc || asked.warps != f.warps || asked.stages != f.stages))
    throw sim::InvalidInput(fmt::format(
        "--window/--alibi: the tiled kernel's sliding-window / ALiBi variant is compiled for --br {} --bc {} "
        "--warps {} --stages {} at head dim {} only (asked --br {} --bc {} --warps {} --stages {}); leave "
        "the "
        "tile flags out to measure it, or price other tiles with `attnscope simulate`",
        f.br, f.bc, f.warps, f.stages, w.head_dim, asked.br, asked.bc, asked.warps, asked.stages));
  const vocab::TiledBwdConfig b = vocab::general_mask_tiled_bwd_config(), bwd = t.tiled_bwd(w.head_dim);
  if (w.pass != sim::Pass::fwd && (bwd.bc != b.bc || bwd.br != b.br || bwd.stages != b.stages))
    throw sim::InvalidInput(fmt::format(
        "--window/--alibi: the tiled backward's sliding-window / ALiBi variant is compiled for --bwd-bc {} "
        "--bwd-br {} --bwd-stages {} only (asked --bwd-bc {} --bwd-br {} --bwd-stages {})",
        b.bc, b.br, b.stages, bwd.bc, bwd.br, bwd.stages));
}

// The model's GPU spec: --gpu when given, else the measured device's own built-in spec.
profiler::ModelSpecChoice model_spec(const ProfileFlags& f, const profiler::DeviceInfo& device) {
  return profiler::model_spec_for(device,
                                  f.gpu_named ? std::optional<std::string>(f.workload.gpu) : std::nullopt);
}

int run_single(const ProfileFlags& f, const std::string& command) {
  const sim::Workload w = f.workload.workload();
  std::vector<sim::KernelKind> kinds = f.workload.kinds();
  // `--kernel all` with a sliding window or ALiBi: the Hopper kernel is not built for them; the others run.
  if (w.general_mask() && kinds.size() > 1) std::erase(kinds, sim::KernelKind::hopper);
  {
    // Bad flags, tiles the model refuses (a named --kernel hopper with a mask, shared memory) before the GPU.
    const sim::GpuSpec gpu = sim::load_gpu_spec(f.workload.gpu);
    for (auto kind : kinds) {
      const sim::TileConfig t = options_from(f, w, kind).request.tiles;
      sim::check_config(gpu, w, kind, t);
      if (w.general_mask() && kind == sim::KernelKind::tiled) require_general_mask_tiles(w, t);
    }
  }
  profiler::SessionOptions so;
  so.extra_metrics = f.metrics;
  so.standard_metrics = !f.only_metrics;
  so.use_cupti = !(f.launch_only || f.no_cupti);
  so.replay = *profiler::parse_replay_mode(f.replay);
  so.flush = *profiler::parse_flush_method(f.flush);
  profiler::GpuSession session(so);
  const profiler::ModelSpecChoice spec = model_spec(f, session.device());
  reports::Report report;
  for (auto kind : kinds) {
    profiler::ProfileOptions o = options_from(f, w, kind);
    o.gpu_spec = spec.spec;
    if (spec.note) o.notes.push_back(*spec.note);
    reports::Report r = profiler::run_profile(session, o, command);
    if (report.kernels.empty()) {
      report = std::move(r);
    } else {
      for (auto& k : r.kernels) report.kernels.push_back(std::move(k));
    }
  }
  if (!so.use_cupti) {
    std::printf("launched %zu kernels once each on %s (no counters)\n", report.kernels.size(),
                session.device().name.c_str());
    return kOk;
  }
  print_summary(report);
  reports::write_report_json(report, f.out);
  std::printf("wrote %s\n", f.out.c_str());
  return kOk;
}

int run_matrix(const ProfileFlags& f, const std::string& command) {
  if (f.workload.pass != "fwd")
    throw sim::InvalidInput("--pass " + f.workload.pass +
                            " with --matrix: each matrix fixes its points' pass (--matrix backward measures "
                            "the backward)");
  if ((f.workload.window && *f.workload.window > 0) || f.workload.alibi)
    throw sim::InvalidInput("--window/--alibi with --matrix: each matrix fixes its points' workloads");
  const auto points = profiler::measurement_matrix(f.matrix);
  if (f.only_metrics && f.metrics.empty())
    throw sim::InvalidInput("--only-metrics needs at least one --metric NAME to collect");
  if (f.first_point < 1 || f.first_point > points.size())
    throw sim::InvalidInput(fmt::format("--first-point {}: matrix {} has points 1 .. {}", f.first_point,
                                        f.matrix, points.size()));
  std::filesystem::create_directories(f.out_dir);
  profiler::SessionOptions so;
  so.extra_metrics = f.metrics;
  so.standard_metrics = !f.only_metrics;
  so.replay = *profiler::parse_replay_mode(f.replay);
  so.flush = *profiler::parse_flush_method(f.flush);
  profiler::GpuSession session(so);
  const profiler::ModelSpecChoice spec = model_spec(f, session.device());
  if (spec.note) std::printf("note: %s\n", spec.note->c_str());
  const auto start = std::chrono::steady_clock::now();
  int written = 0, skipped = 0;
  // A matrix longer than one sitting is measured in parts: each part starts where the last one's deadline
  // stopped it (the point number it printed), into its own folder.
  for (std::size_t i = f.first_point - 1; i < points.size(); ++i) {
    const auto& p = points[i];
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (f.deadline_s > 0 && elapsed > f.deadline_s) {
      std::printf(
          "deadline of %.0f s reached after %d of %zu points: stopping (resume with --first-point %zu)\n",
          f.deadline_s, written, points.size(), i + 1);
      break;
    }
    ProfileFlags pf = f;
    pf.tiles = "none";
    pf.no_timeline = true;
    profiler::ProfileOptions o = options_from(pf, p.workload, p.kind);
    o.request.tiles = p.tiles;
    o.gpu_spec = spec.spec;
    if (spec.note) o.notes.push_back(*spec.note);
    try {
      const auto r = profiler::run_profile(session, o, command + " [point " + p.label + "]");
      reports::write_report_json(r, std::filesystem::path(f.out_dir) / (p.label + ".json"));
      ++written;
      double dram = 0, time = 0;
      for (const auto& k : r.kernels) {
        dram += reports::measured_of(k.metrics, reports::Metric::dram_read).value_or(0.0);
        time += reports::measured_of(k.metrics, reports::Metric::time).value_or(0.0);
      }
      std::printf("[%zu/%zu] %-44s dram_read %10.2f MB  time %9.4f ms\n", i + 1, points.size(),
                  p.label.c_str(), dram / 1e6, time * 1e3);
    } catch (const profiler::ProfilerError& e) {
      // A point the kernels refuse, or one CUPTI could not count, is skipped with its reason: the other
      // points are still measured (and written). No device, no permission: nothing can be, so it stops.
      if (e.code() != profiler::ErrorCode::config_not_compiled &&
          e.code() != profiler::ErrorCode::bad_input && e.code() != profiler::ErrorCode::cupti_error)
        throw;
      ++skipped;
      std::printf("[%zu/%zu] %-44s skipped: %s\n", i + 1, points.size(), p.label.c_str(), e.what());
    }
    std::fflush(stdout);
  }
  // The name with its seed ("fresh:20261205"): what `attnscope accuracy` and `simulate --against` read back.
  std::printf("matrix %s: %d reports written to %s, %d skipped\n",
              profiler::resolved_matrix_name(f.matrix).c_str(), written, f.out_dir.c_str(), skipped);
  return kOk;
}

}  // namespace

void add_profile_command(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<ProfileFlags>();
  auto* cmd = app.add_subcommand(
      "profile", "run the real kernels under CUPTI counters with the model beside them; write one report");
  cmd->footer(
      "Kernels of another program (PyTorch, Triton, any CUDA program), with its own options:\n"
      "  attnscope profile [-k|--kernel-name REGEX] [--nvtx-include REGEX] [--launch-skip N]\n"
      "                    [-c|--launch-count N] [-o FILE] [--replay user|kernel] [--list-kernels]\n"
      "                    [--records FILE] [--inject-log] -- COMMAND ARGS...\n"
      "  (there -k is a regex on the kernel's demangled name; docs/profile-other-programs.md)");
  add_workload_options(*cmd, flags->workload);
  cmd->get_option("--gpu")
      ->description(
          "GPU spec the model runs with: h200, h100, a100 or a JSON file (default: the measured "
          "device's own; another one is noted in the report)")
      ->default_str("");
  cmd->add_option(
         "--cache", flags->cache,
         "L2 state: flush (before every kernel), sequence (flush once, kernels back to back) or warm")
      ->check(CLI::IsMember({"flush", "sequence", "warm"}))
      ->capture_default_str();
  cmd->add_option("--replay", flags->replay,
                  "how passes are replayed: user (we re-run and flush) or kernel (CUPTI kernel replay)")
      ->check(CLI::IsMember({"user", "kernel"}))
      ->capture_default_str();
  cmd->add_option("--flush-method", flags->flush,
                  "what a flush leaves in L2: read-discard (empty, the default) or read (full of clean "
                  "lines); both write every dirty line back first")
      ->check(CLI::IsMember({"read-discard", "read"}))
      ->capture_default_str();
  cmd->add_option("--tiles", flags->tiles, "tile windows measured alone: all, row, sample or none")
      ->check(CLI::IsMember({"all", "row", "sample", "none"}))
      ->capture_default_str();
  cmd->add_option("--metric", flags->metrics,
                  "extra CUPTI metric to collect (repeatable), e.g. lts__t_bytes.sum");
  cmd->add_option("--out,-o", flags->out, "report file (JSON)")->capture_default_str();
  cmd->add_flag("--no-model", flags->no_model, "measure only; leave the modeled values out");
  cmd->add_flag("--launch-only", flags->launch_only,
                "run each kernel once with no counters and no flushes (to run under ncu)");
  cmd->add_option("--pm-sampling", flags->pm_sampling_ns,
                  "also sample DRAM/L2 throughput over time with CUPTI PM sampling, every N ns, during one "
                  "more launch of each kernel (0 = off; e.g. 2000)")
      ->capture_default_str();
  cmd->add_flag("--only-metrics", flags->only_metrics,
                "collect only the --metric names, not the standard set (fewer replay passes; the report's "
                "standard metrics read as not collected)");
  cmd->add_flag("--no-cupti", flags->no_cupti, "do not use CUPTI (implies --launch-only)");
  cmd->add_option("--keep-tiles", flags->keep_tiles,
                  "tile entries in the report: all, head0 (batch 0, head 0 + measured windows), measured "
                  "(timeline or window) or windows (smallest file)")
      ->check(CLI::IsMember({"all", "head0", "measured", "windows"}))
      ->capture_default_str();
  cmd->add_flag("--no-timeline", flags->no_timeline, "skip the instrumented launch for per-tile timestamps");
  cmd->add_option(
      "--matrix", flags->matrix,
      "measure a fixed matrix of workloads: accuracy, quick, fresh[:SEED], backward or fresh-bwd[:SEED]");
  cmd->add_option("--out-dir", flags->out_dir, "directory for --matrix reports")->capture_default_str();
  cmd->add_option("--deadline-s", flags->deadline_s,
                  "--matrix: stop starting new points after this many seconds");
  cmd->add_option("--first-point", flags->first_point,
                  "--matrix: start at this point (1-based; where an earlier run's deadline stopped)");
  cmd->add_option("--seed", flags->seed, "seed of the random inputs");
  cmd->add_flag("--print-metrics", flags->print_metrics,
                "print the standard CUPTI metric set (comma separated, as ncu --metrics takes it) and exit");
  cmd->callback([cmd, flags, exit_code] {
    flags->gpu_named = cmd->count("--gpu") > 0;
    if (flags->print_metrics) {
      std::string list;
      for (const auto& m : profiler::standard_counters()) list += (list.empty() ? "" : ",") + m;
      std::printf("%s\n", list.c_str());
      *exit_code = kOk;
      return;
    }
    try {
      const std::string command = invoked_command_line();
      *exit_code = flags->matrix.empty() ? run_single(*flags, command) : run_matrix(*flags, command);
    } catch (const profiler::ProfilerError& e) {
      std::fprintf(stderr, "attnscope profile: %s\n", e.what());
      *exit_code = exit_code_for(e.code());
    } catch (const sim::InvalidInput& e) {
      std::fprintf(stderr, "attnscope profile: %s\n", e.what());
      *exit_code = kBadInput;
    } catch (const reports::ReportError& e) {
      std::fprintf(stderr, "attnscope profile: could not write the report: %s\n", e.what());
      *exit_code = kIoError;
    }
  });
}

}  // namespace attnscope::cli
