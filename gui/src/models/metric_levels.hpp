// SPDX-License-Identifier: Apache-2.0
// The memory levels the GUI shows, by their report metric keys (reports/report.hpp), with display names,
// and the number formatting every view shares (bytes in B/KiB/MiB/GiB, times in ns/us/ms).
#pragma once
#include <QString>
#include <QStringList>
#include <array>
#include <optional>
#include <string_view>

#include "attnscope/reports/report.hpp"

namespace attnscope::gui {

struct MetricLevel {
  std::string_view key;    // report metric key
  std::string_view label;  // what the user reads
};

// The byte levels of the hierarchy, in the order charts and tooltips list them.
inline constexpr std::array<MetricLevel, 6> kByteLevels{{
    {"dram_read", "HBM read"},
    {"dram_write", "HBM write"},
    {"l2_read", "L2 read"},
    {"l2_write", "L2 write"},
    {"smem_read", "Shared read"},
    {"smem_write", "Shared write"},
}};

QString levelLabel(std::string_view key);  // label for a known key, the key itself otherwise

// The measured or modeled side of one metric, absent when the map lacks the key or the side is unset.
enum class Side { measured, modeled };
std::optional<double> metricValue(const reports::Metrics& metrics, std::string_view key, Side side);

QString formatBytes(double bytes);      // "12.3 MiB"; negative values keep their sign
QString formatSeconds(double seconds);  // "812 ns", "3.41 us", "1.20 ms", "2.00 s"
QString formatOptionalBytes(const std::optional<double>& bytes);  // "–" when absent
QString formatPercent(double fraction);                           // 0.0123 -> "+1.23 %"

}  // namespace attnscope::gui
