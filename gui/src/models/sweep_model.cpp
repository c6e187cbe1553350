// SPDX-License-Identifier: Apache-2.0
#include "models/sweep_model.hpp"

#include "models/metric_levels.hpp"

namespace attnscope::gui {

SweepModel::SweepModel(QObject* parent) : QAbstractTableModel(parent) {}

void SweepModel::setPoints(QVector<SweepPointResult> points, int current_br, int current_bc) {
  beginResetModel();
  points_ = std::move(points);
  if (!points_.isEmpty()) backward_ = points_.front().backward;
  current_br_ = current_br;
  current_bc_ = current_bc;
  endResetModel();
}

void SweepModel::startSweep(int current_br, int current_bc, bool backward) {
  backward_ = backward;
  setPoints({}, current_br, current_bc);
}

QString SweepModel::subject() const {
  if (!backward_) return tr("tiled kernel");
  const int stages = points_.isEmpty() ? 0 : points_.front().stages;
  if (stages <= 0) return tr("tiled backward");
  return stages == 1 ? tr("tiled backward, 1 stage") : tr("tiled backward, %1 stages").arg(stages);
}

void SweepModel::appendPoint(const SweepPointResult& point) {
  const auto row = static_cast<int>(points_.size());
  beginInsertRows({}, row, row);
  points_.push_back(point);
  endInsertRows();
}

int SweepModel::currentRow() const {
  for (qsizetype i = 0; i < points_.size(); ++i) {
    if (points_[i].br == current_br_ && points_[i].bc == current_bc_) return static_cast<int>(i);
  }
  return -1;
}

QString SweepModel::tileLabel(const SweepPointResult& p) {
  return QStringLiteral("%1×%2").arg(p.br).arg(p.bc);
}

int SweepModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(points_.size());
}
int SweepModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : columnCount_;
}

QVariant SweepModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const auto& p = points_[index.row()];
  if (role == CurrentRole) return index.row() == currentRow();
  if (role == ValueRole) {
    if (!p.feasible) return {};
    switch (index.column()) {
      case hbmColumn:
        return p.hbm_bytes;
      case l2Column:
        return p.l2_bytes;
      case timeColumn:
        return p.time_s;
      default:
        return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case tileColumn:
      return tileLabel(p);
    case warpsColumn:
      return p.warps;
    case hbmColumn:
      return p.feasible ? formatBytes(p.hbm_bytes) : QStringLiteral("–");
    case l2Column:
      return p.feasible ? formatBytes(p.l2_bytes) : QStringLiteral("–");
    case timeColumn:
      return p.feasible ? formatSeconds(p.time_s) : QStringLiteral("–");
    case noteColumn:
      return p.feasible ? (index.row() == currentRow() ? tr("current") : QString()) : p.reason;
    default:
      return {};
  }
}

QVariant SweepModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  switch (section) {
    case tileColumn:
      return tr("Br×Bc");
    case warpsColumn:
      return tr("Warps");
    case hbmColumn:
      return tr("HBM bytes");
    case l2Column:
      return tr("L2 bytes");
    case timeColumn:
      return tr("Time");
    case noteColumn:
      return tr("Note");
    default:
      return {};
  }
}

}  // namespace attnscope::gui
