// SPDX-License-Identifier: Apache-2.0
// The heatmap's data: one cell per (q-tile, kv-tile) of one kernel at a chosen batch and head, holding the
// measured or modeled value of one metric, their difference, or the difference from a compared report.
// Rows are q-tiles, columns kv-tiles. The tooltip role carries a tile's bytes at every level (measured and
// modeled) and its timing, so any view can show it on hover.
#pragma once
#include <QAbstractTableModel>
#include <QStringList>
#include <optional>
#include <span>
#include <utility>
#include <vector>

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
  };
  enum Role { ValueRole = Qt::UserRole + 1 };  // the cell's number as double; invalid when absent
  // Pseudo-metric: tile duration (end - start) in seconds, from the tile's timing fields.
  static constexpr const char* kDurationKey = "duration";

  explicit TileGridModel(QObject* parent = nullptr);

  void setReports(ReportPtr primary, ReportPtr comparison);
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
  bool isDifference() const { return mode_ == Mode::modeledMinusMeasured || mode_ == Mode::versusComparison; }
  bool isTime() const;

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
  std::optional<double> cellValue(const reports::TileEntry* tile, const reports::TileEntry* compared) const;
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

  ReportPtr primary_, comparison_;
  SliceIndex primary_index_, comparison_index_;
  QString kernel_, metric_ = metricKey(vocab::Metric::dram_read);
  std::optional<vocab::Metric> metric_id_ = vocab::Metric::dram_read;  // absent: the tile duration
  int batch_ = 0, head_ = 0;
  Mode mode_ = Mode::modeled;

  int rows_ = 0, columns_ = 0, batch_count_ = 0, head_count_ = 0;
  std::vector<const reports::TileEntry*> grid_, compared_grid_;  // row-major, null where no tile
  std::vector<std::optional<double>> values_;
  std::optional<std::pair<double, double>> range_;
};

}  // namespace attnscope::gui
