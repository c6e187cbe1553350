// SPDX-License-Identifier: Apache-2.0
// `attnscope run`: the quick start's main job. On a machine with a GPU it profiles the kernels --kernel names
// (the naive and the tiled by default; the Hopper kernel with `hopper` or `all`) of the pass (--pass: the
// forward by default, the backward, or a training step) on the workload (llm-4k by default) with the model
// beside them. Without one it re-runs the model against the H200 measurements committed under
// tests/data/h200/ for the same workload and tiles, so the report still puts real counters next to the model;
// with no matching measurement it reports the model alone and says so. Always ends in a directory of
// reports: JSON, HTML, Markdown, CSV, Chrome trace (+ JUnit with gates).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "attnscope/profiler/error.hpp"
#include "attnscope/profiler/gpu_session.hpp"
#include "attnscope/profiler/profile.hpp"
#include "attnscope/profiler/remodel.hpp"
#include "attnscope/reports/from_sim.hpp"
#include "attnscope/reports/gate.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/output.hpp"
#include "attnscope/reports/writers.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "workload_options.hpp"

namespace attnscope::cli {

int exit_code_for(profiler::ErrorCode code);  // cmd_profile.cpp

namespace fs = std::filesystem;

namespace {

struct RunFlags {
  WorkloadOptions workload;
  std::string out = "out";
  std::string measurements = std::string(ATTNSCOPE_DATA_DIR) + "/h200";
  std::string device = "auto";  // auto | never
  std::vector<std::string> gates;
};

// A recorded profile of the same workload, L2 flushed before each kernel; for the tiled and Hopper kernels
// also the same tile configuration of the pass (the naive kernels' GEMM tiling is fixed). Under that protocol
// each kernel is measured alone, so the backward kernels of a training-step recording are as good as a
// backward-only one (the report then says which recording and which kernels of it were joined).
bool same_problem(const reports::Report& r, const sim::Workload& w, const sim::TileConfig& t,
                  sim::KernelKind kind) {
  const auto& rw = r.workload;
  const bool same_workload = r.kind == "profile" && r.provenance.cache == vocab::CacheProtocol::flush &&
                             rw.batch == w.batch && rw.heads == w.heads && rw.seq_q == w.seq_q &&
                             rw.seq_kv == w.seq_kv && rw.head_dim == w.head_dim && rw.dtype == w.dtype &&
                             rw.causal == w.causal && rw.window == w.window && rw.alibi == w.alibi;
  if (!same_workload) return false;
  // The forward from forward recordings (they carry the tile windows and timelines); the backward from a
  // backward or training-step recording; a training step from a training step.
  const bool same_pass = rw.pass == w.pass || (w.pass == sim::Pass::bwd && rw.pass == sim::Pass::both);
  if (!same_pass) return false;
  switch (kind) {
    case sim::KernelKind::naive:
      return true;
    case sim::KernelKind::hopper: {
      const vocab::HopperConfig a = r.tiles.hopper(), b = t.hopper();
      return a.bc == b.bc && a.consumers == b.consumers && a.stages == b.stages && a.overlap == b.overlap &&
             a.pingpong == b.pingpong;
    }
    case sim::KernelKind::tiled:
      break;
  }
  const bool forward = w.pass == sim::Pass::bwd || (r.tiles.br == t.br && r.tiles.bc == t.bc &&
                                                    r.tiles.warps == t.warps && r.tiles.stages == t.stages);
  const vocab::TiledBwdConfig rb = r.tiles.tiled_bwd(w.head_dim), tb = t.tiled_bwd(w.head_dim);
  const bool backward =
      w.pass == sim::Pass::fwd || (rb.bc == tb.bc && rb.br == tb.br && rb.stages == tb.stages);
  return forward && backward;
}

// Appends `part`'s kernels to `into` (the first part gives provenance, workload and tiles).
void append(reports::Report& into, reports::Report part) {
  if (into.kernels.empty()) {
    into = std::move(part);
    return;
  }
  for (auto& k : part.kernels) into.kernels.push_back(std::move(k));
}

// Committed measurements of this problem, re-modeled by this build, for each of `kinds` in order.
reports::Report from_recorded(const RunFlags& f, const sim::Workload& w, const sim::TileConfig& t,
                              const std::vector<sim::KernelKind>& kinds, const sim::GpuSpec& gpu,
                              std::vector<reports::Recording>& used) {
  reports::Report out;
  if (!fs::is_directory(f.measurements)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(f.measurements))
    if (e.is_regular_file() &&
        (e.path().extension() == ".json" || e.path().filename().string().ends_with(".json.gz")))
      files.push_back(e.path());
  // Newest run folder first, by the UTC stamp its name ends with (h200-20261203T091131Z,
  // profile-check-20261203T030040Z, ...) or, for a folder inside a run (hopper-epilogue-20261203T215057Z/
  // hopper-profile/), the stamp of the nearest folder above it that has one; files in name order within one.
  static const std::regex at_end(R"((\d{8}T\d{6}Z)$)");
  std::map<fs::path, std::string> stamps;  // run folder -> its stamp ("" when it has none)
  for (const auto& file : files) {
    auto [it, fresh] = stamps.try_emplace(file.parent_path());
    if (!fresh) continue;
    for (fs::path folder = file.parent_path(); !folder.empty() && folder != folder.parent_path();
         folder = folder.parent_path()) {
      std::smatch m;
      const std::string name = folder.filename().string();
      if (std::regex_search(name, m, at_end)) {
        it->second = m[1].str();
        break;
      }
    }
  }
  std::sort(files.begin(), files.end(), [&](const fs::path& a, const fs::path& b) {
    if (a.parent_path() != b.parent_path()) {
      const std::string& sa = stamps.at(a.parent_path());
      const std::string& sb = stamps.at(b.parent_path());
      return sa != sb ? sa > sb : a.parent_path() > b.parent_path();
    }
    return a.filename() < b.filename();
  });
  // Per kind: its kernels' names, whether a recording with tile entries (heatmaps and timelines) was found,
  // and the part of the report it contributes.
  struct Kind {
    sim::KernelKind kind;
    std::vector<std::string> names;
    bool with_tiles = false;
    reports::Report part;
  };
  std::vector<Kind> wanted;
  for (const auto kind : kinds) wanted.push_back({kind, profiler::kernel_names(kind, w.pass), false, {}});
  // Each file is read once; the recordings of this problem are kept, in that order.
  struct Recording {
    fs::path file;
    reports::Report report;
    std::vector<bool> holds;  // per wanted kind: all its kernels, of this workload and tiles
  };
  std::vector<Recording> recordings;
  const auto all_found = [&wanted] {
    return std::all_of(wanted.begin(), wanted.end(), [](const Kind& k) { return k.with_tiles; });
  };
  for (const auto& file : files) {
    Recording rec;
    rec.file = file;
    try {
      rec.report = reports::read_report(file);
    } catch (const reports::ReportError&) {
      continue;  // not a report (e.g. an ncu comparison table); the pipeline tests check every report
    }
    const reports::Report& r = rec.report;
    if (r.kernels.empty()) continue;
    // CUPTI's own kernel replay restores memory between passes, so its L2 state is not the flushed one.
    if (r.provenance.replay == vocab::ReplayMode::kernel) continue;
    bool any = false;
    for (auto& k : wanted) {
      const bool holds =
          std::all_of(k.names.begin(), k.names.end(),
                      [&](const std::string& n) { return reports::find_kernel(r, n) != nullptr; }) &&
          same_problem(r, w, t, k.kind);
      rec.holds.push_back(holds);
      any = any || holds;
      if (holds && !reports::find_kernel(r, k.names.front())->tiles.empty()) k.with_tiles = true;
    }
    if (!any) continue;
    recordings.push_back(std::move(rec));
    if (all_found()) break;  // the choice below is made: older files cannot change it
  }
  // A recording may hold several kinds: take the first recording of each kind, in a first pass only
  // recordings with tile entries, in a second any.
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& rec : recordings) {
      std::vector<bool> take(wanted.size(), false);
      bool any = false;
      for (std::size_t i = 0; i < wanted.size(); ++i) {
        const reports::KernelEntry* first =
            rec.holds[i] ? reports::find_kernel(rec.report, wanted[i].names.front()) : nullptr;
        take[i] = wanted[i].part.kernels.empty() && first != nullptr && (pass == 1 || !first->tiles.empty());
        any = any || take[i];
      }
      if (!any) continue;
      reports::Recording joined{
          rec.file.string(), rec.report.provenance.date, rec.report.provenance.git_revision, {}};
      const reports::Report fresh = profiler::remodel_report(rec.report, gpu);
      for (std::size_t i = 0; i < wanted.size(); ++i) {
        if (!take[i]) continue;
        reports::Report& part = wanted[i].part;
        part = fresh;
        part.kernels.clear();
        // Only this kind's kernels of this pass (not the other pass's kernels of a training step).
        for (const auto& k : fresh.kernels)
          if (std::find(wanted[i].names.begin(), wanted[i].names.end(), k.name) != wanted[i].names.end()) {
            part.kernels.push_back(k);
            joined.kernels.push_back(k.name);
          }
      }
      used.push_back(std::move(joined));
    }
  for (auto& k : wanted) append(out, std::move(k.part));
  // The backward's kernels of a training-step recording, each measured and modeled alone: the report is of
  // the pass asked for (the recordings it joined are listed with their kernels).
  if (!out.kernels.empty()) out.workload.pass = w.pass;
  return out;
}

// The model alone for the kinds `into` does not hold yet (no GPU and no recording of them).
void add_modeled_only(reports::Report& into, const sim::Workload& w, const sim::TileConfig& t,
                      const std::vector<sim::KernelKind>& kinds, const sim::GpuSpec& gpu,
                      const std::string& command) {
  for (auto kind : kinds) {
    const std::string first = profiler::kernel_names(kind, w.pass).front();
    if (reports::find_kernel(into, first) != nullptr) continue;
    auto part = reports::report_from_simulation(sim::simulate(gpu, w, kind, t, {}), command);
    for (auto& k : part.kernels) k.notes["source"] = "model only: no recorded measurement of this kernel";
    append(into, std::move(part));
  }
}

int run(const RunFlags& f) {
  const std::string command = invoked_command_line();
  const sim::Workload w = f.workload.workload();
  const sim::TileConfig t = f.workload.tile_config();
  const sim::GpuSpec gpu = sim::load_gpu_spec(f.workload.gpu);
  std::vector<sim::KernelKind> kinds = f.workload.kinds();
  // `--kernel all` with a sliding window or ALiBi: the Hopper kernel is not built for them; the others run.
  if (w.general_mask() && kinds.size() > 1) std::erase(kinds, sim::KernelKind::hopper);
  for (auto kind : kinds) sim::check_config(gpu, w, kind, t);

  reports::Report report;
  std::string source;
  if (f.device != "never" && profiler::built_with_cuda()) {
    try {
      profiler::GpuSession session({});
      std::fprintf(stderr, "attnscope run: profiling %s on %s (model beside it)\n", w.name.c_str(),
                   session.device().name.c_str());
      for (auto kind : kinds) {
        profiler::ProfileOptions o;
        o.request.workload = w;
        o.request.kind = kind;
        o.request.tiles = t;
        o.gpu_spec = f.workload.gpu;
        // Tile windows are the forward's; a pass with the backward is measured kernel by kernel.
        if (w.pass != sim::Pass::fwd) o.tile_mode = profiler::TileMode::none;
        o.keep_tiles = "head0";
        append(report, profiler::run_profile(session, o, command));
      }
      source = "profiled on " + session.device().name;
    } catch (const profiler::ProfilerError& e) {
      if (e.code() != profiler::ErrorCode::no_cuda_device) throw;
      std::fprintf(stderr, "attnscope run: %s\n", e.what());
    }
  }
  if (report.kernels.empty()) {
    std::vector<reports::Recording> used;
    std::fprintf(stderr,
                 "attnscope run: no GPU here; re-running the model against recorded measurements in %s\n",
                 f.measurements.c_str());
    report = from_recorded(f, w, t, kinds, gpu, used);
    if (!report.kernels.empty()) {
      // The report now holds what this build joined: its provenance names this run and every recording.
      const reports::Provenance recorded = report.provenance;
      report.provenance = reports::basic_provenance(command);
      report.provenance.gpu_name = recorded.gpu_name;
      report.provenance.driver = recorded.driver;
      report.provenance.cuda_runtime = recorded.cuda_runtime;
      report.provenance.sm_clock_mhz = recorded.sm_clock_mhz;
      report.provenance.mem_clock_mhz = recorded.mem_clock_mhz;
      report.provenance.cache = recorded.cache;
      report.provenance.replay = recorded.replay;
      report.provenance.gpu_spec = gpu.short_name;
      report.provenance.recordings = used;
      source = fmt::format("model re-run by this build against {} recorded {} measurement{}", used.size(),
                           recorded.gpu_name, used.size() == 1 ? "" : "s");
    } else {
      source = "model only (no GPU, no matching recorded measurement)";
    }
    const std::size_t recorded = report.kernels.size();
    add_modeled_only(report, w, t, kinds, gpu, command);
    if (report.kernels.size() != recorded) {
      std::fprintf(stderr,
                   "attnscope run: no recorded measurement of %s with this workload and tile configuration: "
                   "the model alone stands for it\n",
                   recorded == 0 ? "any kernel asked for" : "some kernels");
      if (recorded != 0) source += "\n    (kernels without a recording: model only)";
    }
  }

  const auto gates = reports::evaluate_gates(f.gates, report);
  const auto written = reports::write_all(report, f.out, gates);
  // The answer first (verdicts and errors per kernel), then where it came from; every metric and the raw
  // counters are in the files (and `attnscope report out/report.json`).
  std::printf("%s\n%s", reports::overview_text(report).c_str(), reports::provenance_text(report).c_str());
  std::printf("source: %s\n", source.c_str());
  std::printf("wrote:\n");
  for (const auto& p : written.all()) std::printf("    %s\n", p.string().c_str());
  for (const auto& g : gates)
    if (!g.passed) return kGateFailed;
  return kOk;
}

}  // namespace

void add_run_command(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<RunFlags>();
  auto* cmd = app.add_subcommand(
      "run",
      "the main job: profile (with a GPU) or re-model recorded H200 measurements (without), write reports");
  add_workload_options(*cmd, flags->workload);
  cmd->add_option("--out,-o", flags->out,
                  "directory for report.json/.html/.md/-totals.csv/-tiles.csv/-trace.json")
      ->capture_default_str();
  cmd->add_option("--measurements", flags->measurements, "recorded profile reports to compare the model with")
      ->capture_default_str();
  cmd->add_option("--device", flags->device,
                  "auto: profile when a GPU is present; never: always use recordings")
      ->check(CLI::IsMember({"auto", "never"}))
      ->capture_default_str();
  cmd->add_option("--gate", flags->gates, "gate expression, e.g. 'tiled.dram_read.error < 5%' (repeatable)");
  cmd->callback([flags, exit_code] {
    try {
      *exit_code = run(*flags);
    } catch (const sim::InvalidInput& e) {
      std::fprintf(stderr, "attnscope run: %s\n", e.what());
      *exit_code = kBadInput;
    } catch (const reports::GateError& e) {
      std::fprintf(stderr, "attnscope run: %s\n", e.what());
      *exit_code = kBadInput;
    } catch (const reports::OutputError& e) {
      std::fprintf(stderr, "attnscope run: %s\n", e.what());
      *exit_code = kIoError;
    } catch (const reports::ReportError& e) {
      std::fprintf(stderr, "attnscope run: %s\n", e.what());
      *exit_code = kMalformedReport;
    } catch (const profiler::ProfilerError& e) {
      std::fprintf(stderr, "attnscope run: %s\n", e.what());
      *exit_code = exit_code_for(e.code());
    }
  });
}

}  // namespace attnscope::cli
