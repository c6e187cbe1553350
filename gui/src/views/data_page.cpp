// SPDX-License-Identifier: Apache-2.0
#include "views/data_page.hpp"

#include <QHeaderView>
#include <QTableView>

namespace attnscope::gui {

DataPage::DataPage(QAbstractItemModel* levels, QAbstractItemModel* tiles, QAbstractItemModel* sweep,
                   QWidget* parent)
    : QTabWidget(parent) {
  const auto table = [this](QAbstractItemModel* model, const QString& title) {
    auto* view = new QTableView(this);
    view->setModel(model);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    view->horizontalHeader()->setDefaultSectionSize(130);
    view->setAlternatingRowColors(true);
    addTab(view, title);
  };
  table(levels, tr("Kernels × levels"));
  table(tiles, tr("Tiles (timeline's kernel)"));
  table(sweep, tr("Tile-size sweep"));
}

}  // namespace attnscope::gui
