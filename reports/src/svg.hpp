// SPDX-License-Identifier: Apache-2.0
// Just enough SVG for the HTML report: axes with readable ticks, line/scatter charts, colour maps.
// Internal to the reports library.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace attnscope::reports::svg {

// Maps data values to pixels, linearly or in log10.
struct Scale {
  double lo = 0, hi = 1;  // data range
  double p0 = 0, p1 = 1;  // pixel range (p1 < p0 for a y axis)
  bool log = false;
  double operator()(double v) const;
  std::vector<double> ticks() const;  // "nice" values inside [lo, hi]
};

struct Series {
  std::string name;
  std::string color;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in this order
  bool line = true;
  bool markers = true;
  bool dashed = false;
  std::vector<std::string> tips;  // optional hover text per point
};

struct ChartOptions {
  std::string title, x_label, y_label;
  int width = 560, height = 340;
  bool log_x = false, log_y = false;
  bool y_from_zero = true;  // linear y axes start at 0
  std::function<std::string(double)> x_format, y_format;
  std::string note;  // small text under the title
};

std::string line_chart(const std::vector<Series>& series, const ChartOptions& options);

// Colours: t in [0, 1] along a perceptually ordered sequential map; t in [-1, 1] on a blue-white-red map.
std::string sequential_color(double t);
std::string diverging_color(double t);
std::string kernel_color(const std::string& kernel_name);
std::string fmt_num(double v);  // short number for SVG coordinates ("12.5")

}  // namespace attnscope::reports::svg
