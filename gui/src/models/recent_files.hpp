// SPDX-License-Identifier: Apache-2.0
// Recently opened report files, newest first, kept in QSettings under "recentFiles".
#pragma once
#include <QStringList>

namespace attnscope::gui {

class RecentFiles {
 public:
  static constexpr int kMaxEntries = 8;
  static QStringList load();
  static QStringList add(const QString& path);  // moves it to the front, returns the new list
  static void clear();
};

}  // namespace attnscope::gui
