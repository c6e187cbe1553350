// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the gate expression parser, and evaluation of what it accepts against the small profile
// fixture. Rejection must be a GateError.
#include <cstdint>
#include <string>

#include "attnscope/reports/gate.hpp"
#include "attnscope/reports/json_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnscope::reports;
  static const Report report = read_report(ATTNSCOPE_DATA_DIR "/reports/synthetic-profile-small.json");
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)evaluate_gate(parse_gate(text), report);
  } catch (const GateError&) {
  }
  return 0;
}
