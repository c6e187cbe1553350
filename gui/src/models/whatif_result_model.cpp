// SPDX-License-Identifier: Apache-2.0
#include "models/whatif_result_model.hpp"

#include <QFont>
#include <string>
#include <string_view>

#include "attnscope/reports/pass_totals.hpp"
#include "attnscope/vocab/kernel.hpp"
#include "models/metric_levels.hpp"

namespace attnscope::gui {
namespace {

QString passName(vocab::Pass p) {
  return p == vocab::Pass::fwd   ? WhatIfResultModel::tr("forward")
         : p == vocab::Pass::bwd ? WhatIfResultModel::tr("backward")
                                 : WhatIfResultModel::tr("training step");
}

// The tile a kernel ran with: the naive kernels' tiling is fixed, so they show none; the backward's pre- and
// post-processing kernels work in the backward tile's q tiles, so they show it as tiled_bwd does.
QString tileOf(vocab::KernelId id, const reports::Report& r) {
  switch (vocab::kind_of(id)) {
    case vocab::KernelKind::naive:
      return {};
    case vocab::KernelKind::hopper:
      return QString::fromStdString(r.tiles.hopper_label());
    case vocab::KernelKind::tiled:
      return QString::fromStdString(
          vocab::pass_of(id) == vocab::Pass::bwd ? r.tiles.bwd_label(r.workload.head_dim) : r.tiles.label());
  }
  return {};
}

void fill(WhatIfResultModel::Row& row, const reports::Metrics& m) {
  row.hbm_read = metricValue(m, vocab::Metric::dram_read, Side::modeled);
  row.hbm_write = metricValue(m, vocab::Metric::dram_write, Side::modeled);
  row.l2_read = metricValue(m, vocab::Metric::l2_read, Side::modeled);
  row.l2_write = metricValue(m, vocab::Metric::l2_write, Side::modeled);
  row.time_s = metricValue(m, vocab::Metric::time, Side::modeled);
}

}  // namespace

WhatIfResultModel::WhatIfResultModel(QObject* parent) : QAbstractTableModel(parent) {}

void WhatIfResultModel::setReport(ReportPtr report) {
  beginResetModel();
  rows_.clear();
  if (report) {
    for (const reports::KernelEntry& k : report->kernels) {
      Row row;
      row.name = QString::fromStdString(k.name);
      if (const auto id = vocab::parse_kernel_id(k.name)) {
        row.pass = passName(vocab::pass_of(*id));
        row.tile = tileOf(*id, *report);
      }
      fill(row, k.metrics);
      rows_.push_back(std::move(row));
    }
    for (const reports::PassTotal& p : reports::pass_totals(*report)) {
      Row row;
      row.name = QString::fromStdString(p.label);
      row.total = true;
      row.kernels = p.kernels;
      const auto ends = [&p](std::string_view suffix) { return p.label.ends_with(suffix); };
      row.pass = ends("training step") ? passName(vocab::Pass::both)
                 : ends("backward")    ? passName(vocab::Pass::bwd)
                                       : passName(vocab::Pass::fwd);
      fill(row, p.metrics);
      rows_.push_back(std::move(row));
    }
  }
  endResetModel();
}

const WhatIfResultModel::Row* WhatIfResultModel::find(const QString& name) const {
  for (const Row& r : rows_)
    if (r.name == name) return &r;
  return nullptr;
}

int WhatIfResultModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int WhatIfResultModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : columnCount_;
}

QVariant WhatIfResultModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const Row& row = rows_[static_cast<std::size_t>(index.row())];
  if (role == TotalRole) return row.total;
  std::optional<double> value;
  switch (index.column()) {
    case hbmReadColumn:
      value = row.hbm_read;
      break;
    case hbmWriteColumn:
      value = row.hbm_write;
      break;
    case l2ReadColumn:
      value = row.l2_read;
      break;
    case l2WriteColumn:
      value = row.l2_write;
      break;
    case timeColumn:
      value = row.time_s;
      break;
    default:
      break;
  }
  if (role == ValueRole) return value ? QVariant(*value) : QVariant();
  if (role == Qt::FontRole && row.total) {
    QFont bold;
    bold.setBold(true);
    return bold;
  }
  if (role == Qt::TextAlignmentRole && index.column() >= hbmReadColumn)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && row.total)
    return row.kernels == 1 ? tr("The one kernel of the %1").arg(row.name)
                            : tr("Sum of the %1 kernels of the %2").arg(row.kernels).arg(row.name);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case nameColumn:
      return row.total ? tr("Σ %1").arg(row.name) : row.name;
    case passColumn:
      return row.pass;
    case tileColumn:
      return row.tile;
    case timeColumn:
      return value ? formatSeconds(*value) : QStringLiteral("–");
    default:
      return formatOptionalBytes(value);
  }
}

QVariant WhatIfResultModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  switch (section) {
    case nameColumn:
      return tr("Kernel");
    case passColumn:
      return tr("Pass");
    case tileColumn:
      return tr("Tile");
    case hbmReadColumn:
      return tr("HBM read");
    case hbmWriteColumn:
      return tr("HBM write");
    case l2ReadColumn:
      return tr("L2 read");
    case l2WriteColumn:
      return tr("L2 write");
    case timeColumn:
      return tr("Time");
    default:
      return {};
  }
}

}  // namespace attnscope::gui
