// SPDX-License-Identifier: Apache-2.0
#include "views/heatmap_page.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include "models/metric_levels.hpp"
#include "views/heatmap_view.hpp"

namespace attnscope::gui {

HeatmapPage::HeatmapPage(TileGridModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      view_(new HeatmapView(this)),
      kernel_(new QComboBox(this)),
      level_(new QComboBox(this)),
      mode_(new QComboBox(this)),
      batch_(new QSpinBox(this)),
      head_(new QSpinBox(this)) {
  kernel_->setObjectName(QStringLiteral("heatmapKernel"));
  level_->setObjectName(QStringLiteral("heatmapLevel"));
  mode_->setObjectName(QStringLiteral("heatmapMode"));
  for (const auto level : kByteLevels) level_->addItem(levelLabel(level), metricKey(level));
  level_->addItem(levelLabel(vocab::Metric::l2_hit), metricKey(vocab::Metric::l2_hit));
  level_->addItem(tr("Tile time"), QString::fromLatin1(TileGridModel::kDurationKey));
  mode_->addItem(tr("Measured"), static_cast<int>(TileGridModel::Mode::measured));
  mode_->addItem(tr("Modeled"), static_cast<int>(TileGridModel::Mode::modeled));
  mode_->addItem(tr("Modeled − measured"), static_cast<int>(TileGridModel::Mode::modeledMinusMeasured));
  mode_->addItem(tr("Relative error (modeled vs measured)"), static_cast<int>(TileGridModel::Mode::relativeError));
  mode_->addItem(tr("What-if model"), static_cast<int>(TileGridModel::Mode::whatIf));
  mode_->addItem(tr("This − compared report"), static_cast<int>(TileGridModel::Mode::versusComparison));

  auto* bar = new QHBoxLayout();
  const auto add = [&](const QString& label, QWidget* w) {
    bar->addWidget(new QLabel(label, this));
    bar->addWidget(w);
  };
  add(tr("Kernel"), kernel_);
  add(tr("Batch"), batch_);
  add(tr("Head"), head_);
  add(tr("Level"), level_);
  add(tr("Show"), mode_);
  bar->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(view_, 1);
  view_->setModel(model_);

  connect(kernel_, &QComboBox::currentTextChanged, model_, [this](const QString& k) {
    if (!k.isEmpty()) model_->setKernel(k);
  });
  connect(batch_, &QSpinBox::valueChanged, model_, &TileGridModel::setBatch);
  connect(head_, &QSpinBox::valueChanged, model_, &TileGridModel::setHead);
  connect(level_, &QComboBox::currentIndexChanged, model_,
          [this](int i) { model_->setMetric(level_->itemData(i).toString()); });
  connect(mode_, &QComboBox::currentIndexChanged, model_,
          [this](int i) { model_->setMode(static_cast<TileGridModel::Mode>(mode_->itemData(i).toInt())); });
  connect(model_, &QAbstractItemModel::modelReset, this, &HeatmapPage::syncSelectors);
  syncSelectors();
}

void HeatmapPage::syncSelectors() {
  const QSignalBlocker b1(kernel_), b2(batch_), b3(head_), b4(mode_), b5(level_);
  if (const QStringList names = model_->kernelNames(); names != [&] {
        QStringList items;
        for (int i = 0; i < kernel_->count(); ++i) items << kernel_->itemText(i);
        return items;
      }()) {
    kernel_->clear();
    kernel_->addItems(names);
  }
  kernel_->setCurrentText(model_->kernel());
  batch_->setRange(0, std::max(0, model_->batchCount() - 1));
  batch_->setValue(model_->batch());
  head_->setRange(0, std::max(0, model_->headCount() - 1));
  head_->setValue(model_->head());
  mode_->setCurrentIndex(mode_->findData(static_cast<int>(model_->mode())));
  if (const int i = level_->findData(model_->metric()); i >= 0) level_->setCurrentIndex(i);
}

void HeatmapPage::showKernelMetric(const QString& kernel, vocab::Metric metric, TileGridModel::Mode mode) {
  model_->setKernel(kernel);
  model_->setMetric(metricKey(metric));
  model_->setMode(mode);
  syncSelectors();
}

}  // namespace attnscope::gui
