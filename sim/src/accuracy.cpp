// SPDX-License-Identifier: Apache-2.0
// Model accuracy against committed measurements: reading benchmark JSON, running the model, the error table
// and the ratchet baseline.
#include "attnscope/sim/accuracy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <tuple>

#include "attnscope/sim/error.hpp"

namespace attnscope::sim {
namespace {

using nlohmann::json;

// "key=value" or "key:value" tokens of a benchmark label or name.
std::map<std::string, std::string> tokens(const std::string& text, char sep) {
  std::map<std::string, std::string> out;
  std::string word;
  std::istringstream in(text);
  while (std::getline(in, word, sep == ':' ? '/' : ' ')) {
    const auto at = word.find(sep);
    if (at == std::string::npos)
      out[word] = "";
    else
      out[word.substr(0, at)] = word.substr(at + 1);
  }
  return out;
}

int to_int(const std::map<std::string, std::string>& t, const std::string& key, const std::string& where) {
  const auto it = t.find(key);
  if (it == t.end() || it->second.empty())
    throw InvalidInput("benchmark '" + where + "': no '" + key + "' in its label or name");
  try {
    return std::stoi(it->second);
  } catch (const std::exception&) {
    throw InvalidInput("benchmark '" + where + "': '" + key + "' is not a number");
  }
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

const std::vector<std::string>& table_metrics() {
  // l2_read: what the SMs read from L2 (the model's requests; measured as l1tex__m_xbar2l1tex_read_bytes).
  // l2_read_lts: the same reads as the L2 slices count them (lts__t_sectors_srcunit_tex_op_read), fewer where
  // many SMs read the same tiles at once (docs/accuracy.md); the model predicts its requests for both.
  static const std::vector<std::string> m{"dram_read", "dram_write", "l2_read",   "l2_read_lts",
                                          "l2_write",  "time",       "tile_bytes"};
  return m;
}
const std::vector<std::string>& table_kernels() {
  static const std::vector<std::string> k{"naive.qk", "naive.softmax", "naive.pv", "naive", "tiled"};
  return k;
}

double model_metric(const KernelResult& k, const std::string& metric) {
  if (metric == "time") return k.time_s;
  if (metric == "dram_read") return static_cast<double>(k.totals.hbm_read);
  if (metric == "dram_write") return static_cast<double>(k.totals.hbm_write);
  if (metric == "l2_read" || metric == "l2_read_lts") return static_cast<double>(k.totals.l2_read);
  if (metric == "l2_write") return static_cast<double>(k.totals.l2_write);
  throw InvalidInput("accuracy: unknown metric '" + metric + "'");
}

double tile_metric(const LevelBytes& b, const std::string& metric) {
  if (metric == "dram_read") return static_cast<double>(b.hbm_read);
  if (metric == "dram_write") return static_cast<double>(b.hbm_write);
  if (metric == "l2_read") return static_cast<double>(b.l2_read);
  if (metric == "l2_write") return static_cast<double>(b.l2_write);
  if (metric == "smem_read") return static_cast<double>(b.smem_read);
  if (metric == "smem_write") return static_cast<double>(b.smem_write);
  return std::nan("");
}

// What one simulation needs; cases that agree on it share a run.
std::string sim_key(const AccuracyCase& c) {
  const Workload& w = c.workload;
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", to_string(c.kind), c.kernel, w.batch, w.heads,
                     w.seq_q, w.seq_kv, w.head_dim, to_string(w.dtype), w.causal, c.tiles.label(),
                     c.l2_start == L2Start::cold ? "cold" : "warm") +
         (c.measured_tiles.empty() ? "" : "|tiles") + (c.in_sequence ? "|sequence" : "");
}

SimResult run_case(const GpuSpec& gpu, const AccuracyCase& c) {
  SimOptions opt;
  opt.l2_start = c.l2_start;
  opt.record_tiles = !c.measured_tiles.empty();
  if (c.kernel != "naive" && c.kind == KernelKind::naive && !c.in_sequence) {
    const auto id = parse_kernel_id(c.kernel);
    if (!id) throw InvalidInput("accuracy case '" + c.id + "': unknown kernel '" + c.kernel + "'");
    opt.only = *id;  // measured alone after an L2 flush
  }
  return simulate(gpu, c.workload, c.kind, c.tiles, opt);
}

}  // namespace

bool is_training_case(const AccuracyCase& c) {
  return c.kernel == "tiled" && c.workload.head_dim == 64 && c.workload.dtype == DType::fp16 &&
         !c.workload.causal && c.workload.seq_q == 4096;
}

std::vector<AccuracyCase> load_benchmark_cases(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InvalidInput("cannot read benchmark file " + path.string());
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw InvalidInput("benchmark file " + path.string() + ": " + e.what());
  }
  if (!doc.contains("benchmarks") || !doc["benchmarks"].is_array())
    throw InvalidInput("benchmark file " + path.string() + ": no 'benchmarks' array");
  std::vector<AccuracyCase> out;
  for (const json& b : doc["benchmarks"]) {
    if (b.value("aggregate_name", "") != "median") continue;
    const std::string name = b.value("run_name", b.value("name", ""));
    const std::string label = b.value("label", "");
    if (label.empty()) continue;  // copy bandwidth: not a kernel of ours
    const auto lt = tokens(label, '=');
    const auto nt = tokens(name, ':');
    AccuracyCase c;
    c.id = name;
    c.origin = path.filename().string();
    const std::string first = label.substr(0, label.find(' '));
    c.kernel = first;
    c.kind = first == "tiled" ? KernelKind::tiled : KernelKind::naive;
    if (first != "tiled" && first != "naive" && !parse_kernel_id(first))
      throw InvalidInput("benchmark '" + name + "': unknown kernel '" + first + "' in its label");
    c.workload.batch = 1;
    c.workload.heads = nt.count("H") ? to_int(nt, "H", name) : to_int(lt, "H", name);
    c.workload.seq_q = c.workload.seq_kv = to_int(lt, "N", name);
    c.workload.head_dim = to_int(lt, "d", name);
    c.workload.causal = lt.count("causal") > 0;
    c.workload.dtype = lt.count("bf16") ? DType::bf16 : DType::fp16;
    if (c.kind == KernelKind::tiled) {
      c.tiles.br = to_int(lt, "Br", name);
      c.tiles.bc = to_int(lt, "Bc", name);
      c.tiles.stages = to_int(lt, "stages", name);
      c.tiles.warps = lt.count("warps") ? to_int(lt, "warps", name) : c.tiles.br / 16;  // first file: Br/16
    }
    const std::string unit = b.value("time_unit", "ns");
    const double scale = unit == "ms" ? 1e-3 : unit == "us" ? 1e-6 : unit == "s" ? 1.0 : 1e-9;
    if (!b.contains("real_time") || !b["real_time"].is_number())
      throw InvalidInput("benchmark '" + name + "': no real_time");
    c.measured["time"] = b["real_time"].get<double>() * scale;
    c.date = doc.contains("context") ? doc["context"].value("date", "") : "";
    c.tiles = naive_tiling_measured_at(c.tiles, c.date);  // which naive kernels ran (tile_config.hpp)
    c.method = "bench";
    c.training = is_training_case(c);
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<AccuracyCase> newest_per_case(std::vector<AccuracyCase> cases, std::size_t* dropped) {
  const auto key = [](const AccuracyCase& c) {
    const Workload& w = c.workload;
    return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", c.method, c.kernel, to_string(c.kind),
                       w.batch, w.heads, w.seq_q, w.seq_kv, w.head_dim, to_string(w.dtype), w.causal,
                       c.tiles.label(), c.l2_start == L2Start::cold ? "cold" : "warm", c.in_sequence);
  };
  // Newest first (ties: the later file name), so the first case of a key to supply a metric is the newest.
  std::stable_sort(cases.begin(), cases.end(), [](const AccuracyCase& a, const AccuracyCase& b) {
    return std::tie(a.date, a.origin) > std::tie(b.date, b.origin);
  });
  std::map<std::string, std::size_t> index;
  std::vector<AccuracyCase> out;
  std::size_t merged = 0;
  for (AccuracyCase& c : cases) {
    const auto [it, fresh] = index.emplace(key(c), out.size());
    if (fresh) {
      out.push_back(std::move(c));
      continue;
    }
    AccuracyCase& kept = out[it->second];
    // An older measurement of other naive kernels (before they changed) fills in nothing of the newer one's.
    if (!kept.tiles.same_naive_tiling(c.tiles)) {
      ++merged;
      continue;
    }
    bool used = false;
    for (const auto& [metric, value] : c.measured)
      if (kept.measured.emplace(metric, value).second) used = true;
    if (kept.measured_tiles.empty() && !c.measured_tiles.empty()) {
      kept.measured_tiles = std::move(c.measured_tiles);
      used = true;
    }
    if (used)
      kept.origin += " + " + c.origin;
    else
      ++merged;
  }
  if (dropped) *dropped = merged;
  return out;
}

double AccuracyPoint::relative_error() const {
  return std::abs(modeled - measured) / std::abs(measured);
}

std::vector<AccuracyPoint> evaluate_cases(const GpuSpec& gpu, const std::vector<AccuracyCase>& cases,
                                          int threads) {
  std::map<std::string, std::size_t> index;  // sim_key -> run
  std::vector<const AccuracyCase*> runs;
  std::vector<std::size_t> run_of(cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string key = sim_key(cases[i]);
    auto [it, fresh] = index.emplace(key, runs.size());
    if (fresh) runs.push_back(&cases[i]);
    run_of[i] = it->second;
  }
  std::vector<SimResult> results(runs.size());
  const unsigned pool =
      threads > 0 ? static_cast<unsigned>(threads) : std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  std::vector<std::future<void>> workers;
  for (unsigned t = 0; t < std::min<std::size_t>(pool, runs.size()); ++t)
    workers.push_back(std::async(std::launch::async, [&] {
      for (std::size_t j; (j = next.fetch_add(1)) < runs.size();) results[j] = run_case(gpu, *runs[j]);
    }));
  for (auto& w : workers) w.get();  // rethrows a case's error

  std::vector<AccuracyPoint> points;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const AccuracyCase& c = cases[i];
    const SimResult& r = results[run_of[i]];
    for (const auto& [metric, value] : c.measured) {
      AccuracyPoint p{c.id, c.kernel, metric, value, 0, c.training};
      if (c.kernel == "naive") {
        if (metric == "time")
          p.modeled = r.time_s;
        else
          for (const KernelResult& k : r.kernels) p.modeled += model_metric(k, metric);
      } else {
        const auto k = std::find_if(r.kernels.begin(), r.kernels.end(),
                                    [&](const KernelResult& x) { return x.name == c.kernel; });
        if (k == r.kernels.end())
          throw InvalidInput("accuracy case '" + c.id + "': the model ran no kernel " + c.kernel);
        p.modeled = model_metric(*k, metric);
      }
      if (value > 0) points.push_back(p);
    }
    const auto kernel = std::find_if(r.kernels.begin(), r.kernels.end(),
                                     [&](const KernelResult& x) { return x.name == c.kernel; });
    if (!c.measured_tiles.empty() && kernel != r.kernels.end()) {
      std::map<std::tuple<int, int, int, int>, const TileRecord*> modeled;
      for (const TileRecord& t : kernel->tiles) modeled[{t.batch, t.head, t.q_tile, t.kv_tile}] = &t;
      for (const MeasuredTile& t : c.measured_tiles) {
        const auto it = modeled.find({t.batch, t.head, t.q_tile, t.kv_tile});
        if (it == modeled.end() && t.modeled.empty()) continue;
        for (const auto& [metric, value] : t.measured) {
          double m = std::nan("");
          if (!t.modeled.empty()) {
            if (auto mi = t.modeled.find(metric); mi != t.modeled.end()) m = mi->second;
          } else {
            m = tile_metric(it->second->bytes, metric);
          }
          if (std::isnan(m) || !(value > 0)) continue;
          points.push_back(AccuracyPoint{
              c.id + fmt::format(" tile({},{},{},{}) {}", t.batch, t.head, t.q_tile, t.kv_tile, metric),
              c.kernel, "tile_bytes", value, m, c.training});
        }
      }
    }
  }
  return points;
}

std::optional<AccuracyTarget> target_for(const std::string& metric) {
  if (metric == "dram_read" || metric == "dram_write") return AccuracyTarget{0.03, 0.08};
  if (metric == "l2_read" || metric == "l2_read_lts" || metric == "l2_write")
    return AccuracyTarget{0.05, 0.10};
  if (metric == "time") return AccuracyTarget{0.10, 0.20};
  if (metric == "tile_bytes") return AccuracyTarget{0.05, std::nullopt};
  return std::nullopt;
}

bool AccuracyRow::meets() const {
  if (!median || !target) return false;
  return *median <= target->median && (!target->worst || *worst <= *target->worst);
}

std::vector<AccuracyRow> accuracy_table(const std::vector<AccuracyPoint>& points) {
  std::vector<AccuracyRow> rows;
  for (const std::string& metric : table_metrics())
    for (const std::string& kernel : table_kernels()) {
      AccuracyRow row;
      row.metric = metric;
      row.kernel = kernel;
      row.target = target_for(metric);
      std::vector<double> all, validation;
      for (const AccuracyPoint& p : points) {
        if (p.metric != metric || p.kernel != kernel) continue;
        all.push_back(p.relative_error());
        if (p.training)
          ++row.n_training;
        else
          validation.push_back(p.relative_error());
      }
      row.n = static_cast<int>(all.size());
      if (!all.empty()) {
        row.median = median_of(all);
        row.worst = *std::max_element(all.begin(), all.end());
      }
      if (!validation.empty()) {
        row.median_validation = median_of(validation);
        row.worst_validation = *std::max_element(validation.begin(), validation.end());
      }
      rows.push_back(row);
    }
  return rows;
}

std::string accuracy_markdown(const std::vector<AccuracyRow>& rows) {
  auto pct = [](const std::optional<double>& x) { return x ? fmt::format("{:.1f} %", 100 * *x) : "-"; };
  std::string out =
      "| metric | kernel | n (training) | median | worst | validation median | validation worst | target "
      "(median / worst) | meets |\n|---|---|---|---|---|---|---|---|---|\n";
  for (const AccuracyRow& r : rows) {
    const std::string target =
        r.target ? fmt::format("{:.0f} % / {}", 100 * r.target->median,
                               r.target->worst ? fmt::format("{:.0f} %", 100 * *r.target->worst) : "-")
                 : "-";
    if (r.n == 0) {
      out += fmt::format("| {} | {} | 0 | no measurement | | | | {} | - |\n", r.metric, r.kernel, target);
      continue;
    }
    out += fmt::format("| {} | {} | {} ({}) | {} | {} | {} | {} | {} | {} |\n", r.metric, r.kernel, r.n,
                       r.n_training, pct(r.median), pct(r.worst), pct(r.median_validation),
                       pct(r.worst_validation), target, r.meets() ? "yes" : "**no**");
  }
  return out;
}

std::vector<BaselineRow> read_baseline(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InvalidInput("cannot read accuracy baseline " + path.string());
  std::vector<BaselineRow> out;
  try {
    const json doc = json::parse(in);
    for (const json& r : doc.at("rows"))
      out.push_back(BaselineRow{r.at("metric").get<std::string>(), r.at("kernel").get<std::string>(),
                                r.at("median").get<double>(), r.at("worst").get<double>(),
                                r.at("meets").get<bool>()});
  } catch (const json::exception& e) {
    throw InvalidInput("accuracy baseline " + path.string() + ": " + e.what());
  }
  return out;
}

void write_baseline(const std::filesystem::path& path, const std::vector<AccuracyRow>& rows) {
  json doc;
  doc["note"] = "written by scripts/accuracy_table.sh (attnscope accuracy --write-baseline); never hand-edit";
  doc["rows"] = json::array();
  for (const AccuracyRow& r : rows) {
    if (r.n == 0) continue;
    doc["rows"].push_back({{"metric", r.metric},
                           {"kernel", r.kernel},
                           {"median", *r.median},
                           {"worst", *r.worst},
                           {"meets", r.meets()}});
  }
  std::ofstream out(path);
  if (!out) throw InvalidInput("cannot write accuracy baseline " + path.string());
  out << doc.dump(2) << '\n';
}

std::vector<std::string> check_against_baseline(const std::vector<AccuracyRow>& rows,
                                                const std::vector<BaselineRow>& baseline) {
  // The model is deterministic; the slack only absorbs floating-point summation order.
  constexpr double kSlack = 1e-6;
  std::vector<std::string> failures;
  for (const BaselineRow& b : baseline) {
    const auto it = std::find_if(rows.begin(), rows.end(), [&](const AccuracyRow& r) {
      return r.metric == b.metric && r.kernel == b.kernel;
    });
    if (it == rows.end() || it->n == 0) continue;  // measurement no longer present: nothing to hold it to
    const AccuracyRow& r = *it;
    if (b.meets && !r.meets())
      failures.push_back(fmt::format("{} {}: met its target, now median {:.2f} % worst {:.2f} %", r.metric,
                                     r.kernel, 100 * *r.median, 100 * *r.worst));
    else if (!b.meets && (*r.median > b.median + kSlack || *r.worst > b.worst + kSlack))
      failures.push_back(
          fmt::format("{} {}: worse than its baseline: median {:.2f} % (was {:.2f} %), worst "
                      "{:.2f} % (was {:.2f} %)",
                      r.metric, r.kernel, 100 * *r.median, 100 * b.median, 100 * *r.worst, 100 * b.worst));
  }
  return failures;
}

}  // namespace attnscope::sim
