// SPDX-License-Identifier: Apache-2.0
#include "models/tile_grid_model.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attnscope/reports/overview.hpp"
#include "models/comparability.hpp"
#include "models/metric_levels.hpp"

namespace attnscope::gui {
namespace {

std::optional<double> duration(const std::optional<double>& start, const std::optional<double>& end) {
  if (!start || !end) return std::nullopt;
  return *end - *start;
}

// `key` absent: the tile's duration.
std::optional<double> tileValue(const reports::TileEntry& tile, std::optional<vocab::Metric> key, Side side) {
  if (!key) {
    return side == Side::measured ? duration(tile.start_measured_s, tile.end_measured_s)
                                  : duration(tile.start_modeled_s, tile.end_modeled_s);
  }
  return metricValue(tile.metrics, *key, side);
}

// Measured where the tile has it, else modeled: what a comparison of two reports compares.
std::optional<double> preferredValue(const reports::TileEntry& tile, std::optional<vocab::Metric> key) {
  if (auto v = tileValue(tile, key, Side::measured)) return v;
  return tileValue(tile, key, Side::modeled);
}

QString timing(const char* what, const std::optional<int>& sm, const std::optional<double>& start,
               const std::optional<double>& end) {
  if (!start || !end)
    return QStringLiteral("<tr><td>%1</td><td colspan=2>–</td></tr>").arg(QLatin1String(what));
  return QStringLiteral("<tr><td>%1</td><td>SM %2</td><td>%3 … %4 (%5)</td></tr>")
      .arg(QLatin1String(what), sm ? QString::number(*sm) : QStringLiteral("?"), formatSeconds(*start),
           formatSeconds(*end), formatSeconds(*end - *start));
}

}  // namespace

TileGridModel::TileGridModel(QObject* parent) : QAbstractTableModel(parent) {}

void TileGridModel::SliceIndex::build(const reports::KernelEntry* k) {
  if (k == kernel && (k == nullptr || k->tiles.size() == tile_count)) return;  // still valid
  kernel = k;
  tile_count = k ? k->tiles.size() : 0;
  rows = columns = batches = heads = 0;
  offsets.clear();
  tiles.clear();
  if (k == nullptr) return;
  // One pass over the tile entries (large structs): the grid's extents, and where each (batch, head) run
  // starts. Reports hold a kernel's tiles grouped by batch and head in ascending order (the model records
  // them in launch order, readers keep the file's order); then the slices are those runs as they lie.
  struct Run {
    int batch, head;
    std::size_t begin;
  };
  std::vector<Run> runs;
  bool grouped = true;
  for (std::size_t i = 0; i < k->tiles.size(); ++i) {
    const auto& t = k->tiles[i];
    rows = std::max(rows, t.q_tile + 1);
    columns = std::max(columns, t.kv_tile + 1);
    batches = std::max(batches, t.batch + 1);
    heads = std::max(heads, t.head + 1);
    if (runs.empty() || runs.back().batch != t.batch || runs.back().head != t.head) {
      if (t.batch < 0 || t.head < 0 ||
          (!runs.empty() && std::pair(t.batch, t.head) < std::pair(runs.back().batch, runs.back().head)))
        grouped = false;
      runs.push_back({t.batch, t.head, i});
    }
  }
  const std::size_t slices = static_cast<std::size_t>(batches) * static_cast<std::size_t>(heads);
  const auto slot_of = [this, slices](int batch, int head) -> std::size_t {
    if (batch < 0 || head < 0) return slices;  // never shown
    return static_cast<std::size_t>(batch) * static_cast<std::size_t>(heads) + static_cast<std::size_t>(head);
  };
  tiles.resize(k->tiles.size());
  offsets.assign(slices + 2, 0);
  if (grouped) {
    for (std::size_t i = 0; i < tiles.size(); ++i) tiles[i] = &k->tiles[i];
    // offsets[s] = first tile whose slot is >= s.
    std::size_t s = 0;
    for (const Run& r : runs)
      for (const std::size_t slot = slot_of(r.batch, r.head); s <= slot; ++s) offsets[s] = r.begin;
    for (; s < offsets.size(); ++s) offsets[s] = tiles.size();
    return;
  }
  // Any other order: a counting sort by (batch, head), reading the coordinates once more.
  std::vector<std::size_t> slot(k->tiles.size());
  for (std::size_t i = 0; i < slot.size(); ++i) slot[i] = slot_of(k->tiles[i].batch, k->tiles[i].head);
  for (const std::size_t x : slot) ++offsets[x + 1];
  for (std::size_t i = 1; i < offsets.size(); ++i) offsets[i] += offsets[i - 1];
  std::vector<std::size_t> next(offsets.begin(), offsets.end() - 1);
  for (std::size_t i = 0; i < slot.size(); ++i) tiles[next[slot[i]]++] = &k->tiles[i];
}

std::span<const reports::TileEntry* const> TileGridModel::SliceIndex::slice(int batch, int head) const {
  if (kernel == nullptr || batch < 0 || head < 0 || batch >= batches || head >= heads) return {};
  const std::size_t i = static_cast<std::size_t>(batch) * static_cast<std::size_t>(heads) + static_cast<std::size_t>(head);
  return {tiles.data() + offsets[i], offsets[i + 1] - offsets[i]};
}

void TileGridModel::setReports(ReportPtr primary, ReportPtr comparison, ReportPtr live) {
  primary_ = std::move(primary);
  comparison_ = std::move(comparison);
  live_ = std::move(live);
  if (!comparison_ && mode_ == Mode::versusComparison) mode_ = Mode::modeled;
  if (!live_ && mode_ == Mode::whatIf) mode_ = Mode::modeled;
  rebuild();
}

void TileGridModel::setKernel(const QString& name) {
  if (name == kernel_) return;
  kernel_ = name;
  rebuild();
}

void TileGridModel::setBatch(int batch) {
  if (batch == batch_) return;
  batch_ = batch;
  rebuild();
}

void TileGridModel::setHead(int head) {
  if (head == head_) return;
  head_ = head;
  rebuild();
}

void TileGridModel::setMetric(const QString& key) {
  if (key == metric_) return;
  metric_ = key;
  metric_id_ = vocab::metric_from_key(key.toStdString());
  rebuild();
}

void TileGridModel::setMode(Mode mode) {
  if (mode == mode_) return;
  mode_ = mode;
  rebuild();
}

bool TileGridModel::isTime() const {
  return metric_ == QLatin1String(kDurationKey);
}

QStringList TileGridModel::kernelNames() const {
  QStringList names;
  if (primary_) {
    for (const auto& k : primary_->kernels) names << QString::fromStdString(k.name);
  }
  return names;
}

const reports::KernelEntry* TileGridModel::findKernel(const ReportPtr& report) const {
  if (!report) return nullptr;
  const std::string name = kernel_.toStdString();
  for (const auto& k : report->kernels) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::optional<double> TileGridModel::cellValue(const reports::TileEntry* tile,
                                               const reports::TileEntry* compared,
                                               const reports::TileEntry* live) const {
  if (!tile) return std::nullopt;
  const std::optional<vocab::Metric> key = metric_id_;
  switch (mode_) {
    case Mode::measured:
      return tileValue(*tile, key, Side::measured);
    case Mode::modeled:
      return tileValue(*tile, key, Side::modeled);
    case Mode::modeledMinusMeasured: {
      const auto measured = tileValue(*tile, key, Side::measured);
      const auto modeled = tileValue(*tile, key, Side::modeled);
      if (!measured || !modeled) return std::nullopt;
      return *modeled - *measured;
    }
    case Mode::relativeError: {
      const auto measured = tileValue(*tile, key, Side::measured);
      const auto modeled = tileValue(*tile, key, Side::modeled);
      if (!measured || !modeled || *measured == 0) return std::nullopt;
      return (*modeled - *measured) / *measured;
    }
    case Mode::whatIf:
      return live ? tileValue(*live, key, Side::modeled) : std::nullopt;
    case Mode::versusComparison: {
      if (!compared) return std::nullopt;
      const auto mine = preferredValue(*tile, key);
      const auto theirs = preferredValue(*compared, key);
      if (!mine || !theirs) return std::nullopt;
      return *mine - *theirs;
    }
  }
  return std::nullopt;
}

void TileGridModel::rebuild() {
  beginResetModel();
  // A kernel name the primary report lacks falls back to its first kernel, so a new report always shows.
  if (primary_ && !primary_->kernels.empty() && !findKernel(primary_)) {
    kernel_ = preferredKernel(*primary_);
  }
  const reports::KernelEntry* kernel = findKernel(primary_);
  primary_index_.build(kernel);
  refusal_.clear();
  coverage_.clear();
  lone_windows_ = 0;
  // Another report's tiles are shown only where they cover the same data as this report's.
  const auto tileable = [&](const ReportPtr& other) {
    if (!other || !primary_) return false;
    const Comparability c = compareReports(*primary_, *other);
    if (!c.tileByTile()) {
      if ((mode_ == Mode::versusComparison && other == comparison_) || (mode_ == Mode::whatIf && other == live_))
        refusal_ = c.tileRefusal();
      return false;
    }
    return true;
  };
  comparison_index_.build(tileable(comparison_) ? findKernel(comparison_) : nullptr);
  live_index_.build(tileable(live_) ? findKernel(live_) : nullptr);
  rows_ = columns_ = batch_count_ = head_count_ = 0;
  grid_.clear();
  compared_grid_.clear();
  live_grid_.clear();
  values_.clear();
  range_.reset();
  if (kernel) {
    const std::string text = reports::tile_coverage(*kernel);
    coverage_ = text.empty() ? tr("all %1 tiles").arg(kernel->tiles.size()) : QString::fromStdString(text);
    rows_ = primary_index_.rows;
    columns_ = primary_index_.columns;
    batch_count_ = primary_index_.batches;
    head_count_ = primary_index_.heads;
    const auto cells = static_cast<std::size_t>(rows_) * static_cast<std::size_t>(columns_);
    grid_.assign(cells, nullptr);
    compared_grid_.assign(cells, nullptr);
    live_grid_.assign(cells, nullptr);
    const auto place = [&](const SliceIndex& index, std::vector<const reports::TileEntry*>& grid) {
      for (const reports::TileEntry* t : index.slice(batch_, head_)) {
        if (t->q_tile < 0 || t->kv_tile < 0 || t->q_tile >= rows_ || t->kv_tile >= columns_) continue;
        auto& slot = grid[static_cast<std::size_t>(t->q_tile * columns_ + t->kv_tile)];
        if (!slot) slot = t;  // a (q, kv) pair appears once per kernel; keep the first if a file repeats it
      }
    };
    place(primary_index_, grid_);
    place(comparison_index_, compared_grid_);
    place(live_index_, live_grid_);
    values_.resize(cells);
    // Lone windows set the range only when no full-run tile has a value (else they would stretch it).
    std::optional<std::pair<double, double>> lone_range;
    for (std::size_t i = 0; i < cells; ++i) {
      values_[i] = cellValue(grid_[i], compared_grid_[i], live_grid_[i]);
      const bool lone = grid_[i] && grid_[i]->lone_window;
      if (lone) ++lone_windows_;
      if (!values_[i]) continue;
      const double v = *values_[i];
      auto& r = lone && mode_ != Mode::whatIf ? lone_range : range_;
      r = r ? std::pair{std::min(r->first, v), std::max(r->second, v)} : std::pair{v, v};
    }
    if (!range_) range_ = lone_range;
  }
  endResetModel();
}

std::optional<double> TileGridModel::value(int q_tile, int kv_tile) const {
  if (q_tile < 0 || kv_tile < 0 || q_tile >= rows_ || kv_tile >= columns_) return std::nullopt;
  return values_[static_cast<std::size_t>(q_tile * columns_ + kv_tile)];
}

bool TileGridModel::isLoneWindow(int q_tile, int kv_tile) const {
  if (q_tile < 0 || kv_tile < 0 || q_tile >= rows_ || kv_tile >= columns_) return false;
  const auto* t = grid_[static_cast<std::size_t>(q_tile * columns_ + kv_tile)];
  return t && t->lone_window;
}

ColorScale TileGridModel::colorScale() const {
  if (!range_) return ColorScale(0, 1, isDifference());
  if (isDifference()) {
    // Symmetric about zero; a field of zeros keeps a small span so it reads as "no difference".
    const double bound = std::max({std::abs(range_->first), std::abs(range_->second), isRelative() ? 0.05 : 1e-9});
    return ColorScale(-bound, bound, true);
  }
  // Anchored at zero: a 2 % spread reads as 2 %, and a constant field sits at one colour.
  const double low = std::min(0.0, range_->first), high = std::max(0.0, range_->second);
  return high > low ? ColorScale(low, high, false) : ColorScale(0, 1, false);
}

QString TileGridModel::rowAxisTitle() const {
  if (!primary_) return tr("q-tile");
  const bool tiled = kernel_ == QLatin1String("tiled");
  return tiled ? tr("q-tile (Br = %1 query rows)").arg(primary_->tiles.br)
               : tr("row tile (BM = %1 rows)").arg(primary_->tiles.gemm_bm);
}

QString TileGridModel::columnAxisTitle() const {
  if (!primary_) return tr("kv-tile");
  const bool tiled = kernel_ == QLatin1String("tiled");
  return tiled ? tr("kv-tile (Bc = %1 key/value rows)").arg(primary_->tiles.bc)
               : tr("column tile (BN = %1 columns)").arg(primary_->tiles.gemm_bn);
}

QString TileGridModel::formatValue(double v) const {
  if (isRelative()) return formatPercent(v);
  const QString text = isTime() ? formatSeconds(v) : formatBytes(v);
  return isDifference() && v > 0 ? QStringLiteral("+") + text : text;
}

QString TileGridModel::describeMode() const {
  const QString level = !metric_id_ ? tr("Tile time") : levelLabel(*metric_id_);
  switch (mode_) {
    case Mode::measured:
      return tr("%1, measured").arg(level);
    case Mode::modeled:
      return tr("%1, modeled").arg(level);
    case Mode::modeledMinusMeasured:
      return tr("%1, modeled − measured").arg(level);
    case Mode::versusComparison:
      return tr("%1, this report − compared report").arg(level);
    case Mode::relativeError:
      return tr("%1, relative error (modeled − measured) / measured").arg(level);
    case Mode::whatIf:
      return tr("%1, what-if model").arg(level);
  }
  return level;
}

int TileGridModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : rows_;
}
int TileGridModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : columns_;
}

QVariant TileGridModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const auto v = value(index.row(), index.column());
  switch (role) {
    case Qt::DisplayRole:
      return v ? QVariant(formatValue(*v)) : QVariant(QStringLiteral("–"));
    case ValueRole:
      return v ? QVariant(*v) : QVariant();
    case Qt::ToolTipRole:
      return tooltip(index.row(), index.column());
    default:
      return {};
  }
}

QVariant TileGridModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  return orientation == Qt::Horizontal ? tr("kv %1").arg(section) : tr("q %1").arg(section);
}

QString TileGridModel::tooltip(int q_tile, int kv_tile) const {
  const auto* tile = grid_[static_cast<std::size_t>(q_tile * columns_ + kv_tile)];
  QString html = tr("<b>%1</b> q-tile %2, kv-tile %3 (batch %4, head %5)<br/>")
                     .arg(kernel_)
                     .arg(q_tile)
                     .arg(kv_tile)
                     .arg(batch_)
                     .arg(head_);
  if (!tile) return html + tr("no tile here (skipped, e.g. fully masked)");
  if (tile->lone_window)
    html += tr("<b>Lone-launch window</b> (drawn with a dashed frame): this tile was launched alone, one CTA "
               "from a flushed L2, and measured under its own range. Its measured and modeled values are of "
               "that lone launch (it loads its own Q rows and starts from a cold L2), not the tile's share "
               "of the full run, so they are larger than its neighbours' and are left out of the colour "
               "range.<br/>");
  html += QStringLiteral(
      "<table cellpadding=1 cellspacing=3><tr><th "
      "align=left>level</th><th>measured</th><th>modeled</th><th>error</th></tr>");
  const auto row = [&](vocab::Metric key) {
    const auto measured = metricValue(tile->metrics, key, Side::measured);
    const auto modeled = metricValue(tile->metrics, key, Side::modeled);
    QString error = QStringLiteral("–");
    if (measured && modeled && *measured != 0) error = formatPercent((*modeled - *measured) / *measured);
    html += QStringLiteral(
                "<tr><td>%1</td><td align=right>%2</td><td align=right>%3</td><td align=right>%4</td></tr>")
                .arg(levelLabel(key), formatOptionalBytes(measured), formatOptionalBytes(modeled), error);
  };
  for (const auto level : kByteLevels) row(level);
  row(vocab::Metric::l2_hit);
  html += QStringLiteral("</table><table cellspacing=3>");
  html += timing("modeled", tile->sm_modeled, tile->start_modeled_s, tile->end_modeled_s);
  html += timing("measured", tile->sm_measured, tile->start_measured_s, tile->end_measured_s);
  html += QStringLiteral("</table>");
  if (const auto v = value(q_tile, kv_tile))
    html += tr("shown: %1 = %2").arg(describeMode(), formatValue(*v));
  return html;
}

}  // namespace attnscope::gui
