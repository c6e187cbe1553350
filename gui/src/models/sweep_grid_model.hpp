// SPDX-License-Identifier: Apache-2.0
// The tile-size sweep as a Br x Bc grid: one row per Br, one column per Bc (kSweepBr x kSweepBc), each cell
// the modeled time or HBM bytes of that tiling, on a sequential scale from zero. It reads the SweepModel's
// points (and follows its resets) and marks the current what-if tiling and the tilings that were measured
// (the opened report's, a compared report's). An infeasible tiling has no value; its tooltip gives the
// reason.
#pragma once
#include <QAbstractTableModel>
#include <QPair>
#include <QVector>

#include "models/color_scale.hpp"
#include "models/sweep_model.hpp"

namespace attnscope::gui {

class SweepGridModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum class Metric { time, hbmBytes };
  enum Role {
    ValueRole = Qt::UserRole + 1,  // double; absent for a cell not swept (yet) or infeasible
    FeasibleRole,                  // bool; absent for a cell not swept (yet)
    CurrentRole,                   // bool: the what-if panel's tiling
    MeasuredRole,                  // bool: a measured report ran this tiling
    ReasonRole,                    // QString: why the tiling is infeasible
  };

  explicit SweepGridModel(SweepModel* source, QObject* parent = nullptr);
  void setMetric(Metric m);
  Metric metric() const { return metric_; }
  // Tilings (Br, Bc) of the tiled kernel that a measured report ran.
  void setMeasured(QVector<QPair<int, int>> tilings);
  const QVector<QPair<int, int>>& measured() const { return measured_; }
  // Sweep progress: `done` of `total` points modeled; total 0 when no sweep is running.
  void setProgress(int done, int total);
  int progressDone() const { return done_; }
  int progressTotal() const { return total_; }
  ColorScale scale() const;  // zero to the largest feasible value
  const SweepModel* source() const { return source_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 signals:
  void progressChanged(int done, int total);

 private:
  const SweepPointResult* pointAt(int row, int column) const;
  double valueOf(const SweepPointResult& p) const;

  SweepModel* source_;
  Metric metric_ = Metric::time;
  QVector<QPair<int, int>> measured_;
  int done_ = 0, total_ = 0;
};

}  // namespace attnscope::gui
