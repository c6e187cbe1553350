// SPDX-License-Identifier: Apache-2.0
// Data page: the numbers behind the charts as tables (kernels x levels, the tiles of the timeline's
// kernel, the tile-size sweep), for reading exact values and copying them.
#pragma once
#include <QTabWidget>

class QAbstractItemModel;

namespace attnscope::gui {

class DataPage : public QTabWidget {
  Q_OBJECT
 public:
  DataPage(QAbstractItemModel* levels, QAbstractItemModel* tiles, QAbstractItemModel* sweep,
           QWidget* parent = nullptr);
};

}  // namespace attnscope::gui
