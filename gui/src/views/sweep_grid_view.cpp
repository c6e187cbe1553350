// SPDX-License-Identifier: Apache-2.0
#include "views/sweep_grid_view.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QProgressBar>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>

#include "models/metric_levels.hpp"

namespace attnscope::gui {
namespace {

const QColor kMeasuredMark(200, 30, 140);

class SweepCellDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  void paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    const QRectF r = QRectF(option.rect).adjusted(1, 1, -1, -1);
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    const QVariant feasible = index.data(SweepGridModel::FeasibleRole);
    QColor text = option.palette.text().color();
    if (feasible.isValid() && !feasible.toBool()) {
      p->fillRect(r, QColor(235, 235, 235));
      p->fillRect(r, QBrush(QColor(170, 170, 170), Qt::BDiagPattern));
    } else if (const QVariant bg = index.data(Qt::BackgroundRole); bg.isValid()) {
      const QColor c = bg.value<QColor>();
      p->fillRect(r, c);
      if (c.lightnessF() < 0.5) text = Qt::white;
    } else {
      p->fillRect(r, option.palette.base());
    }
    p->setPen(text);
    p->drawText(r, Qt::AlignCenter, index.data(Qt::DisplayRole).toString());
    if (index.data(SweepGridModel::MeasuredRole).toBool()) {
      // A corner triangle and a word: the measured tilings must read without colour vision.
      QPolygonF tri;
      tri << r.topRight() << r.topRight() - QPointF(18, 0) << r.topRight() + QPointF(0, 18);
      p->setPen(Qt::NoPen);
      p->setBrush(kMeasuredMark);
      p->drawPolygon(tri);
      p->setPen(text);
      QFont small = option.font;
      small.setPointSizeF(small.pointSizeF() * 0.85);
      p->setFont(small);
      p->drawText(r.adjusted(4, 2, -20, 0), Qt::AlignLeft | Qt::AlignTop, QObject::tr("measured"));
    }
    if (index.data(SweepGridModel::CurrentRole).toBool()) {
      p->setBrush(Qt::NoBrush);
      p->setPen(QPen(option.palette.text().color(), 3));
      p->drawRect(r.adjusted(1.5, 1.5, -1.5, -1.5));
      p->setPen(QPen(Qt::white, 1));
      p->drawRect(r.adjusted(3.5, 3.5, -3.5, -3.5));
    }
    p->restore();
  }
};

}  // namespace

SweepGridView::SweepGridView(SweepGridModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      table_(new QTableView(this)),
      metric_(new QComboBox(this)),
      progress_(new QProgressBar(this)),
      legend_(new QLabel(this)),
      title_(new QLabel(this)) {
  table_->setObjectName(QStringLiteral("sweepGrid"));
  metric_->setObjectName(QStringLiteral("sweepGridMetric"));
  metric_->addItem(tr("modeled time"), static_cast<int>(SweepGridModel::Metric::time));
  metric_->addItem(tr("HBM bytes (read + write)"), static_cast<int>(SweepGridModel::Metric::hbmBytes));
  table_->setModel(model_);
  table_->setItemDelegate(new SweepCellDelegate(table_));
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->verticalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setMouseTracking(true);  // tooltips per cell
  table_->setMinimumHeight(180);
  progress_->setFormat(tr("sweep: %v of %m tilings modeled"));
  progress_->setVisible(false);
  legend_->setWordWrap(true);
  auto* bar = new QHBoxLayout();
  title_->setObjectName(QStringLiteral("sweepGridTitle"));
  bar->addWidget(title_);
  bar->addWidget(metric_);
  bar->addWidget(progress_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(table_, 1);
  layout->addWidget(legend_);
  connect(metric_, &QComboBox::currentIndexChanged, this, [this] {
    model_->setMetric(static_cast<SweepGridModel::Metric>(metric_->currentData().toInt()));
    updateLegend();
  });
  connect(model_, &SweepGridModel::progressChanged, this, [this](int done, int total) {
    progress_->setVisible(total > 0);
    progress_->setRange(0, std::max(1, total));
    progress_->setValue(done);
  });
  connect(model_, &QAbstractItemModel::modelReset, this, &SweepGridView::updateLegend);
  connect(model_, &QAbstractItemModel::dataChanged, this, &SweepGridView::updateLegend);
  updateLegend();
}

void SweepGridView::updateLegend() {
  const ColorScale s = model_->scale();
  const bool time = model_->metric() == SweepGridModel::Metric::time;
  const QString high = time ? formatSeconds(s.high()) : formatBytes(s.high());
  title_->setText(tr("<b>Tile-size sweep</b> (%1, Br × Bc): colour =").arg(model_->source()->subject()));
  legend_->setText(
      tr("Scale from zero (dark) to %1 (yellow). Thick frame: the what-if panel's tiling; "
         "<span style='color:%2'>◥ measured</span>: a tiling an opened or compared report ran; hatched: "
         "infeasible (hover for the reason).")
          .arg(model_->rowCount() > 0 && s.high() != 1 ? high : tr("the largest value"),
               kMeasuredMark.name()));
}

}  // namespace attnscope::gui
