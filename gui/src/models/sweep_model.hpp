// SPDX-License-Identifier: Apache-2.0
// The tile-size sweep: bytes and time of the tiled kernel for each Br x Bc tried (the forward tile, or the
// backward's when the request runs a backward pass), with the current choice marked. One row per tile size.
#pragma once
#include <QAbstractTableModel>

#include "models/whatif_request.hpp"

namespace attnscope::gui {

class SweepModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { tileColumn, warpsColumn, hbmColumn, l2Column, timeColumn, noteColumn, columnCount_ };
  enum Role { ValueRole = Qt::UserRole + 1, CurrentRole };

  explicit SweepModel(QObject* parent = nullptr);
  void setPoints(QVector<SweepPointResult> points, int current_br, int current_bc);
  // A sweep in progress: start empty for a tiling, then append each point as it is modeled. `backward`: the
  // sweep varies the tiled backward's tile (SweepPointResult::backward).
  void startSweep(int current_br, int current_bc, bool backward = false);
  void appendPoint(const SweepPointResult& point);
  const QVector<SweepPointResult>& points() const { return points_; }
  bool backward() const { return backward_; }  // the sweep varies the backward tile
  // What the sweep varies, for titles: "tiled kernel" or "tiled backward, 2 stages".
  QString subject() const;
  int currentRow() const;  // row of the current Br x Bc, -1 when the sweep does not hold it
  static QString tileLabel(const SweepPointResult& p);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  QVector<SweepPointResult> points_;
  int current_br_ = 0, current_bc_ = 0;
  bool backward_ = false;
};

}  // namespace attnscope::gui
