// SPDX-License-Identifier: Apache-2.0
// The model's error type (bad input gets a clear message, never a crash or an exit()), and the stop of a
// cancelled run.
#pragma once
#include <stdexcept>
#include <string>

namespace attnscope::sim {

class InvalidInput : public std::invalid_argument {
 public:
  explicit InvalidInput(const std::string& what) : std::invalid_argument(what) {}
};

// Not an error of the input: the caller asked a running simulation to stop (SimOptions::cancel), e.g. the
// GUI because a newer what-if question made it stale.
class Cancelled : public std::runtime_error {
 public:
  Cancelled() : std::runtime_error("simulation cancelled") {}
};

}  // namespace attnscope::sim
