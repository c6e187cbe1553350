// SPDX-License-Identifier: Apache-2.0
#include "models/metric_levels.hpp"

#include <cmath>
#include <string>

#include "attnscope/reports/units.hpp"

namespace attnscope::gui {

QString levelLabel(vocab::Metric metric) {
  const std::string_view label = vocab::info(metric).label;
  return QString::fromUtf8(label.data(), static_cast<qsizetype>(label.size()));
}

QString metricKey(vocab::Metric metric) {
  const std::string_view key = vocab::key(metric);
  return QString::fromUtf8(key.data(), static_cast<qsizetype>(key.size()));
}

std::optional<double> metricValue(const reports::Metrics& metrics, vocab::Metric metric, Side side) {
  const reports::Value* v = metrics.find(metric);
  if (v == nullptr) return std::nullopt;
  return side == Side::measured ? v->measured : v->modeled;
}

QString formatBytes(double bytes) {
  return QString::fromStdString(reports::format_bytes(bytes));
}

QString formatSeconds(double seconds) {
  return QString::fromStdString(reports::format_seconds(seconds));
}

QString formatMetric(double value, vocab::Metric metric) {
  return QString::fromStdString(reports::format_metric(value, metric));
}

QString formatOptionalBytes(const std::optional<double>& bytes) {
  return bytes ? formatBytes(*bytes) : QStringLiteral("–");
}

QString formatPercent(double fraction) {
  return (fraction >= 0 ? QStringLiteral("+") : QString()) + QString::number(fraction * 100.0, 'f', 2) +
         QStringLiteral(" %");
}

}  // namespace attnscope::gui
