// SPDX-License-Identifier: Apache-2.0
#include "models/sweep_grid_model.hpp"

#include <algorithm>
#include <iterator>

#include "models/metric_levels.hpp"

namespace attnscope::gui {

SweepGridModel::SweepGridModel(SweepModel* source, QObject* parent)
    : QAbstractTableModel(parent), source_(source) {
  connect(source_, &QAbstractItemModel::modelAboutToBeReset, this, &SweepGridModel::beginResetModel);
  connect(source_, &QAbstractItemModel::modelReset, this, &SweepGridModel::endResetModel);
  // A point modeled while the sweep runs: its cell fills, and the colour scale may grow for every cell.
  connect(source_, &QAbstractItemModel::rowsInserted, this,
          [this] { emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1)); });
}

void SweepGridModel::setMetric(Metric m) {
  if (m == metric_) return;
  metric_ = m;
  emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

void SweepGridModel::setMeasured(QVector<QPair<int, int>> tilings) {
  if (tilings == measured_) return;
  measured_ = std::move(tilings);
  emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

void SweepGridModel::setProgress(int done, int total) {
  if (done == done_ && total == total_) return;
  done_ = done;
  total_ = total;
  emit progressChanged(done, total);
}

const SweepPointResult* SweepGridModel::pointAt(int row, int column) const {
  const int br = kSweepBr[row], bc = kSweepBc[column];
  for (const auto& p : source_->points())
    if (p.br == br && p.bc == bc) return &p;
  return nullptr;
}

double SweepGridModel::valueOf(const SweepPointResult& p) const {
  return metric_ == Metric::time ? p.time_s : p.hbm_bytes;
}

ColorScale SweepGridModel::scale() const {
  double high = 0;
  for (const auto& p : source_->points())
    if (p.feasible) high = std::max(high, valueOf(p));
  return ColorScale(0, high > 0 ? high : 1, false);
}

int SweepGridModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(std::size(kSweepBr));
}

int SweepGridModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(std::size(kSweepBc));
}

QVariant SweepGridModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const int br = kSweepBr[index.row()], bc = kSweepBc[index.column()];
  if (role == CurrentRole) {
    const int row = source_->currentRow();
    return row >= 0 && source_->points()[row].br == br && source_->points()[row].bc == bc;
  }
  if (role == MeasuredRole) return measured_.contains(qMakePair(br, bc));
  const SweepPointResult* p = pointAt(index.row(), index.column());
  switch (role) {
    case Qt::DisplayRole:
      if (!p) return total_ > 0 ? tr("…") : QString();
      if (!p->feasible) return tr("infeasible");
      return metric_ == Metric::time ? formatSeconds(p->time_s) : formatBytes(p->hbm_bytes);
    case ValueRole:
      return p && p->feasible ? QVariant(valueOf(*p)) : QVariant();
    case FeasibleRole:
      return p ? QVariant(p->feasible) : QVariant();
    case ReasonRole:
      return p && !p->feasible ? QVariant(p->reason) : QVariant();
    case Qt::BackgroundRole:
      return p && p->feasible ? QVariant(scale().color(valueOf(*p))) : QVariant();
    case Qt::ToolTipRole: {
      QString tip = tr("Br %1 × Bc %2").arg(br).arg(bc);
      if (p) tip += tr(", %1 warps, %2 stages").arg(p->warps).arg(p->stages);
      if (!p)
        tip += total_ > 0 ? tr("<br/>not modeled yet") : tr("<br/>not in the sweep");
      else if (!p->feasible)
        tip += tr("<br/><b>infeasible</b>: %1").arg(p->reason.toHtmlEscaped());
      else
        tip += tr("<br/>modeled time %1 · HBM %2 · L2 %3")
                   .arg(formatSeconds(p->time_s), formatBytes(p->hbm_bytes), formatBytes(p->l2_bytes));
      if (data(index, CurrentRole).toBool()) tip += tr("<br/>the what-if panel's tiling");
      if (data(index, MeasuredRole).toBool())
        tip += tr("<br/>measured (the opened or compared report ran it)");
      return tip;
    }
    case Qt::TextAlignmentRole:
      return Qt::AlignCenter;
    default:
      return {};
  }
}

QVariant SweepGridModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Horizontal && section >= 0 && section < columnCount())
    return tr("Bc %1").arg(kSweepBc[section]);
  if (orientation == Qt::Vertical && section >= 0 && section < rowCount())
    return tr("Br %1").arg(kSweepBr[section]);
  return {};
}

}  // namespace attnscope::gui
