// SPDX-License-Identifier: Apache-2.0
// Gates: one-line checks a CI job puts on a report, e.g.
//
//   tiled.dram_read.error < 5%        |relative error| of the modeled DRAM reads below 5 %
//   tiled.time < 0.6ms                measured time if measured, else modeled
//   naive.qk.dram_write.measured <= 1.2GB
//   tiled.l2_read.modeled > 0
//
// Grammar: KERNEL.METRIC[.FIELD] OP VALUE[UNIT]. KERNEL may contain dots ("naive.qk"); a kernel name that
// is a prefix of several kernels ("naive") means their sum. FIELD is measured | modeled | error (default:
// measured when the report has it, else modeled). The error field compares the absolute relative error
// |modeled - measured| / measured, so "< 5%" means within 5 % either way. OP is < <= > >= == !=.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/reports/report.hpp"

namespace attnscope::reports {

class GateError : public std::invalid_argument {
 public:
  explicit GateError(const std::string& what) : std::invalid_argument(what) {}
};

enum class GateField { automatic, measured, modeled, error };
enum class Comparison { less, less_equal, greater, greater_equal, equal, not_equal };

struct Gate {
  std::string text;  // as the user wrote it
  std::string kernel;
  std::string metric;
  GateField field = GateField::automatic;
  Comparison op = Comparison::less;
  double threshold = 0;  // in base units (bytes, seconds, fraction for %)
  std::string threshold_text;
};

struct GateResult {
  Gate gate;
  bool passed = false;
  std::optional<double> actual;  // the value compared (absent when the report lacks it: the gate fails)
  std::string field_used;        // "measured", "modeled" or "error"
  std::string message;           // one line: "tiled.time = 0.71 ms (measured), wanted < 0.6 ms"
};

// Syntax only; throws GateError with the problem and the expected form.
Gate parse_gate(std::string_view text);
// Checks kernel, metric and units against the report and evaluates. Throws GateError for an unknown kernel
// or metric (listing what the report has) or a unit that does not fit the metric; a missing value is a
// failed gate, not an error.
GateResult evaluate_gate(const Gate& gate, const Report& report);
std::vector<GateResult> evaluate_gates(const std::vector<std::string>& gate_texts, const Report& report);
std::string_view to_string(Comparison op);

}  // namespace attnscope::reports
