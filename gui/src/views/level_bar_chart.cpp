// SPDX-License-Identifier: Apache-2.0
#include "views/level_bar_chart.hpp"

#include <QPainter>
#include <algorithm>
#include <cmath>

#include "models/metric_levels.hpp"

namespace attnscope::gui {
namespace {
constexpr double kTitle = 44, kLegend = 28, kMargin = 10, kPanelGap = 12, kPanelHead = 40, kPanelFoot = 22;

QColor colorOf(LevelBarChart::Series s) {
  switch (s) {
    case LevelBarChart::Series::measured:
      return {230, 126, 34};
    case LevelBarChart::Series::modeled:
      return {41, 128, 185};
    case LevelBarChart::Series::whatIf:
      return {142, 68, 173};
    case LevelBarChart::Series::comparedMeasured:
      return {243, 190, 140};
    case LevelBarChart::Series::comparedModeled:
      return {150, 195, 230};
  }
  return Qt::gray;
}

QString nameOf(LevelBarChart::Series s) {
  switch (s) {
    case LevelBarChart::Series::measured:
      return LevelBarChart::tr("measured");
    case LevelBarChart::Series::modeled:
      return LevelBarChart::tr("modeled (this report)");
    case LevelBarChart::Series::whatIf:
      return LevelBarChart::tr("what-if model");
    case LevelBarChart::Series::comparedMeasured:
      return LevelBarChart::tr("compared: measured");
    case LevelBarChart::Series::comparedModeled:
      return LevelBarChart::tr("compared: modeled");
  }
  return {};
}
}  // namespace

LevelBarChart::LevelBarChart(QWidget* parent) : QWidget(parent) {
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

void LevelBarChart::setRows(const QString& kernel, const std::vector<KernelLevelModel::Row>& rows,
                            bool with_comparison, bool with_what_if, const QString& note) {
  kernel_ = kernel;
  rows_ = rows;
  with_comparison_ = with_comparison;
  with_what_if_ = with_what_if;
  note_ = note;
  update();
}

std::optional<double> LevelBarChart::valueOf(const KernelLevelModel::Row& row, Series s) {
  switch (s) {
    case Series::measured:
      return row.measured;
    case Series::modeled:
      return row.modeled;
    case Series::whatIf:
      return row.what_if;
    case Series::comparedMeasured:
      return row.compared_measured;
    case Series::comparedModeled:
      return row.compared_modeled;
  }
  return std::nullopt;
}

std::vector<LevelBarChart::Series> LevelBarChart::seriesShown() const {
  std::vector<Series> out;
  std::vector<Series> candidates{Series::measured, Series::modeled};
  if (with_what_if_) candidates.push_back(Series::whatIf);
  if (with_comparison_) {
    candidates.push_back(Series::comparedMeasured);
    candidates.push_back(Series::comparedModeled);
  }
  // A side no row has gets no bars, not a row of zeros.
  for (const Series s : candidates)
    if (std::any_of(rows_.begin(), rows_.end(), [s](const auto& r) { return valueOf(r, s).has_value(); }))
      out.push_back(s);
  return out;
}

QString LevelBarChart::title() const {
  if (kernel_.isEmpty()) return tr("Open a report or run the model");
  if (seriesShown().empty()) return tr("%1: no byte metrics in this report").arg(kernel_);
  return tr("%1: bytes per memory level (one panel and axis per level, from zero)").arg(kernel_);
}

QRectF LevelBarChart::panelRect(std::size_t index) const {
  const std::size_t n = std::max<std::size_t>(1, rows_.size());
  const double top = kTitle + kLegend, bottom = height() - kMargin;
  const double w = (width() - 2 * kMargin - kPanelGap * static_cast<double>(n - 1)) / static_cast<double>(n);
  return {kMargin + static_cast<double>(index) * (w + kPanelGap), top, std::max(10.0, w), std::max(40.0, bottom - top)};
}

QRectF LevelBarChart::barRect(vocab::Metric level, Series series) const {
  const auto shown = seriesShown();
  const auto s = std::find(shown.begin(), shown.end(), series);
  if (s == shown.end()) return {};
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].key != level) continue;
    const auto v = valueOf(rows_[i], series);
    if (!v) return {};
    double largest = 0;
    for (const Series t : shown)
      if (const auto x = valueOf(rows_[i], t)) largest = std::max(largest, std::abs(*x));
    const QRectF panel = panelRect(i);
    const QRectF plot(panel.left() + 4, panel.top() + kPanelHead, panel.width() - 8,
                      panel.height() - kPanelHead - kPanelFoot);
    const double slot = plot.width() / static_cast<double>(shown.size());
    const double k = static_cast<double>(s - shown.begin());
    const double h = largest > 0 ? plot.height() * std::abs(*v) / (largest * 1.05) : 0;
    return {plot.left() + k * slot + slot * 0.12, plot.bottom() - h, slot * 0.76, h};
  }
  return {};
}

void LevelBarChart::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), palette().base());
  const QColor text = palette().text().color();
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.setPen(text);
  p.drawText(QRectF(kMargin, 4, width() - 2 * kMargin, 20), Qt::AlignLeft | Qt::AlignVCenter, title());
  p.setFont(font());
  if (!note_.isEmpty())
    p.drawText(QRectF(kMargin, 22, width() - 2 * kMargin, 18), Qt::AlignLeft | Qt::AlignVCenter, note_);
  const auto shown = seriesShown();
  if (shown.empty()) return;
  // Legend.
  double x = kMargin;
  for (const Series s : shown) {
    p.fillRect(QRectF(x, kTitle + 6, 12, 12), colorOf(s));
    const QString name = nameOf(s);
    p.drawText(QRectF(x + 16, kTitle + 2, 200, 20), Qt::AlignLeft | Qt::AlignVCenter, name);
    x += 16 + p.fontMetrics().horizontalAdvance(name) + 18;
  }
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const auto& row = rows_[i];
    const QRectF panel = panelRect(i);
    p.setPen(QPen(palette().mid().color(), 1));
    p.drawRect(panel);
    p.setPen(text);
    p.setFont(bold);
    p.drawText(QRectF(panel.left() + 4, panel.top() + 2, panel.width() - 8, 18), Qt::AlignCenter,
               levelLabel(row.key));
    p.setFont(font());
    // The model's error against the measurement, red beyond the worst-case target.
    if (row.measured && row.modeled && *row.measured != 0) {
      const double error = (*row.modeled - *row.measured) / *row.measured;
      const auto& target = vocab::info(row.key).target;
      const bool misses = target ? std::abs(error) > target->worst : std::abs(error) > 0.5;
      p.setPen(misses ? QColor(192, 57, 43) : text);
      if (misses) p.setFont(bold);
      p.drawText(QRectF(panel.left() + 4, panel.top() + 20, panel.width() - 8, 18), Qt::AlignCenter,
                 tr("model %1").arg(formatPercent(error)));
      p.setFont(font());
      p.setPen(text);
    }
    double largest = 0;
    for (const Series s : shown)
      if (const auto v = valueOf(row, s)) largest = std::max(largest, std::abs(*v));
    for (const Series s : shown) {
      const QRectF bar = barRect(row.key, s);
      if (bar.width() == 0) continue;
      p.fillRect(bar, colorOf(s));
      const auto v = valueOf(row, s);
      if (v && bar.width() >= 18) {
        // The value along the bar: inside it when it is tall enough, else above it.
        p.save();
        const bool inside = bar.height() > 90;
        p.translate(bar.center().x(), inside ? bar.top() + 4 : bar.top() - 4);
        p.rotate(-90);
        p.setPen(inside ? QColor(Qt::white) : text);
        p.drawText(inside ? QRectF(-124, -8, 120, 16) : QRectF(0, -8, 120, 16),
                   (inside ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter, formatMetric(*v, row.key));
        p.restore();
      }
    }
    // The panel's own axis: zero and its largest value.
    p.drawText(QRectF(panel.left() + 4, panel.bottom() - kPanelFoot + 2, panel.width() - 8, 18), Qt::AlignCenter,
               tr("axis 0 … %1").arg(formatMetric(largest * 1.05, row.key)));
  }
}

}  // namespace attnscope::gui
