// SPDX-License-Identifier: Apache-2.0
// `attnscope accuracy`: the model against every committed measurement (kernel benchmarks in
// <data>/bench/kernels_*.json, profile reports in <data>/h200/**/*.json and *.json.gz): median and worst
// |relative error| per metric and kernel, against the metric table's targets. --check compares with the
// ratchet baseline (exit 3 on drift).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "attnscope/profiler/accuracy.hpp"
#include "attnscope/profiler/matrix.hpp"
#include "attnscope/profiler/remodel.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/output.hpp"
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
  reports::write_file_atomic(path, text);
}

int run_accuracy(const AccuracyFlags& f) {
  try {
    const fs::path data(f.data);
    std::vector<profiler::AccuracyCase> cases;
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
    const sim::GpuSpec gpu = sim::load_gpu_spec(f.gpu);
    profiler::ModelCache models(gpu);
    // Measurements of the GPU the spec describes: bench/kernels_<gpu>_*.json and everything under <gpu>/
    // (h200/, h100/): the model of one GPU is judged against that GPU's counters only.
    const fs::path measured = data / gpu.short_name;
    for (const fs::path& p : json_files(data / "bench", "kernels_" + gpu.short_name + "_")) {
      auto c = profiler::cases_from_benchmarks(p, models, f.threads);
      for (auto& x : c) x.id = "bench/" + p.filename().string() + ":" + x.id;
      for (auto& x : c)
        for (auto& [m, point] : x.points) point.case_id = x.id;
      std::erase_if(c, [&](const profiler::AccuracyCase& x) { return !keep(x.id); });
      sources.push_back(fmt::format("{} ({} cases)", p.filename().string(), c.size()));
      cases.insert(cases.end(), c.begin(), c.end());
    }
    // Profile reports anywhere under <gpu>/ (runs land in dated folders beside logs and other JSON, such as
    // ncu comparisons): a file that is not a report is listed as skipped, not fatal. Files are joined with
    // the model on `threads` threads; runs the model shares between files are simulated once.
    std::vector<fs::path> reports_found;
    if (fs::is_directory(measured))
      for (const auto& e : fs::recursive_directory_iterator(measured))
        if (e.is_regular_file() &&
            (e.path().extension() == ".json" || e.path().filename().string().ends_with(".json.gz")))
          reports_found.push_back(e.path());
    std::sort(reports_found.begin(), reports_found.end());
    struct FileResult {
      std::vector<profiler::AccuracyCase> cases;
      std::string source;
      std::size_t superseded = 0;  // kernels measured before they last changed
      std::exception_ptr error;
    };
    std::vector<FileResult> results(reports_found.size());
    std::atomic<std::size_t> next{0}, done{0};
    std::mutex progress;
    const unsigned pool =
        f.threads > 0 ? static_cast<unsigned>(f.threads) : std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::future<void>> workers;
    for (unsigned t = 0; t < std::min<std::size_t>(pool, reports_found.size()); ++t)
      workers.push_back(std::async(std::launch::async, [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < reports_found.size();) {
          const fs::path& p = reports_found[i];
          const std::string shown = fs::relative(p, data).string();
          FileResult& r = results[i];
          try {
            std::size_t superseded = 0;
            r.cases =
                profiler::cases_from_recording(reports::read_report(p), shown, models, keep, &superseded);
            r.superseded = superseded;
            if (!r.cases.empty() || (f.only.empty() && f.skip.empty()))
              r.source = superseded == 0
                             ? fmt::format("{} ({} measured kernels)", shown, r.cases.size())
                             : fmt::format("{} ({} measured kernels; {} of a kernel since changed left out)",
                                           shown, r.cases.size(), superseded);
          } catch (const reports::ReportError& e) {
            r.source = fmt::format("{} skipped: not a report ({})", shown, e.what());
          } catch (...) {
            r.error = std::current_exception();
          }
          const std::size_t n = ++done;
          if (n % 50 == 0 || n == reports_found.size()) {
            std::lock_guard lock(progress);
            fmt::print(stderr, "attnscope accuracy: {} of {} recordings joined with the model\n", n,
                       reports_found.size());
          }
        }
      }));
    for (auto& w : workers) w.get();
    std::size_t superseded = 0;
    for (FileResult& r : results) {
      if (r.error) std::rethrow_exception(r.error);
      superseded += r.superseded;
      if (!r.source.empty()) sources.push_back(r.source);
      cases.insert(cases.end(), r.cases.begin(), r.cases.end());
    }
    // Logs of `profile --matrix` in a folder without reports (committed where a run's reports could not be):
    // their forward points. Where the reports are there, they are the measurement and the log is not read;
    // other .log files (sanitizers, tests) have no point line and are not listed.
    std::vector<fs::path> logs;
    if (fs::is_directory(measured))
      for (const auto& e : fs::recursive_directory_iterator(measured))
        if (e.is_regular_file() && e.path().extension() == ".log") logs.push_back(e.path());
    std::sort(logs.begin(), logs.end());
    // A run folder with reports, in it or in a folder inside it (h200-.../matrix/).
    const auto has_reports = [](const fs::path& dir) {
      for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (e.path().extension() == ".json" || name.ends_with(".json.gz") || e.is_directory()) return true;
      }
      return false;
    };
    for (const fs::path& p : logs) {
      if (has_reports(p.parent_path())) continue;
      const std::string shown = fs::relative(p, data).string();
      profiler::MatrixLog log;
      try {
        log = profiler::read_matrix_log(p);
      } catch (const sim::InvalidInput&) {
        continue;  // not a matrix log
      }
      try {
        std::size_t left_out = 0;
        auto c = profiler::cases_from_matrix_log(log, p, shown, models, &left_out);
        std::erase_if(c, [&](const profiler::AccuracyCase& x) { return !keep(x.id); });
        sources.push_back(
            fmt::format("{} (matrix {} log: {} forward points, a naive point as its three kernels' sum; {} "
                        "backward points left out)",
                        shown, log.matrix, c.size(), left_out));
        cases.insert(cases.end(), c.begin(), c.end());
      } catch (const sim::InvalidInput& e) {
        sources.push_back(fmt::format("{} skipped: {}", shown, e.what()));
      }
    }
    // Benchmark files and matrix logs have no report to carry a kernel_changed note: their cases of a kernel
    // measured before it last changed are left out here, as cases_from_recording leaves out a report's.
    {
      const std::size_t before = cases.size();
      std::erase_if(cases, [](const profiler::AccuracyCase& c) {
        return profiler::measured_before_kernel_change(c.kernel, c.date, c.workload.seq_kv);
      });
      superseded += before - cases.size();
    }
    if (f.training_only) std::erase_if(cases, [](const profiler::AccuracyCase& c) { return !c.training; });
    const std::size_t measurements = cases.size();
    if (measurements == 0) {
      // A typo in --data (or filters that keep nothing) must not pass a check on nothing.
      fmt::print(stderr,
                 "error: no measurement found under {} (bench/kernels_*.json, h200/**/*.json, *.json.gz){}\n",
                 data.string(), f.only.empty() && f.skip.empty() ? "" : " that --only/--skip keep");
      return kBadInput;
    }
    std::size_t replaced = 0;
    cases = profiler::newest_per_case(std::move(cases), &replaced);
    const auto points = profiler::points_of(cases);
    const auto rows = profiler::accuracy_table(points);
    if (!f.csv.empty()) {
      std::ofstream out(f.csv);
      if (!out) throw sim::InvalidInput("cannot write " + f.csv);
      out << "case,kernel,metric,measured,modeled,training\n";
      for (const auto& p : points)
        out << '"' << p.case_id << "\"," << p.kernel << ',' << profiler::accuracy_metric_name(p.metric) << ','
            << p.measured << ',' << p.modeled << ',' << p.training << '\n';
    }
    const std::string table = profiler::accuracy_markdown(rows);
    fmt::print("Model {} against {} measured cases:\n", gpu.short_name, cases.size());
    for (const auto& s : sources) fmt::print("  {}\n", s);
    fmt::print(
        "Newest measurement per case (kernel, workload, tiles, cache mode, method) by provenance date: {} "
        "measurements, {} cases, {} older measurements fully replaced by newer ones.\n",
        measurements, cases.size(), replaced);
    if (superseded > 0)
      fmt::print(
          "Left out: {} measured kernels that ran an earlier version of the kernel than the model describes "
          "(each report says which, in its kernel_changed note).\n",
          superseded);
    if (!f.only.empty()) fmt::print("Only cases whose id contains: {}\n", fmt::join(f.only, " or "));
    if (!f.skip.empty()) fmt::print("Skipping cases whose id contains: {}\n", fmt::join(f.skip, " or "));
    fmt::print("Training subset: tiled, d 64, fp16, non-causal, 4k tokens (n in parentheses).\n\n{}\n",
               table);
    if (!f.markdown.empty()) write_markdown(f.markdown, table);
    const fs::path baseline =
        f.baseline.empty() ? data / ".." / "accuracy" / "baseline.json" : fs::path(f.baseline);
    if (f.write_baseline) {
      profiler::write_baseline(baseline, rows);
      fmt::print("baseline written: {}\n", baseline.string());
    }
    if (!f.gate_baseline.empty()) {
      std::vector<profiler::AccuracyPoint> gate_points;
      for (const auto& p : points)
        if (std::none_of(gate_skip.begin(), gate_skip.end(),
                         [&](const std::regex& r) { return std::regex_search(p.case_id, r); }))
          gate_points.push_back(p);
      profiler::write_baseline(f.gate_baseline, profiler::accuracy_table(gate_points));
      fmt::print("gate baseline written: {} ({} of {} points)\n", f.gate_baseline, gate_points.size(),
                 points.size());
    }
    if (f.check) {
      const auto failures = profiler::check_against_baseline(rows, profiler::read_baseline(baseline));
      for (const auto& why : failures) fmt::print(stderr, "accuracy check: {}\n", why);
      if (!failures.empty()) return kGateFailed;
      fmt::print("accuracy check: no row drifted past its target or baseline ({})\n", baseline.string());
    }
    return kOk;
  } catch (const reports::OutputError& e) {
    fmt::print(stderr, "attnscope accuracy: {}\n", e.what());
    return kIoError;
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
