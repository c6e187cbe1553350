// SPDX-License-Identifier: Apache-2.0
// The first screen of a report: for each kernel, the relative error of every metric against the project's
// target for it (the metric table's), worst kernel first, with one verdict line per kernel. The terminal
// table, the HTML report and the Markdown summary all read it, so they say the same thing.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "attnscope/reports/report.hpp"

namespace attnscope::reports {

enum class CellStatus {
  meets,         // |error| within the median target
  near,          // within the worst-case target only
  misses,        // beyond the worst-case target
  no_target,     // both sides present, no target for this metric
  not_modeled,   // measured; the model does not predict it (why: the metric table)
  not_measured,  // modeled only
};

struct OverviewCell {
  Metric metric;
  Value value;
  std::optional<double> error;  // signed relative error, when both sides are present
  CellStatus status = CellStatus::no_target;
};

struct KernelOverview {
  std::string kernel;
  std::vector<OverviewCell> cells;  // the metric table's order; only metrics the kernel has
  // Worst |error| / worst-case target over the metrics with a target (0 when none): the sort key.
  double worst_ratio = 0;
  std::string verdict;  // e.g. "misses 1 of 6 targets: time +41.2 % (target 10 % / 20 %)"
};

// The metrics the first screen shows (bytes at each level and time); the rest go to the appendix.
bool is_headline(Metric m);

// Every kernel of `report`, worst first (a kernel without any measured metric last, in launch order).
std::vector<KernelOverview> overview(const Report& report);

// The targets as a person reads them, from the metric table: "HBM 3 % / 8 %, L2 5 % / 10 %, time 10 % / 20 %"
// (one entry per level and target).
std::string targets_text();

// What a cell reads as: "+1.2 %", "not modeled", "–".
std::string cell_text(const OverviewCell& cell);

// "2,048 of 65,536 tiles (batch 0 / head 0)" for a kernel that keeps part of its tiles; "" when it keeps all
// it has (or has none).
std::string tile_coverage(const KernelEntry& kernel);

}  // namespace attnscope::reports
