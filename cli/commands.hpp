// SPDX-License-Identifier: Apache-2.0
// Each subcommand lives in its own file and registers itself on the top-level app. The callback runs the
// command and stores its exit code in *exit_code.
#pragma once
#include <CLI/CLI.hpp>

namespace attnscope::cli {

void add_simulate_command(CLI::App& app, int* exit_code);  // cmd_simulate.cpp
void add_profile_command(CLI::App& app, int* exit_code);   // cmd_profile.cpp
void add_report_command(CLI::App& app, int* exit_code);    // cmd_report.cpp
void add_compare_command(CLI::App& app, int* exit_code);   // cmd_compare.cpp
void add_sweep_command(CLI::App& app, int* exit_code);     // cmd_sweep.cpp
void add_merge_command(CLI::App& app, int* exit_code);     // cmd_sweep.cpp
void add_run_command(CLI::App& app, int* exit_code);       // cmd_run.cpp: the main job of the quick start
void add_accuracy_command(CLI::App& app, int* exit_code);  // cmd_accuracy.cpp: model vs measurements
void add_metrics_command(CLI::App& app, int* exit_code);   // cmd_metrics.cpp: the metric table

// `attnscope profile [selection] -- COMMAND ARGS...` (cmd_profile_program.cpp): kernels of another program.
// Its own parser: `-k` there is a kernel-name regex (as ncu's), where `profile`'s own `-k` picks attnscope's
// kernels. main() hands it the command line when is_program_profile() says the command line is that form.
bool is_program_profile(int argc, const char* const* argv);
int run_profile_program(int argc, const char* const* argv);

}  // namespace attnscope::cli
