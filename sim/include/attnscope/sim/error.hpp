// SPDX-License-Identifier: Apache-2.0
// The model's one error type: bad input gets a clear message, never a crash or an exit().
#pragma once
#include <stdexcept>
#include <string>

namespace attnscope::sim {

class InvalidInput : public std::invalid_argument {
 public:
  explicit InvalidInput(const std::string& what) : std::invalid_argument(what) {}
};

}  // namespace attnscope::sim
