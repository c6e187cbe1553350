// SPDX-License-Identifier: Apache-2.0
// The per-SM timeline's data: every tile of one kernel (all batches and heads) with the SM it ran on and
// its start and end, modeled and measured. One row per tile; the timeline view paints spans(), a table can
// show the rows.
#pragma once
#include <QAbstractTableModel>
#include <QStringList>
#include <optional>
#include <vector>

#include "models/report_document.hpp"

namespace attnscope::gui {

struct TileSpan {
  int batch = 0, head = 0, q_tile = 0, kv_tile = 0;
  int sm = -1;  // -1: the report does not say
  double start_s = 0, end_s = 0;
};

class TimelineModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    batchColumn,
    headColumn,
    qTileColumn,
    kvTileColumn,
    smModeledColumn,
    startModeledColumn,
    endModeledColumn,
    smMeasuredColumn,
    startMeasuredColumn,
    endMeasuredColumn,
    columnCount_
  };

  explicit TimelineModel(QObject* parent = nullptr);
  void setReport(ReportPtr report);
  void setKernel(const QString& name);
  QString kernel() const { return kernel_; }
  QStringList kernelNames() const;

  const std::vector<TileSpan>& modeledSpans() const { return modeled_; }
  const std::vector<TileSpan>& measuredSpans() const { return measured_; }
  int smCount() const { return sm_count_; }     // highest SM index seen + 1
  double endTime() const { return end_time_; }  // latest end over both sides, seconds
  // "2,048 of 65,536 tiles (batch 0 / head 0)" when the report keeps part of the kernel's tiles, else "".
  QString coverage() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  void rebuild();

  ReportPtr report_;
  QString kernel_;
  const reports::KernelEntry* entry_ = nullptr;
  std::vector<TileSpan> modeled_, measured_;
  int sm_count_ = 0;
  double end_time_ = 0;
};

}  // namespace attnscope::gui
