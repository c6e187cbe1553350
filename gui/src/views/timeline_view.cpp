// SPDX-License-Identifier: Apache-2.0
#include "views/timeline_view.hpp"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "models/metric_levels.hpp"

namespace attnscope::gui {
namespace {
constexpr double kLeft = 100, kTop = 56, kRight = 16, kBottom = 28;
constexpr double kLane = 72, kLaneGap = 10;  // the DRAM counter lane's height and its gap to the SM rows
const QColor kReadColor(31, 119, 180), kWriteColor(214, 39, 40);  // the HTML report's DRAM read and write

// A "nice" tick step (1, 2 or 5 times a power of ten) giving about `target` ticks over `span`.
double tickStep(double span, int target) {
  const double raw = span / target;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10 * power;
}
}  // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumSize(400, 300);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

void TimelineView::setModel(TimelineModel* model) {
  model_ = model;
  connect(model_, &QAbstractItemModel::modelReset, this, &TimelineView::resetZoom);
  resetZoom();
}

void TimelineView::setShowModeled(bool show) {
  show_modeled_ = show;
  update();
}

void TimelineView::setShowMeasured(bool show) {
  show_measured_ = show;
  update();
}

void TimelineView::resetZoom() {
  start_s_ = 0;
  end_s_ = model_ && model_->endTime() > 0 ? model_->endTime() * 1.02 : 1e-6;
  first_sm_ = 0;
  sm_rows_ = 0;
  update();
}

double TimelineView::laneHeight() const {
  if (!hasCounterLane()) return 0;
  // Without tile timing the lane is all there is to see: give it half the height.
  return model_->smCount() == 0 ? std::max(kLane, (height() - kTop - kBottom) / 2) : kLane;
}

QRectF TimelineView::plotRect() const {
  const double lane = hasCounterLane() ? laneHeight() + kLaneGap : 0;
  return {kLeft, kTop, std::max(10.0, width() - kLeft - kRight),
          std::max(10.0, height() - kTop - kBottom - lane)};
}

QRectF TimelineView::counterLaneRect() const {
  if (!hasCounterLane()) return {};
  const QRectF plot = plotRect();
  return {plot.left(), plot.bottom() + kLaneGap, plot.width(), laneHeight()};
}

double TimelineView::xOf(double seconds) const {
  const QRectF plot = plotRect();
  return plot.left() + (seconds - start_s_) / (end_s_ - start_s_) * plot.width();
}

double TimelineView::secondsAt(double x) const {
  const QRectF plot = plotRect();
  return start_s_ + (x - plot.left()) / plot.width() * (end_s_ - start_s_);
}

void TimelineView::zoomAt(double x, double factor) {
  const double anchor = secondsAt(x);
  const double span = std::max((end_s_ - start_s_) / factor, 1e-12);
  const double fraction = (x - plotRect().left()) / plotRect().width();
  start_s_ = anchor - fraction * span;
  end_s_ = start_s_ + span;
  update();
}

void TimelineView::panBy(double pixels) {
  const double shift = pixels / plotRect().width() * (end_s_ - start_s_);
  start_s_ -= shift;
  end_s_ -= shift;
  update();
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  p.setPen(palette().text().color());
  const QString no_tiles =
      tr("No tile timing in this report for this kernel (the model records it; a profile records it\n"
         "only when the kernels were built with per-tile timestamps).");
  if (!model_ || (model_->smCount() == 0 && !hasCounterLane())) {
    p.drawText(rect(), Qt::AlignCenter, no_tiles);
    return;
  }
  const QRectF plot = plotRect();
  const QRectF lane = counterLaneRect();
  const auto drawTimeAxis = [&] {
    const double bottom = lane.isEmpty() ? plot.bottom() : lane.bottom();
    const double step = tickStep(end_s_ - start_s_, 8);
    for (double t = std::ceil(start_s_ / step) * step; t <= end_s_; t += step) {
      const double x = xOf(t);
      p.drawLine(QPointF(x, bottom), QPointF(x, bottom + 4));
      p.drawText(QRectF(x - 50, bottom + 5, 100, 16), Qt::AlignCenter, formatSeconds(t));
    }
  };
  if (!lane.isEmpty()) paintCounterLane(p, lane);
  if (model_->smCount() == 0) {
    p.drawText(plot, Qt::AlignCenter, no_tiles);
    drawTimeAxis();
    return;
  }
  const int sms = model_->smCount();
  const int rows = visibleSmCount();
  const double row_h = rowHeight();
  // Split rows only when both sides have tiles: a model-only report gets full-height rows.
  const bool both =
      show_modeled_ && show_measured_ && !model_->modeledSpans().empty() && !model_->measuredSpans().empty();
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.drawText(
      QRectF(kLeft, 2, plot.width(), 18), Qt::AlignLeft | Qt::AlignVCenter,
      tr("%1 — tiles per SM over time (%2 modeled, %3 measured)%4; wheel: zoom, Ctrl+wheel: SM rows, "
         "Shift+wheel: scroll, drag: pan, double click: all")
          .arg(model_->kernel())
          .arg(model_->modeledSpans().size())
          .arg(model_->measuredSpans().size())
          .arg(model_->coverage().isEmpty() ? QString() : tr(" of %1").arg(model_->coverage())));
  p.setFont(font());
  if (!model_->coverage().isEmpty()) {
    // Partial data: SMs without boxes ran tiles the report does not keep; they were not idle.
    p.setPen(QColor(176, 48, 42));
    p.drawText(QRectF(kLeft, kTop - 18, plot.width(), 14), Qt::AlignRight | Qt::AlignVCenter,
               tr("partial: empty rows ran tiles this report does not keep"));
    p.setPen(palette().text().color());
  }
  p.save();
  p.setClipRect(plot);
  const auto paint = [&](const std::vector<TileSpan>& spans, bool measured) {
    for (const auto& s : spans) {
      if (s.end_s < start_s_ || s.start_s > end_s_ || s.sm < first_sm_ || s.sm >= first_sm_ + rows) continue;
      double top = plot.top() + (s.sm - first_sm_) * row_h;
      double h = row_h;
      if (both) {
        h = row_h / 2;
        if (measured) top += h;
      }
      const double x0 = xOf(s.start_s), x1 = xOf(s.end_s);
      p.fillRect(QRectF(x0, top + 0.5, std::max(1.0, x1 - x0), std::max(1.0, h - 1)),
                 model_->spanColor(s, measured));
    }
  };
  if (show_modeled_) paint(model_->modeledSpans(), false);
  if (show_measured_) paint(model_->measuredSpans(), true);
  p.restore();
  // SM axis.
  p.setPen(palette().text().color());
  const int sm_step = std::max(1, static_cast<int>(std::ceil(14.0 / row_h)));
  const bool lanes = both && row_h >= 30;  // room for a label per lane
  for (int sm = first_sm_; sm < std::min(sms, first_sm_ + rows); sm += sm_step) {
    const double top = plot.top() + (sm - first_sm_) * row_h;
    if (lanes) {
      p.drawText(QRectF(0, top, kLeft - 6, row_h / 2), Qt::AlignRight | Qt::AlignVCenter,
                 tr("SM %1 mod").arg(sm));
      p.drawText(QRectF(0, top + row_h / 2, kLeft - 6, row_h / 2), Qt::AlignRight | Qt::AlignVCenter,
                 tr("meas"));
      p.setPen(QPen(palette().mid().color(), 1, Qt::DotLine));
      p.drawLine(QPointF(plot.left(), top + row_h / 2), QPointF(plot.right(), top + row_h / 2));
      p.setPen(palette().text().color());
    } else {
      p.drawText(QRectF(0, top - 7 + row_h / 2, kLeft - 6, 14), Qt::AlignRight | Qt::AlignVCenter,
                 tr("SM %1").arg(sm));
    }
  }
  if (both) {
    p.drawText(QRectF(kLeft, kTop - 18, plot.width(), 14), Qt::AlignLeft | Qt::AlignVCenter,
               tr("each row: upper = modeled, lower = measured"));
  }
  drawTimeAxis();
  p.drawRect(plot);
  if (model_->colorBy() != TimelineModel::ColorBy::cta) paintLegend(p);
}

// The colour metric's scale, top right: zero to the largest value, in the metric's unit.
void TimelineView::paintLegend(QPainter& p) const {
  const double max = model_->colorMax();
  // Its own line between the title and the lane labels, right-aligned.
  const QRectF bar(width() - kRight - 330, kTop - 34, 120, 10);
  for (int i = 0; i < static_cast<int>(bar.width()); ++i) {
    TileSpan probe;
    probe.value = max * i / bar.width();
    p.fillRect(QRectF(bar.left() + i, bar.top(), 1, bar.height()), model_->spanColor(probe, false));
  }
  p.setPen(palette().text().color());
  p.drawRect(bar);
  const auto label = [&](double v) {
    return model_->colorBy() == TimelineModel::ColorBy::tileTime ? formatSeconds(v) : formatBytes(v);
  };
  p.drawText(QRectF(bar.left() - 50, bar.top() - 3, 46, 16), Qt::AlignRight | Qt::AlignVCenter, label(0));
  p.drawText(QRectF(bar.right() + 4, bar.top() - 3, 210, 16), Qt::AlignLeft | Qt::AlignVCenter,
             (max > 0 ? label(max) : tr("no values")) + tr("; grey: not in the report"));
  p.drawText(QRectF(kLeft, bar.top() - 3, bar.left() - 60 - kLeft, 16), Qt::AlignRight | Qt::AlignVCenter,
             tr("colour: %1 per tile").arg(TimelineModel::colorByLabel(model_->colorBy())));
}

// Measured DRAM throughput per PM sample: read (blue) with write (red) stacked on it, scaled to the peak.
void TimelineView::paintCounterLane(QPainter& p, const QRectF& lane) const {
  const double peak = model_->peakThroughput();
  p.save();
  p.setClipRect(lane);
  for (const auto& smp : model_->throughput()) {
    if (smp.end_s < start_s_ || smp.start_s > end_s_ || peak <= 0) continue;
    const double x0 = xOf(smp.start_s), x1 = xOf(smp.end_s);
    const double read_h = smp.read_bytes_per_s / peak * lane.height();
    const double write_h = smp.write_bytes_per_s / peak * lane.height();
    const double w = std::max(1.0, x1 - x0);
    p.fillRect(QRectF(x0, lane.bottom() - read_h, w, read_h), kReadColor);
    p.fillRect(QRectF(x0, lane.bottom() - read_h - write_h, w, write_h), kWriteColor);
  }
  p.restore();
  p.setPen(palette().text().color());
  p.drawRect(lane);
  p.drawText(QRectF(0, lane.top(), kLeft - 6, lane.height() / 2), Qt::AlignRight | Qt::AlignVCenter,
             tr("DRAM (PM)"));
  p.drawText(QRectF(0, lane.top() + lane.height() / 2, kLeft - 6, lane.height() / 2),
             Qt::AlignRight | Qt::AlignVCenter, tr("top %1/s").arg(formatBytes(peak)));
  const QString read = tr("measured DRAM read"), write = tr("write (stacked)");
  const double read_w = p.fontMetrics().horizontalAdvance(read);
  p.setPen(kReadColor);
  p.drawText(QRectF(lane.left() + 4, lane.top() + 2, read_w + 4, 14), Qt::AlignLeft | Qt::AlignVCenter, read);
  p.setPen(kWriteColor);
  p.drawText(QRectF(lane.left() + 14 + read_w, lane.top() + 2, 200, 14), Qt::AlignLeft | Qt::AlignVCenter,
             write);
  p.setPen(palette().text().color());
  p.drawText(QRectF(lane.left(), lane.top() + 2, lane.width() - 4, 14), Qt::AlignRight | Qt::AlignVCenter,
             tr("PM samples, from the kernel's first DRAM bytes (within one sample)"));
}

const TileSpan* TimelineView::spanAt(QPointF pos, bool* measured) const {
  if (!model_ || model_->smCount() == 0) return nullptr;
  const QRectF plot = plotRect();
  if (!plot.contains(pos)) return nullptr;
  const double row_h = rowHeight();
  const int sm = first_sm_ + static_cast<int>((pos.y() - plot.top()) / row_h);
  const bool lower = std::fmod(pos.y() - plot.top(), row_h) > row_h / 2;
  const bool has_modeled = show_modeled_ && !model_->modeledSpans().empty();
  const bool has_measured = show_measured_ && !model_->measuredSpans().empty();
  *measured = has_measured && (!has_modeled || lower);
  const double t = secondsAt(pos.x());
  const auto& spans = *measured ? model_->measuredSpans() : model_->modeledSpans();
  for (const auto& s : spans) {
    if (s.sm == sm && s.start_s <= t && t <= s.end_s) return &s;
  }
  return nullptr;
}

void TimelineView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (event->modifiers() & Qt::ControlModifier) {
    zoomRowsAt(event->position().y(), std::pow(1.25, steps));
  } else if (event->modifiers() & Qt::ShiftModifier) {
    scrollRows(-static_cast<int>(std::lround(steps * std::max(1, visibleSmCount() / 8))));
  } else {
    zoomAt(event->position().x(), std::pow(1.25, steps));
  }
  event->accept();
}

int TimelineView::visibleSmCount() const {
  const int sms = model_ ? model_->smCount() : 0;
  return sm_rows_ <= 0 || sm_rows_ > sms ? sms : sm_rows_;
}

double TimelineView::rowHeight() const {
  return plotRect().height() / std::max(1, visibleSmCount());
}

void TimelineView::zoomRowsAt(double y, double factor) {
  if (!model_ || model_->smCount() == 0 || factor <= 0) return;
  const int sms = model_->smCount();
  const double row_under = first_sm_ + (y - plotRect().top()) / rowHeight();
  const int rows = std::clamp(static_cast<int>(std::lround(visibleSmCount() / factor)), 1, sms);
  const double fraction = (y - plotRect().top()) / plotRect().height();
  sm_rows_ = rows;
  first_sm_ = std::clamp(static_cast<int>(std::lround(row_under - fraction * rows)), 0, sms - rows);
  update();
}

void TimelineView::scrollRows(int rows) {
  if (!model_) return;
  first_sm_ = std::clamp(first_sm_ + rows, 0, std::max(0, model_->smCount() - visibleSmCount()));
  update();
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) drag_from_ = event->position();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
  if (drag_from_) {
    panBy(event->position().x() - drag_from_->x());
    drag_from_ = event->position();
    return;
  }
  bool measured = false;
  if (const QRectF lane = counterLaneRect(); lane.contains(event->position())) {
    const double t = secondsAt(event->position().x());
    for (const auto& smp : model_->throughput()) {
      if (smp.start_s <= t && t < smp.end_s) {
        QToolTip::showText(event->globalPosition().toPoint(),
                           tr("PM sample %1 … %2<br/>DRAM read %3/s, write %4/s (measured)")
                               .arg(formatSeconds(smp.start_s), formatSeconds(smp.end_s),
                                    formatBytes(smp.read_bytes_per_s), formatBytes(smp.write_bytes_per_s)),
                           this);
        return;
      }
    }
  }
  if (const auto* s = spanAt(event->position(), &measured)) {
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("%1 tile: batch %2, head %3, q-tile %4, kv-tile %5<br/>SM %6, %7 … %8 (%9)%10")
                           .arg(measured ? tr("measured") : tr("modeled"))
                           .arg(s->batch)
                           .arg(s->head)
                           .arg(s->q_tile)
                           .arg(s->kv_tile)
                           .arg(s->sm)
                           .arg(formatSeconds(s->start_s), formatSeconds(s->end_s),
                                formatSeconds(s->end_s - s->start_s), colorValueText(*s)),
                       this);
  } else {
    QToolTip::hideText();
  }
}

QString TimelineView::colorValueText(const TileSpan& s) const {
  const auto c = model_->colorBy();
  if (c == TimelineModel::ColorBy::cta || c == TimelineModel::ColorBy::tileTime) return {};
  return tr("<br/>%1: %2")
      .arg(TimelineModel::colorByLabel(c), s.value ? formatBytes(*s.value) : tr("not in the report"));
}

void TimelineView::mouseReleaseEvent(QMouseEvent*) {
  drag_from_.reset();
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent*) {
  resetZoom();
}

}  // namespace attnscope::gui
