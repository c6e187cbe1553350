// SPDX-License-Identifier: Apache-2.0
// Exporting any widget as it is drawn: PNG (a pixel grab) or SVG (QSvgGenerator, vector where the widget
// paints vectors, e.g. Qt Charts and the heatmap). The format follows the file suffix.
#pragma once
#include <QString>

class QWidget;

namespace attnscope::gui {

// Returns an empty string on success, else why the file could not be written.
QString exportWidget(QWidget* widget, const QString& path);

}  // namespace attnscope::gui
