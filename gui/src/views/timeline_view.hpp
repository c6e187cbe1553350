// SPDX-License-Identifier: Apache-2.0
// Paints a TimelineModel: one row per SM, time to the right, each tile a box; the modeled tiles in the upper
// half of a row and the measured ones in the lower half (two labelled lanes once rows are tall enough). Wheel
// zooms time around the cursor, Ctrl+wheel zooms the SM rows (vertical zoom, 132 SMs at 5 px each are
// unreadable), Shift+wheel scrolls them, dragging pans, a double click shows everything again. Box colours
// come from the model: a hue per CTA (alternate kv-tiles alternate shade) or a tile metric on a sequential
// scale (with its legend). When the report has PM samples, a counter lane under the SM rows plots the
// measured DRAM throughput (read and write, stacked) on the same time axis.
#pragma once
#include <QWidget>
#include <optional>

class QPainter;

#include "models/timeline_model.hpp"

namespace attnscope::gui {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  void setModel(TimelineModel* model);
  void setShowModeled(bool show);
  void setShowMeasured(bool show);
  void resetZoom();
  // Zoom by `factor` (>1 zooms in) keeping the time under widget x fixed; pan by pixels.
  void zoomAt(double x, double factor);
  void panBy(double pixels);
  // Vertical zoom: `factor` > 1 shows fewer SM rows, keeping the row under widget y fixed; scroll by rows.
  void zoomRowsAt(double y, double factor);
  void scrollRows(int rows);
  int firstVisibleSm() const { return first_sm_; }
  int visibleSmCount() const;
  double rowHeight() const;
  double visibleStart() const { return start_s_; }
  double visibleEnd() const { return end_s_; }
  bool hasCounterLane() const { return model_ && !model_->throughput().empty(); }
  QRectF counterLaneRect() const;  // empty without a lane
  QSize sizeHint() const override { return {1000, 700}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  QRectF plotRect() const;
  double laneHeight() const;
  double xOf(double seconds) const;
  double secondsAt(double x) const;
  const TileSpan* spanAt(QPointF pos, bool* measured) const;
  void paintLegend(QPainter& p) const;
  void paintCounterLane(QPainter& p, const QRectF& lane) const;
  QString colorValueText(const TileSpan& s) const;

  TimelineModel* model_ = nullptr;
  bool show_modeled_ = true, show_measured_ = true;
  double start_s_ = 0, end_s_ = 1e-6;
  int first_sm_ = 0, sm_rows_ = 0;  // sm_rows_ 0: every SM
  std::optional<QPointF> drag_from_;
};

}  // namespace attnscope::gui
