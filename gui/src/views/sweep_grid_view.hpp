// SPDX-License-Identifier: Apache-2.0
// The sweep as a Br x Bc heatmap (a SweepGridModel in a table with a painting delegate): the metric chosen
// above it (modeled time or HBM bytes), the current what-if tiling framed, measured tilings marked with a
// corner triangle, infeasible cells hatched with the reason in their tooltip, and the sweep's progress while
// it runs.
#pragma once
#include <QWidget>

#include "models/sweep_grid_model.hpp"

class QComboBox;
class QLabel;
class QProgressBar;
class QTableView;

namespace attnscope::gui {

class SweepGridView : public QWidget {
  Q_OBJECT
 public:
  SweepGridView(SweepGridModel* model, QWidget* parent = nullptr);
  QTableView* table() const { return table_; }
  QComboBox* metricBox() const { return metric_; }
  QProgressBar* progressBar() const { return progress_; }

 private:
  void updateLegend();

  SweepGridModel* model_;
  QTableView* table_;
  QComboBox* metric_;
  QProgressBar* progress_;
  QLabel* legend_;
  QLabel* title_;
};

}  // namespace attnscope::gui
