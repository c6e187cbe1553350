// SPDX-License-Identifier: Apache-2.0
// attnscope: where the bytes of an attention kernel go, measured on the GPU and predicted by a model.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>

#include "attnscope/version.hpp"
#include "commands.hpp"
#include "exit_codes.hpp"

int main(int argc, char** argv) {
  using namespace attnscope;
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
    return rc == 0 ? 0 : cli::kBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attnscope: error: %s\n", e.what());
    return exit_code != cli::kOk ? exit_code : cli::kFailure;
  }
  if (show_version) {
    std::printf("attnscope %s (git %s)\n", kVersion, kGitRevision);
    return 0;
  }
  if (app.get_subcommands().empty()) {
    std::printf("%s", app.help().c_str());
    return 0;
  }
  return exit_code;
}
