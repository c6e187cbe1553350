// SPDX-License-Identifier: Apache-2.0
// Bytes per memory level of one kernel as small multiples: one panel per level, each with its own linear
// axis anchored at zero, so 48 MB of HBM reads show as clearly as 4 GB of shared-memory traffic beside them
// (one shared axis hid HBM). Each panel has the measured and modeled bars of the opened report, the live
// what-if model's bar when there is one, and a compared report's bars; above them the model's relative error,
// red when it misses the metric's worst-case target. Values in the CLI's units (decimal MB, GB).
#pragma once
#include <QRectF>
#include <QWidget>
#include <vector>

#include "models/kernel_level_model.hpp"

namespace attnscope::gui {

class LevelBarChart : public QWidget {
  Q_OBJECT
 public:
  enum class Series { measured, modeled, whatIf, comparedMeasured, comparedModeled };

  explicit LevelBarChart(QWidget* parent = nullptr);
  void setRows(const QString& kernel, const std::vector<KernelLevelModel::Row>& rows, bool with_comparison,
               bool with_what_if = false, const QString& note = {});
  // The bar of one level and series in widget coordinates (empty when that bar is absent).
  QRectF barRect(vocab::Metric level, Series series) const;
  QString title() const;
  QSize sizeHint() const override { return {900, 560}; }
  QSize minimumSizeHint() const override { return {480, 300}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::vector<Series> seriesShown() const;
  QRectF panelRect(std::size_t index) const;
  static std::optional<double> valueOf(const KernelLevelModel::Row& row, Series s);

  QString kernel_, note_;
  std::vector<KernelLevelModel::Row> rows_;
  bool with_comparison_ = false, with_what_if_ = false;
};

}  // namespace attnscope::gui
