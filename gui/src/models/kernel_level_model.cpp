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

void KernelLevelModel::setReports(ReportPtr primary, ReportPtr comparison, ReportPtr live) {
  beginResetModel();
  primary_ = std::move(primary);
  comparison_ = std::move(comparison);
  live_ = std::move(live);
  rows_.clear();
  columns_ = {kernelColumn, levelColumn, measuredColumn, modeledColumn, errorColumn};
  if (live_) columns_.push_back(whatIfColumn);
  if (comparison_) {
    columns_.push_back(comparedMeasuredColumn);
    columns_.push_back(comparedModeledColumn);
  }
  if (primary_) {
    for (const auto& kernel : primary_->kernels) {
      const auto* compared = kernelNamed(comparison_, kernel.name);
      const auto* what_if = kernelNamed(live_, kernel.name);
      const auto add = [&](vocab::Metric key) {
        Row row{QString::fromStdString(kernel.name),
                key,
                metricValue(kernel.metrics, key, Side::measured),
                metricValue(kernel.metrics, key, Side::modeled),
                std::nullopt,
                std::nullopt,
                std::nullopt};
        if (compared) {
          row.compared_measured = metricValue(compared->metrics, key, Side::measured);
          row.compared_modeled = metricValue(compared->metrics, key, Side::modeled);
        }
        if (what_if) row.what_if = metricValue(what_if->metrics, key, Side::modeled);
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

int KernelLevelModel::sectionOf(Column column) const {
  for (std::size_t i = 0; i < columns_.size(); ++i)
    if (columns_[i] == column) return static_cast<int>(i);
  return -1;
}

std::optional<double> KernelLevelModel::number(const Row& row, Column column) const {
  switch (column) {
    case measuredColumn:
      return row.measured;
    case modeledColumn:
      return row.modeled;
    case whatIfColumn:
      return row.what_if;
    case comparedMeasuredColumn:
      return row.compared_measured;
    case comparedModeledColumn:
      return row.compared_modeled;
    case errorColumn:
      if (row.measured && row.modeled && *row.measured != 0) return (*row.modeled - *row.measured) / *row.measured;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

int KernelLevelModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int KernelLevelModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(columns_.size());
}

QVariant KernelLevelModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const Row& row = rows_[static_cast<std::size_t>(index.row())];
  const Column column = columnAt(index.column());
  const std::optional<double> value = number(row, column);
  if (role == ValueRole) return value ? QVariant(*value) : QVariant();
  if (role == Qt::TextAlignmentRole && column >= measuredColumn) {
    return QVariant::fromValue(Qt::Alignment(Qt::AlignRight | Qt::AlignVCenter));
  }
  if (role == Qt::ToolTipRole && column == whatIfColumn)
    return tr("The live what-if model's value (the what-if panel's workload and tiling), beside the opened "
              "report's measured and modeled values");
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case kernelColumn:
      return row.kernel;
    case levelColumn:
      return levelLabel(row.key);
    case errorColumn:
      return value ? formatPercent(*value) : QStringLiteral("–");
    default:
      return value ? formatMetric(*value, row.key) : QStringLiteral("–");
  }
}

QVariant KernelLevelModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal || section < 0 ||
      section >= static_cast<int>(columns_.size()))
    return {};
  switch (columnAt(section)) {
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
    case whatIfColumn:
      return tr("What-if model");
    case comparedMeasuredColumn:
      return tr("Compared: measured");
    case comparedModeledColumn:
      return tr("Compared: modeled");
  }
  return {};
}

}  // namespace attnscope::gui
