// SPDX-License-Identifier: Apache-2.0
// Bytes-per-level page: a kernel selector, the bar chart of that kernel, and the table of every kernel and
// level with the model's error. Wiring only.
#pragma once
#include <QWidget>

#include "models/kernel_level_model.hpp"

class QComboBox;
class QTableView;

namespace attnscope::gui {

class LevelBarChart;

class LevelsPage : public QWidget {
  Q_OBJECT
 public:
  LevelsPage(KernelLevelModel* model, QWidget* parent = nullptr);
  LevelBarChart* chart() const { return chart_; }
  QComboBox* kernelBox() const { return kernel_; }
  void setNote(const QString& note);  // under the chart's title: what the comparison is (or is not)

 private:
  void syncKernels();
  void redraw();

  KernelLevelModel* model_;
  QComboBox* kernel_;
  LevelBarChart* chart_;
  QTableView* table_;
  QString note_;
};

}  // namespace attnscope::gui
