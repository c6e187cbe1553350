// SPDX-License-Identifier: Apache-2.0
// The HTML report: one self-contained file (inline CSS and SVG, nothing fetched), readable offline and in
// a CI artifact viewer. Sections appear only when the report has their data, and say so when it does not.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "attnscope/reports/overview.hpp"
#include "attnscope/reports/pass_totals.hpp"
#include "attnscope/reports/sweep_analysis.hpp"
#include "attnscope/reports/units.hpp"
#include "attnscope/reports/writers.hpp"
#include "svg.hpp"
#include "text_util.hpp"

namespace attnscope::reports {

namespace {

using detail::xml_escape;
using svg::fmt_num;

constexpr std::string_view kStyle = R"(
body{font-family:-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:24px 32px;color:#1d1d1f;background:#fff}
h1{font-size:22px;margin:0 0 6px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px}p.hint{color:#555;font-size:13px;margin:4px 0 10px;max-width:1100px}
table{border-collapse:collapse;font-size:13px}td,th{padding:3px 10px;border-bottom:1px solid #eee;text-align:right}
th{background:#f5f5f7}th.kernel{text-align:center;border-left:2px solid #fff}td.l,th.l{text-align:left}.prov td{text-align:left}
.good{background:#e3f4e1}.warn{background:#fff4d6}.bad{background:#fbe0e0}.pass{color:#1a7f37;font-weight:600}.fail{color:#c62828;font-weight:600}
.row{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}.panel{display:inline-block}
svg text{font-size:11px;fill:#333}svg text.title{font-size:13px;font-weight:600}svg text.note{fill:#666}
svg text.label{font-size:12px}svg .grid{stroke:#eee}svg .axis{stroke:#888}svg text.legend{font-size:11px}
nav a{margin-right:14px;font-size:13px}footer{margin-top:30px;color:#777;font-size:12px}
)";

std::string value_cell(const std::optional<double>& v, Metric metric) {
  if (!v) return "<td class=\"na\">–</td>";
  return fmt::format("<td title=\"{}\">{}</td>", fmt::format("{}", *v), xml_escape(format_metric(*v, metric)));
}


// ---- header, gates, error table ----------------------------------------------------------------------

std::string header(const Report& r) {
  const auto& p = r.provenance;
  std::string out =
      fmt::format("<h1>attnscope {} report: {}</h1>\n", xml_escape(r.kind), xml_escape(r.workload.name));
  out += "<table class=\"prov\">";
  auto row = [&out](std::string_view k, const std::string& v) {
    if (!v.empty()) out += fmt::format("<tr><th class=\"l\">{}</th><td>{}</td></tr>", k, xml_escape(v));
  };
  row("Workload", detail::workload_summary(r.workload));
  if (r.kind != "sweep")
    row("Tiles", tiles_label(r) + fmt::format(" (naive GEMM tile {}x{}x{})", r.tiles.gemm_bm, r.tiles.gemm_bn,
                                              r.tiles.gemm_bk));
  row("GPU", p.gpu_name);
  row("Model GPU spec", p.gpu_spec);
  row("Driver / CUDA runtime", p.driver.empty() ? "" : p.driver + " / " + p.cuda_runtime);
  if (p.sm_clock_mhz)
    row("Clocks", fmt::format("SM {:.0f} MHz{}", *p.sm_clock_mhz,
                              p.mem_clock_mhz ? fmt::format(", memory {:.0f} MHz", *p.mem_clock_mhz) : ""));
  if (p.cache)
    row("Cache protocol", fmt::format("{}{} (the model runs under the same protocol)", vocab::to_string(*p.cache),
                                      p.replay ? fmt::format(", {} replay", vocab::to_string(*p.replay)) : ""));
  for (const Recording& rec : p.recordings) {
    std::string kernels;
    for (const auto& k : rec.kernels) kernels += (kernels.empty() ? "" : ", ") + k;
    row("Recording", fmt::format("{} ({}; {}, measured at git {})", rec.file, kernels, rec.date, rec.git_revision));
  }
  row("attnscope", p.tool_version + " (git " + p.git_revision + ")");
  row("Date", p.date);
  row("Host", p.host);
  row("Command", p.command);
  out += "</table>\n";
  return out;
}

std::string gates_section(const std::vector<GateResult>& gates) {
  if (gates.empty()) return {};
  std::size_t failed = 0;
  for (const auto& g : gates) failed += g.passed ? 0 : 1;
  std::string out = fmt::format(
      "<h2 id=\"gates\">Gates: {} of {} passed</h2>\n<table><tr><th class=\"l\">Gate</th>"
      "<th class=\"l\">Result</th><th class=\"l\">Detail</th></tr>",
      gates.size() - failed, gates.size());
  for (const auto& g : gates)
    out += fmt::format(
        "<tr><td class=\"l\"><code>{}</code></td><td class=\"l {}\">{}</td><td class=\"l\">{}</td></tr>",
        xml_escape(g.gate.text), g.passed ? "pass" : "fail", g.passed ? "pass" : "FAIL",
        xml_escape(g.message));
  return out + "</table>\n";
}

std::string status_class(CellStatus s) {
  switch (s) {
    case CellStatus::meets:
      return "good";
    case CellStatus::near:
      return "warn";
    case CellStatus::misses:
      return "bad";
    default:
      return "na";
  }
}

std::string error_table(const Report& r) {
  // First screen: one verdict per kernel, worst first, then kernel x metric relative errors coloured
  // against the metric table's targets.
  const auto kernels = overview(r);
  std::vector<Metric> columns;
  for (const Metric m : vocab::all_metrics()) {
    bool any = false;
    for (const auto& k : kernels)
      for (const auto& c : k.cells) any = any || (c.metric == m && c.value.measured && is_headline(m));
    if (any) columns.push_back(m);
  }
  std::string out = "<h2 id=\"errors\">Model vs measurement</h2>\n";
  if (columns.empty()) {
    out += "<p class=\"hint\">Model only: nothing measured to compare with.</p>\n";
  } else {
    out += "<ul class=\"verdicts\">";
    for (const auto& k : kernels)
      out += fmt::format("<li><b>{}</b>: {}</li>", xml_escape(k.kernel), xml_escape(k.verdict));
    out += "</ul>\n<p class=\"hint\">Relative error (modeled &minus; measured) / measured, worst kernel first. "
           "Green within the median target, amber within the worst-case one, red beyond (targets: " +
           xml_escape(targets_text()) + "); grey: no target.</p>\n<table><tr><th class=\"l\">Kernel</th>";
    for (const Metric m : columns)
      out += fmt::format("<th title=\"{}\">{}</th>", xml_escape(vocab::info(m).formula), vocab::key(m));
    out += "</tr>";
    for (const auto& k : kernels) {
      out += fmt::format("<tr><td class=\"l\">{}</td>", xml_escape(k.kernel));
      for (const Metric m : columns) {
        const OverviewCell* cell = nullptr;
        for (const auto& c : k.cells)
          if (c.metric == m) cell = &c;
        if (cell == nullptr) {
          out += "<td class=\"na\">–</td>";
          continue;
        }
        const std::string title =
            cell->status == CellStatus::not_modeled ? std::string(vocab::info(m).not_modeled) : std::string();
        out += fmt::format("<td class=\"{}\" title=\"{}\">{}</td>", status_class(cell->status), xml_escape(title),
                           xml_escape(cell_text(*cell)));
      }
      out += "</tr>";
    }
    out += "</table>\n";
  }
  // Every metric, both sides, with the reason where one side is absent.
  std::vector<Metric> all;
  for (const Metric m : vocab::all_metrics())
    for (const auto& k : r.kernels)
      if (k.metrics.contains(m) && std::find(all.begin(), all.end(), m) == all.end()) all.push_back(m);
  out += "<h3>Every metric, measured and modeled</h3>\n<table><tr><th class=\"l\" rowspan=\"2\">Metric</th>";
  for (const auto& k : r.kernels)
    out += fmt::format("<th colspan=\"3\" class=\"kernel\">{}</th>", xml_escape(k.name));
  out += "<th class=\"l\" rowspan=\"2\">Note</th></tr><tr>";
  for (std::size_t i = 0; i < r.kernels.size(); ++i) out += "<th>measured</th><th>modeled</th><th>error</th>";
  out += "</tr>";
  for (const Metric key : all) {
    const vocab::MetricInfo& info = vocab::info(key);
    out += fmt::format("<tr><td class=\"l\" title=\"{}\">{}</td>", xml_escape(info.formula), vocab::key(key));
    for (const auto& k : r.kernels) {
      const Value* found = k.metrics.find(key);
      if (found == nullptr) {
        out += "<td class=\"na\">–</td><td class=\"na\">–</td><td class=\"na\">–</td>";
        continue;
      }
      const Value& v = *found;
      const auto e = v.relative_error();
      out += value_cell(v.measured, key) + value_cell(v.modeled, key) +
             (e ? fmt::format("<td>{}</td>", format_percent(*e)) : std::string("<td class=\"na\">–</td>"));
    }
    std::string note;
    if (!info.modeled) note = "not modeled: " + std::string(info.not_modeled);
    else if (!info.not_measured.empty()) note = "not measured: " + std::string(info.not_measured);
    out += fmt::format("<td class=\"l\">{}</td></tr>", xml_escape(note));
  }
  out += "</table>\n";
  std::string coverage;
  for (const auto& k : r.kernels)
    if (const std::string c = tile_coverage(k); !c.empty())
      coverage += fmt::format("<li>{}: {}</li>", xml_escape(k.name), xml_escape(c));
  if (!coverage.empty()) out += "<p class=\"hint\">Tiles kept in this report:</p><ul>" + coverage + "</ul>\n";
  bool any_notes = false;
  for (const auto& k : r.kernels) any_notes |= !k.notes.empty();
  if (any_notes) {
    out += "<h3>Notes</h3><table><tr><th class=\"l\">Kernel</th><th class=\"l\">Notes</th></tr>";
    for (const auto& k : r.kernels) {
      std::string notes;
      for (const auto& [key, note] : k.notes)
        notes += fmt::format("{}<b>{}</b>: {}", notes.empty() ? "" : "; ", xml_escape(key), xml_escape(note));
      out +=
          fmt::format("<tr><td class=\"l\">{}</td><td class=\"l\">{}</td></tr>", xml_escape(k.name), notes);
    }
    out += "</table>\n";
  }
  return out;
}

// ---- bytes per memory level --------------------------------------------------------------------------

std::string level_chart(Metric level, const std::vector<KernelEntry>& kernels) {
  const int width = 320, height = 210;
  const double left = 64, right = 8, top = 26, bottom = 40;
  double max_v = 0;
  for (const auto& k : kernels) {
    const Value* v = k.metrics.find(level);
    if (v == nullptr) continue;
    if (v->measured) max_v = std::max(max_v, *v->measured);
    if (v->modeled) max_v = std::max(max_v, *v->modeled);
  }
  std::string out = fmt::format(
      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 "
      "{0} {1}\">"
      "<text class=\"title\" x=\"{2}\" y=\"16\">{3}</text>",
      width, height, left, vocab::key(level));
  const svg::Scale ys{0, max_v > 0 ? max_v * 1.08 : 1, height - bottom, top, false};
  for (double t : ys.ticks())
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/><text class=\"tick\" x=\"{3}\" "
        "y=\"{4}\" text-anchor=\"end\">{5}</text>",
        left, width - right, fmt_num(ys(t)), left - 4, fmt_num(ys(t) + 4), xml_escape(format_bytes(t)));
  const double group_w = (width - left - right) / std::max<double>(1.0, static_cast<double>(kernels.size()));
  const double bar_w = std::min(22.0, group_w * 0.36);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = kernels[i];
    const double cx = left + group_w * (static_cast<double>(i) + 0.5);
    const std::string color = svg::kernel_color(k.name);
    std::optional<double> meas, mod;
    if (const Value* v = k.metrics.find(level)) meas = v->measured, mod = v->modeled;
    auto bar = [&](const std::optional<double>& v, double x, bool measured) {
      if (!v) {
        out += fmt::format("<text class=\"note\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">n/a</text>",
                           fmt_num(x + bar_w / 2), fmt_num(height - bottom - 4));
        return;
      }
      const double y = ys(*v), h = (height - bottom) - y;
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}><title>{} {} {}: "
          "{}</title></rect>",
          fmt_num(x), fmt_num(y), fmt_num(bar_w), fmt_num(std::max(0.0, h)), color,
          measured ? " fill-opacity=\"0.45\" stroke=\"" + color + "\" stroke-width=\"1.5\"" : "",
          xml_escape(k.name), vocab::key(level), measured ? "measured" : "modeled", xml_escape(format_bytes(*v)));
    };
    bar(mod, cx - bar_w - 1, false);
    bar(meas, cx + 1, true);
    out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", fmt_num(cx),
                       height - bottom + 14,
                       xml_escape(k.name.rfind("naive.", 0) == 0 ? k.name.substr(6) : k.name));
    out += fmt::format("<text class=\"note\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">mod | meas</text>",
                       fmt_num(cx), height - bottom + 27);
  }
  out += fmt::format("<line class=\"axis\" x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\"/>", left,
                     width - right, height - bottom);
  return out + "</svg>";
}

std::string levels_section(const Report& r) {
  if (r.kernels.empty()) return {};
  std::string out =
      "<h2 id=\"levels\">Bytes per memory level</h2>\n<p class=\"hint\">Each panel is one level of the "
      "hierarchy; "
      "per kernel, the solid bar is the model's prediction and the outlined bar the measured counter. dram = "
      "HBM "
      "traffic, l2 = requests from the SMs to L2 (l2_hit = the part that hit), smem = shared-memory "
      "traffic; qk, softmax and pv are the three naive kernels.</p>\n"
      "<div class=\"row\">";
  for (const Metric level : vocab::all_metrics()) {
    if (vocab::info(level).unit != vocab::Unit::bytes || level == Metric::smem_per_cta) continue;
    bool present = false;
    for (const auto& k : r.kernels) present |= k.metrics.contains(level);
    if (present) out += "<div class=\"panel\">" + level_chart(level, r.kernels) + "</div>";
  }
  return out + "</div>\n";
}

// ---- per-tile heatmaps ---------------------------------------------------------------------------------

// One kernel's tiles on the q x kv grid. `modeled` is the full run's per-tile attribution; a lone tile window
// (measured alone, from a flushed L2) carries the model of that lone launch instead, which is compared with
// its measurement (`lone`) and kept out of the full-run map, where it would stand out as a hot spot.
struct Grid {
  int rows = 0, cols = 0;
  std::vector<double> modeled, measured, lone;
  std::vector<char> has_modeled, has_measured, has_lone;
  std::size_t lone_windows = 0;
};

Grid hbm_grid(const KernelEntry& k) {
  Grid g;
  // The reader keeps tile indices inside the workload's grid; a tile built in code with a negative index is
  // left out rather than written outside the grid.
  for (const auto& t : k.tiles)
    if (t.q_tile >= 0 && t.kv_tile >= 0)
      g.rows = std::max(g.rows, t.q_tile + 1), g.cols = std::max(g.cols, t.kv_tile + 1);
  const std::size_t n = static_cast<std::size_t>(g.rows) * static_cast<std::size_t>(g.cols);
  g.modeled.assign(n, 0), g.measured.assign(n, 0), g.has_modeled.assign(n, 0), g.has_measured.assign(n, 0);
  g.lone.assign(n, 0), g.has_lone.assign(n, 0);
  for (const auto& t : k.tiles) {
    if (t.q_tile < 0 || t.kv_tile < 0) continue;
    const std::size_t i = static_cast<std::size_t>(t.q_tile) * static_cast<std::size_t>(g.cols) +
                          static_cast<std::size_t>(t.kv_tile);
    g.lone_windows += t.lone_window ? 1 : 0;
    for (const Metric key : {Metric::dram_read, Metric::dram_write}) {
      const Value* v = t.metrics.find(key);
      if (v == nullptr) continue;
      if (v->modeled && t.lone_window) g.lone[i] += *v->modeled, g.has_lone[i] = 1;
      if (v->modeled && !t.lone_window) g.modeled[i] += *v->modeled, g.has_modeled[i] = 1;
      if (v->measured) g.measured[i] += *v->measured, g.has_measured[i] = 1;
    }
  }
  return g;
}

std::string heatmap_svg(const Grid& g, const std::vector<double>& values, const std::vector<char>& present,
                        bool diverging, const std::string& title, const std::string& kernel) {
  const double max_side = 360;
  const double cw = std::clamp(max_side / g.cols, 1.0, 14.0), ch = std::clamp(max_side / g.rows, 0.5, 14.0);
  const double left = 44, top = 24;
  const double w = left + cw * g.cols + 10, h = top + ch * g.rows + 44;
  double lo = 0, hi = 0;
  bool any = false;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (present[i]) {
      if (!any) lo = hi = values[i], any = true;
      lo = std::min(lo, values[i]), hi = std::max(hi, values[i]);
    }
  const double span = diverging ? std::max(std::fabs(lo), std::fabs(hi)) : hi - lo;
  std::string out = fmt::format(
      "<svg class=\"heat\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 "
      "{0} {1}\" shape-rendering=\"crispEdges\">"
      "<text class=\"title\" x=\"{2}\" y=\"15\">{3}</text>",
      fmt_num(std::max(w, 300.0)), fmt_num(h), left, xml_escape(title));
  for (int r = 0; r < g.rows; ++r)
    for (int c = 0; c < g.cols; ++c) {
      const std::size_t i =
          static_cast<std::size_t>(r) * static_cast<std::size_t>(g.cols) + static_cast<std::size_t>(c);
      if (!present[i]) continue;
      const double v = values[i];
      const std::string color = diverging ? svg::diverging_color(span > 0 ? v / span : 0)
                                          : svg::sequential_color(span > 0 ? (v - lo) / span : 0.5);
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"><title>{} q-tile {}, kv-tile {}: "
          "{}{}</title></rect>",
          fmt_num(left + c * cw), fmt_num(top + r * ch), fmt_num(cw + 0.05), fmt_num(ch + 0.05), color,
          xml_escape(kernel), r, c, diverging && v > 0 ? "+" : "", xml_escape(format_bytes(v)));
    }
  // Axis labels and the colour scale.
  out +=
      fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">q 0</text>", left - 3, top + 9);
  out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">q {}</text>", left - 3,
                     fmt_num(top + ch * g.rows), g.rows - 1);
  out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\">kv 0 &#8594; {}</text>", left,
                     fmt_num(top + ch * g.rows + 13), g.cols - 1);
  const double ly = top + ch * g.rows + 20;
  for (int s = 0; s < 20; ++s) {
    const double t = s / 19.0;
    out +=
        fmt::format("<rect x=\"{}\" y=\"{}\" width=\"7\" height=\"8\" fill=\"{}\"/>", fmt_num(left + s * 7),
                    fmt_num(ly), diverging ? svg::diverging_color(2 * t - 1) : svg::sequential_color(t));
  }
  out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\">{} … {}</text>", left + 146, fmt_num(ly + 8),
                     xml_escape(diverging ? format_bytes(-span) : format_bytes(lo)),
                     xml_escape(diverging ? "+" + format_bytes(span) : format_bytes(hi)));
  return out + "</svg>";
}

std::string heatmaps_section(const Report& r) {
  bool any_tiles = false;
  for (const auto& k : r.kernels) any_tiles |= !k.tiles.empty();
  if (r.kernels.empty()) return {};
  std::string out =
      "<h2 id=\"heatmaps\">Per-tile HBM bytes</h2>\n<p class=\"hint\">HBM bytes (dram_read + dram_write) of "
      "each tile, "
      "summed over batch and heads: rows are q-tiles (row blocks), columns kv-tiles (column blocks / kv "
      "steps). "
      "The difference panel is modeled &minus; measured: red where the model predicts more bytes, blue where "
      "fewer. "
      "Hover a cell for its value.</p>\n";
  if (!any_tiles) return out + "<p class=\"hint\">This report has no per-tile records.</p>\n";
  // Without any measured tile (a simulate report) say so once and draw the modeled maps side by side.
  bool report_has_measured = false;
  for (const auto& k : r.kernels)
    for (const auto& t : k.tiles)
      for (const auto& [key, v] : t.metrics) report_has_measured |= v.measured.has_value();
  if (!report_has_measured)
    out +=
        "<p class=\"hint\"><b>No measured per-tile bytes in this report</b> (a simulate report, or tiles "
        "that "
        "were not profiled one at a time): only the modeled maps are drawn; the measured and difference maps "
        "appear in profile reports.</p>\n";
  out += "<div class=\"row\">";
  for (const auto& k : r.kernels) {
    if (k.tiles.empty()) continue;
    const Grid g = hbm_grid(k);
    bool any_measured = false, any_modeled = false;
    for (char c : g.has_measured) any_measured |= c != 0;
    for (char c : g.has_modeled) any_modeled |= c != 0;
    const std::string coverage = tile_coverage(k);
    out += fmt::format(
        "<div class=\"panel\"><h3>{} <small>({} q-tiles x {} kv-tiles, {}{})</small></h3>",
        xml_escape(k.name), g.rows, g.cols, coverage.empty() ? fmt::format("{} records", k.tiles.size()) : coverage,
        g.lone_windows > 0 ? fmt::format(", {} measured as lone windows", g.lone_windows) : "");
    if (g.lone_windows > 0)
      out += "<p class=\"hint\" style=\"max-width:760px\">The measured tiles were each launched alone (one CTA, "
             "from a flushed L2) and are compared with the model of that lone launch in the difference map; the "
             "modeled map shows the full run's attribution of the other tiles.</p>";
    out += "<div class=\"row\">";
    auto missing = [](const std::string& what) {
      return "<div class=\"panel\"><p class=\"hint\" style=\"width:220px\">" + what + "</p></div>";
    };
    if (report_has_measured)
      out += any_measured
                 ? "<div class=\"panel\">" +
                       heatmap_svg(g, g.measured, g.has_measured, false, "measured", k.name) + "</div>"
                 : missing("<b>measured</b>: this kernel's tiles were not measured.");
    out += any_modeled ? "<div class=\"panel\">" +
                             heatmap_svg(g, g.modeled, g.has_modeled, false, "modeled", k.name) + "</div>"
                       : missing("<b>modeled</b>: no modeled per-tile bytes.");
    bool any_lone = false;
    for (char c : g.has_lone) any_lone |= c != 0;
    if (any_measured && (any_modeled || any_lone)) {
      std::vector<double> diff(g.modeled.size());
      std::vector<char> both(g.modeled.size());
      for (std::size_t i = 0; i < diff.size(); ++i) {
        // A lone window against the model of its lone launch; any other measured tile against the full run.
        const bool lone = g.has_lone[i] != 0;
        both[i] = static_cast<char>(g.has_measured[i] && (lone || g.has_modeled[i]));
        diff[i] = (lone ? g.lone[i] : g.modeled[i]) - g.measured[i];
      }
      out +=
          "<div class=\"panel\">" + heatmap_svg(g, diff, both, true, "modeled − measured", k.name) + "</div>";
    } else if (report_has_measured) {
      out += missing("<b>difference</b>: needs both measured and modeled per-tile bytes.");
    }
    out += "</div></div>\n";
  }
  return out + "</div>\n";
}

// ---- timelines ------------------------------------------------------------------------------------------

struct Span {
  double start, end;
  std::size_t kernel;
  int cta_parity;
  std::string label;
};

std::string timeline_svg(const Report& r, bool measured) {
  // Kernels run one after another: each is offset by the durations of those before it.
  std::map<int, std::vector<Span>> lanes;
  double offset = 0, total = 0;
  std::vector<std::pair<double, std::string>> kernel_starts;
  for (std::size_t ki = 0; ki < r.kernels.size(); ++ki) {
    const auto& k = r.kernels[ki];
    double kernel_end = 0;
    int cta_index = 0;
    std::tuple<int, int, int> last_cta{-1, -1, -1};
    bool any = false;
    for (const auto& t : k.tiles) {
      const auto& sm = measured ? t.sm_measured : t.sm_modeled;
      const auto& s = measured ? t.start_measured_s : t.start_modeled_s;
      const auto& e = measured ? t.end_measured_s : t.end_modeled_s;
      if (!sm || !s || !e) continue;
      any = true;
      // For the tiled and Hopper kernels a CTA is (batch, head, q_tile), for tiled_bwd (batch, head,
      // kv_tile); for the others each record is its own CTA.
      const std::tuple<int, int, int> cta{t.batch, t.head,
                                          k.name == "tiled" || k.name == "hopper" ? t.q_tile
                                          : k.name == "tiled_bwd"                 ? t.kv_tile
                                                                                  : cta_index + 1};
      if (cta != last_cta) ++cta_index, last_cta = cta;
      lanes[*sm].push_back({offset + *s, offset + *e, ki, cta_index % 2,
                            fmt::format("{} b{} h{} q{}", k.name, t.batch, t.head, t.q_tile)});
      kernel_end = std::max(kernel_end, *e);
    }
    if (!any) continue;
    double duration = kernel_end;
    if (const Value* t = k.metrics.find(Metric::time)) {
      const auto& v = measured ? t->measured : t->modeled;
      if (v) duration = std::max(duration, *v);
    }
    kernel_starts.emplace_back(offset, k.name);
    offset += duration;
    total = offset;
  }
  if (lanes.empty()) return {};
  const int sms = lanes.rbegin()->first + 1;
  const double width = 1240, left = 56, right = 12, top = 22;
  const double lane_h = std::clamp(560.0 / sms, 2.0, 10.0);
  const double height = top + lane_h * sms + 34;
  const svg::Scale xs{0, total, left, width - right, false};
  std::string out = fmt::format(
      "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 "
      "0 {0} {1}\">"
      "<text class=\"title\" x=\"{2}\" y=\"14\">{3} timeline: one lane per SM, time left to right</text>",
      width, fmt_num(height), left, measured ? "measured" : "modeled");
  for (double t : xs.ticks())
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\"/><text class=\"tick\" x=\"{0}\" "
        "y=\"{3}\" text-anchor=\"middle\">{4}</text>",
        fmt_num(xs(t)), top, fmt_num(top + lane_h * sms), fmt_num(top + lane_h * sms + 13),
        xml_escape(format_seconds(t)));
  // Merge spans narrower than a pixel into their neighbour on the same lane (same kernel, touching), so a
  // kernel with 100k tiles still draws a few thousand rectangles.
  const double px = total / (width - left - right);
  std::size_t rects = 0;
  for (auto& [sm, spans] : lanes) {
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.start < b.start; });
    std::vector<Span> merged;
    for (const auto& s : spans) {
      if (!merged.empty()) {
        Span& m = merged.back();
        const bool touching = s.start - m.end < 0.5 * px;
        const bool same_cta = m.cta_parity == s.cta_parity && m.label == s.label;
        const bool tiny = (m.end - m.start) < 1.5 * px;
        if (m.kernel == s.kernel && touching && (same_cta || tiny)) {
          m.end = std::max(m.end, s.end);
          if (!same_cta) m.label = r.kernels[m.kernel].name + " (several CTAs)";
          continue;
        }
      }
      merged.push_back(s);
    }
    const double y = top + lane_h * sm;
    for (const auto& m : merged) {
      const std::string color = svg::kernel_color(r.kernels[m.kernel].name);
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}><title>SM {}: {}, {} – "
          "{}</title></rect>",
          fmt_num(xs(m.start)), fmt_num(y), fmt_num(std::max(0.6, xs(m.end) - xs(m.start))),
          fmt_num(std::max(1.0, lane_h - 0.6)), color, m.cta_parity ? " fill-opacity=\"0.65\"" : "", sm,
          xml_escape(m.label), xml_escape(format_seconds(m.start)), xml_escape(format_seconds(m.end)));
      ++rects;
    }
  }
  out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">SM 0</text>", left - 4,
                     top + 8);
  out += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">SM {}</text>", left - 4,
                     fmt_num(top + lane_h * sms), sms - 1);
  // Legend: kernels in launch order.
  double lx = left;
  for (const auto& [start, name] : kernel_starts) {
    out += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"10\" fill=\"{}\"/><text class=\"legend\" x=\"{}\" "
        "y=\"{}\">{} (from {})</text>",
        fmt_num(lx), fmt_num(height - 12), svg::kernel_color(name), fmt_num(lx + 16), fmt_num(height - 3),
        xml_escape(name), xml_escape(format_seconds(start)));
    lx += 210;
  }
  return out + "</svg>";
}

std::string timelines_section(const Report& r) {
  if (r.kernels.empty()) return {};
  std::string out =
      "<h2 id=\"timelines\">Tile timelines per SM</h2>\n<p class=\"hint\">Each rectangle is a CTA's run of "
      "tiles on "
      "one SM (alternate CTAs are shaded lighter); kernels are laid end to end in launch order. Spans under "
      "a "
      "pixel are merged. Hover for the CTA and its times.</p>\n";
  const std::string modeled = timeline_svg(r, false), measured = timeline_svg(r, true);
  out += modeled.empty() ? "<p class=\"hint\">No modeled per-tile times in this report.</p>" : modeled;
  out += "\n";
  out += measured.empty() ? "<p class=\"hint\">No measured per-tile times in this report (they come from an "
                            "instrumented profile run).</p>"
                          : measured;
  return out + "\n";
}

// ---- PM sampling ----------------------------------------------------------------------------------------

// DRAM and L2 throughput over each measured kernel's run, from its PM samples (bytes per interval /
// interval).
std::string samples_section(const Report& r) {
  std::string charts;
  for (const auto& k : r.kernels) {
    if (k.samples.empty()) continue;
    struct Line {
      const char* counter;
      const char* name;
      const char* color;
      double bytes_per_unit;
    };
    const Line lines[] = {
        {"dram__bytes_read.sum", "DRAM read", "#1f77b4", 1.0},
        {"dram__bytes_write.sum", "DRAM write", "#d62728", 1.0},
        {"lts__t_sectors_srcunit_tex_op_read.sum", "L2 read (from SMs)", "#2ca02c", 32.0},
        {"lts__t_sectors_srcunit_tex_op_write.sum", "L2 write (from SMs)", "#ff7f0e", 32.0}};
    std::vector<svg::Series> series;
    for (const auto& line : lines) {
      svg::Series s{line.name, line.color, {}, true, false, false, {}};
      for (const auto& smp : k.samples) {
        const auto it = smp.counters.find(line.counter);
        const double dt = smp.end_s - smp.start_s;
        if (it == smp.counters.end() || dt <= 0) continue;
        s.points.emplace_back((smp.start_s + smp.end_s) * 0.5e6,
                              it->second * line.bytes_per_unit / dt / 1e12);
      }
      if (!s.points.empty()) series.push_back(std::move(s));
    }
    if (series.empty()) continue;
    svg::ChartOptions o;
    o.title = k.name + ": throughput over time";
    o.x_label = "time from the launch (µs)";
    o.y_label = "TB/s";
    o.note = fmt::format("{} PM samples", k.samples.size());
    charts += "<div class=\"panel\">" + svg::line_chart(series, o) + "</div>";
  }
  if (charts.empty()) return {};
  return "<h2 id=\"samples\">Throughput over time (PM sampling)</h2>\n<p class=\"hint\">Measured only: CUPTI "
         "PM sampling of one more launch of each kernel; each point is one sampling interval's bytes divided "
         "by its length.</p>\n<div class=\"row\">" +
         charts + "</div>\n";
}

// ---- sweep ----------------------------------------------------------------------------------------------

std::string br_color(std::size_t i) {
  static const char* colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};
  return colors[i % 6];
}

std::string block_size_charts(const ProblemGroup& g) {
  // For each (Br, Bc), the best feasible point over the other axes (warps, stages, shared-memory limit).
  std::map<int, std::map<int, const SweepPoint*>> best;  // br -> bc -> point
  for (const SweepPoint* p : g.points) {
    if (!p->feasible || p->kind != sim::KernelKind::tiled) continue;
    const SweepPoint*& b = best[p->tiles.br][p->tiles.bc];
    if (!b || modeled_metric(*p, Metric::time) < modeled_metric(*b, Metric::time)) b = p;
  }
  if (best.empty()) return "<p class=\"hint\">No feasible tiled point for " + xml_escape(g.label) + ".</p>";
  std::vector<svg::Series> bytes, time;
  std::size_t i = 0;
  for (const auto& [br, row] : best) {
    svg::Series sb{fmt::format("Br = {}", br), br_color(i), {}, true, true, false, {}};
    svg::Series st = sb;
    for (const auto& [bc, p] : row) {
      sb.points.emplace_back(bc, hbm_bytes(*p));
      st.points.emplace_back(bc, modeled_metric(*p, Metric::time));
      const std::string tip =
          fmt::format("{}: HBM {}, time {}, smem {}", p->tiles.label(), format_bytes(hbm_bytes(*p)),
                      format_seconds(modeled_metric(*p, Metric::time)),
                      format_bytes_binary(modeled_metric(*p, Metric::smem_per_cta)));
      sb.tips.push_back(tip);
      st.tips.push_back(tip);
    }
    bytes.push_back(std::move(sb));
    time.push_back(std::move(st));
    ++i;
  }
  svg::ChartOptions ob;
  ob.title = "HBM bytes vs block size";
  ob.note = g.label;
  ob.x_label = "Bc (key/value rows per step)";
  ob.y_label = "HBM bytes (modeled)";
  ob.log_x = true;
  ob.x_format = [](double v) { return fmt::format("{:.0f}", v); };
  ob.y_format = [](double v) { return format_bytes(v); };
  svg::ChartOptions ot = ob;
  ot.title = "Time vs block size";
  ot.y_label = "kernel time (modeled)";
  ot.y_format = [](double v) { return format_seconds(v); };
  return "<div class=\"row\"><div class=\"panel\">" + svg::line_chart(bytes, ob) +
         "</div><div class=\"panel\">" + svg::line_chart(time, ot) + "</div></div>";
}

std::string smem_chart(const ProblemGroup& g) {
  // For each shared-memory limit M, the fewest bytes any feasible tile within M moves.
  std::map<std::int64_t, std::pair<double, double>> by_limit;  // M -> (min HBM bytes, min L2 request bytes)
  for (const SweepPoint* p : g.points) {
    if (!p->feasible || p->kind != sim::KernelKind::tiled || p->smem_limit <= 0) continue;
    auto [it, inserted] =
        by_limit.emplace(p->smem_limit, std::make_pair(hbm_bytes(*p), modeled_metric(*p, Metric::l2_read)));
    if (!inserted) {
      it->second.first = std::min(it->second.first, hbm_bytes(*p));
      it->second.second = std::min(it->second.second, modeled_metric(*p, Metric::l2_read));
    }
  }
  if (by_limit.empty()) return {};
  const auto& w = g.points.front()->workload;
  const double s = sim::bytes_of(w.dtype);
  const double bh = static_cast<double>(w.batch * w.heads);
  const double nq = static_cast<double>(w.seq_q), nkv = static_cast<double>(w.seq_kv),
               d = static_cast<double>(w.head_dim);
  // K and V (2 Nkv d s bytes per head) are read once per q-tile, and a q-tile of Br rows needs Br d s bytes
  // of shared memory, so Br <= M / (d s): traffic >= 2 B H Nq Nkv d^2 s^2 / M, plus reading Q and writing O
  // once.
  auto bound = [&](double m) { return 2.0 * bh * nq * nkv * d * d * s * s / m + 2.0 * bh * nq * d * s; };
  svg::Series hbm{"HBM bytes, best tile within M", "#1f77b4", {}, true, true, false, {}};
  svg::Series l2{"SM->L2 read bytes, best tile", "#ff7f0e", {}, true, true, false, {}};
  svg::Series th{"Θ(N²d²/M) bound (no L2 reuse)", "#444", {}, true, false, true, {}};
  const double lo = static_cast<double>(by_limit.begin()->first),
               hi = static_cast<double>(by_limit.rbegin()->first);
  for (const auto& [m, v] : by_limit) {
    hbm.points.emplace_back(static_cast<double>(m), v.first);
    l2.points.emplace_back(static_cast<double>(m), v.second);
  }
  for (int i = 0; i <= 40; ++i) {
    const double m = lo * std::pow(hi / lo, i / 40.0);
    th.points.emplace_back(m, bound(m));
  }
  svg::ChartOptions o;
  o.title = "Bytes vs shared-memory size M";
  o.note = g.label + "; bound = 2·B·H·Nq·Nkv·d²·s²/M + Q and O once";
  o.x_label = "shared memory per CTA allowed (M)";
  o.y_label = "bytes (modeled)";
  o.log_x = o.log_y = true;
  o.width = 620;
  o.x_format = [](double v) { return format_bytes(v); };
  o.y_format = [](double v) { return format_bytes(v); };
  return svg::line_chart({th, l2, hbm}, o);
}

std::string pareto_chart(const ProblemGroup& g) {
  svg::Series all{"feasible tiles", "#9bb7d4", {}, false, true, false, {}};
  for (const SweepPoint* p : g.points) {
    if (!p->feasible || p->kind != sim::KernelKind::tiled) continue;
    all.points.emplace_back(modeled_metric(*p, Metric::smem_per_cta), hbm_bytes(*p));
    all.tips.push_back(fmt::format("{} (smem limit {}): {} smem, {} HBM, {}", p->tiles.label(),
                                   format_bytes_binary(static_cast<double>(p->smem_limit)),
                                   format_bytes_binary(modeled_metric(*p, Metric::smem_per_cta)),
                                   format_bytes(hbm_bytes(*p)), format_seconds(modeled_metric(*p, Metric::time))));
  }
  if (all.points.empty()) return {};
  svg::Series front{"Pareto front", "#d62728", {}, true, true, false, {}};
  for (const SweepPoint* p : pareto_front(g.points)) {
    front.points.emplace_back(modeled_metric(*p, Metric::smem_per_cta), hbm_bytes(*p));
    front.tips.push_back(fmt::format("front: {}: {} smem, {} HBM", p->tiles.label(),
                                     format_bytes_binary(modeled_metric(*p, Metric::smem_per_cta)),
                                     format_bytes(hbm_bytes(*p))));
  }
  svg::ChartOptions o;
  o.title = "Pareto front: HBM bytes vs shared memory used";
  o.note = g.label;
  o.x_label = "shared memory per CTA (bytes)";
  o.y_label = "HBM bytes (modeled)";
  o.log_x = true;
  o.y_from_zero = false;
  o.width = 620;
  o.x_format = [](double v) { return format_bytes(v); };
  o.y_format = [](double v) { return format_bytes(v); };
  return svg::line_chart({all, front}, o);
}

std::string sweep_section(const Report& r) {
  if (r.sweep.empty()) return {};
  const auto groups = group_by_problem(r);
  std::size_t feasible = 0;
  for (const auto& p : r.sweep) feasible += p.feasible ? 1 : 0;
  std::string out = fmt::format(
      "<h2 id=\"sweep\">Sweep: {} configurations, {} feasible, {} problems</h2>\n<p class=\"hint\">All "
      "values are "
      "modeled. A problem is a GPU spec and a workload shape; within it, points differ in tiling and "
      "shared-memory "
      "limit. Definition: <code>{}</code></p>\n",
      r.sweep.size(), feasible, groups.size(), xml_escape(r.sweep_definition.text));
  out +=
      "<h3>Best tile per problem (least modeled time)</h3><table><tr><th class=\"l\">Problem</th><th "
      "class=\"l\">Best tile</th>"
      "<th>smem/CTA</th><th>time</th><th>HBM bytes</th><th>L2 read bytes</th><th>points</th></tr>";
  for (const auto& g : groups) {
    const SweepPoint* b = best_point(g.points);
    if (!b) {
      out += fmt::format(
          "<tr><td class=\"l\">{}</td><td class=\"l\">no feasible "
          "tile</td><td></td><td></td><td></td><td></td>"
          "<td>{}</td></tr>",
          xml_escape(g.label), g.points.size());
      continue;
    }
    out += fmt::format(
        "<tr><td class=\"l\">{}</td><td "
        "class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        xml_escape(g.label), tiles_label(*b), format_bytes_binary(modeled_metric(*b, Metric::smem_per_cta)),
        format_seconds(modeled_metric(*b, Metric::time)), format_bytes(hbm_bytes(*b)),
        format_bytes(modeled_metric(*b, Metric::l2_read)), g.points.size());
  }
  out += "</table>\n";
  constexpr std::size_t kMaxProblems = 6;
  if (groups.size() > kMaxProblems)
    out += fmt::format(
        "<p class=\"hint\">Charts for the first {} of {} problems (all points are in the JSON and CSV).</p>",
        kMaxProblems, groups.size());
  for (std::size_t i = 0; i < std::min(groups.size(), kMaxProblems); ++i) {
    const auto& g = groups[i];
    out += "<h3>" + xml_escape(g.label) + "</h3>\n" + block_size_charts(g) +
           "\n<div class=\"row\"><div class=\"panel\">" + smem_chart(g) + "</div><div class=\"panel\">" +
           pareto_chart(g) + "</div></div>\n";
  }
  return out;
}

// Per kind with a backward pass: its forward, backward and training-step totals (pass_totals.hpp).
std::string passes_section(const Report& report) {
  const std::string text = pass_totals_text(report);
  if (text.empty()) return {};
  std::string out = "<h2 id=\"passes\">Per pass</h2>\n<ul>\n";
  for (std::size_t at = 0, end; (end = text.find('\n', at)) != std::string::npos; at = end + 1)
    out += "<li>" + xml_escape(text.substr(at, end - at)) + "</li>\n";
  return out + "</ul>\n";
}

}  // namespace

std::string to_html(const Report& report, const std::vector<GateResult>& gates) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += fmt::format("<title>attnscope {} report: {}</title>\n<style>{}</style>\n</head>\n<body>\n",
                     xml_escape(report.kind), xml_escape(report.workload.name), kStyle);
  out += header(report);
  out += "<nav>";
  if (!gates.empty()) out += "<a href=\"#gates\">Gates</a>";
  if (!report.kernels.empty())
    out +=
        "<a href=\"#errors\">Measured vs modeled</a><a href=\"#levels\">Bytes per level</a>"
        "<a href=\"#heatmaps\">Per-tile heatmaps</a><a href=\"#timelines\">Timelines</a>";
  if (!report.sweep.empty()) out += "<a href=\"#sweep\">Sweep</a>";
  out += "</nav>\n";
  out += gates_section(gates);
  if (!report.kernels.empty()) out += error_table(report);
  out += passes_section(report);
  out += levels_section(report);
  out += heatmaps_section(report);
  out += timelines_section(report);
  out += samples_section(report);
  out += sweep_section(report);
  out += fmt::format(
      "<footer>Written by attnscope {} (git {}) from a format-version-{} report. Self-contained: "
      "no scripts or fonts are fetched.</footer>\n</body>\n</html>\n",
      xml_escape(report.provenance.tool_version), xml_escape(report.provenance.git_revision),
      report.format_version);
  return out;
}

}  // namespace attnscope::reports
