// SPDX-License-Identifier: Apache-2.0
// Bytes per memory level (and time) for every kernel of a report, measured next to modeled, and, when a
// second report is open, that report's values beside them. One row per (kernel, level); the bar chart reads
// the rows of one kernel, the data page shows them all.
#pragma once
#include <QAbstractTableModel>
#include <QStringList>
#include <optional>
#include <string>
#include <vector>

#include "models/report_document.hpp"

namespace attnscope::gui {

class KernelLevelModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    kernelColumn,
    levelColumn,
    measuredColumn,
    modeledColumn,
    errorColumn,
    comparedMeasuredColumn,
    comparedModeledColumn,
    columnsWithComparison
  };
  enum Role { ValueRole = Qt::UserRole + 1 };  // the raw number (bytes or seconds); invalid when absent

  struct Row {
    QString kernel;
    vocab::Metric key;  // a byte level or time
    std::optional<double> measured, modeled, compared_measured, compared_modeled;
  };

  explicit KernelLevelModel(QObject* parent = nullptr);
  void setReports(ReportPtr primary, ReportPtr comparison);

  QStringList kernelNames() const;
  bool hasComparison() const { return comparison_ != nullptr; }
  const std::vector<Row>& levelRows() const { return rows_; }
  std::vector<Row> rowsOf(const QString& kernel) const;  // byte levels only, in kByteLevels order

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  ReportPtr primary_, comparison_;
  std::vector<Row> rows_;
};

}  // namespace attnscope::gui
