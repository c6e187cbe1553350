// SPDX-License-Identifier: Apache-2.0
#include "views/level_bar_chart.hpp"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "models/metric_levels.hpp"

namespace attnscope::gui {

LevelBarChart::LevelBarChart(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  setChart(new QChart());
  chart()->setTitle(tr("Open a report or run the model"));
}

void LevelBarChart::setRows(const QString& kernel, const std::vector<KernelLevelModel::Row>& rows,
                            bool with_comparison) {
  auto* chart = new QChart();
  chart->setAnimationOptions(QChart::NoAnimation);
  double largest = 0;
  for (const auto& r : rows) {
    for (const auto& v : {r.measured, r.modeled, r.compared_measured, r.compared_modeled}) {
      if (v) largest = std::max(largest, *v);
    }
  }
  // One unit for the whole axis, the largest that keeps the biggest bar at or above 1.
  double unit = 1;
  QString unit_name = QStringLiteral("B");
  for (const auto& [scale, name] :
       {std::pair{1024.0, "KiB"}, {1024.0 * 1024, "MiB"}, {1024.0 * 1024 * 1024, "GiB"}}) {
    if (largest >= scale) {
      unit = scale;
      unit_name = QLatin1String(name);
    }
  }
  auto* series = new QBarSeries();
  const auto addSet = [&](const QString& label, const QColor& colour, auto pick) {
    auto* set = new QBarSet(label);
    set->setColor(colour);
    bool any = false;
    for (const auto& r : rows) {
      const std::optional<double> v = pick(r);
      any = any || v.has_value();
      *set << (v ? *v / unit : 0.0);
    }
    if (any) {
      series->append(set);
    } else {
      delete set;  // a side the report does not have gets no bars, not a row of zeros
    }
  };
  addSet(tr("measured"), QColor(230, 126, 34), [](const auto& r) { return r.measured; });
  addSet(tr("modeled"), QColor(41, 128, 185), [](const auto& r) { return r.modeled; });
  if (with_comparison) {
    addSet(tr("compared: measured"), QColor(243, 190, 140),
           [](const auto& r) { return r.compared_measured; });
    addSet(tr("compared: modeled"), QColor(150, 195, 230), [](const auto& r) { return r.compared_modeled; });
  }
  chart->addSeries(series);
  QStringList categories;
  for (const auto& r : rows) categories << levelLabel(r.key);
  auto* x_axis = new QBarCategoryAxis();
  x_axis->append(categories);
  chart->addAxis(x_axis, Qt::AlignBottom);
  series->attachAxis(x_axis);
  auto* y_axis = new QValueAxis();
  y_axis->setTitleText(unit_name);
  y_axis->setLabelFormat(QStringLiteral("%.1f"));
  y_axis->setRange(0, largest > 0 ? largest / unit * 1.08 : 1.0);
  y_axis->applyNiceNumbers();
  chart->addAxis(y_axis, Qt::AlignLeft);
  series->attachAxis(y_axis);
  chart->setTitle(series->count() == 0 ? tr("%1: no byte metrics in this report").arg(kernel)
                                       : tr("%1: bytes per memory level, measured vs modeled").arg(kernel));
  chart->legend()->setAlignment(Qt::AlignBottom);
  QChart* old = this->chart();
  setChart(chart);
  delete old;
}

}  // namespace attnscope::gui
