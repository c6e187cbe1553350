// SPDX-License-Identifier: Apache-2.0
#include "views/heatmap_view.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace attnscope::gui {
namespace {
constexpr double kLeft = 56, kTop = 48, kBottom = 16, kLegendWidth = 150;

// Label every n-th tile so labels never overlap.
int labelStep(int count, double pixels_per_cell) {
  int step = 1;
  while (pixels_per_cell * step < 28 && step < count) step *= 2;
  return step;
}
}  // namespace

HeatmapView::HeatmapView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(400, 300);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

void HeatmapView::setModel(TileGridModel* model) {
  model_ = model;
  connect(model_, &QAbstractItemModel::modelReset, this, qOverload<>(&QWidget::update));
  update();
}

QRectF HeatmapView::gridRect() const {
  const QRectF area(kLeft, kTop, std::max(10.0, width() - kLeft - kLegendWidth - 16),
                    std::max(10.0, height() - kTop - kBottom));
  if (!model_ || model_->rowCount() == 0 || model_->columnCount() == 0) return area;
  // Square-ish cells when the area allows, never wider than tall by more than 4x.
  const double cw = area.width() / model_->columnCount();
  const double ch = area.height() / model_->rowCount();
  const double cell_w = std::min(cw, ch * 4), cell_h = std::min(ch, cw * 4);
  return {area.left(), area.top(), cell_w * model_->columnCount(), cell_h * model_->rowCount()};
}

QRectF HeatmapView::legendRect() const {
  const QRectF grid = gridRect();
  return {grid.right() + 28, kTop + 24, 22, std::max(60.0, std::min(grid.height(), 420.0) - 24)};
}

std::optional<std::pair<int, int>> HeatmapView::cellAt(QPointF pos) const {
  if (!model_ || model_->rowCount() == 0 || model_->columnCount() == 0) return std::nullopt;
  const QRectF grid = gridRect();
  if (!grid.contains(pos)) return std::nullopt;
  const int column =
      std::min(model_->columnCount() - 1,
               static_cast<int>((pos.x() - grid.left()) / grid.width() * model_->columnCount()));
  const int row = std::min(model_->rowCount() - 1,
                           static_cast<int>((pos.y() - grid.top()) / grid.height() * model_->rowCount()));
  return std::pair{row, column};
}

QPointF HeatmapView::cellCenter(int q_tile, int kv_tile) const {
  const QRectF grid = gridRect();
  if (!model_ || model_->rowCount() == 0 || model_->columnCount() == 0) return grid.center();
  const double cw = grid.width() / model_->columnCount(), ch = grid.height() / model_->rowCount();
  return {grid.left() + (kv_tile + 0.5) * cw, grid.top() + (q_tile + 0.5) * ch};
}

void HeatmapView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (!model_) return;
  const int rows = model_->rowCount(), columns = model_->columnCount();
  p.setPen(palette().text().color());
  QFont title_font = font();
  title_font.setBold(true);
  p.setFont(title_font);
  p.drawText(QRectF(kLeft, 4, width() - kLeft, 20), Qt::AlignLeft | Qt::AlignVCenter,
             tr("%1 — %2 (batch %3, head %4)")
                 .arg(model_->kernel(), model_->describeMode())
                 .arg(model_->batch())
                 .arg(model_->head()));
  p.setFont(font());
  if (rows == 0 || columns == 0) {
    p.drawText(rect(), Qt::AlignCenter, tr("This kernel has no per-tile records in the report."));
    return;
  }
  const auto range = model_->valueRange();
  const ColorScale scale =
      range ? ColorScale(range->first, range->second, model_->isDifference()) : ColorScale();
  const QRectF grid = gridRect();
  const double cw = grid.width() / columns, ch = grid.height() / rows;
  const QBrush missing(QColor(200, 200, 200), Qt::BDiagPattern);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < columns; ++c) {
      const QRectF cell(grid.left() + c * cw, grid.top() + r * ch, cw, ch);
      if (const auto v = model_->value(r, c)) {
        p.fillRect(cell, scale.color(*v));
      } else {
        p.fillRect(cell, missing);
      }
    }
  }
  // Cell borders only where cells are big enough to keep them readable.
  if (cw >= 6 && ch >= 6) {
    p.setPen(QPen(palette().base().color(), 1));
    for (int c = 1; c < columns; ++c)
      p.drawLine(QPointF(grid.left() + c * cw, grid.top()), QPointF(grid.left() + c * cw, grid.bottom()));
    for (int r = 1; r < rows; ++r)
      p.drawLine(QPointF(grid.left(), grid.top() + r * ch), QPointF(grid.right(), grid.top() + r * ch));
  }
  p.setPen(palette().text().color());
  p.drawRect(grid);
  // Axis labels.
  const int col_step = labelStep(columns, cw), row_step = labelStep(rows, ch);
  for (int c = 0; c < columns; c += col_step) {
    p.drawText(QRectF(grid.left() + c * cw - 20, kTop - 20, cw + 40, 16), Qt::AlignCenter,
               QString::number(c));
  }
  for (int r = 0; r < rows; r += row_step) {
    p.drawText(QRectF(0, grid.top() + r * ch, kLeft - 6, std::max(ch, 14.0)), Qt::AlignRight | Qt::AlignTop,
               QString::number(r));
  }
  p.drawText(QRectF(grid.left(), 4, grid.width(), 20), Qt::AlignRight | Qt::AlignVCenter, tr("kv-tile →"));
  p.save();
  p.translate(12, grid.top() + grid.height() / 2);
  p.rotate(-90);
  p.drawText(QRectF(-60, -8, 120, 16), Qt::AlignCenter, tr("q-tile →"));
  p.restore();
  if (hovered_) {
    p.setPen(QPen(palette().highlight().color(), 2));
    p.drawRect(QRectF(grid.left() + hovered_->second * cw, grid.top() + hovered_->first * ch, cw, ch));
  }
  if (range) {
    paintLegend(p, scale);
  } else {
    p.setPen(palette().text().color());
    p.drawText(QRectF(grid.right() + 8, kTop, kLegendWidth, 120), Qt::TextWordWrap,
               tr("No values to show: the report has no %1 for this kernel.").arg(model_->describeMode()));
  }
}

void HeatmapView::paintLegend(QPainter& p, const ColorScale& scale) const {
  const QRectF bar = legendRect();
  const int steps = std::max(1, static_cast<int>(bar.height()));
  for (int i = 0; i < steps; ++i) {
    const double t = 1.0 - static_cast<double>(i) / steps;  // top is high
    p.fillRect(QRectF(bar.left(), bar.top() + i, bar.width(), 1.5), scale.colorAt(t));
  }
  p.setPen(palette().text().color());
  p.drawRect(bar);
  p.drawText(QRectF(bar.left() - 10, bar.top() - 22, kLegendWidth, 16), Qt::AlignLeft,
             model_->isDifference() ? tr("difference")
             : model_->isTime()     ? tr("seconds")
                                    : tr("bytes"));
  const auto label = [&](double t, double value) {
    const double y = bar.bottom() - t * bar.height();
    p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y));
    p.drawText(QRectF(bar.right() + 6, y - 8, kLegendWidth - 30, 16), Qt::AlignLeft | Qt::AlignVCenter,
               model_->formatValue(value));
  };
  label(0.0, scale.low());
  label(0.5, (scale.low() + scale.high()) / 2);
  label(1.0, scale.high());
  const QRectF swatch(bar.left(), bar.bottom() + 16, 14, 14);
  p.fillRect(swatch, QBrush(QColor(200, 200, 200), Qt::BDiagPattern));
  p.drawRect(swatch);
  p.drawText(QRectF(swatch.right() + 6, swatch.top() - 1, kLegendWidth - 20, 16),
             Qt::AlignLeft | Qt::AlignVCenter, tr("no value"));
}

void HeatmapView::mouseMoveEvent(QMouseEvent* event) {
  const auto cell = cellAt(event->position());
  if (cell != hovered_) {
    hovered_ = cell;
    update();
    if (cell) emit cellHovered(cell->first, cell->second);
  }
  if (cell && model_) {
    const QString tip = model_->data(model_->index(cell->first, cell->second), Qt::ToolTipRole).toString();
    QToolTip::showText(event->globalPosition().toPoint(), tip, this);
  } else {
    QToolTip::hideText();
  }
}

void HeatmapView::leaveEvent(QEvent*) {
  hovered_.reset();
  update();
}

}  // namespace attnscope::gui
