// SPDX-License-Identifier: Apache-2.0
// What changed between two reports of the same workload, per kernel and metric: regressions first (more
// bytes, more time, a larger |modeled - measured| error), then improvements, then neutral changes.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "attnscope/reports/report.hpp"

namespace attnscope::reports {

enum class ChangeKind { regression, improvement, neutral, unchanged };

struct MetricChange {
  std::string kernel;
  Metric metric = Metric::dram_read;
  std::string field;  // "measured", "modeled" or "|error|"
  std::string unit;   // the metric's unit; "" for |error|
  std::optional<double> old_value, new_value;
  std::optional<double> relative_change;  // (new - old) / |old|; absent when old is 0 or a side is missing
  ChangeKind kind = ChangeKind::unchanged;
};

struct ReportComparison {
  std::vector<MetricChange> changes;  // sorted: regressions (largest first), improvements, neutral, unchanged
  std::vector<std::string> notes;     // kernels or metrics present on one side only, different workloads...
  std::size_t regressions() const;
};

// threshold: relative change (0.02 = 2 %) below which a change counts as unchanged. For the error field the
// threshold is in percentage points of |error| (0.02 = 2 points).
ReportComparison compare_reports(const Report& old_report, const Report& new_report, double threshold);
std::string to_text(const ReportComparison& comparison, bool show_unchanged = false);
std::string to_markdown(const ReportComparison& comparison);

}  // namespace attnscope::reports
