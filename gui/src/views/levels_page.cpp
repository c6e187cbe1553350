// SPDX-License-Identifier: Apache-2.0
#include "views/levels_page.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "views/level_bar_chart.hpp"

namespace attnscope::gui {

LevelsPage::LevelsPage(KernelLevelModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      kernel_(new QComboBox(this)),
      chart_(new LevelBarChart(this)),
      table_(new QTableView(this)) {
  kernel_->setObjectName(QStringLiteral("levelsKernel"));
  table_->setModel(model_);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->verticalHeader()->hide();
  table_->setAlternatingRowColors(true);
  auto* bar = new QHBoxLayout();
  bar->addWidget(new QLabel(tr("Kernel"), this));
  bar->addWidget(kernel_);
  bar->addStretch();
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(chart_);
  splitter->addWidget(table_);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({560, 300});  // the table shows a dozen rows, the chart keeps most of the height
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(splitter, 1);
  connect(kernel_, &QComboBox::currentTextChanged, this, &LevelsPage::redraw);
  connect(model_, &QAbstractItemModel::modelReset, this, &LevelsPage::syncKernels);
  syncKernels();
}

void LevelsPage::syncKernels() {
  {
    const QSignalBlocker block(kernel_);
    const QString keep = kernel_->currentText();
    kernel_->clear();
    kernel_->addItems(model_->kernelNames());
    // Keep the user's kernel across reports; else start on the tiled kernel when there is one.
    if (kernel_->findText(keep) >= 0) {
      kernel_->setCurrentText(keep);
    } else if (kernel_->findText(QStringLiteral("tiled")) >= 0) {
      kernel_->setCurrentText(QStringLiteral("tiled"));
    }
  }
  redraw();
}

void LevelsPage::redraw() {
  const QString kernel = kernel_->currentText();
  chart_->setRows(kernel, model_->rowsOf(kernel), model_->hasComparison(), model_->hasWhatIf(), note_);
}

void LevelsPage::setNote(const QString& note) {
  note_ = note;
  redraw();
}

}  // namespace attnscope::gui
