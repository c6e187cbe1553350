// SPDX-License-Identifier: Apache-2.0
// Paints a TileGridModel as a q-tile x kv-tile heatmap with a colour legend. Hovering a cell shows the
// model's tooltip (bytes at every level, measured and modeled, and the tile's timing).
#pragma once
#include <QWidget>
#include <optional>

#include "models/color_scale.hpp"
#include "models/tile_grid_model.hpp"

namespace attnscope::gui {

class HeatmapView : public QWidget {
  Q_OBJECT
 public:
  explicit HeatmapView(QWidget* parent = nullptr);
  void setModel(TileGridModel* model);
  // Cell under a widget position, as (q-tile, kv-tile); nullopt outside the grid.
  std::optional<std::pair<int, int>> cellAt(QPointF pos) const;
  QPointF cellCenter(int q_tile, int kv_tile) const;  // widget position of a cell's centre
  QSize sizeHint() const override { return {900, 640}; }

 signals:
  void cellHovered(int q_tile, int kv_tile);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  QRectF gridRect() const;
  QRectF legendRect() const;
  void paintLegend(QPainter& p, const ColorScale& scale) const;

  TileGridModel* model_ = nullptr;
  std::optional<std::pair<int, int>> hovered_;
};

}  // namespace attnscope::gui
