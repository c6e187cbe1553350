// SPDX-License-Identifier: Apache-2.0
// `attnscope sweep`: what-if tile studies over Br, Bc, warps, stages, head dim, sequence length,
// shared-memory limit and GPU spec, on all cores. `attnscope merge`: join the shards of one sweep.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/output.hpp"
#include "attnscope/reports/sweep_analysis.hpp"
#include "attnscope/reports/sweep_runner.hpp"
#include "attnscope/reports/sweep_work.hpp"
#include "attnscope/reports/units.hpp"
#include "attnscope/reports/writers.hpp"
#include "attnscope/sim/error.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "sweep_mpi.hpp"
#include "workload_options.hpp"

namespace attnscope::cli {

namespace {

struct SweepOptions {
  WorkloadOptions workload;
  reports::SweepAxesText axes;
  std::uint64_t max_points = reports::kDefaultMaxSweepPoints;
  int threads = 0;
  std::string output{"sweep.json"}, html, markdown, csv_prefix;
  std::size_t top = 10;
  std::string fidelity{"cycle"}, checkpoint;
  int top_k = 10;
  bool no_progress = false;
};

class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled), tty_(::isatty(STDERR_FILENO) == 1) {}
  void update(std::size_t done, std::size_t total) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0.0;
    // An estimate from less than a second of work (or none) says little: it is shown once there is one.
    const double eta = rate > 0 && elapsed >= 1.0 ? static_cast<double>(total - done) / rate : -1.0;
    const std::string eta_text = eta < 0 ? std::string("?") : fmt::format("{:.0f} s", eta);
    if (tty_) {
      if (done != total && now - last_ < std::chrono::milliseconds(100)) return;
      last_ = now;
      constexpr int kWidth = 32;
      const int filled = total ? static_cast<int>(kWidth * done / total) : kWidth;
      std::fprintf(stderr, "\r[%s%s] %zu/%zu  %.0f points/s  ETA %s ", std::string(filled, '#').c_str(),
                   std::string(kWidth - filled, '.').c_str(), done, total, rate, eta_text.c_str());
      if (done == total) std::fprintf(stderr, "\n");
    } else {
      // Not a terminal (CI log): a line every 10 % or 10 s.
      const std::size_t decile = total ? 10 * done / total : 10;
      if (done != total && decile == last_decile_ && now - last_ < std::chrono::seconds(10)) return;
      last_decile_ = decile;
      last_ = now;
      std::fprintf(stderr, "sweep: %zu/%zu points (%.0f%%), %.0f points/s, ETA %s\n", done, total,
                   total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0, rate,
                   eta_text.c_str());
    }
    std::fflush(stderr);
  }

 private:
  bool enabled_, tty_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
  std::size_t last_decile_ = 0;
};

void print_table(const reports::Report& r, std::size_t top) {
  const auto groups = reports::group_by_problem(r);
  std::size_t feasible = 0;
  for (const auto& p : r.sweep) feasible += p.feasible ? 1 : 0;
  std::printf("%zu points (%zu feasible) in %zu problem(s)\n", r.sweep.size(), feasible, groups.size());
  for (const auto& g : groups) {
    std::vector<const reports::SweepPoint*> ok;
    for (const auto* p : g.points)
      if (p->feasible) ok.push_back(p);
    std::sort(ok.begin(), ok.end(), [](const auto* a, const auto* b) {
      return reports::modeled_metric(*a, reports::Metric::time) <
             reports::modeled_metric(*b, reports::Metric::time);
    });
    std::printf("\n%s: %zu points, %zu feasible; fastest %zu:\n", reports::terminal_text(g.label).c_str(),
                g.points.size(), ok.size(), std::min(top, ok.size()));
    std::printf("  %-6s %-22s %10s %10s %12s %12s %12s\n", "kernel", "tiles", "smem lim", "smem/CTA", "Time",
                "HBM bytes", "L2 read");
    for (std::size_t i = 0; i < std::min(top, ok.size()); ++i) {
      const auto& p = *ok[i];
      std::printf(
          "  %-6s %-22s %10s %10s %12s %12s %12s\n", std::string(sim::to_string(p.kind)).c_str(),
          reports::tiles_label(p).c_str(),
          reports::format_bytes_binary(static_cast<double>(p.smem_limit)).c_str(),
          reports::format_bytes_binary(reports::modeled_metric(p, reports::Metric::smem_per_cta)).c_str(),
          reports::format_seconds(reports::modeled_metric(p, reports::Metric::time)).c_str(),
          reports::format_bytes(reports::hbm_bytes(p)).c_str(),
          reports::format_bytes(reports::modeled_metric(p, reports::Metric::l2_read)).c_str());
    }
    if (const auto* best = reports::best_point(g.points))
      std::printf("  best tile: %s (time %s, HBM %s, smem/CTA %s)\n", reports::tiles_label(*best).c_str(),
                  reports::format_seconds(reports::modeled_metric(*best, reports::Metric::time)).c_str(),
                  reports::format_bytes(reports::hbm_bytes(*best)).c_str(),
                  reports::format_bytes_binary(reports::modeled_metric(*best, reports::Metric::smem_per_cta))
                      .c_str());
    else
      std::printf("  best tile: none feasible\n");
  }
}

int write_outputs(const reports::Report& r, const std::string& json, const std::string& html,
                  const std::string& markdown, const std::string& csv_prefix, const char* who) {
  try {
    reports::OutputBatch batch;
    if (!json.empty()) batch.add(json, reports::to_json_string(r, reports::default_json_indent(r)));
    if (!html.empty()) batch.add(html, reports::to_html(r));
    if (!markdown.empty()) batch.add(markdown, reports::to_markdown(r));
    if (!csv_prefix.empty()) batch.add(csv_prefix + "-sweep.csv", reports::sweep_csv(r));
    batch.commit();
  } catch (const reports::ReportError& e) {
    std::fprintf(stderr, "attnscope %s: %s\n", who, e.what());
    return kIoError;
  }
  std::fprintf(stderr, "attnscope %s: wrote %s%s%s%s%s%s%s\n", who, json.c_str(), html.empty() ? "" : ", ",
               html.c_str(), markdown.empty() ? "" : ", ", markdown.c_str(), csv_prefix.empty() ? "" : ", ",
               csv_prefix.empty() ? "" : (csv_prefix + "-sweep.csv").c_str());
  return kOk;
}

// The rank of this process in an MPI launch (0 outside one), from the launcher's environment.
int launched_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(name)) return std::atoi(v);
  return 0;
}

// Checks the options and says what will run (on rank 0 of an MPI launch only); returns kOk or the error.
int prepare_sweep(const SweepOptions& o, reports::SweepSpec& spec, reports::SweepRunOptions& run, int ranks,
                  bool quiet_rank) {
  try {
    // Sweeps run any pass and mask the model covers; check_sweep_spec refuses what a fidelity or kernel
    // does not (the bound is forward-only and unmasked, the Hopper kernel forward-only).
    spec.base = o.workload.workload();
    reports::parse_sweep_axes(o.axes, o.workload.tile_config(), spec, run);
    const std::string& k = o.workload.kernel;
    spec.tiled = k == "tiled" || k == "both" || k == "all";
    spec.naive_baseline = k == "naive" || k == "both" || k == "all";
    spec.hopper = k == "hopper" || k == "all";
    spec.max_points = o.max_points;
    run.threads = o.threads;
    run.checkpoint = o.checkpoint;
    const auto fidelity = vocab::parse_sweep_fidelity(o.fidelity);
    if (!fidelity) throw sim::InvalidInput("--fidelity '" + o.fidelity + "' is not cycle or two");
    spec.fidelity = *fidelity;
    spec.top_k = o.top_k;
    if (!o.checkpoint.empty() && spec.fidelity != vocab::SweepFidelity::two)
      throw sim::InvalidInput("--checkpoint needs --fidelity two (its problems are the checkpoint's units)");
    reports::check_sweep_spec(spec);
    if (ranks > 1 && !mpi_available())
      throw sim::InvalidInput(fmt::format(
          "started as {} ranks, but this attnscope was built without MPI (configure with "
          "-DATTNSCOPE_ENABLE_MPI=ON); as it is, run one process per machine with --shard i/n and join the "
          "shards with `attnscope merge`",
          ranks));
    const std::uint64_t total = reports::count_sweep_points(spec);
    if (quiet_rank) return kOk;  // checked; the rest is rank 0's to say
    std::fprintf(stderr, "attnscope sweep: %llu configurations in %llu problem(s)%s%s\n",
                 static_cast<unsigned long long>(total),
                 static_cast<unsigned long long>(reports::count_sweep_problems(spec)),
                 spec.fidelity == vocab::SweepFidelity::two ? ", two-fidelity" : "",
                 run.shard_count > 1 ? (" (shard " + o.axes.shard + ")").c_str() : "");
  } catch (const sim::InvalidInput& e) {
    std::fprintf(stderr, "attnscope sweep: %s\n", e.what());
    return kBadInput;
  }
  return kOk;
}

int run_sweep_command(const SweepOptions& o) {
  reports::SweepSpec spec;
  reports::SweepRunOptions run;
  // Under an MPI launcher every rank parses the same options; only rank 0 speaks and writes.
  const int ranks = launched_ranks();
  const bool over_mpi = ranks > 0 && mpi_available();
  const bool quiet_rank = over_mpi && launched_rank() != 0;
  if (const int rc = prepare_sweep(o, spec, run, ranks, quiet_rank); rc != kOk) return rc;
  Progress progress(!o.no_progress && !quiet_rank);
  run.progress = [&progress](std::size_t done, std::size_t total) { progress.update(done, total); };
  run.resumed = [&o](std::size_t resumed, std::size_t problems) {
    std::fprintf(stderr, "attnscope sweep: resumed %zu of %zu problem(s) from %s\n", resumed, problems,
                 o.checkpoint.c_str());
  };
  reports::Report r;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    if (over_mpi) {
      if (quiet_rank) run.checkpoint.clear();  // rank 0 alone reads and journals the checkpoint
      reports::SweepWork work = reports::make_sweep_work(spec, run, invoked_command_line());
      const std::size_t per_unit =
          spec.fidelity == vocab::SweepFidelity::two ? reports::count_points_per_problem(spec) : 1;
      std::optional<reports::Report> mine = run_sweep_over_mpi(work, run, per_unit);
      if (!mine) return kOk;  // a worker rank: rank 0 writes the report
      r = std::move(*mine);
    } else {
      r = reports::run_sweep(spec, run, invoked_command_line());
    }
  } catch (const sim::InvalidInput& e) {
    std::fprintf(stderr, "attnscope sweep: %s\n", e.what());
    return kBadInput;
  } catch (const reports::ReportError& e) {  // a checkpoint of another sweep, or one that cannot be written
    std::fprintf(stderr, "attnscope sweep: %s\n", e.what());
    return kIoError;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (spec.fidelity == vocab::SweepFidelity::two) {
    // Priced: the shard's problems, every point of each.
    const double priced =
        static_cast<double>(r.sweep_definition.total_points) / r.sweep_definition.shard_count;
    std::fprintf(
        stderr,
        "attnscope sweep: %.0f points priced by the bound, %zu modeled by the cycle model, in %.2f s\n",
        priced, r.sweep.size(), seconds);
  } else {
    std::fprintf(stderr, "attnscope sweep: %zu points in %.2f s (%.0f points/s)\n", r.sweep.size(), seconds,
                 seconds > 0 ? static_cast<double>(r.sweep.size()) / seconds : 0.0);
  }
  print_table(r, o.top);
  const int rc = write_outputs(r, o.output, o.html, o.markdown, o.csv_prefix, "sweep");
  // The report is written: the checkpoint has done its work (a rerun starts afresh).
  if (rc == kOk && !o.checkpoint.empty()) std::remove(o.checkpoint.c_str());
  return rc;
}

struct MergeOptions {
  std::vector<std::string> inputs;
  std::string output, html, markdown, csv_prefix;
};

int run_merge(const MergeOptions& o) {
  std::vector<reports::Report> shards;
  try {
    for (const auto& path : o.inputs) shards.push_back(reports::read_report(path));
  } catch (const reports::ReportError& e) {
    std::fprintf(stderr, "attnscope merge: %s\n", e.what());
    return kMalformedReport;
  }
  reports::Report merged;
  try {
    merged = reports::merge_sweep_reports(shards, o.inputs, invoked_command_line());
  } catch (const reports::ReportError& e) {
    std::fprintf(stderr, "attnscope %s\n", e.what());
    return kBadInput;
  }
  std::printf("merged %zu shard(s): %zu points\n", shards.size(), merged.sweep.size());
  return write_outputs(merged, o.output, o.html, o.markdown, o.csv_prefix, "merge");
}

}  // namespace

void add_sweep_command(CLI::App& app, int* exit_code) {
  auto* cmd =
      app.add_subcommand("sweep", "what-if tile study: simulate every combination of the listed values");
  auto o = std::make_shared<SweepOptions>();
  add_workload_options(*cmd, o->workload);
  // The shared single-value tile and shape flags become lists here.
  for (const char* name : {"--br", "--bc", "--warps", "--stages", "--seq", "--head-dim", "--gpu",
                           "--hopper-bc", "--hopper-consumers", "--hopper-stages", "--hopper-schedule",
                           "--hopper-persistent", "--bwd-bc", "--bwd-br", "--bwd-stages"})
    cmd->remove_option(cmd->get_option(name));
  cmd->add_option("--hopper-bc", o->axes.hopper_bc,
                  "Hopper kernel (--kernel hopper or all): Bc, e.g. 64,128");
  cmd->add_option("--hopper-consumers", o->axes.hopper_consumers,
                  "Hopper kernel: consumer warpgroups (Br = 64 x consumers), e.g. 1,2,3");
  cmd->add_option("--hopper-stages", o->axes.hopper_stages, "Hopper kernel: K/V ring slots, e.g. 2,3,4");
  cmd->add_option("--hopper-schedule", o->axes.hopper_schedule,
                  "Hopper kernel: schedules, e.g. serial,overlap,pingpong");
  cmd->add_option(
      "--hopper-persistent", o->axes.hopper_persistent,
      "Hopper kernel: one CTA per SM walking the tiles (true) or one per tile (false), e.g. false,true");
  cmd->add_option("--bwd-bc", o->axes.bwd_bc,
                  "tiled backward (--pass bwd or both): keys per CTA, e.g. 64,128 (default: the head dim's)");
  cmd->add_option("--bwd-br", o->axes.bwd_br, "tiled backward: query rows per step, e.g. 32,64");
  cmd->add_option("--bwd-stages", o->axes.bwd_stages, "tiled backward: Q/dO ring stages, e.g. 1,2");
  cmd->add_option("--br", o->axes.br, "query rows per CTA, e.g. 64,128");
  cmd->add_option("--bc", o->axes.bc, "key/value rows per step, e.g. 32,64,128");
  cmd->add_option(
      "--warps", o->axes.warps,
      "warps per CTA (default as the real kernel: Br/16 up to Br 64, Br/32 above, so 4 for Br 64 and 128)");
  cmd->add_option("--stages", o->axes.stages, "cp.async pipeline stages, e.g. 2,3");
  cmd->add_option("--seq,-n", o->axes.seq, "sequence lengths (queries = keys), e.g. 1024,2048,4K");
  cmd->add_option("--head-dim,-d", o->axes.head_dim, "head dimensions, e.g. 64,128");
  cmd->add_option("--smem", o->axes.smem,
                  "per-CTA shared-memory limits, e.g. 48K,100K,227K (default: the GPU's; above it models a "
                  "bigger SRAM)");
  cmd->add_option("--gpu", o->axes.gpu, "GPU specs, e.g. h200,h100 (or JSON files)")->capture_default_str();
  cmd->add_option("--l2", o->axes.l2, "what-if L2 sizes replacing each GPU's, e.g. 40M,60M,100M");
  cmd->add_option("--hbm-bw", o->axes.hbm_bw, "what-if HBM peak bandwidths in bytes/s, e.g. 3.35TB,4.8TB");
  cmd->add_option("--sms", o->axes.sms, "what-if SM counts, e.g. 66,132");
  cmd->add_option("--smem-sm", o->axes.smem_sm,
                  "what-if shared memory per SM, e.g. 228K,456K (the per-CTA limit stays within it)");
  cmd->add_option(
         "--fidelity", o->fidelity,
         "cycle: the cycle model on every point; two: the closed-form bound on every point, the cycle "
         "model on each problem's top K and the bounds' Pareto front")
      ->check(CLI::IsMember({"cycle", "two"}))
      ->capture_default_str();
  cmd->add_option("--top-k", o->top_k, "two-fidelity: points per problem whose rank is exact")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--checkpoint", o->checkpoint,
                  "two-fidelity: journal finished problems here; a rerun with the same file resumes (removed "
                  "once the report is written)");
  cmd->add_option("--shard", o->axes.shard,
                  "run one deterministic slice i/n (points with index % n == i; two-fidelity: problems)");
  cmd->add_option("--max-points", o->max_points, "refuse sweeps of more points than this (0: no limit)")
      ->check(CLI::NonNegativeNumber)  // an unsigned option would take -5 as 2^64 - 5
      ->capture_default_str();
  cmd->add_option("--threads,-j", o->threads, "worker threads (default: all cores)");
  cmd->add_option("--output,-o", o->output, "sweep report JSON")->capture_default_str();
  cmd->add_option("--html", o->html, "HTML with the block-size, shared-memory and Pareto charts");
  cmd->add_option("--markdown,--md", o->markdown, "Markdown summary");
  cmd->add_option("--csv", o->csv_prefix, "write PREFIX-sweep.csv");
  cmd->add_option("--top", o->top, "rows of the table per problem")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--no-progress", o->no_progress, "no progress output on stderr");
  cmd->footer(
      "--kernel tiled sweeps tiles only; both (default) adds one naive baseline per problem; naive: "
      "baselines only.");
  cmd->callback([o, exit_code] { *exit_code = run_sweep_command(*o); });
}

void add_merge_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "merge", "join the shards of one sweep (attnscope sweep --shard i/n) into one report");
  auto o = std::make_shared<MergeOptions>();
  cmd->add_option("shards", o->inputs, "shard reports")->required();
  cmd->add_option("--output,-o", o->output, "merged report JSON")->required();
  cmd->add_option("--html", o->html, "HTML of the merged sweep");
  cmd->add_option("--markdown,--md", o->markdown, "Markdown summary");
  cmd->add_option("--csv", o->csv_prefix, "write PREFIX-sweep.csv");
  cmd->callback([o, exit_code] { *exit_code = run_merge(*o); });
}

}  // namespace attnscope::cli
