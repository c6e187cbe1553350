// SPDX-License-Identifier: Apache-2.0
#include "models/kernel_level_model.hpp"

#include "models/metric_levels.hpp"

namespace attnscope::gui {
namespace {

const reports::KernelEntry* kernelNamed(const ReportPtr& report, const std::string& name) {
  if (!report) return nullptr;
  for (const auto& k : report->kernels) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

}  // namespace

KernelLevelModel::KernelLevelModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelLevelModel::setReports(ReportPtr primary, ReportPtr comparison) {
  beginResetModel();
  primary_ = std::move(primary);
  comparison_ = std::move(comparison);
  rows_.clear();
  if (primary_) {
    for (const auto& kernel : primary_->kernels) {
      const auto* compared = kernelNamed(comparison_, kernel.name);
      const auto add = [&](vocab::Metric key) {
        Row row{QString::fromStdString(kernel.name),
                key,
                metricValue(kernel.metrics, key, Side::measured),
                metricValue(kernel.metrics, key, Side::modeled),
                std::nullopt,
                std::nullopt};
        if (compared) {
          row.compared_measured = metricValue(compared->metrics, key, Side::measured);
          row.compared_modeled = metricValue(compared->metrics, key, Side::modeled);
        }
        rows_.push_back(std::move(row));
      };
      for (const auto level : kByteLevels) add(level);
      add(vocab::Metric::time);
    }
  }
  endResetModel();
}

QStringList KernelLevelModel::kernelNames() const {
  QStringList names;
  if (primary_) {
    for (const auto& k : primary_->kernels) names << QString::fromStdString(k.name);
  }
  return names;
}

std::vector<KernelLevelModel::Row> KernelLevelModel::rowsOf(const QString& kernel) const {
  std::vector<Row> out;
  for (const auto& row : rows_) {
    if (row.kernel == kernel && row.key != vocab::Metric::time) out.push_back(row);
  }
  return out;
}

int KernelLevelModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int KernelLevelModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  return comparison_ ? columnsWithComparison : comparedMeasuredColumn;
}

QVariant KernelLevelModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const Row& row = rows_[static_cast<std::size_t>(index.row())];
  std::optional<double> number;
  switch (index.column()) {
    case measuredColumn:
      number = row.measured;
      break;
    case modeledColumn:
      number = row.modeled;
      break;
    case comparedMeasuredColumn:
      number = row.compared_measured;
      break;
    case comparedModeledColumn:
      number = row.compared_modeled;
      break;
    case errorColumn:
      if (row.measured && row.modeled && *row.measured != 0)
        number = (*row.modeled - *row.measured) / *row.measured;
      break;
    default:
      break;
  }
  if (role == ValueRole) return number ? QVariant(*number) : QVariant();
  if (role == Qt::TextAlignmentRole && index.column() >= measuredColumn) {
    return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kernelColumn:
      return row.kernel;
    case levelColumn:
      return levelLabel(row.key);
    case errorColumn:
      return number ? formatPercent(*number) : QStringLiteral("–");
    default:
      if (!number) return QStringLiteral("–");
      return row.key == vocab::Metric::time ? formatSeconds(*number) : formatBytes(*number);
  }
}

QVariant KernelLevelModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  switch (section) {
    case kernelColumn:
      return tr("Kernel");
    case levelColumn:
      return tr("Level");
    case measuredColumn:
      return tr("Measured");
    case modeledColumn:
      return tr("Modeled");
    case errorColumn:
      return tr("Model error");
    case comparedMeasuredColumn:
      return tr("Compared: measured");
    case comparedModeledColumn:
      return tr("Compared: modeled");
    default:
      return {};
  }
}

}  // namespace attnscope::gui
