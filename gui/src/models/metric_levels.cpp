// SPDX-License-Identifier: Apache-2.0
#include "models/metric_levels.hpp"

#include <cmath>
#include <string>

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
  const double magnitude = std::abs(bytes);
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double scaled = magnitude;
  while (scaled >= 1024.0 && unit < 4) {
    scaled /= 1024.0;
    ++unit;
  }
  const QString sign = bytes < 0 ? QStringLiteral("-") : QString();
  if (unit == 0) return sign + QString::number(scaled, 'f', 0) + QStringLiteral(" B");
  return sign + QString::number(scaled, 'f', scaled < 10 ? 2 : 1) + QLatin1Char(' ') +
         QLatin1String(units[unit]);
}

QString formatSeconds(double seconds) {
  const double magnitude = std::abs(seconds);
  if (magnitude < 1e-6) return QString::number(seconds * 1e9, 'f', 0) + QStringLiteral(" ns");
  if (magnitude < 1e-3) return QString::number(seconds * 1e6, 'f', 2) + QStringLiteral(" us");
  if (magnitude < 1.0) return QString::number(seconds * 1e3, 'f', 2) + QStringLiteral(" ms");
  return QString::number(seconds, 'f', 2) + QStringLiteral(" s");
}

QString formatOptionalBytes(const std::optional<double>& bytes) {
  return bytes ? formatBytes(*bytes) : QStringLiteral("–");
}

QString formatPercent(double fraction) {
  return (fraction >= 0 ? QStringLiteral("+") : QString()) + QString::number(fraction * 100.0, 'f', 2) +
         QStringLiteral(" %");
}

}  // namespace attnscope::gui
