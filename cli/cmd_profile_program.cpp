// SPDX-License-Identifier: Apache-2.0
// `attnscope profile [selection] -- COMMAND ARGS...`: measure the attention kernels another program launches
// (PyTorch's scaled_dot_product_attention, Triton kernels, any CUDA program) with the counters and the cache
// protocol of attnscope's own kernels. The program runs with the collector (libattnscope_inject.so) injected
// through CUDA_INJECTION64_PATH; the collector writes one JSON line per measured launch; this command reads
// them back and writes the report (docs/profile-other-programs.md).
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnscope/profiler/error.hpp"
#include "attnscope/profiler/foreign_kernel_list.hpp"
#include "attnscope/profiler/foreign_records.hpp"
#include "attnscope/profiler/foreign_report.hpp"
#include "attnscope/profiler/foreign_selection.hpp"
#include "attnscope/profiler/gpu_session.hpp"
#include "attnscope/profiler/recognize.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/writers.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"
#include "program_runner.hpp"

namespace attnscope::cli {

int exit_code_for(profiler::ErrorCode code);  // cmd_profile.cpp

namespace {

namespace fs = std::filesystem;

struct ProgramFlags {
  std::string kernel_regex;
  std::string nvtx_regex;
  std::uint64_t skip = 0;
  std::optional<std::uint64_t> count;
  std::string out;
  std::string records;
  std::string replay = "user";
  bool list_kernels = false;
  bool inject_log = false;
  std::vector<std::string> command;
};

// The options only this form has: their presence alone makes a command line this form (a missing `--` is
// then reported by this parser, not as `profile`'s own unknown option).
constexpr const char* kProgramOnlyOptions[] = {
    "--kernel-name",  "--nvtx-include", "--launch-skip", "--launch-count", "-c",
    "--list-kernels", "--records",      "--inject-log"};

// Kernel names, NVTX messages and the collector's words are the program's text: shown safe for a terminal.
void say(const std::string& text) {
  std::fprintf(stderr, "attnscope profile: %s\n", reports::terminal_text(text).c_str());
}

// Writes the selection and mode into the environment names of foreign_selection.hpp.
std::map<std::string, std::string> collector_environment(const ProgramFlags& f, const std::string& inject,
                                                         const std::optional<std::string>& cupti,
                                                         const std::string& records) {
  std::map<std::string, std::string> env;
  env["CUDA_INJECTION64_PATH"] = inject;
  if (cupti) env["NVTX_INJECTION64_PATH"] = *cupti;
  env[profiler::kEnvInjectOut] = records;
  if (!f.kernel_regex.empty()) env[profiler::kEnvInjectKernel] = f.kernel_regex;
  if (!f.nvtx_regex.empty()) env[profiler::kEnvInjectNvtx] = f.nvtx_regex;
  if (f.skip) env[profiler::kEnvInjectSkip] = std::to_string(f.skip);
  if (f.count) env[profiler::kEnvInjectCount] = std::to_string(*f.count);
  if (f.list_kernels) env[profiler::kEnvInjectList] = "1";
  if (f.replay != "user") env[profiler::kEnvInjectReplay] = f.replay;
  if (f.inject_log || std::getenv(profiler::kEnvInjectLog)) env[profiler::kEnvInjectLog] = "1";
  return env;
}

std::string temporary_records_path() {
  std::string pattern = (fs::temp_directory_path() / "attnscope-records-XXXXXX").string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0)
    throw profiler::ProfilerError(profiler::ErrorCode::io_error,
                                  "cannot create a temporary file for the collector's records in " +
                                      fs::temp_directory_path().string());
  ::close(fd);
  return pattern;
}

std::string selection_text(const ProgramFlags& f) {
  std::vector<std::string> parts;
  if (!f.kernel_regex.empty()) parts.push_back(fmt::format("kernel name ~ /{}/", f.kernel_regex));
  if (!f.nvtx_regex.empty()) parts.push_back(fmt::format("an open NVTX range ~ /{}/", f.nvtx_regex));
  if (f.skip) parts.push_back(fmt::format("after skipping {} matching launches", f.skip));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out.empty() ? "every launch" : out;
}

// Why nothing was measured, with what the program did launch, so the selection can be fixed.
std::string nothing_measured_text(const ProgramFlags& f, const profiler::ForeignRun& run) {
  if (!run.start)
    return "no kernel launched or recorded: the collector never started in the program, so it made no CUDA "
           "call (no GPU work), or the CUDA driver could not load the collector (run with --inject-log, or "
           "check that libcupti and libnvperf_host are found beside libattnscope_inject.so)";
  if (!run.summary)
    return "no launch was measured, and the program ended before the collector's summary (it was killed or "
           "called _exit): nothing was recorded";
  const auto& s = *run.summary;
  if (s.launches_seen == 0)
    return "no kernel launched: the program initialised CUDA but launched no kernel through the driver API "
           "(CUDA graph launches are not seen)";
  std::string names;
  std::size_t shown = 0;
  for (const auto& [name, launches] : s.kernels) {
    if (shown++ == 8) break;
    names +=
        fmt::format("\n    {:>6} x {}", launches, name.size() > 160 ? name.substr(0, 157) + "..." : name);
  }
  std::string text = fmt::format(
      "no launch matched the selection ({}): the program launched {} kernels ({}{} distinct), {} matched the "
      "filters. Kernels it launched:{}",
      selection_text(f), s.launches_seen, s.kernels.size(), s.kernels.size() >= 50 ? "+" : "", s.matched,
      names);
  if (!f.nvtx_regex.empty() && !run.launches.empty()) text += "\n  (check the NVTX regex too)";
  text += "\n  `attnscope profile --list-kernels -- COMMAND` lists every kernel with its launches.";
  return text;
}

// One line per measured launch, and how it was measured (the collector's notes are not in the report).
void print_launch(const profiler::ForeignLaunchRecord& r) {
  const auto& l = r.launch;
  std::printf("launch %llu %s: grid (%u, %u, %u) block (%u, %u, %u), %s replay, %d pass(es)%s\n",
              static_cast<unsigned long long>(l.launch_index),
              reports::terminal_text(profiler::short_kernel_name(l.demangled_name)).c_str(), l.grid[0],
              l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
              l.replay == profiler::ForeignReplay::user ? "user" : "kernel", r.passes,
              l.event_time_s ? fmt::format(", {:.3f} ms", *l.event_time_s * 1e3).c_str() : "");
  for (const auto& note : r.notes) std::printf("    %s\n", reports::terminal_text(note).c_str());
  if (!r.annotation.empty())
    std::printf("    annotation: %s\n", reports::terminal_text(r.annotation).c_str());
}

// What the collector recorded, turned into the report (or the kernel list), the messages and the exit code.
int finish(const ProgramFlags& f, const profiler::ForeignRun& run, const ChildStatus& status,
           const std::string& command_line) {
  for (const auto& u : run.unreadable) say("warning: collector record unreadable: " + u);
  // The collector's errors, each once; the first that has its own exit code decides the exit code.
  std::optional<int> error_exit;
  for (const auto& e : run.errors) {
    say(fmt::format("collector error{}: {}",
                    e.launch_index ? fmt::format(" at launch {} ({})", *e.launch_index,
                                                 profiler::short_kernel_name(e.kernel))
                                   : std::string(),
                    e.message));
    for (const auto code : {profiler::ErrorCode::no_counter_permission,
                            profiler::ErrorCode::metric_unsupported, profiler::ErrorCode::no_cuda_device,
                            profiler::ErrorCode::driver_too_old, profiler::ErrorCode::bad_input})
      if (e.code == profiler::to_string(code) && !error_exit) error_exit = exit_code_for(code);
  }
  const profiler::DeviceInfo device = run.device.value_or(profiler::DeviceInfo{});
  bool wrote = false;
  if (f.list_kernels && !run.launches.empty()) {
    reports::write_file_atomic(f.out, profiler::kernel_list_json(run.launches, device, command_line));
    std::printf("%zu launches of the program recorded: wrote %s\n", run.launches.size(), f.out.c_str());
    wrote = true;
  } else if (!run.launches.empty()) {
    // The recogniser reads a launch's shape from its NVTX ranges (the "attnscope:" entry): handed on as is.
    std::vector<profiler::ForeignLaunch> launches;
    for (const auto& r : run.launches) {
      launches.push_back(r.launch);
      print_launch(r);
    }
    const reports::Report report = profiler::report_foreign_launches(launches, device, command_line);
    std::printf("%s", reports::overview_text(report).c_str());
    reports::write_report_json(report, f.out);
    std::printf("measured %zu launch(es) on %s: wrote %s\n", run.launches.size(),
                device.name.empty() ? "the GPU" : device.name.c_str(), f.out.c_str());
    wrote = true;
  }
  if (!status.ok())
    say(fmt::format(
        "the program {}{}", status.describe(),
        wrote ? fmt::format("; the report holds the {} launch(es) measured before", run.launches.size())
              : std::string("; nothing was written")));
  if (error_exit) return *error_exit;
  if (!status.ok()) return kProgramFailed;
  if (!wrote) {
    say(f.list_kernels && run.start
            ? "no kernel launched: the program launched no kernel through the driver API"
            : nothing_measured_text(f, run));
    return kNothingMeasured;
  }
  return kOk;
}

int run(const ProgramFlags& f, const std::string& command_line) {
  // Bad regexes before anything runs.
  try {
    profiler::LaunchSelector check({f.kernel_regex, f.nvtx_regex, f.skip, f.count});
  } catch (const std::invalid_argument& e) {
    say(e.what());
    return kBadInput;
  }
  if (f.count && *f.count == 0) {
    say("--launch-count 0 measures nothing");
    return kBadInput;
  }
  if (!profiler::built_with_cuda()) {
    say("measuring another program's kernels needs a CUDA build of attnscope (nvcc and CUPTI at build time): "
        "this one was built without CUDA. `attnscope simulate` gives the model's prediction without a GPU");
    return kNoCudaDevice;
  }
  std::string why;
  const auto program = find_program(f.command.front(), why);
  if (!program) {
    say("cannot run the program: " + why);
    return kProgramNotFound;
  }
  std::string looked;
  const auto inject = find_inject_library(looked);
  if (!inject) {
    say(
        fmt::format("the collector library libattnscope_inject.so is missing (looked at {}): build the "
                    "attnscope_inject target (CUDA builds build it next to attnscope), or point "
                    "ATTNSCOPE_INJECT_LIB at it",
                    looked));
    return kInjectLibMissing;
  }
  if (const auto problem = collector_load_problem(*inject)) {
    say(
        fmt::format("the collector library {} cannot be loaded: {} (libcupti must be found beside it, on its "
                    "RUNPATH or on LD_LIBRARY_PATH)",
                    *inject, *problem));
    return kInjectLibMissing;
  }
  const auto cupti = find_cupti_library(*inject);
  if (!cupti) {
    if (!f.nvtx_regex.empty()) {
      say("--nvtx-include needs NVTX ranges, which reach the collector through libcupti, and no libcupti was "
          "found: set NVTX_INJECTION64_PATH (or ATTNSCOPE_CUPTI_LIB) to libcupti.so");
      return kInjectLibMissing;
    }
    say("warning: no libcupti found for NVTX_INJECTION64_PATH: the program's NVTX ranges (and attnscope: "
        "shape "
        "annotations) will not be seen");
  }
  const bool keep_records = !f.records.empty();
  const std::string records = keep_records ? f.records : temporary_records_path();
  if (keep_records) {
    std::error_code ec;
    fs::remove(records, ec);  // the collector appends
  }
  const auto env =
      child_environment(collector_environment(f, *inject, cupti, records), {"ATTNSCOPE_INJECT_"});

  ChildStatus status;
  try {
    status = run_program(*program, f.command, env);
  } catch (const std::runtime_error& e) {
    say(e.what());
    return kProgramNotFound;
  }
  const profiler::ForeignRun run = profiler::read_foreign_records(records);
  if (!keep_records) {
    std::error_code ec;
    fs::remove(records, ec);
  }
  return finish(f, run, status, command_line);
}

}  // namespace

bool is_program_profile(int argc, const char* const* argv) {
  if (argc < 2 || std::string_view(argv[1]) != "profile") return false;
  for (int i = 2; i < argc; ++i) {
    const std::string_view a(argv[i]);
    if (a == "--") return true;
    for (const char* o : kProgramOnlyOptions)
      if (a == o || (a.rfind(o, 0) == 0 && a.size() > std::string_view(o).size() &&
                     a[std::string_view(o).size()] == '='))
        return true;
  }
  return false;
}

int run_profile_program(int argc, const char* const* argv) {
  ProgramFlags f;
  CLI::App app{
      "attnscope profile [selection] -- COMMAND ARGS...: measure the kernels another program launches "
      "(PyTorch, Triton, any CUDA program) with attnscope's counters and cache protocol, one report "
      "entry per measured launch (docs/profile-other-programs.md)",
      "attnscope profile"};
  app.add_option("--kernel-name,-k", f.kernel_regex,
                 "measure only kernels whose demangled name contains a match of this regex (ECMAScript), "
                 "e.g. flash_fwd");
  app.add_option("--nvtx-include", f.nvtx_regex,
                 "measure only launches made while an NVTX range matching this regex is open");
  app.add_option("--launch-skip", f.skip, "skip this many matching launches first")->capture_default_str();
  app.add_option("--launch-count,-c", f.count, "measure at most this many matching launches (default: all)");
  app.add_option("--out,-o", f.out,
                 "report file (JSON; default attnscope-profile.json, or attnscope-kernels.json with "
                 "--list-kernels)");
  app.add_option("--replay", f.replay,
                 "user: attnscope saves and restores the kernel's memory and flushes L2 before every pass "
                 "(default); kernel: CUPTI's kernel replay")
      ->check(CLI::IsMember({"user", "kernel"}))
      ->capture_default_str();
  app.add_flag("--list-kernels", f.list_kernels,
               "record every kernel the program launches (names, grid, block, no counters) into --out");
  app.add_option(
      "--records", f.records,
      "keep the collector's raw JSON-lines records in this file (default: a temporary file, removed)");
  app.add_flag("--inject-log", f.inject_log,
               "the collector logs every step to stderr (ATTNSCOPE_INJECT_LOG=1)");
  app.add_option("command", f.command, "the program and its arguments, after --")->required();
  app.positionals_at_end();
  try {
    // argv[1] is "profile": parse what follows it.
    std::vector<std::string> args;
    for (int i = argc - 1; i >= 2; --i) args.emplace_back(argv[i]);
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kOk : kBadInput;
  }
  if (f.out.empty()) f.out = f.list_kernels ? "attnscope-kernels.json" : "attnscope-profile.json";
  try {
    return run(f, invoked_command_line());
  } catch (const profiler::ProfilerError& e) {
    say(e.what());
    return exit_code_for(e.code());
  } catch (const reports::ReportError& e) {
    say(std::string("could not write the report: ") + e.what());
    return kIoError;
  }
}

}  // namespace attnscope::cli
