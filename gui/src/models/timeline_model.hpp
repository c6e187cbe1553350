// SPDX-License-Identifier: Apache-2.0
// The per-SM timeline's data: every tile of one kernel (all batches and heads) with the SM it ran on and
// its start and end, modeled and measured, and the value of the metric the boxes are coloured by; and the
// measured kernel's DRAM throughput over time from its PM samples (a counter lane under the SM rows). One row
// per tile; the timeline view paints spans(), a table can show the rows.
#pragma once
#include <QAbstractTableModel>
#include <QColor>
#include <QStringList>
#include <optional>
#include <vector>

#include "attnscope/reports/pm_samples.hpp"
#include "models/report_document.hpp"

namespace attnscope::gui {

struct TileSpan {
  int batch = 0, head = 0, q_tile = 0, kv_tile = 0;
  int sm = -1;  // -1: the report does not say
  double start_s = 0, end_s = 0;
  std::optional<double>
      value;  // the colour metric on this span's side (TimelineModel::ColorBy); absent: unknown
};

using ThroughputSample = reports::DramThroughputSample;

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

  // What a tile box's colour says: its CTA (a hue per CTA, alternating shade per kv-tile), or a metric of the
  // tile on a sequential scale from zero (tile time; HBM bytes read + written; L2 bytes read + written).
  enum class ColorBy { cta, tileTime, hbmBytes, l2Bytes };
  static QString colorByLabel(ColorBy c);

  explicit TimelineModel(QObject* parent = nullptr);
  void setReport(ReportPtr report);
  void setColorBy(ColorBy c);
  ColorBy colorBy() const { return color_by_; }
  // Largest colour-metric value over both sides (the scale runs from zero to it); 0 when none has a value.
  double colorMax() const { return color_max_; }
  // The box colour of a span (grey for a metric the span's side lacks).
  QColor spanColor(const TileSpan& span, bool measured) const;
  // The measured kernel's PM samples as DRAM throughput; empty unless profiled with --pm-sampling. Placed on
  // the kernel's time axis from its first DRAM bytes (reports/pm_samples.hpp): within a sample (~2 us).
  const std::vector<ThroughputSample>& throughput() const { return throughput_; }
  double peakThroughput() const { return peak_throughput_; }  // highest read + write, bytes/s
  void setKernel(const QString& name);
  QString kernel() const { return kernel_; }
  QStringList kernelNames() const;

  const std::vector<TileSpan>& modeledSpans() const { return modeled_; }
  const std::vector<TileSpan>& measuredSpans() const { return measured_; }
  int smCount() const { return sm_count_; }     // highest SM index seen + 1
  double endTime() const { return end_time_; }  // latest end over both sides and the samples, seconds
  // "2,048 of 65,536 tiles (batch 0 / head 0)" when the report keeps part of the kernel's tiles, else "".
  QString coverage() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  void rebuild();
  void computeValues();

  ReportPtr report_;
  QString kernel_;
  const reports::KernelEntry* entry_ = nullptr;
  std::vector<TileSpan> modeled_, measured_;
  std::vector<ThroughputSample> throughput_;
  ColorBy color_by_ = ColorBy::cta;
  int sm_count_ = 0;
  double end_time_ = 0, color_max_ = 0, peak_throughput_ = 0;
};

}  // namespace attnscope::gui
