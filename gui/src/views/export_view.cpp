// SPDX-License-Identifier: Apache-2.0
#include "views/export_view.hpp"

#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>
#include <cmath>

namespace attnscope::gui {

namespace {
constexpr int kCaptionHeight = 24;

// The caption strip under an export: the source and, for synthetic data, that it is synthetic.
void drawCaption(QPainter& painter, const QSize& size, const QString& caption) {
  const QRect strip(0, size.height(), size.width(), kCaptionHeight);
  const bool synthetic = caption.startsWith(QLatin1String("SYNTHETIC"));
  painter.fillRect(strip, synthetic ? QColor(255, 236, 200) : QColor(245, 245, 245));
  painter.setPen(synthetic ? QColor(160, 40, 30) : QColor(60, 60, 60));
  QFont f = painter.font();
  f.setBold(synthetic);
  painter.setFont(f);
  painter.drawText(strip.adjusted(6, 0, -6, 0), Qt::AlignLeft | Qt::AlignVCenter,
                   painter.fontMetrics().elidedText(caption, Qt::ElideRight, strip.width() - 12));
}
}  // namespace

QString exportWidget(QWidget* widget, const QString& path, const QString& caption) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  const QSize size = widget->size();
  const QSize full(size.width(), size.height() + (caption.isEmpty() ? 0 : kCaptionHeight));
  if (suffix == QLatin1String("svg")) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(full);
    svg.setViewBox(QRect(QPoint(0, 0), full));
    svg.setTitle(widget->windowTitle().isEmpty() ? QStringLiteral("attnscope") : widget->windowTitle());
    svg.setDescription(caption.isEmpty() ? QStringLiteral("Exported by attnscope-gui") : caption);
    QPainter painter;
    if (!painter.begin(&svg)) return QObject::tr("cannot write %1").arg(path);
    widget->render(&painter);
    if (!caption.isEmpty()) drawCaption(painter, size, caption);
    painter.end();
    if (!QFileInfo::exists(path)) return QObject::tr("cannot write %1").arg(path);
    return {};
  }
  if (suffix != QLatin1String("png")) {
    return QObject::tr("%1: unknown export format '%2' (use .png or .svg)").arg(path, suffix);
  }
  const QPixmap grabbed = widget->grab();
  const qreal ratio = grabbed.devicePixelRatio();
  QPixmap pixels(QSize(grabbed.width(), grabbed.height() + static_cast<int>(std::ceil(
                                                              (caption.isEmpty() ? 0 : kCaptionHeight) * ratio))));
  pixels.setDevicePixelRatio(ratio);
  pixels.fill(Qt::white);
  {
    QPainter painter(&pixels);
    painter.drawPixmap(0, 0, grabbed);
    if (!caption.isEmpty()) drawCaption(painter, size, caption);
  }
  if (!pixels.save(path, "PNG")) return QObject::tr("cannot write %1").arg(path);
  return {};
}

}  // namespace attnscope::gui
