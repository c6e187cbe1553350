// SPDX-License-Identifier: Apache-2.0
// The memory levels the GUI shows, as metrics of the metric table (vocab/metric.hpp), with display names,
// and the number formatting every view shares (the CLI's: decimal bytes, B/KB/MB/GB; times in ns/us/ms).
#pragma once
#include <QString>
#include <QStringList>
#include <array>
#include <optional>
#include <string_view>

#include "attnscope/reports/report.hpp"

namespace attnscope::gui {

// The byte levels of the hierarchy, in the order charts and tooltips list them (labels: the metric table's).
inline constexpr std::array<vocab::Metric, 6> kByteLevels{{
    vocab::Metric::dram_read,
    vocab::Metric::dram_write,
    vocab::Metric::l2_read,
    vocab::Metric::l2_write,
    vocab::Metric::smem_read,
    vocab::Metric::smem_write,
}};

QString levelLabel(vocab::Metric metric);  // what the user reads
QString metricKey(vocab::Metric metric);    // the report key, for combo-box data and exports

// The measured or modeled side of one metric, absent when the metrics lack it or the side is unset.
enum class Side { measured, modeled };
std::optional<double> metricValue(const reports::Metrics& metrics, vocab::Metric metric, Side side);

// One unit convention with the CLI and the HTML report (reports/units.hpp): decimal prefixes, "12.3 MB".
QString formatBytes(double bytes);      // "12.3 MB"; negative values keep their sign
QString formatSeconds(double seconds);  // "812 ns", "3.41 us", "1.2 ms", "2 s"
QString formatMetric(double value, vocab::Metric metric);  // in the metric's unit (the metric table's)
QString formatOptionalBytes(const std::optional<double>& bytes);  // "–" when absent
QString formatPercent(double fraction);                           // 0.0123 -> "+1.23 %"

}  // namespace attnscope::gui
