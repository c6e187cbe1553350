// SPDX-License-Identifier: Apache-2.0
#include "svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "text_util.hpp"

namespace attnscope::reports::svg {

double Scale::operator()(double v) const {
  double a = lo, b = hi, x = v;
  if (log) {
    a = std::log10(std::max(lo, 1e-300));
    b = std::log10(std::max(hi, 1e-300));
    x = std::log10(std::max(v, 1e-300));
  }
  if (b == a) return (p0 + p1) / 2;
  return p0 + (x - a) / (b - a) * (p1 - p0);
}

std::vector<double> Scale::ticks() const {
  std::vector<double> out;
  if (!(hi > lo)) return {lo};
  if (log) {
    const int e0 = static_cast<int>(std::floor(std::log10(lo))),
              e1 = static_cast<int>(std::ceil(std::log10(hi)));
    const int span = e1 - e0;
    for (int e = e0; e <= e1; ++e) {
      for (double m : span <= 2 ? std::vector<double>{1, 2, 5} : std::vector<double>{1}) {
        const double v = m * std::pow(10.0, e);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
      }
    }
    if (out.size() < 2) out = {lo, hi};
    return out;
  }
  const double raw = (hi - lo) / 5.0;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  // Counted, not accumulated: where the range is a few ULPs wide, v + step == v and a `v += step` loop never
  // ends. A step that does not move the value, or too many ticks, gives the two ends instead.
  const double first = std::ceil(lo / step) * step;
  if (!std::isfinite(step) || step <= 0 || first + step == first) return {lo, hi};
  for (int i = 0; i <= 20; ++i) {
    const double v = first + i * step;
    if (v > hi + step * 1e-9) break;
    out.push_back(v);
  }
  if (out.size() < 2) out = {lo, hi};
  return out;
}

std::string fmt_num(double v) {
  return fmt::format("{:.1f}", v);
}

std::string line_chart(const std::vector<Series>& series, const ChartOptions& options) {
  std::size_t named = 0;
  for (const auto& s : series) named += s.name.empty() ? 0 : 1;
  const int legend_rows = static_cast<int>((named + 1) / 2);  // two entries per row, under the axis
  const double legend_h = 16.0 * legend_rows;
  ChartOptions o = options;
  o.height += 16 * legend_rows;
  const double left = 78, right = 16, top = o.note.empty() ? 30 : 44, bottom = 46 + legend_h;
  double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const auto& s : series)
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      if (o.log_x && x <= 0) continue;
      if (o.log_y && y <= 0) continue;
      xlo = std::min(xlo, x), xhi = std::max(xhi, x), ylo = std::min(ylo, y), yhi = std::max(yhi, y);
    }
  std::string out = fmt::format(
      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 "
      "{0} {1}\">"
      "<text class=\"title\" x=\"{2}\" y=\"18\">{3}</text>",
      o.width, o.height, left, detail::xml_escape(o.title));
  if (!o.note.empty())
    out += fmt::format("<text class=\"note\" x=\"{}\" y=\"34\">{}</text>", left, detail::xml_escape(o.note));
  if (!std::isfinite(xlo)) {
    out += fmt::format("<text class=\"note\" x=\"{}\" y=\"{}\">no data to plot</text></svg>", left,
                       o.height / 2);
    return out;
  }
  if (!o.log_y && o.y_from_zero) ylo = std::min(ylo, 0.0);
  if (xhi == xlo) xlo = o.log_x ? xlo / 2 : xlo - 1, xhi = o.log_x ? xhi * 2 : xhi + 1;
  if (yhi == ylo) ylo = o.log_y ? ylo / 2 : ylo - 1, yhi = o.log_y ? yhi * 2 : yhi + 1;
  if (o.log_x) xlo /= 1.15, xhi *= 1.15;
  if (o.log_y)
    ylo /= 1.3, yhi *= 1.3;
  else
    yhi += (yhi - ylo) * 0.06;
  const Scale xs{xlo, xhi, left, o.width - right, o.log_x};
  const Scale ys{ylo, yhi, o.height - bottom, top, o.log_y};
  auto xf = o.x_format ? o.x_format : [](double v) { return fmt::format("{:.4g}", v); };
  auto yf = o.y_format ? o.y_format : [](double v) { return fmt::format("{:.4g}", v); };
  // Grid and ticks.
  for (double t : ys.ticks())
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>"
        "<text class=\"tick\" x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>",
        left, o.width - right, fmt_num(ys(t)), left - 5, fmt_num(ys(t) + 4), detail::xml_escape(yf(t)));
  for (double t : xs.ticks())
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/>"
        "<text class=\"tick\" x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
        fmt_num(xs(t)), top, o.height - bottom, o.height - bottom + 15, detail::xml_escape(xf(t)));
  out += fmt::format(
      "<line class=\"axis\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>"
      "<line class=\"axis\" x1=\"{0}\" x2=\"{0}\" y1=\"{3}\" y2=\"{2}\"/>",
      left, o.width - right, o.height - bottom, top);
  out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                     (left + o.width - right) / 2, o.height - legend_h - 8, detail::xml_escape(o.x_label));
  out += fmt::format(
      "<text class=\"label\" transform=\"translate(14,{}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
      (top + o.height - bottom) / 2, detail::xml_escape(o.y_label));
  // Series.
  for (const auto& s : series) {
    std::string path;
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (o.log_x && x <= 0) || (o.log_y && y <= 0)) continue;
      path += fmt::format("{}{},{} ", path.empty() ? "M" : "L", fmt_num(xs(x)), fmt_num(ys(y)));
    }
    if (s.line && !path.empty())
      out += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>", path, s.color,
                         s.dashed ? " stroke-dasharray=\"6 4\"" : "");
    if (s.markers)
      for (std::size_t i = 0; i < s.points.size(); ++i) {
        const auto [x, y] = s.points[i];
        if (!std::isfinite(x) || !std::isfinite(y) || (o.log_x && x <= 0) || (o.log_y && y <= 0)) continue;
        out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\">", fmt_num(xs(x)),
                           fmt_num(ys(y)), s.color);
        const std::string tip = i < s.tips.size() ? s.tips[i] : s.name + ": " + xf(x) + ", " + yf(y);
        out += "<title>" + detail::xml_escape(tip) + "</title></circle>";
      }
  }
  // Legend under the x-axis label, two entries per row, so it never covers data.
  std::size_t entry = 0;
  for (const auto& s : series) {
    if (s.name.empty()) continue;
    const double lx = left + static_cast<double>(entry % 2) * (o.width - left - right) / 2;
    const double ly = o.height - legend_h + 4 + 16.0 * static_cast<double>(entry / 2);
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>"
        "<text class=\"legend\" x=\"{5}\" y=\"{6}\">{7}</text>",
        lx, lx + 18, fmt_num(ly), s.color, s.dashed ? " stroke-dasharray=\"6 4\"" : "", lx + 22,
        fmt_num(ly + 4), detail::xml_escape(s.name));
    ++entry;
  }
  out += "</svg>";
  return out;
}

std::string sequential_color(double t) {
  // Viridis, sampled at five stops and interpolated.
  static constexpr std::array<std::array<double, 3>, 5> stops{
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  auto c = [&](int k) {
    return static_cast<int>(std::lround(stops[i][k] + (stops[i + 1][k] - stops[i][k]) * f));
  };
  return fmt::format("#{:02x}{:02x}{:02x}", c(0), c(1), c(2));
}

std::string diverging_color(double t) {
  t = std::clamp(std::isfinite(t) ? t : 0.0, -1.0, 1.0);
  // white at 0, blue (#2166ac) below (model predicts fewer bytes), red (#b2182b) above.
  const std::array<double, 3> end =
      t < 0 ? std::array<double, 3>{33, 102, 172} : std::array<double, 3>{178, 24, 43};
  const double f = std::fabs(t);
  auto c = [&](int k) { return static_cast<int>(std::lround(247 + (end[k] - 247) * f)); };
  return fmt::format("#{:02x}{:02x}{:02x}", c(0), c(1), c(2));
}

std::string kernel_color(const std::string& name) {
  if (name == "tiled") return "#1f77b4";
  if (name == "hopper") return "#17becf";
  if (name == "naive.qk") return "#ff7f0e";
  if (name == "naive.softmax") return "#2ca02c";
  if (name == "naive.pv") return "#d62728";
  static constexpr std::array<const char*, 4> others{"#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  std::size_t h = 0;
  for (char c : name) h = h * 31 + static_cast<unsigned char>(c);
  return others[h % others.size()];
}

}  // namespace attnscope::reports::svg
