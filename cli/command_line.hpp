// SPDX-License-Identifier: Apache-2.0
// The command line as typed, for report provenance.
#pragma once
#include <string>

namespace attnscope::cli {
std::string invoked_command_line();
}  // namespace attnscope::cli
