// SPDX-License-Identifier: Apache-2.0
// attnscope: where the bytes of an attention kernel go, measured on the GPU and predicted by a model.
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>

#include "attnscope/reports/gate.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/output.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/json_input.hpp"
#include "attnscope/version.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"

namespace {

// A closed standard stream would be handed to the next file opened (a report's temporary file would then
// receive the table printed to stdout). Closed ones get /dev/full instead, so every write to them fails
// and the failure is reported; returns whether stdout was closed.
bool guard_standard_streams() {
  bool stdout_closed = false;
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int replacement = ::open(fd == 0 ? "/dev/null" : "/dev/full", fd == 0 ? O_RDONLY : O_WRONLY);
    if (replacement >= 0 && replacement != fd) {
      ::dup2(replacement, fd);
      ::close(replacement);
    }
    if (fd == 1) stdout_closed = true;
  }
  return stdout_closed;
}

// What was printed must have reached stdout: a full disk or a closed stdout is an I/O error (exit 15), not
// success.
int check_stdout(int exit_code, bool stdout_closed) {
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
  if (!failed) return exit_code;
  const int err = errno;
  std::fprintf(stderr, "attnscope: error: cannot write standard output: %s\n",
               stdout_closed ? "it is closed" : std::strerror(err));
  // A failure the command already reported (a failed gate, say) keeps its own code.
  return exit_code == attnscope::cli::kOk ? attnscope::cli::kIoError : exit_code;
}

// Errors that escape a command's own handling get the exit code their kind is documented with.
int exit_code_for_exception(int command_code) {
  using namespace attnscope;
  try {
    throw;
  } catch (const reports::OutputError& e) {
    std::fprintf(stderr, "attnscope: error: %s\n", e.what());
    return cli::kIoError;
  } catch (const std::filesystem::filesystem_error& e) {
    std::fprintf(stderr, "attnscope: error: %s\n", e.what());
    return cli::kIoError;
  } catch (const reports::GateError& e) {
    std::fprintf(stderr, "attnscope: error: %s\n", e.what());
    return cli::kBadInput;
  } catch (const reports::ReportError& e) {
    std::fprintf(stderr, "attnscope: error: %s\n", e.what());
    return cli::kMalformedReport;
  } catch (const sim::InputFileError& e) {
    std::fprintf(stderr, "attnscope: error: %s\n", e.what());
    return cli::kMalformedReport;
  } catch (const sim::InvalidInput& e) {
    std::fprintf(stderr, "attnscope: error: %s\n", e.what());
    return cli::kBadInput;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "attnscope: error: out of memory\n");
    return cli::kFailure;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnscope: error: %s\n", e.what());
    return command_code != cli::kOk ? command_code : cli::kFailure;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace attnscope;
  const bool stdout_closed = guard_standard_streams();
  // `attnscope profile ... -- COMMAND` has its own parser (its -k is a kernel-name regex).
  if (cli::is_program_profile(argc, argv)) {
    int code = cli::kOk;
    try {
      code = cli::run_profile_program(argc, argv);
    } catch (...) {
      code = exit_code_for_exception(cli::kOk);
    }
    return check_stdout(code, stdout_closed);
  }
  CLI::App app{"attnscope: a memory-hierarchy simulator and profiler for GPU attention kernels"};
  app.require_subcommand(0, 1);
  bool show_version = false;
  app.add_flag("--version,-V", show_version, "print the version and git revision");
  int exit_code = cli::kOk;
  cli::add_run_command(app, &exit_code);
  cli::add_simulate_command(app, &exit_code);
  cli::add_profile_command(app, &exit_code);
  cli::add_report_command(app, &exit_code);
  cli::add_compare_command(app, &exit_code);
  cli::add_sweep_command(app, &exit_code);
  cli::add_merge_command(app, &exit_code);
  cli::add_accuracy_command(app, &exit_code);
  cli::add_metrics_command(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return check_stdout(rc == 0 ? 0 : cli::kBadInput, stdout_closed);
  } catch (...) {
    return check_stdout(exit_code_for_exception(exit_code), stdout_closed);
  }
  if (show_version) {
    std::printf("attnscope %s (git %s)\n", kVersion, kGitRevision);
    return check_stdout(cli::kOk, stdout_closed);
  }
  if (app.get_subcommands().empty()) {
    std::printf("%s", app.help().c_str());
    return check_stdout(cli::kOk, stdout_closed);
  }
  return check_stdout(exit_code, stdout_closed);
}
