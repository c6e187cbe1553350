// SPDX-License-Identifier: Apache-2.0
// Heatmap page: kernel, batch, head, level and mode selectors above a HeatmapView. Wiring only.
#pragma once
#include <QWidget>

#include "models/tile_grid_model.hpp"

class QComboBox;
class QSpinBox;

namespace attnscope::gui {

class HeatmapView;

class HeatmapPage : public QWidget {
  Q_OBJECT
 public:
  HeatmapPage(TileGridModel* model, QWidget* parent = nullptr);
  HeatmapView* view() const { return view_; }
  QComboBox* modeBox() const { return mode_; }
  QComboBox* levelBox() const { return level_; }
  // Click-through from the error overview: one kernel and metric in a chosen mode.
  void showKernelMetric(const QString& kernel, vocab::Metric metric, TileGridModel::Mode mode);

 private:
  void syncSelectors();

  TileGridModel* model_;
  HeatmapView* view_;
  QComboBox *kernel_, *level_, *mode_;
  QSpinBox *batch_, *head_;
};

}  // namespace attnscope::gui
