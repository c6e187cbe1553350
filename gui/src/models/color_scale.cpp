// SPDX-License-Identifier: Apache-2.0
#include "models/color_scale.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace attnscope::gui {
namespace {

struct Anchor {
  double at;
  int r, g, b;
};

QColor interpolate(const Anchor* anchors, std::size_t count, double t) {
  t = std::clamp(t, 0.0, 1.0);
  for (std::size_t i = 1; i < count; ++i) {
    if (t <= anchors[i].at) {
      const Anchor& a = anchors[i - 1];
      const Anchor& b = anchors[i];
      const double f = (t - a.at) / (b.at - a.at);
      const auto mix = [f](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * f)); };
      return QColor(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
    }
  }
  return QColor(anchors[count - 1].r, anchors[count - 1].g, anchors[count - 1].b);
}

// Viridis at five stops.
constexpr std::array<Anchor, 5> kSequential{
    {{0.0, 68, 1, 84}, {0.25, 59, 82, 139}, {0.5, 33, 145, 140}, {0.75, 94, 201, 98}, {1.0, 253, 231, 37}}};
// Blue - white - red (ColorBrewer RdBu, reversed so positive is red).
constexpr std::array<Anchor, 5> kDiverging{{{0.0, 33, 102, 172},
                                            {0.25, 146, 197, 222},
                                            {0.5, 247, 247, 247},
                                            {0.75, 244, 165, 130},
                                            {1.0, 178, 24, 43}}};

}  // namespace

ColorScale::ColorScale(double low, double high, bool diverging)
    : low_(low), high_(high), diverging_(diverging) {
  if (diverging_) {
    // Symmetric around zero so white always means "no difference".
    const double bound = std::max(std::abs(low_), std::abs(high_));
    low_ = -bound;
    high_ = bound;
  }
}

double ColorScale::position(double value) const {
  if (high_ <= low_)
    return diverging_ ? 0.5 : 1.0;  // a single value: middle of a diverging scale, top otherwise
  return std::clamp((value - low_) / (high_ - low_), 0.0, 1.0);
}

QColor ColorScale::colorAt(double t) const {
  return diverging_ ? interpolate(kDiverging.data(), kDiverging.size(), t)
                    : interpolate(kSequential.data(), kSequential.size(), t);
}

QColor ColorScale::color(double value) const {
  return colorAt(position(value));
}

}  // namespace attnscope::gui
