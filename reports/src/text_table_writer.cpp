// SPDX-License-Identifier: Apache-2.0
// The table `attnscope report` prints on a terminal.
#include <algorithm>

#include "attnscope/reports/overview.hpp"
#include "attnscope/reports/pass_totals.hpp"
#include "attnscope/reports/sweep_analysis.hpp"
#include "attnscope/reports/units.hpp"
#include "attnscope/reports/writers.hpp"
#include "text_util.hpp"

namespace attnscope::reports {

namespace {

// Columns padded to their widest cell; the first row is the header, underlined.
std::string aligned(const std::vector<std::vector<std::string>>& rows, std::size_t left_columns) {
  if (rows.empty()) return {};
  std::vector<std::size_t> w(rows.front().size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i)
      w[i] = std::max(w[i], detail::display_width(r[i]));
  std::string out;
  std::size_t total = 0;
  for (std::size_t x : w) total += x + 2;
  for (std::size_t j = 0; j < rows.size(); ++j) {
    std::string line;
    for (std::size_t i = 0; i < rows[j].size() && i < w.size(); ++i) {
      const std::string& cell = rows[j][i];
      const std::string pad(w[i] - detail::display_width(cell), ' ');
      line += i < left_columns ? cell + pad : pad + cell;
      if (i + 1 < rows[j].size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    if (j == 0) out += std::string(total - 2, '-') + "\n";
  }
  return out;
}

std::string protocol_text(const Provenance& p) {
  if (!p.cache) return "";
  std::string s;
  switch (*p.cache) {
    case vocab::CacheProtocol::flush:
      s = "L2 flushed before every kernel";
      break;
    case vocab::CacheProtocol::sequence:
      s = "L2 flushed once, kernels back to back";
      break;
    case vocab::CacheProtocol::warm:
      s = "L2 warm (same launches ran just before)";
      break;
  }
  if (p.replay) s += fmt::format(", {} replay", vocab::to_string(*p.replay));
  return s;
}

}  // namespace

namespace {
std::string provenance_text_unescaped(const Report& report) {
  const auto& p = report.provenance;
  std::string out = fmt::format("{} report, {}\n", report.kind, detail::workload_summary(report.workload));
  out += fmt::format("tiles {}, GPU {}{}, written by attnscope {} (git {}), {}\n", tiles_label(report),
                     p.gpu_name.empty() ? "-" : p.gpu_name,
                     p.gpu_spec.empty() ? "" : " [model " + p.gpu_spec + "]", p.tool_version, p.git_revision,
                     p.date);
  if (const std::string proto = protocol_text(p); !proto.empty())
    out +=
        "measured with " + proto +
        (report.format_version >= 2
             ? "; the model runs under the same protocol\n"
             // format 1: written before the model ran under the measurement's protocol
             : "; the modeled values are those of the model that wrote this format-1 file (the naive kernels "
               "modeled back to back from one cold L2): re-run the model to compare under the same "
               "protocol\n");
  if (!p.recordings.empty()) {
    out += fmt::format("joins {} recording{}:\n", p.recordings.size(), p.recordings.size() == 1 ? "" : "s");
    for (const Recording& r : p.recordings) {
      std::string kernels;
      for (const auto& k : r.kernels) kernels += (kernels.empty() ? "" : ", ") + k;
      out += fmt::format("    {} ({}; {}, measured at git {})\n", r.file, kernels, r.date, r.git_revision);
    }
  }
  return out;
}
}  // namespace

std::string provenance_text(const Report& report) {
  return detail::terminal_safe(provenance_text_unescaped(report));
}

namespace {
std::string overview_text_unescaped(const Report& report) {
  const auto kernels = overview(report);
  if (kernels.empty()) return {};
  // Columns: the headline metrics any kernel has.
  std::vector<Metric> columns;
  for (const Metric m : vocab::all_metrics()) {
    if (!is_headline(m)) continue;
    bool any = false;
    for (const auto& k : kernels)
      for (const auto& c : k.cells) any = any || (c.metric == m && c.value.measured);
    if (any) columns.push_back(m);
  }
  std::string out;
  if (columns.empty()) {
    out += "Model only: nothing measured to compare with.\n";
    return out;
  }
  out += "Model vs measurement: relative error (modeled - measured) / measured, worst kernel first.\n";
  out += "Targets (median / worst over the committed measurements): " + targets_text() + ";\n";
  out += "! beyond the worst-case target, ~ beyond the median one.\n\n";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"kernel"};
  for (const Metric m : columns) header.emplace_back(vocab::key(m));
  rows.push_back(header);
  for (const auto& k : kernels) {
    std::vector<std::string> row{k.kernel};
    for (const Metric m : columns) {
      std::string cell = "-";
      for (const auto& c : k.cells)
        if (c.metric == m) {
          cell = cell_text(c);
          if (c.status == CellStatus::misses) cell += " !";
          if (c.status == CellStatus::near) cell += " ~";
        }
      row.push_back(cell);
    }
    rows.push_back(row);
  }
  out += aligned(rows, 1);
  out += "\n";
  for (const auto& k : kernels) out += fmt::format("{}: {}\n", k.kernel, k.verdict);
  return out;
}
}  // namespace

std::string overview_text(const Report& report) {
  return detail::terminal_safe(overview_text_unescaped(report));
}

namespace {
std::string to_text_table_unescaped(const Report& report) {
  std::string out = provenance_text(report) + "\n";
  out += overview_text(report);
  if (const std::string passes = pass_totals_text(report); !passes.empty()) out += "\nPer pass:\n" + passes;
  if (!report.kernels.empty()) {
    out += "\nEvery metric, measured and modeled:\n";
    std::vector<std::vector<std::string>> rows{{"kernel", "metric", "measured", "modeled", "error", "note"}};
    std::vector<Metric> not_modeled;  // their reasons follow the table, once each
    for (const auto& k : report.kernels) {
      for (const auto& [metric, v] : k.metrics) {
        const auto e = v.relative_error();
        const vocab::MetricInfo& info = vocab::info(metric);
        std::string note;
        if (v.measured && !v.modeled && !info.modeled) {
          note = "not modeled";
          if (std::find(not_modeled.begin(), not_modeled.end(), metric) == not_modeled.end())
            not_modeled.push_back(metric);
        }
        rows.push_back(
            {k.name, std::string(vocab::key(metric)), v.measured ? format_metric(*v.measured, metric) : "-",
             v.modeled ? format_metric(*v.modeled, metric) : "-", e ? format_percent(*e) : "-", note});
      }
    }
    out += aligned(rows, 2);
    for (const Metric m : not_modeled)
      out += fmt::format("  {} not modeled: {}\n", vocab::key(m), vocab::info(m).not_modeled);
    // What a recording cannot measure under today's metric table (reports/json_io.cpp, follow_vocabulary).
    for (const auto& k : report.kernels)
      if (const auto it = k.notes.find("measure.not_comparable"); it != k.notes.end())
        out += fmt::format("  {}: {}\n", k.name, it->second);
    // What the model leaves out for this workload, where the counters show it matters (sim::KernelResult).
    for (const auto& k : report.kernels)
      if (const auto it = k.notes.find("model.not_modeled"); it != k.notes.end())
        out += fmt::format("  {} model: {}\n", k.name, it->second);
    std::vector<std::vector<std::string>> coverage;
    for (const auto& k : report.kernels)
      if (const std::string c = tile_coverage(k); !c.empty()) coverage.push_back({k.name, c});
    if (!coverage.empty()) {
      out += "\nTiles kept in this report (the rest were not recorded):\n";
      for (const auto& c : coverage) out += fmt::format("    {}: {}\n", c[0], c[1]);
    }
    bool any_counters = false;
    for (const auto& k : report.kernels) any_counters = any_counters || !k.counters.empty();
    if (any_counters) {
      out += "\nAppendix: raw counters (CUPTI names, measured):\n";
      std::vector<std::vector<std::string>> raw{{"kernel", "counter", "value"}};
      for (const auto& k : report.kernels)
        for (const auto& [name, value] : k.counters) raw.push_back({k.name, name, format_count(value)});
      out += aligned(raw, 2);
    }
  }
  if (!report.sweep.empty()) {
    std::size_t feasible = 0;
    for (const auto& point : report.sweep) feasible += point.feasible ? 1 : 0;
    const auto groups = group_by_problem(report);
    out += fmt::format("{}sweep: {} points ({} feasible) in {} problem(s); best tile (least modeled time):\n",
                       report.kernels.empty() ? "" : "\n", report.sweep.size(), feasible, groups.size());
    for (const auto& g : groups) {
      const SweepPoint* best = best_point(g.points);
      if (!best) {
        out += fmt::format("  {}: no feasible tile\n", g.label);
        continue;
      }
      out += fmt::format("  {}: {} (time {}, HBM {}, smem/CTA {})\n", g.label, tiles_label(*best),
                         format_seconds(modeled_metric(*best, Metric::time)), format_bytes(hbm_bytes(*best)),
                         format_bytes_binary(modeled_metric(*best, Metric::smem_per_cta)));
    }
  }
  return out;
}
}  // namespace

std::string to_text_table(const Report& report) {
  return detail::terminal_safe(to_text_table_unescaped(report));
}

std::vector<std::filesystem::path> WrittenFiles::all() const {
  std::vector<std::filesystem::path> out;
  for (const auto* p : {&json, &html, &markdown, &totals_csv, &tiles_csv, &sweep_csv, &trace, &junit})
    if (!p->empty()) out.push_back(*p);
  return out;
}

std::string terminal_text(std::string_view text) {
  return detail::terminal_safe(text);
}

}  // namespace attnscope::reports
