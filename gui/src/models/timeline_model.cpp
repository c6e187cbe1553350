// SPDX-License-Identifier: Apache-2.0
#include "models/timeline_model.hpp"

#include <algorithm>

#include "attnscope/reports/overview.hpp"
#include "models/color_scale.hpp"
#include "models/metric_levels.hpp"

namespace attnscope::gui {

TimelineModel::TimelineModel(QObject* parent) : QAbstractTableModel(parent) {}

void TimelineModel::setReport(ReportPtr report) {
  report_ = std::move(report);
  rebuild();
}

QString TimelineModel::colorByLabel(ColorBy c) {
  switch (c) {
    case ColorBy::cta:
      return tr("CTA");
    case ColorBy::tileTime:
      return tr("tile time");
    case ColorBy::hbmBytes:
      return tr("HBM bytes (read + write)");
    case ColorBy::l2Bytes:
      return tr("L2 bytes (read + write)");
  }
  return {};
}

void TimelineModel::setColorBy(ColorBy c) {
  if (c == color_by_) return;
  // The spans keep their rows: only the values change, so the table's rows stay and the view repaints.
  color_by_ = c;
  computeValues();
  emit dataChanged(index(0, 0), index(std::max(0, rowCount() - 1), columnCount_ - 1));
}

void TimelineModel::computeValues() {
  color_max_ = 0;
  if (!entry_) return;
  const auto sum = [](const reports::Metrics& m, vocab::Metric a, vocab::Metric b,
                      Side side) -> std::optional<double> {
    const auto x = metricValue(m, a, side), y = metricValue(m, b, side);
    if (!x && !y) return std::nullopt;
    return x.value_or(0) + y.value_or(0);
  };
  // Spans were added tile by tile, a side only when it has a start and an end: walk the tiles the same way.
  std::size_t mi = 0, si = 0;
  for (const auto& t : entry_->tiles) {
    for (const bool measured : {false, true}) {
      const bool has =
          measured ? (t.start_measured_s && t.end_measured_s) : (t.start_modeled_s && t.end_modeled_s);
      if (!has) continue;
      TileSpan& s = measured ? measured_[si++] : modeled_[mi++];
      const Side side = measured ? Side::measured : Side::modeled;
      switch (color_by_) {
        case ColorBy::cta:
          s.value.reset();
          break;
        case ColorBy::tileTime:
          s.value = s.end_s - s.start_s;
          break;
        case ColorBy::hbmBytes:
          s.value = sum(t.metrics, vocab::Metric::dram_read, vocab::Metric::dram_write, side);
          break;
        case ColorBy::l2Bytes:
          s.value = sum(t.metrics, vocab::Metric::l2_read, vocab::Metric::l2_write, side);
          break;
      }
      if (s.value) color_max_ = std::max(color_max_, *s.value);
    }
  }
}

QColor TimelineModel::spanColor(const TileSpan& s, bool measured) const {
  if (color_by_ == ColorBy::cta) {
    const int hue = (s.q_tile * 47 + s.head * 13 + s.batch * 7) % 360;
    const int lightness = (s.kv_tile % 2 == 0 ? 120 : 150) + (measured ? 30 : 0);
    return QColor::fromHsl(hue, measured ? 140 : 190, std::min(lightness, 220));
  }
  if (!s.value) return QColor(200, 200, 200);  // this side has no such metric for the tile
  return ColorScale(0, color_max_ > 0 ? color_max_ : 1, false).color(*s.value);
}

void TimelineModel::setKernel(const QString& name) {
  if (name == kernel_ && entry_) return;
  kernel_ = name;
  rebuild();
}

QStringList TimelineModel::kernelNames() const {
  QStringList names;
  if (report_) {
    for (const auto& k : report_->kernels) names << QString::fromStdString(k.name);
  }
  return names;
}

void TimelineModel::rebuild() {
  beginResetModel();
  entry_ = nullptr;
  modeled_.clear();
  measured_.clear();
  throughput_.clear();
  sm_count_ = 0;
  end_time_ = 0;
  peak_throughput_ = 0;
  if (report_) {
    const std::string name = kernel_.toStdString();
    for (const auto& k : report_->kernels) {
      if (k.name == name) entry_ = &k;
    }
    if (!entry_ && !report_->kernels.empty()) {
      kernel_ = preferredKernel(*report_);
      for (const auto& k : report_->kernels) {
        if (k.name == kernel_.toStdString()) entry_ = &k;
      }
    }
  }
  if (entry_) {
    for (const auto& t : entry_->tiles) {
      const auto add = [&](std::vector<TileSpan>& out, const std::optional<int>& sm,
                           const std::optional<double>& start, const std::optional<double>& end) {
        if (!start || !end) return;
        out.push_back({t.batch, t.head, t.q_tile, t.kv_tile, sm.value_or(-1), *start, *end, std::nullopt});
        sm_count_ = std::max(sm_count_, sm.value_or(-1) + 1);
        end_time_ = std::max(end_time_, *end);
      };
      add(modeled_, t.sm_modeled, t.start_modeled_s, t.end_modeled_s);
      add(measured_, t.sm_measured, t.start_measured_s, t.end_measured_s);
    }
    throughput_ =
        reports::dram_throughput(*entry_, reports::measured_of(entry_->metrics, vocab::Metric::time));
    for (const auto& smp : throughput_) {
      peak_throughput_ = std::max(peak_throughput_, smp.read_bytes_per_s + smp.write_bytes_per_s);
      end_time_ = std::max(end_time_, smp.end_s);
    }
    computeValues();
  }
  endResetModel();
}

int TimelineModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !entry_ ? 0 : static_cast<int>(entry_->tiles.size());
}

int TimelineModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : columnCount_;
}

QVariant TimelineModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  if (role != Qt::DisplayRole && role != Qt::UserRole) return {};
  const auto& t = entry_->tiles[static_cast<std::size_t>(index.row())];
  const auto seconds = [role](const std::optional<double>& s) -> QVariant {
    if (!s) return role == Qt::UserRole ? QVariant() : QVariant(QStringLiteral("–"));
    return role == Qt::UserRole ? QVariant(*s) : QVariant(formatSeconds(*s));
  };
  const auto sm = [](const std::optional<int>& s) -> QVariant { return s ? QVariant(*s) : QVariant(); };
  switch (index.column()) {
    case batchColumn:
      return t.batch;
    case headColumn:
      return t.head;
    case qTileColumn:
      return t.q_tile;
    case kvTileColumn:
      return t.kv_tile;
    case smModeledColumn:
      return sm(t.sm_modeled);
    case startModeledColumn:
      return seconds(t.start_modeled_s);
    case endModeledColumn:
      return seconds(t.end_modeled_s);
    case smMeasuredColumn:
      return sm(t.sm_measured);
    case startMeasuredColumn:
      return seconds(t.start_measured_s);
    case endMeasuredColumn:
      return seconds(t.end_measured_s);
    default:
      return {};
  }
}

QVariant TimelineModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole || orientation != Qt::Horizontal) return {};
  static const char* const names[] = {
      "Batch",         "Head",        "q-tile",        "kv-tile",          "SM (model)",
      "Start (model)", "End (model)", "SM (measured)", "Start (measured)", "End (measured)"};
  if (section < 0 || section >= columnCount_) return {};
  return tr(names[section]);
}

QString TimelineModel::coverage() const {
  return entry_ ? QString::fromStdString(reports::tile_coverage(*entry_)) : QString();
}

}  // namespace attnscope::gui
