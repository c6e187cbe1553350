// SPDX-License-Identifier: Apache-2.0
// What-if page: workload, pass (forward, backward or a training step), kernel, forward tile shape, pipeline
// stages, the tiled backward's tile (Bc, Br, stages; "head-dim default" each), shared-memory limit and GPU
// spec as controls; a status line ("computing…", the last update's latency, or the model's error); the
// result's totals and its per-kernel and per-pass rows (WhatIfResultModel); and the tile-size sweep (of the
// backward tile when the pass has a backward) as a chart and as a Br x Bc grid. It turns its controls into a
// WhatIfRequest and shows what it is given: running the model is the WhatIfRunner's job, wired up by the main
// window.
#pragma once
#include <QWidget>

#include "models/sweep_grid_model.hpp"
#include "models/sweep_model.hpp"
#include "models/whatif_request.hpp"
#include "models/whatif_result_model.hpp"

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLabel;
class QSpinBox;
class QTableView;

namespace attnscope::gui {

class SweepChart;
class SweepGridView;

class WhatIfPage : public QWidget {
  Q_OBJECT
 public:
  WhatIfPage(SweepModel* sweep, SweepGridModel* grid, WhatIfResultModel* result, QWidget* parent = nullptr);

  WhatIfRequest request() const;
  void setRequest(const WhatIfRequest& request);  // fills the controls without emitting requestChanged
  bool autoRun() const;
  SweepChart* sweepChart() const { return sweep_chart_; }
  SweepGridView* sweepGrid() const { return sweep_grid_; }
  QComboBox* brBox() const { return br_; }
  QComboBox* bcBox() const { return bc_; }
  QComboBox* passBox() const { return pass_; }
  // The backward tile: item data 0 is "head-dim default" (the command line's default), else the value.
  QComboBox* bwdBcBox() const { return bwd_bc_; }
  QComboBox* bwdBrBox() const { return bwd_br_; }
  QComboBox* bwdStagesBox() const { return bwd_stages_; }
  QTableView* resultTable() const { return results_; }
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
  // The "head-dim default" items name the tile they stand for at the current head dim; the forward tile
  // controls are off for a backward-only pass, the backward ones for a forward-only pass.
  void updateTileControls();

  QComboBox *preset_, *dtype_, *kernel_, *pass_, *br_, *bc_, *gpu_;
  QComboBox *bwd_bc_, *bwd_br_, *bwd_stages_;
  QGroupBox* backward_;
  QTableView* results_;
  QSpinBox *batch_, *heads_, *seq_q_, *seq_kv_, *head_dim_, *warps_, *stages_, *smem_kib_;
  QSpinBox* window_;  // sliding window: keys each query sees (0 = none; needs causal)
  QCheckBox *causal_, *alibi_, *auto_run_, *sweep_, *preview_;
  QLabel *status_, *summary_;
  SweepChart* sweep_chart_;
  SweepGridView* sweep_grid_;
  bool filling_ = false;
  int last_br_ = 0;  // Br before the latest change, to keep rows per warp when Br changes
};

}  // namespace attnscope::gui
