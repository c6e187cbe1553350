// SPDX-License-Identifier: Apache-2.0
// Value-to-colour maps for the heatmap and its legend: a perceptually ordered sequential scale (dark blue to
// yellow, viridis-like anchors) for bytes and times, and a diverging blue-white-red scale centred on zero
// for differences, so "more modeled than measured" is red and "less" is blue whatever the range.
#pragma once
#include <QColor>

namespace attnscope::gui {

class ColorScale {
 public:
  ColorScale() = default;
  ColorScale(double low, double high, bool diverging);

  QColor color(double value) const;
  double low() const { return low_; }
  double high() const { return high_; }
  bool diverging() const { return diverging_; }
  // Position in [0, 1] along the legend for a value (clamped).
  double position(double value) const;
  QColor colorAt(double position) const;  // colour at a legend position in [0, 1]

 private:
  double low_ = 0, high_ = 1;
  bool diverging_ = false;
};

}  // namespace attnscope::gui
