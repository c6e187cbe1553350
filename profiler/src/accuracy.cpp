// SPDX-License-Identifier: Apache-2.0
// Model accuracy against committed measurements: cases from re-modeled reports and from kernel benchmarks,
// the error table and the ratchet baseline.
#include "attnscope/profiler/accuracy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>
#include <tuple>

#include "attnscope/profiler/matrix.hpp"
#include "attnscope/profiler/remodel.hpp"
#include "attnscope/profiler/request.hpp"
#include "attnscope/reports/from_sim.hpp"
#include "attnscope/sim/dataflow.hpp"
#include "attnscope/sim/error.hpp"

namespace attnscope::profiler {
namespace {

using nlohmann::json;
using sim::InvalidInput;

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

// The rows of the table: every metric a report shows an error for (vocab::comparable), those with a target
// first, then tile windows.
std::vector<AccuracyMetric> table_metrics() {
  std::vector<AccuracyMetric> out;
  for (const auto& m : vocab::kMetrics)
    if (m.target && vocab::comparable(m.id)) out.emplace_back(m.id);
  for (const auto& m : vocab::kMetrics)
    if (!m.target && vocab::comparable(m.id)) out.emplace_back(m.id);
  out.emplace_back(std::nullopt);
  return out;
}
std::vector<std::string> table_kernels() {
  std::vector<std::string> out;
  for (const sim::KernelId id : sim::kernels_of(sim::KernelKind::naive)) out.emplace_back(sim::to_string(id));
  out.emplace_back(sim::to_string(sim::KernelKind::naive));
  out.emplace_back(sim::to_string(sim::KernelId::tiled));
  out.emplace_back(sim::to_string(sim::KernelId::hopper));  // rows only once a measurement has it
  // The backward pass's kernels, in the same table (rows only once measured).
  for (const sim::KernelKind kind : {sim::KernelKind::naive, sim::KernelKind::tiled})
    for (const sim::KernelId id : sim::kernels_of(kind, vocab::Pass::bwd))
      out.emplace_back(sim::to_string(id));
  return out;
}

// Kernels whose rows the table leaves out while nothing measured them (added after the table's first
// measurements, so that the table and its baselines stay as they were until they are measured).
bool shown_only_when_measured(const std::string& kernel) {
  const auto id = sim::parse_kernel_id(kernel);
  return id && (*id == sim::KernelId::hopper || vocab::pass_of(*id) == vocab::Pass::bwd);
}

std::string identity_of(std::string_view method, const std::string& kernel, const sim::Workload& w,
                        const sim::TileConfig& t, std::string_view protocol) {
  // The Hopper kernel's cases differ by its own tile (the others' identities are as they always were).
  const bool hopper = kernel == sim::to_string(sim::KernelId::hopper);
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", method, kernel, w.batch, w.heads, w.seq_q, w.seq_kv,
                     w.head_dim, sim::to_string(w.dtype), w.causal, hopper ? t.hopper_label() : t.label(),
                     protocol);
}

constexpr std::string_view kTileBytes = "tile_bytes";

}  // namespace

std::string accuracy_metric_name(const AccuracyMetric& m) {
  return m ? std::string(vocab::key(*m)) : std::string(kTileBytes);
}
std::optional<AccuracyMetric> parse_accuracy_metric(std::string_view name) {
  std::optional<AccuracyMetric> out;
  if (name == kTileBytes)
    out.emplace(std::nullopt);
  else if (const auto m = vocab::metric_from_key(name))
    out.emplace(*m);
  return out;
}

double AccuracyPoint::relative_error() const {
  return std::abs(modeled - measured) / std::abs(measured);
}

bool is_training_case(const std::string& kernel, const sim::Workload& w) {
  // The Hopper kernel's rates all come from microbenchmarks (wgmma_flops_per_sm_cycle,
  // wgmma_round_latency_cycles, sm_clock_tensor_hz): no case of it was fitted on.
  if (kernel == sim::to_string(sim::KernelId::hopper)) return false;
  return kernel == sim::to_string(sim::KernelId::tiled) && w.head_dim == 64 && w.dtype == sim::DType::fp16 &&
         !w.causal && w.seq_q == 4096;
}

bool is_fresh_origin(std::string_view shown) {
  for (std::size_t at = shown.find("fresh-"); at != std::string_view::npos; at = shown.find("fresh-", at + 1))
    if (at == 0 || shown[at - 1] == '/') return true;
  return false;
}

std::vector<AccuracyCase> cases_from_report(const reports::Report& remodeled, const std::string& shown) {
  std::vector<AccuracyCase> out;
  const auto& p = remodeled.provenance;
  const bool kernel_replay = p.replay == vocab::ReplayMode::kernel;
  const std::string_view method = kernel_replay ? "cupti kernel-replay" : "cupti";
  const std::string_view protocol = vocab::to_string(p.cache.value_or(vocab::CacheProtocol::flush));
  for (const reports::KernelEntry& k : remodeled.kernels) {
    AccuracyCase c;
    c.id = shown + ":" + k.name;
    c.origin = shown;
    c.kernel = k.name;
    c.date = p.date;
    c.tiles = remodeled.tiles;
    c.workload = remodeled.workload;
    c.identity = identity_of(method, k.name, remodeled.workload, remodeled.tiles, protocol);
    c.training = is_training_case(k.name, remodeled.workload);
    c.fresh = is_fresh_origin(shown);
    for (const auto& [metric, value] : k.metrics) {
      if (!vocab::comparable(metric) || !value.measured || !value.modeled || !(*value.measured > 0)) continue;
      c.points[metric] =
          AccuracyPoint{c.id, k.name, metric, *value.measured, *value.modeled, c.training, c.fresh};
    }
    for (const reports::TileEntry& t : k.tiles) {
      if (!t.lone_window) continue;
      for (const auto& [metric, value] : t.metrics) {
        if (!vocab::info(metric).tile_level || !value.measured || !value.modeled || !(*value.measured > 0))
          continue;
        c.tile_points.push_back(AccuracyPoint{c.id + fmt::format(" tile({},{},{},{}) {}", t.batch, t.head,
                                                                 t.q_tile, t.kv_tile, vocab::key(metric)),
                                              k.name, std::nullopt, *value.measured, *value.modeled,
                                              c.training, c.fresh});
      }
    }
    if (!c.points.empty() || !c.tile_points.empty()) out.push_back(std::move(c));
  }
  return out;
}

std::vector<AccuracyCase> cases_from_recording(const reports::Report& recorded, const std::string& shown,
                                               ModelCache& models,
                                               const std::function<bool(const std::string&)>& keep,
                                               std::size_t* superseded) {
  if (superseded != nullptr) *superseded = 0;
  if (recorded.kind != "profile") return {};
  reports::Report kept = recorded;
  if (keep)
    std::erase_if(kept.kernels, [&](const reports::KernelEntry& k) { return !keep(shown + ":" + k.name); });
  if (kept.kernels.empty()) return {};
  const reports::Report remodeled = remodel_report(kept, models, {.full_run_tiles = false});
  // Kernels measured before they last changed come back measured only: no points, counted here.
  if (superseded != nullptr)
    *superseded = static_cast<std::size_t>(std::count_if(
        remodeled.kernels.begin(), remodeled.kernels.end(),
        [](const reports::KernelEntry& k) { return k.notes.contains(std::string(kKernelChangedNote)); }));
  return cases_from_report(remodeled, shown);
}

std::vector<AccuracyCase> cases_from_matrix_log(const MatrixLog& log, const std::filesystem::path& path,
                                                const std::string& shown, ModelCache& models,
                                                std::size_t* left_out) {
  static const std::regex stamp(R"((\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z)");
  std::smatch m;
  const std::string folder = path.parent_path().filename().string();
  if (!std::regex_search(folder, m, stamp))
    throw InvalidInput("matrix log " + shown + ": its folder '" + folder +
                       "' has no UTC stamp (YYYYMMDDTHHMMSSZ)");
  const std::string date = fmt::format("{}-{}-{}T{}:{}:{}Z", m[1].str(), m[2].str(), m[3].str(), m[4].str(),
                                       m[5].str(), m[6].str());
  const bool fresh = log.matrix.starts_with("fresh");
  const auto protocol = vocab::CacheProtocol::flush;  // what `profile --matrix` measures under
  std::vector<AccuracyCase> out;
  std::size_t skipped = 0;
  for (const auto& [p, measured] : matrix_log_points(log)) {
    if (p.workload.pass != sim::Pass::fwd) {
      ++skipped;
      continue;
    }
    // A tiled or Hopper point is one kernel; a naive point is the sum of its three kernels, each measured
    // from a flushed L2, which is the table's `naive` row (the naive forward as a whole) under that protocol.
    if (p.kind != sim::KernelKind::tiled && p.kind != sim::KernelKind::hopper &&
        p.kind != sim::KernelKind::naive) {
      ++skipped;
      continue;
    }
    const std::vector<std::string> names = kernel_names(p.kind);
    const std::string kernel = p.kind == sim::KernelKind::naive ? "naive" : names.front();
    AccuracyCase c;
    c.id = shown + ":" + p.label;
    c.origin = shown;
    c.kernel = kernel;
    c.date = date;
    c.tiles = p.tiles;
    c.workload = p.workload;
    c.identity = identity_of("cupti", kernel, p.workload, p.tiles, vocab::to_string(protocol));
    c.training = is_training_case(kernel, p.workload);
    c.fresh = fresh;
    // The modeled values as every report derives them from a model run (reports::modeled_kernel_entry),
    // summed over the point's kernels.
    std::vector<reports::KernelEntry> modeled;
    for (const std::string& name : names)
      modeled.push_back(reports::modeled_kernel_entry(
          *models.kernel(p.workload, p.kind, p.tiles, name, protocol, false), models.gpu()));
    for (const auto& [metric, value] : {std::pair{vocab::Metric::dram_read, measured.dram_read_bytes},
                                        std::pair{vocab::Metric::time, measured.time_s}}) {
      std::optional<double> sum = 0.0;
      for (const reports::KernelEntry& e : modeled) {
        const std::optional<double> v = reports::modeled_of(e.metrics, metric);
        sum = v && sum ? std::optional<double>(*sum + *v) : std::nullopt;
      }
      if (sum && value > 0)
        c.points[metric] = AccuracyPoint{c.id, kernel, metric, value, *sum, c.training, c.fresh};
    }
    out.push_back(std::move(c));
  }
  if (left_out != nullptr) *left_out = skipped;
  return out;
}

std::vector<AccuracyCase> cases_from_benchmarks(const std::filesystem::path& path, ModelCache& models,
                                                int threads) {
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
  const std::string naive(sim::to_string(sim::KernelKind::naive));
  const std::string tiled(sim::to_string(sim::KernelId::tiled));
  std::vector<AccuracyCase> out;
  for (const json& b : doc["benchmarks"]) {
    if (b.value("aggregate_name", "") != "median") continue;
    const std::string name = b.value("run_name", b.value("name", ""));
    const std::string label = b.value("label", "");
    if (label.empty()) continue;  // copy bandwidth: not a kernel of ours
    const auto lt = tokens(label, '=');
    const auto nt = tokens(name, ':');
    const std::string first = label.substr(0, label.find(' '));
    if (first != tiled && first != naive && !sim::parse_kernel_id(first))
      throw InvalidInput("benchmark '" + name + "': unknown kernel '" + first + "' in its label");
    const auto first_id = sim::parse_kernel_id(first);
    const sim::KernelKind kind = first == naive ? sim::KernelKind::naive : vocab::kind_of(*first_id);
    sim::Workload w;
    w.batch = 1;
    w.heads = nt.count("H") ? to_int(nt, "H", name) : to_int(lt, "H", name);
    w.seq_q = w.seq_kv = to_int(lt, "N", name);
    w.head_dim = to_int(lt, "d", name);
    w.causal = lt.count("causal") > 0;
    w.dtype = lt.count("bf16") ? sim::DType::bf16 : sim::DType::fp16;
    sim::TileConfig t;
    if (kind == sim::KernelKind::tiled) {
      t.br = to_int(lt, "Br", name);
      t.bc = to_int(lt, "Bc", name);
      t.stages = to_int(lt, "stages", name);
      t.warps = lt.count("warps") ? to_int(lt, "warps", name) : t.br / 16;  // first file: Br/16
    } else if (kind == sim::KernelKind::hopper) {
      // "hopper Br=128 Bc=128 consumers=2 stages=2 serial|overlap [pingpong] [persistent] ..."
      // (bench/kernels_attention.cpp)
      t.hopper_bc = to_int(lt, "Bc", name);
      t.hopper_consumers = to_int(lt, "consumers", name);
      t.hopper_stages = to_int(lt, "stages", name);
      const bool overlap = lt.count("overlap") > 0, pingpong = lt.count("pingpong") > 0;
      t.hopper_schedule = overlap && pingpong ? sim::HopperSchedule::pingpong
                          : overlap           ? sim::HopperSchedule::overlap
                          : pingpong          ? sim::HopperSchedule::serial_pingpong
                                              : sim::HopperSchedule::serial;
      t.hopper_persistent = lt.count("persistent") > 0;
    }
    const std::string date = doc.contains("context") ? doc["context"].value("date", "") : "";
    t = sim::naive_tiling_measured_at(t, date);  // which naive kernels ran (tile_config.hpp)
    const std::string unit = b.value("time_unit", "ns");
    const double scale = unit == "ms" ? 1e-3 : unit == "us" ? 1e-6 : unit == "s" ? 1.0 : 1e-9;
    if (!b.contains("real_time") || !b["real_time"].is_number())
      throw InvalidInput("benchmark '" + name + "': no real_time");
    AccuracyCase c;
    c.id = name;
    c.origin = path.filename().string();
    c.kernel = first;
    c.date = date;
    c.tiles = t;
    c.workload = w;
    // Google Benchmark flushes L2 before every iteration; the naive chain runs back to back after it.
    const vocab::CacheProtocol protocol =
        first == naive ? vocab::CacheProtocol::sequence : vocab::CacheProtocol::flush;
    c.identity = identity_of("bench", first, w, t, vocab::to_string(protocol));
    c.training = is_training_case(first, w);
    const double measured = b["real_time"].get<double>() * scale;
    if (!(measured > 0)) continue;
    c.points[vocab::Metric::time] = AccuracyPoint{c.id, first, vocab::Metric::time, measured, 0, c.training};
    out.push_back(std::move(c));
  }
  // The model of every case, on `threads` threads (runs shared through `models`).
  std::atomic<std::size_t> next{0};
  std::vector<std::future<void>> workers;
  const unsigned pool =
      threads > 0 ? static_cast<unsigned>(threads) : std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < std::min<std::size_t>(pool, out.size()); ++t)
    workers.push_back(std::async(std::launch::async, [&] {
      for (std::size_t i; (i = next.fetch_add(1)) < out.size();) {
        AccuracyCase& c = out[i];
        const sim::KernelKind kind =
            c.kernel == naive ? sim::KernelKind::naive : vocab::kind_of(*sim::parse_kernel_id(c.kernel));
        double modeled = 0;
        if (c.kernel == naive) {
          // Flushed once, then the three kernels back to back inside one event pair: the pair sees the first
          // launch's latency; the later launches are queued while the earlier kernels run, so only their CTAs
          // add (the gap between queued kernels is not modeled).
          bool first = true;
          for (const sim::KernelId id : sim::kernels_of(kind)) {
            const auto k = models.kernel(c.workload, kind, c.tiles, sim::to_string(id),
                                         vocab::CacheProtocol::sequence, false);
            modeled += first ? k->time_s : k->time_s - k->launch_s;
            first = false;
          }
        } else {
          modeled =
              models.kernel(c.workload, kind, c.tiles, c.kernel, vocab::CacheProtocol::flush, false)->time_s;
        }
        c.points.at(vocab::Metric::time).modeled = modeled;
      }
    }));
  for (auto& w : workers) w.get();  // rethrows a case's error
  return out;
}

std::vector<AccuracyCase> newest_per_case(std::vector<AccuracyCase> cases, std::size_t* dropped) {
  // Newest first (ties: the later file name), so the first case of an identity to supply a metric is the
  // newest.
  std::stable_sort(cases.begin(), cases.end(), [](const AccuracyCase& a, const AccuracyCase& b) {
    return std::tie(a.date, a.origin) > std::tie(b.date, b.origin);
  });
  std::map<std::string, std::size_t> index;
  std::vector<AccuracyCase> out;
  std::size_t merged = 0;
  for (AccuracyCase& c : cases) {
    const auto [it, fresh] = index.emplace(c.identity, out.size());
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
    for (const auto& [metric, point] : c.points)
      if (kept.points.emplace(metric, point).second) used = true;
    if (kept.tile_points.empty() && !c.tile_points.empty()) {
      kept.tile_points = std::move(c.tile_points);
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

std::vector<AccuracyPoint> points_of(const std::vector<AccuracyCase>& cases) {
  std::vector<AccuracyPoint> out;
  for (const AccuracyCase& c : cases) {
    for (const auto& [metric, p] : c.points) out.push_back(p);
    out.insert(out.end(), c.tile_points.begin(), c.tile_points.end());
  }
  return out;
}

std::optional<AccuracyTarget> target_for(const AccuracyMetric& metric) {
  if (!metric) return AccuracyTarget{0.05, std::nullopt};
  const auto& t = vocab::info(*metric).target;
  if (!t) return std::nullopt;
  return AccuracyTarget{t->median, t->worst};
}

bool AccuracyRow::meets() const {
  if (!median || !target) return false;
  return *median <= target->median && (!target->worst || *worst <= *target->worst);
}

std::vector<AccuracyRow> accuracy_table(const std::vector<AccuracyPoint>& points) {
  std::vector<AccuracyRow> rows;
  for (const AccuracyMetric& metric : table_metrics())
    for (const std::string& kernel : table_kernels()) {
      AccuracyRow row;
      row.metric = metric;
      row.kernel = kernel;
      row.target = target_for(metric);
      std::vector<double> all, validation, fresh;
      for (const AccuracyPoint& p : points) {
        if (p.metric != metric || p.kernel != kernel) continue;
        all.push_back(p.relative_error());
        if (p.fresh) fresh.push_back(p.relative_error());
        if (p.training)
          ++row.n_training;
        else
          validation.push_back(p.relative_error());
      }
      row.n = static_cast<int>(all.size());
      if (all.empty() && shown_only_when_measured(kernel)) continue;
      if (!all.empty()) {
        row.median = median_of(all);
        row.worst = *std::max_element(all.begin(), all.end());
      }
      if (!validation.empty()) {
        row.median_validation = median_of(validation);
        row.worst_validation = *std::max_element(validation.begin(), validation.end());
      }
      row.n_fresh = static_cast<int>(fresh.size());
      if (!fresh.empty()) {
        row.median_fresh = median_of(fresh);
        row.worst_fresh = *std::max_element(fresh.begin(), fresh.end());
      }
      rows.push_back(row);
    }
  return rows;
}

std::string accuracy_headline(const std::vector<AccuracyRow>& rows) {
  auto pct = [](const std::optional<double>& x) { return x ? fmt::format("{:.1f} %", 100 * *x) : "-"; };
  std::string out;
  for (const std::string& kernel : table_kernels()) {
    std::string line;
    bool all_met = true;
    for (vocab::Metric m : {vocab::Metric::dram_read, vocab::Metric::dram_write, vocab::Metric::time}) {
      const auto row = std::find_if(rows.begin(), rows.end(), [&](const AccuracyRow& r) {
        return r.kernel == kernel && r.metric == AccuracyMetric{m};
      });
      if (row == rows.end() || row->n_fresh == 0) continue;
      const bool met = row->target && *row->median_fresh <= row->target->median &&
                       (!row->target->worst || *row->worst_fresh <= *row->target->worst);
      all_met = all_met && met;
      line +=
          fmt::format("{}{} {} / {} ({}){}", line.empty() ? "" : ", ", vocab::key(m), pct(row->median_fresh),
                      pct(row->worst_fresh), row->n_fresh, met ? "" : " **missed**");
    }
    if (!line.empty())
      out += fmt::format("- **{}**{}: {}\n", kernel, all_met ? " (meets its targets)" : "", line);
  }
  if (out.empty())
    return "**On fresh shapes**: no report of them is committed yet. `attnscope profile --matrix fresh` "
           "draws them from the UTC date on the GPU machine (tests/data/h200/fresh-<UTC>/); until a run's "
           "reports are committed, the table's numbers include the shapes the model's constants were fitted "
           "on (totals from a run whose reports were lost: docs/accuracy.md, \"Fresh shapes and the backward "
           "matrix\").\n\n";
  return "**On fresh shapes** (drawn at random by `attnscope profile --matrix fresh[:SEED]`, from the UTC "
         "date unless a seed is given; never fitted on; median / worst |error| (cases)):\n\n" +
         out + "\n";
}

std::string accuracy_markdown(const std::vector<AccuracyRow>& rows) {
  auto pct = [](const std::optional<double>& x) { return x ? fmt::format("{:.1f} %", 100 * *x) : "-"; };
  const std::string header =
      "| metric | kernel | n (training) | median | worst | validation median | validation worst | fresh n | "
      "fresh median | fresh worst | target (median / worst) | meets |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  const auto table = [&](bool with_target) {
    std::string out = header;
    for (const AccuracyRow& r : rows) {
      if (r.target.has_value() != with_target) continue;
      const std::string target =
          r.target ? fmt::format("{:.0f} % / {}", 100 * r.target->median,
                                 r.target->worst ? fmt::format("{:.0f} %", 100 * *r.target->worst) : "-")
                   : "-";
      if (r.n == 0) {
        out += fmt::format("| {} | {} | 0 | no measurement | | | | | | | {} | - |\n",
                           accuracy_metric_name(r.metric), r.kernel, target);
        continue;
      }
      out += fmt::format("| {} | {} | {} ({}) | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                         accuracy_metric_name(r.metric), r.kernel, r.n, r.n_training, pct(r.median),
                         pct(r.worst), pct(r.median_validation), pct(r.worst_validation), r.n_fresh,
                         pct(r.median_fresh), pct(r.worst_fresh), target,
                         !r.target   ? "-"
                         : r.meets() ? "yes"
                                     : "**no**");
    }
    return out;
  };
  std::string out = accuracy_headline(rows) + table(true);
  // Every other metric a report shows an error for, under the same join (the README stops at the marker).
  out += "\n" + std::string(kAccuracyUntargetedMarker) +
         "\n\n**Measured and modeled, without a target** (reports show their errors too):\n\n" + table(false);
  // What a report shows without an error, and why (vocab), so the table and the reports agree on every key.
  out += "\nNot in the tables (no error to take): ";
  bool first = true;
  for (const auto& m : vocab::kMetrics) {
    if (vocab::comparable(m.id) || m.unit != vocab::Unit::bytes) continue;
    out += fmt::format("{}`{}`: {}", first ? "" : "; ", m.key,
                       !m.modeled ? fmt::format("not modeled ({})", m.not_modeled)
                                  : fmt::format("not measured ({})", m.not_measured));
    first = false;
  }
  out += ".\n";
  return out;
}

std::vector<BaselineRow> read_baseline(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw sim::InvalidInput("cannot read accuracy baseline " + path.string());
  std::vector<BaselineRow> out;
  try {
    const json doc = json::parse(in);
    for (const json& r : doc.at("rows"))
      out.push_back(BaselineRow{r.at("metric").get<std::string>(), r.at("kernel").get<std::string>(),
                                r.at("median").get<double>(), r.at("worst").get<double>(),
                                r.at("meets").get<bool>()});
  } catch (const json::exception& e) {
    throw sim::InvalidInput("accuracy baseline " + path.string() + ": " + e.what());
  }
  return out;
}

void write_baseline(const std::filesystem::path& path, const std::vector<AccuracyRow>& rows) {
  json doc;
  doc["note"] = "written by scripts/accuracy_table.sh (attnscope accuracy --write-baseline); never hand-edit";
  doc["rows"] = json::array();
  for (const AccuracyRow& r : rows) {
    if (r.n == 0) continue;
    doc["rows"].push_back({{"metric", accuracy_metric_name(r.metric)},
                           {"kernel", r.kernel},
                           {"median", *r.median},
                           {"worst", *r.worst},
                           {"meets", r.meets()}});
  }
  std::ofstream out(path);
  if (!out) throw sim::InvalidInput("cannot write accuracy baseline " + path.string());
  out << doc.dump(2) << '\n';
}

std::vector<std::string> check_against_baseline(const std::vector<AccuracyRow>& rows,
                                                const std::vector<BaselineRow>& baseline) {
  // The model is deterministic; the slack only absorbs floating-point summation order.
  constexpr double kSlack = 1e-6;
  std::vector<std::string> failures;
  for (const BaselineRow& b : baseline) {
    const auto it = std::find_if(rows.begin(), rows.end(), [&](const AccuracyRow& r) {
      return accuracy_metric_name(r.metric) == b.metric && r.kernel == b.kernel;
    });
    if (it == rows.end() || it->n == 0) continue;  // measurement no longer present: nothing to hold it to
    const AccuracyRow& r = *it;
    if (b.meets && !r.meets())
      failures.push_back(fmt::format("{} {}: met its target, now median {:.2f} % worst {:.2f} %", b.metric,
                                     r.kernel, 100 * *r.median, 100 * *r.worst));
    else if (!b.meets && (*r.median > b.median + kSlack || *r.worst > b.worst + kSlack))
      failures.push_back(
          fmt::format("{} {}: worse than its baseline: median {:.2f} % (was {:.2f} %), worst "
                      "{:.2f} % (was {:.2f} %)",
                      b.metric, r.kernel, 100 * *r.median, 100 * b.median, 100 * *r.worst, 100 * b.worst));
  }
  return failures;
}

}  // namespace attnscope::profiler
