// SPDX-License-Identifier: Apache-2.0
// The what-if result as a table: one row per modeled kernel in launch order (the forward's, then the
// backward's: tiled_bwd.pre, tiled_bwd, tiled_bwd.post for the tiled kind, naive_bwd.* for the naive one),
// then, for a kind that ran a backward pass, its per-pass sums as the report gives them
// (reports::pass_totals: "tiled forward", "tiled backward", "tiled training step"). Modeled values only.
#pragma once
#include <QAbstractTableModel>
#include <QString>
#include <optional>
#include <vector>

#include "models/report_document.hpp"

namespace attnscope::gui {

class WhatIfResultModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    nameColumn,
    passColumn,
    tileColumn,
    hbmReadColumn,
    hbmWriteColumn,
    l2ReadColumn,
    l2WriteColumn,
    timeColumn,
    columnCount_
  };
  enum Role {
    ValueRole = Qt::UserRole + 1,  // the raw number (bytes or seconds); invalid when absent
    TotalRole,                     // bool: a per-pass or per-step sum, not a kernel
  };

  struct Row {
    QString name;  // the kernel ("tiled_bwd.pre") or the sum ("tiled backward")
    QString pass;  // "forward", "backward" or "training step"
    QString tile;  // the tile the kernel ran with; empty for a sum and for the naive kernels' fixed tiling
    bool total = false;
    int kernels = 1;  // kernels summed (1 for a kernel row)
    std::optional<double> hbm_read, hbm_write, l2_read, l2_write, time_s;
  };

  explicit WhatIfResultModel(QObject* parent = nullptr);
  void setReport(ReportPtr report);  // null: empty
  const std::vector<Row>& rows() const { return rows_; }
  // The row named `name` (a kernel or a sum), or null.
  const Row* find(const QString& name) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::vector<Row> rows_;
};

}  // namespace attnscope::gui
