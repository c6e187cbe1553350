// SPDX-License-Identifier: Apache-2.0
#include "views/heatmap_view.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace attnscope::gui {
namespace {
constexpr double kLeft = 64, kTop = 66, kBottom = 40, kLegendWidth = 190;

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
  // A one-column kernel (naive.softmax's rows) still gets a readable strip, not a few pixels.
  const double cell_w = std::min(cw, std::max(ch * 4, 160.0 / model_->columnCount()));
  const double cell_h = std::min(ch, cell_w * 4);
  return {area.left(), area.top(), cell_w * model_->columnCount(), cell_h * model_->rowCount()};
}

QRectF HeatmapView::legendRect() const {
  const QRectF grid = gridRect();
  return {grid.right() + 28, kTop + 8, 22, std::max(60.0, std::min(grid.height(), 420.0) - 24)};
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
  // Coverage under the title: a report that keeps part of the tiles says so.
  p.drawText(QRectF(kLeft, 22, width() - kLeft, 18), Qt::AlignLeft | Qt::AlignVCenter,
             model_->coverage().isEmpty() ? QString() : tr("Tiles in this report: %1").arg(model_->coverage()));
  if (!model_->refusal().isEmpty()) {
    p.setPen(QColor(176, 48, 42));
    p.drawText(QRectF(kLeft, kTop, std::max(200.0, width() - 2 * kLeft), 120), Qt::TextWordWrap,
               model_->refusal());
    return;
  }
  if (rows == 0 || columns == 0) {
    p.drawText(rect(), Qt::AlignCenter, tr("This kernel has no per-tile records in the report."));
    return;
  }
  const auto range = model_->valueRange();
  const ColorScale scale = model_->colorScale();
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
  // Lone-launch windows: a dashed black-and-white frame, so they never pass for hot spots of the full run.
  if (model_->loneWindowCount() > 0) {
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < columns; ++c) {
        if (!model_->isLoneWindow(r, c)) continue;
        const QRectF cell(grid.left() + c * cw, grid.top() + r * ch, cw, ch);
        const QRectF frame = cell.adjusted(1, 1, -1, -1);
        p.setPen(QPen(Qt::white, 3));
        p.drawRect(frame);
        p.setPen(QPen(Qt::black, 2, Qt::DashLine));
        p.drawRect(frame);
      }
    }
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
  // Axis titles with the tile sizes, below and left of the grid (never on the title line).
  p.drawText(QRectF(grid.left() - 40, grid.bottom() + 6, std::max(grid.width() + 80, 260.0), 18),
             Qt::AlignLeft | Qt::AlignVCenter, model_->columnAxisTitle() + QStringLiteral(" →"));
  p.save();
  p.translate(12, grid.top() + grid.height() / 2);
  p.rotate(-90);
  p.drawText(QRectF(-150, -8, 300, 16), Qt::AlignCenter, model_->rowAxisTitle() + QStringLiteral(" →"));
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
             model_->isRelative()     ? tr("relative error")
             : model_->isDifference() ? tr("difference")
             : model_->isTime()       ? tr("seconds")
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
  double y = bar.bottom() + 16;
  if (const auto range = model_->valueRange(); range && range->first == range->second) {
    // A constant field: say so instead of three equal labels.
    p.drawText(QRectF(bar.left(), y, kLegendWidth, 16), Qt::AlignLeft | Qt::AlignVCenter,
               tr("every value: %1").arg(model_->formatValue(range->first)));
    y += 20;
  }
  const QRectF swatch(bar.left(), y, 14, 14);
  p.fillRect(swatch, QBrush(QColor(200, 200, 200), Qt::BDiagPattern));
  p.drawRect(swatch);
  p.drawText(QRectF(swatch.right() + 6, swatch.top() - 1, kLegendWidth - 20, 16),
             Qt::AlignLeft | Qt::AlignVCenter, tr("no value"));
  if (model_->loneWindowCount() > 0) {
    const QRectF lone(bar.left(), swatch.bottom() + 8, 14, 14);
    p.setPen(QPen(Qt::black, 2, Qt::DashLine));
    p.drawRect(lone);
    p.setPen(palette().text().color());
    p.drawText(QRectF(lone.right() + 6, lone.top() - 1, kLegendWidth - 20, 64), Qt::TextWordWrap,
               tr("%n lone-launch window(s): measured alone, not scaled (hover)", "", model_->loneWindowCount()));
  }
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
