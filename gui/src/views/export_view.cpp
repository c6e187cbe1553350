// SPDX-License-Identifier: Apache-2.0
#include "views/export_view.hpp"

#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>

namespace attnscope::gui {

QString exportWidget(QWidget* widget, const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("svg")) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(widget->size());
    svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
    svg.setTitle(widget->windowTitle().isEmpty() ? QStringLiteral("attnscope") : widget->windowTitle());
    svg.setDescription(QStringLiteral("Exported by attnscope-gui"));
    QPainter painter;
    if (!painter.begin(&svg)) return QObject::tr("cannot write %1").arg(path);
    widget->render(&painter);
    painter.end();
    if (!QFileInfo::exists(path)) return QObject::tr("cannot write %1").arg(path);
    return {};
  }
  if (suffix != QLatin1String("png")) {
    return QObject::tr("%1: unknown export format '%2' (use .png or .svg)").arg(path, suffix);
  }
  const QPixmap pixels = widget->grab();
  if (!pixels.save(path, "PNG")) return QObject::tr("cannot write %1").arg(path);
  return {};
}

}  // namespace attnscope::gui
