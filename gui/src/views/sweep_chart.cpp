// SPDX-License-Identifier: Apache-2.0
#include "views/sweep_chart.hpp"

#include <QCategoryAxis>
#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>

namespace attnscope::gui {

SweepChart::SweepChart(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  setChart(new QChart());
  chart()->setTitle(tr("Tile-size sweep: waiting for the model"));
}

void SweepChart::setModel(SweepModel* model) {
  model_ = model;
  connect(model_, &QAbstractItemModel::modelReset, this, &SweepChart::rebuild);
  connect(model_, &QAbstractItemModel::rowsInserted, this, &SweepChart::rebuild);  // a sweep in progress
  rebuild();
}

void SweepChart::setComputing(bool computing) {
  if (computing) chart()->setTitle(tr("Tile-size sweep: computing…"));
}

void SweepChart::rebuild() {
  auto* chart = new QChart();
  chart->setAnimationOptions(QChart::NoAnimation);
  const auto& points = model_->points();
  auto* bytes = new QLineSeries();
  bytes->setName(tr("HBM bytes (MiB)"));
  auto* time = new QLineSeries();
  time->setName(tr("time (us)"));
  auto* bytes_mark = new QScatterSeries();
  bytes_mark->setName(tr("current Br×Bc"));
  bytes_mark->setMarkerSize(14);
  auto* time_mark = new QScatterSeries();
  time_mark->setMarkerSize(14);
  bytes->setColor(QColor(41, 128, 185));
  time->setColor(QColor(192, 57, 43));
  bytes_mark->setColor(QColor(241, 196, 15));
  time_mark->setColor(QColor(241, 196, 15));
  auto* x_axis = new QCategoryAxis();
  x_axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  const int rows =
      points.isEmpty() || points.front().warps == 0 ? 0 : points.front().br / points.front().warps;
  if (model_->backward())
    x_axis->setTitleText(
        tr("Br×Bc (%1: Br query rows per step, Bc keys per CTA, Bc/16 warps)").arg(model_->subject()));
  else
    x_axis->setTitleText(rows > 0 ? tr("Br×Bc (tiled kernel, %1 query rows per warp)").arg(rows)
                                  : tr("Br×Bc (tiled kernel)"));
  double max_mib = 0, max_us = 0;
  QStringList skipped;
  const int current = model_->currentRow();
  for (qsizetype i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const auto x = static_cast<double>(i);
    x_axis->append(SweepModel::tileLabel(p), x);
    if (!p.feasible) {
      skipped << SweepModel::tileLabel(p);
      continue;
    }
    const double mib = p.hbm_bytes / (1024.0 * 1024.0), us = p.time_s * 1e6;
    bytes->append(x, mib);
    time->append(x, us);
    if (i == current) {
      bytes_mark->append(x, mib);
      time_mark->append(x, us);
    }
    max_mib = std::max(max_mib, mib);
    max_us = std::max(max_us, us);
  }
  x_axis->setRange(-0.5, std::max(0.5, static_cast<double>(points.size()) - 0.5));
  for (auto* s : {static_cast<QXYSeries*>(bytes), static_cast<QXYSeries*>(time),
                  static_cast<QXYSeries*>(bytes_mark), static_cast<QXYSeries*>(time_mark)}) {
    chart->addSeries(s);
  }
  chart->addAxis(x_axis, Qt::AlignBottom);
  auto* bytes_axis = new QValueAxis();
  bytes_axis->setTitleText(tr("HBM MiB"));
  bytes_axis->setRange(0, max_mib > 0 ? max_mib * 1.1 : 1);
  bytes_axis->setLabelFormat(QStringLiteral("%.0f"));
  bytes_axis->applyNiceNumbers();
  chart->addAxis(bytes_axis, Qt::AlignLeft);
  auto* time_axis = new QValueAxis();
  time_axis->setTitleText(tr("time (us)"));
  time_axis->setRange(0, max_us > 0 ? max_us * 1.1 : 1);
  time_axis->setLabelFormat(QStringLiteral("%.0f"));
  time_axis->applyNiceNumbers();
  chart->addAxis(time_axis, Qt::AlignRight);
  for (auto* s : {static_cast<QXYSeries*>(bytes), static_cast<QXYSeries*>(bytes_mark)}) {
    s->attachAxis(x_axis);
    s->attachAxis(bytes_axis);
  }
  for (auto* s : {static_cast<QXYSeries*>(time), static_cast<QXYSeries*>(time_mark)}) {
    s->attachAxis(x_axis);
    s->attachAxis(time_axis);
  }
  chart->legend()->markers(time_mark).front()->setVisible(false);
  QString title = points.isEmpty()     ? tr("Tile-size sweep: waiting for the model")
                  : model_->backward() ? tr("Backward tile sweep: HBM bytes and time vs backward Br×Bc")
                                       : tr("Tile-size sweep: HBM bytes and time vs Br×Bc");
  if (!skipped.isEmpty()) title += tr(" (not feasible: %1)").arg(skipped.join(QStringLiteral(", ")));
  chart->setTitle(title);
  chart->legend()->setAlignment(Qt::AlignBottom);
  QChart* old = this->chart();
  setChart(chart);
  delete old;
}

}  // namespace attnscope::gui
