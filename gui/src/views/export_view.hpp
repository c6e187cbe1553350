// SPDX-License-Identifier: Apache-2.0
// Exporting any widget as it is drawn: PNG (a pixel grab) or SVG (QSvgGenerator, vector where the widget
// paints vectors, e.g. Qt Charts and the heatmap). The format follows the file suffix.
#pragma once
#include <QString>

class QWidget;

namespace attnscope::gui {

// Returns an empty string on success, else why the file could not be written. A non-empty caption is drawn
// in a strip under the picture (the report it shows; "SYNTHETIC DATA ..." first for a synthetic fixture), so
// an exported picture never passes synthetic numbers off as measured.
QString exportWidget(QWidget* widget, const QString& path, const QString& caption = {});

}  // namespace attnscope::gui
