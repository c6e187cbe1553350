// SPDX-License-Identifier: Apache-2.0
// `attnscope accuracy`: the model against every committed measurement (kernel benchmarks in
// <data>/bench/kernels_*.json, profile reports in <data>/h200/*.json): median and worst |relative error| per
// metric and kernel, against issue 8's targets. --check compares with the ratchet baseline (exit 3 on drift).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "attnscope/profiler/windows.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/sim/accuracy.hpp"
#include "attnscope/sim/error.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"

namespace attnscope::cli {
namespace {

namespace fs = std::filesystem;

struct AccuracyFlags {
  std::string data = ATTNSCOPE_DATA_DIR;
  std::string gpu = "h200";
  std::string markdown;
  std::string baseline;  // default: <data>/../accuracy/baseline.json
  bool check = false;
  bool write_baseline = false;
  bool training_only = false;  // fitting aid: only the training subset
  std::string csv;             // every point: case, kernel, metric, measured, modeled, training
  std::vector<std::string>
      only;  // keep cases whose id (file path : kernel) matches one of these (regex search)
  std::vector<std::string> skip;  // ... and none of these
  // The CI gate's baseline from the same run: rows over the points whose case id matches none of gate_skip.
  std::string gate_baseline;
  std::vector<std::string> gate_skip;
  int threads = 0;
};

std::vector<fs::path> json_files(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json" &&
        e.path().filename().string().rfind(prefix, 0) == 0)
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// A profile report's measured kernels (and tiles) as accuracy cases.
// `shown` is the path relative to the data folder (the run folder names the run). Cases not kept by `keep`
// are skipped before their tile windows are modeled.
std::vector<sim::AccuracyCase> report_cases(const fs::path& path, const std::string& shown,
                                            const sim::GpuSpec& gpu,
                                            const std::function<bool(const std::string&)>& keep) {
  const reports::Report report = reports::read_report(path);
  std::vector<sim::AccuracyCase> out;
  for (const reports::KernelEntry& k : report.kernels) {
    sim::AccuracyCase c;
    c.id = shown + ":" + k.name;
    if (!keep(c.id)) continue;
    c.origin = shown;
    c.date = report.provenance.date;
    // CUPTI kernel replay saves and restores memory around each pass: its DRAM counts are not the user-replay
    // ones, so it is a case of its own.
    c.method = report.provenance.command.find("--replay kernel") != std::string::npos ? "cupti kernel-replay"
                                                                                      : "cupti";
    c.kernel = k.name;
    c.workload = report.workload;
    c.kind = k.name == "tiled" ? sim::KernelKind::tiled : sim::KernelKind::naive;
    c.tiles = report.tiles;
    c.l2_start = report.provenance.cache_mode == "warm" ? sim::L2Start::warm : sim::L2Start::cold;
    c.in_sequence = report.provenance.cache_mode == "sequence" && c.kind == sim::KernelKind::naive;
    const auto measured = [&k](const char* name) -> std::optional<double> {
      const auto it = k.metrics.find(name);
      return it != k.metrics.end() ? it->second.measured : std::nullopt;
    };
    for (const char* m : {"dram_read", "dram_write", "l2_write", "time"})
      if (const auto v = measured(m)) c.measured[m] = *v;
    // The report's l2_read is the L2 slices' count of SM reads; what the SMs read from L2 (the model's
    // l2_read) is the crossbar's byte count. Both are compared (metrics l2_read and l2_read_lts).
    if (const auto v = measured("l2_read")) c.measured["l2_read_lts"] = *v;
    if (const auto v = measured("l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum")) c.measured["l2_read"] = *v;
    for (const reports::TileEntry& t : k.tiles) {
      sim::MeasuredTile mt{t.batch, t.head, t.q_tile, t.kv_tile, {}, {}};
      for (const auto& [m, v] : t.metrics)
        if (v.measured) mt.measured[m] = *v.measured;
      if (mt.measured.empty()) continue;
      // Measured windows ran alone: compare with the model of the same lone launch (as the report's join).
      const profiler::WindowSpec w{k.name, t.batch, t.head, t.q_tile, t.kv_tile};
      const sim::KernelResult lone = profiler::model_window(gpu, report.workload, c.kind, report.tiles, w);
      mt.modeled = {{"dram_read", static_cast<double>(lone.totals.hbm_read)},
                    {"dram_write", static_cast<double>(lone.totals.hbm_write)},
                    {"l2_read", static_cast<double>(lone.totals.l2_read)},
                    {"l2_write", static_cast<double>(lone.totals.l2_write)}};
      c.measured_tiles.push_back(std::move(mt));
    }
    c.training = sim::is_training_case(c);
    if (!c.measured.empty() || !c.measured_tiles.empty()) out.push_back(std::move(c));
  }
  return out;
}

// Puts `table` between the markers of an existing file, or writes it alone.
void write_markdown(const fs::path& path, const std::string& table) {
  const std::string begin = "<!-- accuracy:begin -->", end = "<!-- accuracy:end -->";
  std::string text;
  if (std::ifstream in(path); in) {
    std::stringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  const auto b = text.find(begin), e = text.find(end);
  if (b != std::string::npos && e != std::string::npos && e > b)
    text = text.substr(0, b + begin.size()) + "\n" + table + text.substr(e);
  else
    text = begin + "\n" + table + end + "\n";
  std::ofstream out(path);
  if (!out) throw sim::InvalidInput("cannot write " + path.string());
  out << text;
}

int run_accuracy(const AccuracyFlags& f) {
  try {
    const fs::path data(f.data);
    std::vector<sim::AccuracyCase> cases;
    std::vector<std::string> sources;
    // Plain text matches itself: a case is kept when its id contains one of --only and none of --skip.
    const auto patterns = [](const std::vector<std::string>& texts, const char* flag) {
      std::vector<std::regex> out;
      for (const std::string& t : texts) try {
          out.emplace_back(t);
        } catch (const std::regex_error& e) {
          throw sim::InvalidInput(fmt::format("{} '{}' is not a regular expression: {}", flag, t, e.what()));
        }
      return out;
    };
    const auto only = patterns(f.only, "--only"), skip = patterns(f.skip, "--skip");
    const auto gate_skip = patterns(f.gate_skip, "--gate-skip");
    const auto keep = [&](const std::string& id) {
      const auto found = [&](const std::regex& r) { return std::regex_search(id, r); };
      return (only.empty() || std::any_of(only.begin(), only.end(), found)) &&
             std::none_of(skip.begin(), skip.end(), found);
    };
    for (const fs::path& p : json_files(data / "bench", "kernels_")) {
      auto c = sim::load_benchmark_cases(p);
      for (auto& x : c) x.id = "bench/" + p.filename().string() + ":" + x.id;
      std::erase_if(c, [&](const sim::AccuracyCase& x) { return !keep(x.id); });
      sources.push_back(fmt::format("{} ({} cases)", p.filename().string(), c.size()));
      cases.insert(cases.end(), c.begin(), c.end());
    }
    // Profile reports anywhere under h200/ (runs land in dated folders beside logs and other JSON, such as
    // ncu comparisons): a file that is not a report is listed as skipped, not fatal.
    const sim::GpuSpec gpu = sim::load_gpu_spec(f.gpu);
    std::vector<fs::path> reports_found;
    if (fs::is_directory(data / "h200"))
      for (const auto& e : fs::recursive_directory_iterator(data / "h200"))
        if (e.is_regular_file() && e.path().extension() == ".json") reports_found.push_back(e.path());
    std::sort(reports_found.begin(), reports_found.end());
    for (const fs::path& p : reports_found) {
      const std::string shown = fs::relative(p, data).string();
      try {
        auto c = report_cases(p, shown, gpu, keep);
        if (!c.empty() || (f.only.empty() && f.skip.empty()))
          sources.push_back(fmt::format("{} ({} measured kernels)", shown, c.size()));
        cases.insert(cases.end(), c.begin(), c.end());
      } catch (const reports::ReportError& e) {
        sources.push_back(fmt::format("{} skipped: not a report ({})", shown, e.what()));
      }
    }
    if (f.training_only) std::erase_if(cases, [](const sim::AccuracyCase& c) { return !c.training; });
    const std::size_t measurements = cases.size();
    std::size_t replaced = 0;
    cases = sim::newest_per_case(std::move(cases), &replaced);
    const auto points = sim::evaluate_cases(gpu, cases, f.threads);
    const auto rows = sim::accuracy_table(points);
    if (!f.csv.empty()) {
      std::ofstream out(f.csv);
      if (!out) throw sim::InvalidInput("cannot write " + f.csv);
      out << "case,kernel,metric,measured,modeled,training\n";
      for (const auto& p : points)
        out << '"' << p.case_id << "\"," << p.kernel << ',' << p.metric << ',' << p.measured << ','
            << p.modeled << ',' << p.training << '\n';
    }
    const std::string table = sim::accuracy_markdown(rows);
    fmt::print("Model {} against {} measured cases:\n", gpu.short_name, cases.size());
    for (const auto& s : sources) fmt::print("  {}\n", s);
    fmt::print(
        "Newest measurement per case (kernel, workload, tiles, cache mode, method) by provenance date: {} "
        "measurements, {} cases, {} older measurements fully replaced by newer ones.\n",
        measurements, cases.size(), replaced);
    if (!f.only.empty()) fmt::print("Only cases whose id contains: {}\n", fmt::join(f.only, " or "));
    if (!f.skip.empty()) fmt::print("Skipping cases whose id contains: {}\n", fmt::join(f.skip, " or "));
    fmt::print("Training subset: tiled, d 64, fp16, non-causal, 4k tokens (n in parentheses).\n\n{}\n",
               table);
    if (!f.markdown.empty()) write_markdown(f.markdown, table);
    const fs::path baseline =
        f.baseline.empty() ? data / ".." / "accuracy" / "baseline.json" : fs::path(f.baseline);
    if (f.write_baseline) {
      sim::write_baseline(baseline, rows);
      fmt::print("baseline written: {}\n", baseline.string());
    }
    if (!f.gate_baseline.empty()) {
      std::vector<sim::AccuracyPoint> gate_points;
      for (const auto& p : points)
        if (std::none_of(gate_skip.begin(), gate_skip.end(),
                         [&](const std::regex& r) { return std::regex_search(p.case_id, r); }))
          gate_points.push_back(p);
      sim::write_baseline(f.gate_baseline, sim::accuracy_table(gate_points));
      fmt::print("gate baseline written: {} ({} of {} points)\n", f.gate_baseline, gate_points.size(),
                 points.size());
    }
    if (f.check) {
      const auto failures = sim::check_against_baseline(rows, sim::read_baseline(baseline));
      for (const auto& why : failures) fmt::print(stderr, "accuracy check: {}\n", why);
      if (!failures.empty()) return kGateFailed;
      fmt::print("accuracy check: no row drifted past its target or baseline ({})\n", baseline.string());
    }
    return kOk;
  } catch (const reports::ReportError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kMalformedReport;
  } catch (const sim::InvalidInput& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return kBadInput;
  }
}

}  // namespace

void add_accuracy_command(CLI::App& app, int* exit_code) {
  auto flags = std::make_shared<AccuracyFlags>();
  CLI::App* cmd =
      app.add_subcommand("accuracy", "model vs every committed measurement: error table per metric");
  cmd->add_option("--data", flags->data, "measurement folder (bench/kernels_*.json, h200/*.json)");
  cmd->add_option("--gpu", flags->gpu, "GPU spec the model runs with");
  cmd->add_option("--markdown", flags->markdown, "write the table (between accuracy markers if present)");
  cmd->add_option("--baseline", flags->baseline, "ratchet file (default <data>/../accuracy/baseline.json)");
  cmd->add_flag("--check", flags->check, "exit 3 when a row drifts past its target or its baseline");
  cmd->add_flag("--write-baseline", flags->write_baseline, "record the current rows as the baseline");
  cmd->add_flag("--training-only", flags->training_only, "only the training subset (for fitting constants)");
  cmd->add_option("--csv", flags->csv, "write every measured/modeled point");
  cmd->add_option(
      "--only", flags->only,
      "keep only cases whose id (<file under data>:<kernel>) contains this text or regex (repeatable: "
      "any)");
  cmd->add_option("--skip", flags->skip, "leave out cases whose id contains this text or regex (repeatable)");
  cmd->add_option("--gate-baseline", flags->gate_baseline,
                  "also write the baseline of the subset without the --gate-skip cases (the CI gate's)");
  cmd->add_option("--gate-skip", flags->gate_skip,
                  "cases the CI gate leaves out (text or regex; repeatable)");
  cmd->add_option("--threads", flags->threads, "model threads (0 = all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([flags, exit_code] { *exit_code = run_accuracy(*flags); });
}

}  // namespace attnscope::cli
