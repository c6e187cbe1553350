// SPDX-License-Identifier: Apache-2.0
// Line chart of the tile-size sweep: HBM bytes (left axis) and modeled time (right axis) per Br x Bc, the
// current choice marked with a larger point on both lines.
#pragma once
#include <QChartView>

#include "models/sweep_model.hpp"

namespace attnscope::gui {

class SweepChart : public QChartView {
  Q_OBJECT
 public:
  explicit SweepChart(QWidget* parent = nullptr);
  void setModel(SweepModel* model);
  void setComputing(bool computing);
  QSize sizeHint() const override { return {700, 420}; }

 private:
  void rebuild();
  SweepModel* model_ = nullptr;
};

}  // namespace attnscope::gui
