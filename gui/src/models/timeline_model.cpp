// SPDX-License-Identifier: Apache-2.0
#include "models/timeline_model.hpp"

#include "attnscope/reports/overview.hpp"

#include <algorithm>

#include "models/metric_levels.hpp"

namespace attnscope::gui {

TimelineModel::TimelineModel(QObject* parent) : QAbstractTableModel(parent) {}

void TimelineModel::setReport(ReportPtr report) {
  report_ = std::move(report);
  rebuild();
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
  sm_count_ = 0;
  end_time_ = 0;
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
        out.push_back({t.batch, t.head, t.q_tile, t.kv_tile, sm.value_or(-1), *start, *end});
        sm_count_ = std::max(sm_count_, sm.value_or(-1) + 1);
        end_time_ = std::max(end_time_, *end);
      };
      add(modeled_, t.sm_modeled, t.start_modeled_s, t.end_modeled_s);
      add(measured_, t.sm_measured, t.start_measured_s, t.end_measured_s);
    }
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
