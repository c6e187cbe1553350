// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the component owner. Registers the subcommand so --help lists it.
#include <cstdio>

#include "commands.hpp"
#include "exit_codes.hpp"

namespace attnscope::cli {
void add_sweep_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("sweep", "(sweep: not implemented yet)");
  cmd->callback([exit_code] {
    std::fprintf(stderr, "attnscope sweep: not implemented yet\n");
    *exit_code = kFailure;
  });
}
void add_merge_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("merge", "(merge: not implemented yet)");
  cmd->callback([exit_code] { *exit_code = kFailure; });
}
}  // namespace attnscope::cli
