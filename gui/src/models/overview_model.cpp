// SPDX-License-Identifier: Apache-2.0
#include "models/overview_model.hpp"

#include <algorithm>

#include "models/color_scale.hpp"
#include "models/metric_levels.hpp"

namespace attnscope::gui {

OverviewModel::OverviewModel(QObject* parent) : QAbstractTableModel(parent) {}

void OverviewModel::setReport(ReportPtr report) {
  beginResetModel();
  report_ = std::move(report);
  rows_.clear();
  metrics_.clear();
  if (report_) {
    rows_ = reports::overview(*report_);
    for (const auto m : vocab::all_metrics()) {
      if (!reports::is_headline(m)) continue;
      const bool any = std::any_of(rows_.begin(), rows_.end(), [m](const reports::KernelOverview& k) {
        return std::any_of(k.cells.begin(), k.cells.end(), [m](const auto& c) { return c.metric == m; });
      });
      if (any) metrics_.push_back(m);
    }
  }
  endResetModel();
}

QString OverviewModel::kernelAt(int row) const {
  if (row < 0 || row >= static_cast<int>(rows_.size())) return {};
  return QString::fromStdString(rows_[static_cast<std::size_t>(row)].kernel);
}

std::optional<vocab::Metric> OverviewModel::metricAt(int column) const {
  const int i = column - kFirstMetricColumn;
  if (i < 0 || i >= static_cast<int>(metrics_.size())) return std::nullopt;
  return metrics_[static_cast<std::size_t>(i)];
}

const reports::OverviewCell* OverviewModel::cell(int row, int column) const {
  const auto m = metricAt(column);
  if (!m || row < 0 || row >= static_cast<int>(rows_.size())) return nullptr;
  for (const auto& c : rows_[static_cast<std::size_t>(row)].cells)
    if (c.metric == *m) return &c;
  return nullptr;
}

QColor OverviewModel::errorColor(const reports::OverviewCell& cell) {
  if (!cell.error) return QColor(235, 235, 235);
  const auto& target = vocab::info(cell.metric).target;
  const double full = target ? 2 * target->worst : 0.5;
  return ColorScale(-full, full, true).color(*cell.error);
}

int OverviewModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int OverviewModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || rows_.empty() ? 0 : verdictColumn() + 1;
}

QVariant OverviewModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const auto& kernel = rows_[static_cast<std::size_t>(index.row())];
  if (index.column() == 0) return role == Qt::DisplayRole ? QVariant(QString::fromStdString(kernel.kernel)) : QVariant();
  if (index.column() == verdictColumn()) {
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) return QString::fromStdString(kernel.verdict);
    return {};
  }
  const reports::OverviewCell* c = cell(index.row(), index.column());
  if (!c) return role == Qt::DisplayRole ? QVariant(QStringLiteral("")) : QVariant();
  switch (role) {
    case Qt::DisplayRole:
      return QString::fromStdString(reports::cell_text(*c));
    case ErrorRole:
      return c->error ? QVariant(*c->error) : QVariant();
    case Qt::BackgroundRole:
      return errorColor(*c);
    case Qt::ForegroundRole:
      return QColor(20, 20, 20);
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
    case Qt::ToolTipRole: {
      const auto& info = vocab::info(c->metric);
      QString tip = tr("<b>%1</b> %2<br/>measured %3, modeled %4")
                        .arg(QString::fromStdString(kernel.kernel), levelLabel(c->metric),
                             c->value.measured ? formatMetric(*c->value.measured, c->metric) : QStringLiteral("–"),
                             c->value.modeled ? formatMetric(*c->value.modeled, c->metric) : QStringLiteral("–"));
      if (info.target)
        tip += tr("<br/>target: %1 median / %2 worst").arg(formatPercent(info.target->median).mid(1),
                                                         formatPercent(info.target->worst).mid(1));
      if (!info.modeled)
        tip += tr("<br/>not modeled: %1").arg(QString::fromUtf8(info.not_modeled.data(),
                                                               static_cast<qsizetype>(info.not_modeled.size())));
      return tip + tr("<br/>click: the tile heatmap of this kernel and metric, relative error");
    }
    default:
      return {};
  }
}

QVariant OverviewModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  if (section == 0) return tr("Kernel");
  if (section == verdictColumn()) return tr("Verdict");
  if (const auto m = metricAt(section)) return levelLabel(*m);
  return {};
}

}  // namespace attnscope::gui
