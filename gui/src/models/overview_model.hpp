// SPDX-License-Identifier: Apache-2.0
// The error overview: kernel x metric relative error of the model against the measurement, from
// reports::overview() (the same function the terminal table and the HTML report's first screen read, so the
// numbers agree), worst kernel first. Column 0 is the kernel, then one column per headline metric, then the
// kernel's verdict. The background is a diverging, zero-centred colour scaled by the metric's accuracy target:
// white at 0, full colour at twice the worst-case target (red: the model says more, blue: less).
#pragma once
#include <QAbstractTableModel>
#include <QColor>
#include <optional>
#include <vector>

#include "attnscope/reports/overview.hpp"
#include "models/report_document.hpp"

namespace attnscope::gui {

class OverviewModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Role { ErrorRole = Qt::UserRole + 1 };  // the signed relative error as double; invalid when absent
  static constexpr int kFirstMetricColumn = 1;
  int verdictColumn() const { return kFirstMetricColumn + static_cast<int>(metrics_.size()); }

  explicit OverviewModel(QObject* parent = nullptr);
  void setReport(ReportPtr report);

  const std::vector<reports::KernelOverview>& kernels() const { return rows_; }
  const std::vector<vocab::Metric>& metrics() const { return metrics_; }
  QString kernelAt(int row) const;
  std::optional<vocab::Metric> metricAt(int column) const;
  const reports::OverviewCell* cell(int row, int column) const;
  // The cell's colour: diverging about zero, full at twice the worst-case target (at 50 % without a target).
  static QColor errorColor(const reports::OverviewCell& cell);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  ReportPtr report_;
  std::vector<reports::KernelOverview> rows_;
  std::vector<vocab::Metric> metrics_;  // headline metrics some kernel has, in table order
};

}  // namespace attnscope::gui
