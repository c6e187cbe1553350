// SPDX-License-Identifier: Apache-2.0
// Bar chart of one kernel's bytes per memory level: measured next to modeled (and a compared report's
// bars when one is open), from KernelLevelModel rows.
#pragma once
#include <QChartView>

#include "models/kernel_level_model.hpp"

namespace attnscope::gui {

class LevelBarChart : public QChartView {
  Q_OBJECT
 public:
  explicit LevelBarChart(QWidget* parent = nullptr);
  void setRows(const QString& kernel, const std::vector<KernelLevelModel::Row>& rows, bool with_comparison);
  QSize sizeHint() const override { return {900, 560}; }
};

}  // namespace attnscope::gui
