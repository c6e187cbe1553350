// SPDX-License-Identifier: Apache-2.0
#include "command_line.hpp"

#include <fstream>

namespace attnscope::cli {

std::string invoked_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string out, arg;
  while (std::getline(in, arg, '\0')) out += (out.empty() ? "" : " ") + arg;
  return out;
}

}  // namespace attnscope::cli
