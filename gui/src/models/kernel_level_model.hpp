// SPDX-License-Identifier: Apache-2.0
// Bytes per memory level (and time) for every kernel of a report, measured next to modeled, then the
// live what-if model's values (a third series, when the what-if panel has run beside an opened file) and a
// compared report's values. One row per (kernel, level); the level chart reads the rows of one kernel, the
// data page shows them all. The measured column always comes from the opened report.
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
    whatIfColumn,  // present only with a live what-if result
    comparedMeasuredColumn,
    comparedModeledColumn,  // these two only with a compared report
  };
  enum Role { ValueRole = Qt::UserRole + 1 };  // the raw number (bytes or seconds); invalid when absent

  struct Row {
    QString kernel;
    vocab::Metric key;  // a byte level or time
    std::optional<double> measured, modeled, compared_measured, compared_modeled, what_if;
  };

  explicit KernelLevelModel(QObject* parent = nullptr);
  void setReports(ReportPtr primary, ReportPtr comparison, ReportPtr live = nullptr);

  QStringList kernelNames() const;
  bool hasComparison() const { return comparison_ != nullptr; }
  bool hasWhatIf() const { return live_ != nullptr; }
  const std::vector<Row>& levelRows() const { return rows_; }
  std::vector<Row> rowsOf(const QString& kernel) const;  // byte levels only, in kByteLevels order
  // The value shown in a row of a column (kernel and level columns have none).
  std::optional<double> number(const Row& row, Column column) const;
  Column columnAt(int section) const { return columns_.at(static_cast<std::size_t>(section)); }
  int sectionOf(Column column) const;  // -1 when the column is not shown

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  ReportPtr primary_, comparison_, live_;
  std::vector<Row> rows_;
  std::vector<Column> columns_;
};

}  // namespace attnscope::gui
