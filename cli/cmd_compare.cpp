// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER: replaced by the component owner. Registers the subcommand so --help lists it.
#include <cstdio>

#include "commands.hpp"
#include "exit_codes.hpp"

namespace attnscope::cli {
void add_compare_command(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("compare", "(compare: not implemented yet)");
  cmd->callback([exit_code] {
    std::fprintf(stderr, "attnscope compare: not implemented yet\n");
    *exit_code = kFailure;
  });
}
}  // namespace attnscope::cli
