// SPDX-License-Identifier: Apache-2.0
// What-if page: workload, kernel, tile shape, pipeline stages, shared-memory limit and GPU spec as controls;
// a status line ("computing…", the last update's latency, or the model's error); the result's totals; and
// the tile-size sweep as a chart and as a Br x Bc grid. It turns its controls into a WhatIfRequest and shows
// what it is given: running the model is the WhatIfRunner's job, wired up by the main window.
#pragma once
#include <QWidget>

#include "models/sweep_grid_model.hpp"
#include "models/sweep_model.hpp"
#include "models/whatif_request.hpp"

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace attnscope::gui {

class SweepChart;
class SweepGridView;

class WhatIfPage : public QWidget {
  Q_OBJECT
 public:
  WhatIfPage(SweepModel* sweep, SweepGridModel* grid, QWidget* parent = nullptr);

  WhatIfRequest request() const;
  void setRequest(const WhatIfRequest& request);  // fills the controls without emitting requestChanged
  bool autoRun() const;
  SweepChart* sweepChart() const { return sweep_chart_; }
  SweepGridView* sweepGrid() const { return sweep_grid_; }
  QComboBox* brBox() const { return br_; }
  QComboBox* bcBox() const { return bc_; }
  QLabel* statusLabel() const { return status_; }

 public slots:
  void setBusy(bool busy);
  void showResult(const attnscope::gui::ReportPtr& report, double model_ms, double views_ms);
  void showError(const QString& message);
  void setSweepComputing();

 signals:
  void requestChanged();  // a control changed (the main window re-runs when auto-run is on)
  void runRequested();    // the Run button

 private:
  void applyPreset(const QString& name);
  void controlChanged();

  QComboBox *preset_, *dtype_, *kernel_, *br_, *bc_, *gpu_;
  QSpinBox *batch_, *heads_, *seq_q_, *seq_kv_, *head_dim_, *warps_, *stages_, *smem_kib_;
  QCheckBox *causal_, *auto_run_, *sweep_, *preview_;
  QLabel *status_, *summary_;
  SweepChart* sweep_chart_;
  SweepGridView* sweep_grid_;
  bool filling_ = false;
  int last_br_ = 0;  // Br before the latest change, to keep rows per warp when Br changes
};

}  // namespace attnscope::gui
