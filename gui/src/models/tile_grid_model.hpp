// SPDX-License-Identifier: Apache-2.0
// The heatmap's data: one cell per (q-tile, kv-tile) of one kernel at a chosen batch and head, holding the
// measured or modeled value of one metric, their difference or relative error, the live what-if model's
// value, or the difference from a compared report. Tile-by-tile views of another report (compared or
// what-if) are refused, with the reason in refusal(), when its tiles cover other data (comparability.hpp).
// Tiles measured as lone windows (launched alone from a cold L2) are flagged: their values are not the
// tile's share of the full run, so they do not set the colour range of full-run tiles.
// Rows are q-tiles, columns kv-tiles. The tooltip role carries a tile's bytes at every level (measured and
// modeled) and its timing, so any view can show it on hover.
#pragma once
#include <QAbstractTableModel>
#include <QStringList>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "models/color_scale.hpp"
#include "models/metric_levels.hpp"
#include "models/report_document.hpp"

namespace attnscope::gui {

class TileGridModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum class Mode {
    measured,
    modeled,
    modeledMinusMeasured,
    versusComparison,  // this report minus the compared one (measured where both have it, else modeled)
    relativeError,     // (modeled - measured) / measured
    whatIf,            // the live what-if model's modeled value
  };
  enum Role { ValueRole = Qt::UserRole + 1 };  // the cell's number as double; invalid when absent
  // Pseudo-metric: tile duration (end - start) in seconds, from the tile's timing fields.
  static constexpr const char* kDurationKey = "duration";

  explicit TileGridModel(QObject* parent = nullptr);

  void setReports(ReportPtr primary, ReportPtr comparison, ReportPtr live = nullptr);
  void setKernel(const QString& name);
  void setBatch(int batch);
  void setHead(int head);
  void setMetric(const QString& key);
  void setMode(Mode mode);

  QStringList kernelNames() const;
  QString kernel() const { return kernel_; }
  int batch() const { return batch_; }
  int head() const { return head_; }
  QString metric() const { return metric_; }
  Mode mode() const { return mode_; }
  int batchCount() const { return batch_count_; }
  int headCount() const { return head_count_; }
  bool isDifference() const {
    return mode_ == Mode::modeledMinusMeasured || mode_ == Mode::versusComparison || mode_ == Mode::relativeError;
  }
  bool isRelative() const { return mode_ == Mode::relativeError; }
  bool isTime() const;
  bool hasWhatIf() const { return live_ != nullptr; }
  bool hasComparison() const { return comparison_ != nullptr; }
  // Why the current mode shows nothing tile by tile ("" when it shows): the other report's tiles cover
  // other data (Bc 128 against Bc 64, another query length).
  QString refusal() const { return refusal_; }
  // "2,048 of 65,536 tiles (batch 0 / head 0)" or "all 32 tiles"; "" without a kernel.
  QString coverage() const { return coverage_; }
  // Whether the tile at a cell was measured as a lone window; lone-window cells in the grid.
  bool isLoneWindow(int q_tile, int kv_tile) const;
  int loneWindowCount() const { return lone_windows_; }
  // The colour scale of the current values: anchored at zero (sequential), symmetric about zero
  // (differences); a constant field sits at one colour and never stretches over the whole map. Lone
  // windows do not widen it when full-run tiles have values.
  ColorScale colorScale() const;
  // The tile size as the axis titles say it ("q-tile (Br = 128 rows)").
  QString rowAxisTitle() const;
  QString columnAxisTitle() const;

  std::optional<double> value(int q_tile, int kv_tile) const;
  // Smallest and largest value present; nullopt when no cell has one (e.g. a modeled-only report shown as
  // measured).
  std::optional<std::pair<double, double>> valueRange() const { return range_; }
  QString formatValue(double value) const;
  QString describeMode() const;  // e.g. "HBM read, modeled - measured"

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  void rebuild();
  const reports::KernelEntry* findKernel(const ReportPtr& report) const;
  std::optional<double> cellValue(const reports::TileEntry* tile, const reports::TileEntry* compared,
                                  const reports::TileEntry* live) const;
  QString tooltip(int q_tile, int kv_tile) const;

  // A kernel's tiles grouped by (batch, head), built once per kernel: switching heads or metrics then reads
  // one slice, not every tile of the report.
  struct SliceIndex {
    const reports::KernelEntry* kernel = nullptr;
    std::size_t tile_count = 0;
    int rows = 0, columns = 0, batches = 0, heads = 0;
    std::vector<std::size_t> offsets;             // slice i holds tiles[offsets[i], offsets[i + 1])
    std::vector<const reports::TileEntry*> tiles;
    void build(const reports::KernelEntry* kernel);
    std::span<const reports::TileEntry* const> slice(int batch, int head) const;
  };

  ReportPtr primary_, comparison_, live_;
  SliceIndex primary_index_, comparison_index_, live_index_;
  QString kernel_, metric_ = metricKey(vocab::Metric::dram_read);
  std::optional<vocab::Metric> metric_id_ = vocab::Metric::dram_read;  // absent: the tile duration
  int batch_ = 0, head_ = 0;
  Mode mode_ = Mode::modeled;

  int rows_ = 0, columns_ = 0, batch_count_ = 0, head_count_ = 0;
  std::vector<const reports::TileEntry*> grid_, compared_grid_, live_grid_;  // row-major, null: no tile
  std::vector<std::optional<double>> values_;
  std::optional<std::pair<double, double>> range_;
  QString refusal_, coverage_;
  int lone_windows_ = 0;
};

}  // namespace attnscope::gui
