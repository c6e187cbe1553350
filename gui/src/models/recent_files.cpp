// SPDX-License-Identifier: Apache-2.0
#include "models/recent_files.hpp"

#include <QFileInfo>
#include <QSettings>

namespace attnscope::gui {
namespace {
constexpr const char* kKey = "recentFiles";
}

QStringList RecentFiles::load() {
  return QSettings().value(QLatin1String(kKey)).toStringList();
}

QStringList RecentFiles::add(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  QStringList files = load();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxEntries) files.removeLast();
  QSettings().setValue(QLatin1String(kKey), files);
  return files;
}

void RecentFiles::clear() {
  QSettings().remove(QLatin1String(kKey));
}

}  // namespace attnscope::gui
