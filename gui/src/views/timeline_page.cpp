// SPDX-License-Identifier: Apache-2.0
#include "views/timeline_page.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "views/timeline_view.hpp"

namespace attnscope::gui {

TimelinePage::TimelinePage(TimelineModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      view_(new TimelineView(this)),
      kernel_(new QComboBox(this)),
      color_by_(new QComboBox(this)) {
  kernel_->setObjectName(QStringLiteral("timelineKernel"));
  auto* modeled = new QCheckBox(tr("modeled"), this);
  auto* measured = new QCheckBox(tr("measured"), this);
  modeled->setChecked(true);
  measured->setChecked(true);
  auto* reset = new QPushButton(tr("Show all"), this);
  color_by_->setObjectName(QStringLiteral("timelineColorBy"));
  using C = TimelineModel::ColorBy;
  for (const C c : {C::cta, C::tileTime, C::hbmBytes, C::l2Bytes})
    color_by_->addItem(TimelineModel::colorByLabel(c), static_cast<int>(c));
  auto* bar = new QHBoxLayout();
  bar->addWidget(new QLabel(tr("Kernel"), this));
  bar->addWidget(kernel_);
  bar->addWidget(modeled);
  bar->addWidget(measured);
  bar->addWidget(new QLabel(tr("Colour by"), this));
  bar->addWidget(color_by_);
  bar->addWidget(reset);
  bar->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(view_, 1);
  view_->setModel(model_);
  connect(kernel_, &QComboBox::currentTextChanged, model_, [this](const QString& k) {
    if (!k.isEmpty()) model_->setKernel(k);
  });
  connect(modeled, &QCheckBox::toggled, view_, &TimelineView::setShowModeled);
  connect(measured, &QCheckBox::toggled, view_, &TimelineView::setShowMeasured);
  connect(reset, &QPushButton::clicked, view_, &TimelineView::resetZoom);
  connect(color_by_, &QComboBox::currentIndexChanged, this, [this] {
    model_->setColorBy(static_cast<TimelineModel::ColorBy>(color_by_->currentData().toInt()));
  });
  connect(model_, &QAbstractItemModel::dataChanged, view_, qOverload<>(&QWidget::update));
  connect(model_, &QAbstractItemModel::modelReset, this, &TimelinePage::syncKernels);
}

void TimelinePage::syncKernels() {
  const QSignalBlocker block(kernel_);
  if (const QStringList names = model_->kernelNames(); names != kernel_names_) {
    kernel_names_ = names;
    kernel_->clear();
    kernel_->addItems(names);
  }
  kernel_->setCurrentText(model_->kernel());
}

}  // namespace attnscope::gui
