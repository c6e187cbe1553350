// SPDX-License-Identifier: Apache-2.0
// The report's JSON form (reports/schema/report.schema.json, docs/report-format.md). The reader walks the
// document with the JSON pointer of every node in hand, so each error names where it is.
#include "attnscope/reports/json_io.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/json_input.hpp"
#include "attnscope/vocab/geometry.hpp"

namespace attnscope::reports {

using nlohmann::json;

// ---- Writing --------------------------------------------------------------------------------------------

namespace {

// Written in a fixed, readable order (format_version first), read in any order.
using ojson = nlohmann::ordered_json;

ojson optional_number(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return nullptr;
  return *v;
}

ojson metrics_to_json(const Metrics& metrics) {
  ojson out = ojson::object();
  for (const auto& [metric, value] : metrics) {
    ojson v = ojson::object();
    if (value.measured) v["measured"] = optional_number(value.measured);
    if (value.modeled) v["modeled"] = optional_number(value.modeled);
    v["unit"] = std::string(vocab::to_string(vocab::info(metric).unit));
    if (auto e = value.relative_error()) v["error"] = optional_number(e);  // derived; ignored on read
    out[std::string(vocab::key(metric))] = std::move(v);
  }
  return out;
}

ojson counters_to_json(const Counters& counters) {
  ojson out = ojson::object();
  for (const auto& [name, value] : counters) out[name] = optional_number(value);
  return out;
}

// "pass" only when the workload has a backward pass: forward reports stay as they were written.
ojson workload_to_json(const sim::Workload& w) {
  ojson j = {{"name", w.name},
             {"batch", w.batch},
             {"heads", w.heads},
             {"seq_q", w.seq_q},
             {"seq_kv", w.seq_kv},
             {"head_dim", w.head_dim},
             {"dtype", std::string(sim::to_string(w.dtype))},
             {"causal", w.causal},
             {"scale", w.scale}};
  if (w.window > 0) j["window"] = w.window;  // absent: no sliding window (reports before masks existed)
  if (w.alibi) j["alibi"] = true;
  if (w.pass != sim::Pass::fwd) j["pass"] = std::string(sim::to_string(w.pass));
  return j;
}

ojson tile_config_to_json(const sim::TileConfig& t) {
  return {{"br", t.br},
          {"bc", t.bc},
          {"warps", t.warps},
          {"stages", t.stages},
          {"order", std::string(sim::to_string(t.order))},
          {"gemm_bm", t.gemm_bm},
          {"gemm_bn", t.gemm_bn},
          {"gemm_bk", t.gemm_bk},
          {"gemm_warps", t.gemm_warps},
          {"gemm_stages", t.gemm_stages},
          {"gemm_qk_tiles_per_cta", t.gemm_qk_tiles_per_cta},
          {"gemm_qk_stages", t.gemm_qk_stages},
          {"gemm_pv_l2_fetch_bytes", t.gemm_pv_l2_fetch_bytes}};
}

// The tiled backward's tile, resolved at the workload's head dim, only when there is a backward pass; the
// Hopper kernel's tile only when the report or point has that kernel (reports without it stay as they were).
ojson tile_config_to_json(const sim::TileConfig& t, const sim::Workload& w, bool hopper = false) {
  ojson j = tile_config_to_json(t);
  if (hopper) {
    j["hopper_bc"] = t.hopper_bc;
    j["hopper_consumers"] = t.hopper_consumers;
    j["hopper_stages"] = t.hopper_stages;
    j["hopper_schedule"] = std::string(sim::to_string(t.hopper_schedule));
    j["hopper_persistent"] = t.hopper_persistent;
  }
  if (w.pass != sim::Pass::fwd) {
    const vocab::TiledBwdConfig b = t.tiled_bwd(w.head_dim);
    j["bwd_bc"] = b.bc;
    j["bwd_br"] = b.br;
    j["bwd_stages"] = b.stages;
  }
  return j;
}

// Tiles as columns: one array per field, null where a tile has no value; a column is written only when
// some tile has a value. A 65,536-tile kernel is then a few dozen arrays of numbers, not 65,536 objects.
ojson tiles_to_json(const std::vector<TileEntry>& tiles) {
  ojson cols = ojson::object();
  cols["count"] = tiles.size();
  const auto int_column = [&](const char* name, auto get) {
    ojson a = ojson::array();
    for (const TileEntry& t : tiles) a.push_back(get(t));
    cols[name] = std::move(a);
  };
  int_column("batch", [](const TileEntry& t) { return t.batch; });
  int_column("head", [](const TileEntry& t) { return t.head; });
  int_column("q_tile", [](const TileEntry& t) { return t.q_tile; });
  int_column("kv_tile", [](const TileEntry& t) { return t.kv_tile; });
  const auto optional_column = [&](const char* name, auto get) {
    bool any = false;
    for (const TileEntry& t : tiles) any = any || get(t).has_value();
    if (!any) return;
    ojson a = ojson::array();
    for (const TileEntry& t : tiles) {
      const auto v = get(t);
      if (v)
        a.push_back(*v);
      else
        a.push_back(nullptr);
    }
    cols[name] = std::move(a);
  };
  optional_column("sm_modeled", [](const TileEntry& t) { return t.sm_modeled; });
  optional_column("sm_measured", [](const TileEntry& t) { return t.sm_measured; });
  optional_column("start_modeled_s", [](const TileEntry& t) { return t.start_modeled_s; });
  optional_column("end_modeled_s", [](const TileEntry& t) { return t.end_modeled_s; });
  optional_column("start_measured_s", [](const TileEntry& t) { return t.start_measured_s; });
  optional_column("end_measured_s", [](const TileEntry& t) { return t.end_measured_s; });
  ojson lone = ojson::array();
  for (std::size_t i = 0; i < tiles.size(); ++i)
    if (tiles[i].lone_window) lone.push_back(i);
  cols["lone_windows"] = std::move(lone);  // indices of the tiles measured as lone windows
  ojson metrics = ojson::object();
  for (const Metric m : vocab::all_metrics()) {
    ojson sides = ojson::object();
    const auto side = [&](const char* name, MaybeDouble Value::*field) {
      bool any = false;
      for (const TileEntry& t : tiles)
        if (const Value* v = t.metrics.find(m); v && v->*field) any = true;
      if (!any) return;
      ojson a = ojson::array();
      for (const TileEntry& t : tiles) {
        const Value* v = t.metrics.find(m);
        a.push_back(v ? optional_number(v->*field) : ojson(nullptr));
      }
      sides[name] = std::move(a);
    };
    side("measured", &Value::measured);
    side("modeled", &Value::modeled);
    if (!sides.empty()) metrics[std::string(vocab::key(m))] = std::move(sides);
  }
  cols["metrics"] = std::move(metrics);
  ojson counters = ojson::array();  // sparse: windows' raw counters
  for (std::size_t i = 0; i < tiles.size(); ++i)
    if (!tiles[i].counters.empty())
      counters.push_back({{"index", i}, {"counters", counters_to_json(tiles[i].counters)}});
  cols["counters"] = std::move(counters);
  return cols;
}

ojson provenance_to_json(const Provenance& p) {
  ojson j{{"tool_version", p.tool_version},
          {"git_revision", p.git_revision},
          {"date", p.date},
          {"command", p.command},
          {"host", p.host},
          {"gpu_name", p.gpu_name},
          {"driver", p.driver},
          {"cuda_runtime", p.cuda_runtime},
          {"cache_mode", p.cache ? std::string(vocab::to_string(*p.cache)) : std::string()},
          {"replay", p.replay ? std::string(vocab::to_string(*p.replay)) : std::string()},
          {"gpu_spec", p.gpu_spec}};
  j["sm_clock_mhz"] = optional_number(p.sm_clock_mhz);
  j["mem_clock_mhz"] = optional_number(p.mem_clock_mhz);
  ojson recordings = ojson::array();
  for (const Recording& r : p.recordings) {
    ojson kernels = ojson::array();
    for (const auto& k : r.kernels) kernels.push_back(k);
    recordings.push_back({{"file", r.file},
                          {"date", r.date},
                          {"git_revision", r.git_revision},
                          {"kernels", std::move(kernels)}});
  }
  j["recordings"] = std::move(recordings);
  return j;
}

ojson report_to_json(const Report& r) {
  ojson j;
  // Always the current format: a report read from a format-1 file holds converted, format-2 content (its
  // format_version says what the file it came from was written in).
  j["format_version"] = kFormatVersion;
  j["kind"] = r.kind;
  j["provenance"] = provenance_to_json(r.provenance);
  j["workload"] = workload_to_json(r.workload);
  const bool hopper = std::any_of(r.kernels.begin(), r.kernels.end(),
                                  [](const KernelEntry& k) { return k.name == "hopper"; });
  j["tiles"] = tile_config_to_json(r.tiles, r.workload, hopper);
  ojson kernels = ojson::array();
  for (const auto& k : r.kernels) {
    ojson notes = ojson::object();
    for (const auto& [key, value] : k.notes) notes[key] = value;
    ojson entry = {{"name", k.name},
                   {"metrics", metrics_to_json(k.metrics)},
                   {"counters", counters_to_json(k.counters)},
                   {"notes", notes},
                   {"tiles_total", k.tiles_total},
                   {"tiles_kept", std::string(to_string(k.tiles_kept))},
                   {"tile_columns", tiles_to_json(k.tiles)}};
    if (!k.samples.empty()) {
      ojson samples = ojson::array();
      for (const auto& smp : k.samples) {
        ojson counters = ojson::object();
        for (const auto& [name, value] : smp.counters) counters[name] = value;
        samples.push_back(
            {{"start_s", smp.start_s}, {"end_s", smp.end_s}, {"counters", std::move(counters)}});
      }
      entry["samples"] = std::move(samples);
    }
    kernels.push_back(std::move(entry));
  }
  j["kernels"] = std::move(kernels);
  if (!r.sweep_definition.text.empty() || !r.sweep.empty()) {
    j["sweep_definition"] = {{"text", r.sweep_definition.text},
                             {"total_points", r.sweep_definition.total_points},
                             {"shard_index", r.sweep_definition.shard_index},
                             {"shard_count", r.sweep_definition.shard_count}};
    if (r.sweep_definition.fidelity != vocab::SweepFidelity::cycle) {
      j["sweep_definition"]["fidelity"] = std::string(vocab::to_string(r.sweep_definition.fidelity));
      j["sweep_definition"]["problems"] = r.sweep_definition.problems;
    }
    ojson points = ojson::array();
    for (const auto& p : r.sweep) {
      ojson pj{{"index", p.index},
               {"workload", workload_to_json(p.workload)},
               {"kind", std::string(sim::to_string(p.kind))},
               {"tiles", tile_config_to_json(p.tiles, p.workload, p.kind == sim::KernelKind::hopper)},
               {"gpu_spec", p.gpu_spec},
               {"smem_limit", p.smem_limit},
               {"feasible", p.feasible},
               {"metrics", metrics_to_json(p.metrics)}};
      if (!p.infeasible_reason.empty()) pj["infeasible_reason"] = p.infeasible_reason;
      if (p.fidelity != vocab::Fidelity::cycle_model)
        pj["fidelity"] = std::string(vocab::to_string(p.fidelity));
      if (p.bound)
        pj["bound"] = {{"time_s", p.bound->time_s},
                       {"dram_read_min", p.bound->dram_read_min},
                       {"dram_write_min", p.bound->dram_write_min},
                       {"limiter", p.bound->limiter}};
      points.push_back(std::move(pj));
    }
    j["sweep"] = std::move(points);
  }
  return j;
}

}  // namespace

std::string to_json_string(const Report& report, int indent) {
  return report_to_json(report).dump(indent) + "\n";
}

int default_json_indent(const Report& report) {
  std::size_t tiles = 0;
  for (const auto& k : report.kernels) tiles += k.tiles.size();
  return tiles + report.sweep.size() > kPrettyJsonLimit ? -1 : 2;
}

void write_report_json(const Report& report, const std::filesystem::path& path) {
  write_file_atomic(path, to_json_string(report, default_json_indent(report)));
}

// ---- Reading --------------------------------------------------------------------------------------------

namespace {

// A JSON node together with its pointer, for error messages.
class Node {
 public:
  Node(const json& j, std::string pointer, const std::string& origin)
      : j_(j), pointer_(std::move(pointer)), origin_(origin) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw ReportError(fmt::format("report {}: {}: {}", origin_, pointer_.empty() ? "/" : pointer_, what));
  }
  static std::string type_name(const json& j) {
    if (j.is_number_integer() || j.is_number_unsigned()) return "integer";
    return j.type_name();
  }
  const json& raw() const { return j_; }
  const std::string& pointer() const { return pointer_; }

  Node object_field(const std::string& key) const {
    require_object();
    auto it = j_.find(key);
    if (it == j_.end()) fail("missing required field '" + key + "'");
    return Node(*it, pointer_ + "/" + escape(key), origin_);
  }
  bool has(const std::string& key) const { return j_.is_object() && j_.contains(key); }
  // Absent or null -> nullopt.
  std::optional<Node> optional_field(const std::string& key) const {
    require_object();
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return std::nullopt;
    return Node(*it, pointer_ + "/" + escape(key), origin_);
  }
  void require_object() const {
    if (!j_.is_object()) fail("expected an object, got " + type_name(j_));
  }
  void require_array() const {
    if (!j_.is_array()) fail("expected an array, got " + type_name(j_));
  }
  std::size_t size() const {
    require_array();
    return j_.size();
  }
  Node at(std::size_t i) const { return Node(j_[i], pointer_ + "/" + std::to_string(i), origin_); }

  std::string as_string() const {
    if (!j_.is_string()) fail("expected a string, got " + type_name(j_));
    return j_.get<std::string>();
  }
  bool as_bool() const {
    if (!j_.is_boolean()) fail("expected true or false, got " + type_name(j_));
    return j_.get<bool>();
  }
  double as_double() const {
    if (!j_.is_number()) fail("expected a number, got " + type_name(j_));
    return j_.get<double>();
  }
  std::int64_t as_int64() const {
    if (j_.is_number_integer()) return j_.get<std::int64_t>();
    if (j_.is_number_unsigned()) {
      const auto u = j_.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        fail("integer out of range");
      return static_cast<std::int64_t>(u);
    }
    fail("expected an integer, got " + type_name(j_));
  }
  int as_int() const {
    const std::int64_t v = as_int64();
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      fail("integer out of range");
    return static_cast<int>(v);
  }

  std::string string_field(const std::string& k) const { return object_field(k).as_string(); }
  std::int64_t int64_field(const std::string& k) const { return object_field(k).as_int64(); }
  int int_field(const std::string& k) const { return object_field(k).as_int(); }
  double double_field(const std::string& k) const { return object_field(k).as_double(); }
  bool bool_field(const std::string& k) const { return object_field(k).as_bool(); }
  std::optional<double> optional_double(const std::string& k) const {
    auto n = optional_field(k);
    if (!n) return std::nullopt;
    return n->as_double();
  }
  std::optional<int> optional_int(const std::string& k) const {
    auto n = optional_field(k);
    if (!n) return std::nullopt;
    return n->as_int();
  }
  std::string optional_string(const std::string& k) const {
    auto n = optional_field(k);
    return n ? n->as_string() : std::string();
  }

 private:
  static std::string escape(const std::string& key) {  // RFC 6901
    std::string out;
    for (char c : key) {
      if (c == '~')
        out += "~0";
      else if (c == '/')
        out += "~1";
      else
        out += c;
    }
    return out;
  }
  const json& j_;
  std::string pointer_;
  const std::string& origin_;
};

// Format 2: keys of the metric table only.
Metrics read_metrics(const Node& n) {
  n.require_object();
  Metrics out;
  for (auto it = n.raw().begin(); it != n.raw().end(); ++it) {
    const Node v = n.object_field(it.key());
    const auto metric = vocab::metric_from_key(it.key());
    if (!metric) v.fail("unknown metric key '" + it.key() + "'");
    v.require_object();
    Value& value = out[*metric];
    value.measured = v.optional_double("measured");
    value.modeled = v.optional_double("modeled");
  }
  return out;
}

Counters read_counters(const Node& n) {
  n.require_object();
  Counters out;
  for (auto it = n.raw().begin(); it != n.raw().end(); ++it)
    if (!it->is_null()) out[it.key()] = n.object_field(it.key()).as_double();
  return out;
}

// Format 1 kept raw counters among the metrics and called two quantities by other names: its `l2_read` was
// the slices' count (measured) beside the model's SM requests (modeled), its `l2_hit` the slices' read and
// write lookup hits (measured) beside the model's request hits (modeled). They become the metric table's
// rows of the same meaning, and the measured side of every metric is derived again from the raw counters
// by the table's formulas (l2_read: the bytes the SMs received, where the counter was collected).
void read_metrics_v1(const Node& n, Metrics& out, Counters& counters, vocab::BulkCopies bulk) {
  n.require_object();
  for (auto it = n.raw().begin(); it != n.raw().end(); ++it) {
    const Node v = n.object_field(it.key());
    v.require_object();
    const std::optional<double> measured = v.optional_double("measured");
    const std::optional<double> modeled = v.optional_double("modeled");
    const auto metric = vocab::metric_from_key(it.key());
    if (!metric) {
      if (measured) counters[it.key()] = *measured;
      continue;
    }
    if (*metric == Metric::l2_read) {
      if (measured) out[Metric::l2_read_lts].measured = measured;
      if (modeled) out[Metric::l2_read].modeled = modeled;
    } else if (*metric == Metric::l2_hit) {
      if (measured) out[Metric::l2_hit_lts].measured = measured;
      if (modeled) out[Metric::l2_hit].modeled = modeled;
    } else {
      Value& value = out[*metric];
      value.measured = measured;
      value.modeled = modeled;
    }
  }
  const auto lookup = [&counters](std::string_view name) -> std::optional<double> {
    const auto it = counters.find(std::string(name));
    return it == counters.end() ? std::nullopt : std::optional<double>(it->second);
  };
  for (const Metric m : vocab::all_metrics())
    if (!measured_of(out, m))
      if (const auto v = vocab::measure(m, lookup, bulk)) out[m].measured = v;
}

// A report's measured bytes are the metric table's formulas over the raw counters it recorded, derived again
// on reading (those the report has): a recording made before a formula changed then means what the table
// says today. A metric
// whose formula needs a counter the recording lacks is dropped rather than shown under an earlier meaning
// (l2_read and smem_write of kernels that issue bulk copies, recorded before the bulk-copy counter was
// collected: vocab::measure); the names of those are returned. Modeled values of metrics the model does not
// predict are dropped too (earlier reports stored the SMs' requests as the slices' l2_read_lts).
std::vector<Metric> follow_vocabulary(Metrics& metrics, const Counters& counters, vocab::BulkCopies bulk) {
  std::vector<Metric> dropped;
  const auto lookup = [&counters](std::string_view name) -> std::optional<double> {
    const auto it = counters.find(std::string(name));
    return it == counters.end() ? std::nullopt : std::optional<double>(it->second);
  };
  for (const Metric m : vocab::all_metrics()) {
    const vocab::MetricInfo& i = vocab::info(m);
    if (!i.modeled && metrics.contains(m)) {
      metrics[m].modeled.reset();
      if (!metrics[m].measured) metrics.erase(m);
    }
    if (counters.empty() || i.unit != vocab::Unit::bytes || i.terms[0].counter.empty() ||
        !metrics.contains(m) || !metrics[m].measured)
      continue;
    if (const auto v = vocab::measure(m, lookup, bulk)) {
      metrics[m].measured = v;
    } else {
      metrics[m].measured.reset();
      dropped.push_back(m);
    }
  }
  return dropped;
}

void follow_vocabulary(KernelEntry& k) {
  const vocab::BulkCopies bulk = vocab::bulk_copies_of(k.name);
  std::vector<Metric> dropped = follow_vocabulary(k.metrics, k.counters, bulk);
  for (TileEntry& t : k.tiles)
    for (const Metric m : follow_vocabulary(t.metrics, t.counters, bulk))
      if (std::find(dropped.begin(), dropped.end(), m) == dropped.end()) dropped.push_back(m);
  if (dropped.empty()) return;
  std::string names;
  for (const Metric m : dropped) names += (names.empty() ? "" : ", ") + std::string(vocab::key(m));
  k.notes["measure.not_comparable"] = fmt::format(
      "{}: not shown as measured: this recording lacks the counters of bulk (TMA) copies that the metric's "
      "formula has today ({}, {}), and the kernel {} bulk copies, which the earlier formula missed",
      names, vocab::kCounterL2ToSm, vocab::kCounterBulkCopyLoads,
      bulk == vocab::BulkCopies::some ? "issues" : "is not attnscope's own and may issue");
}

sim::Workload read_workload(const Node& n) {
  sim::Workload w;
  w.name = n.string_field("name");
  w.batch = n.int64_field("batch");
  w.heads = n.int64_field("heads");
  w.seq_q = n.int64_field("seq_q");
  w.seq_kv = n.int64_field("seq_kv");
  w.head_dim = n.int64_field("head_dim");
  const Node dtype = n.object_field("dtype");
  auto t = sim::parse_dtype(dtype.as_string());
  if (!t) dtype.fail("unknown dtype '" + dtype.as_string() + "' (expected fp16, bf16 or fp32)");
  w.dtype = *t;
  w.causal = n.bool_field("causal");
  w.scale = n.double_field("scale");
  if (const auto window = n.optional_field("window")) w.window = window->as_int64();
  if (const auto alibi = n.optional_field("alibi")) w.alibi = alibi->as_bool();
  if (const auto pass = n.optional_field("pass")) {  // absent: the forward pass (reports before it existed)
    const auto p = sim::parse_pass(pass->as_string());
    if (!p) pass->fail("unknown pass '" + pass->as_string() + "' (expected fwd, bwd or both)");
    w.pass = *p;
  }
  return w;
}

// The naive kernels' fields gemm_qk_* and gemm_pv_l2_fetch_bytes came with the kernels they describe: a
// report without them has the naive tiling of the kernels of its date (sim::naive_tiling_measured_at; the
// first H200 reports of the current naive kernels were written by a binary that did not write them yet).
sim::TileConfig read_tiles(const Node& n, std::string_view written) {
  sim::TileConfig t;
  t.br = n.int_field("br");
  t.bc = n.int_field("bc");
  t.warps = n.int_field("warps");
  t.stages = n.int_field("stages");
  const Node order = n.object_field("order");
  auto o = sim::parse_launch_order(order.as_string());
  if (!o)
    order.fail("unknown launch order '" + order.as_string() + "' (expected q_tile_fastest or head_fastest)");
  t.order = *o;
  t.gemm_bm = n.int_field("gemm_bm");
  t.gemm_bn = n.int_field("gemm_bn");
  t.gemm_bk = n.int_field("gemm_bk");
  t.gemm_warps = n.int_field("gemm_warps");
  t.gemm_stages = n.int_field("gemm_stages");
  const sim::TileConfig of_date = sim::naive_tiling_measured_at(t, written);
  t.gemm_qk_tiles_per_cta = n.optional_int("gemm_qk_tiles_per_cta").value_or(of_date.gemm_qk_tiles_per_cta);
  t.gemm_qk_stages = n.optional_int("gemm_qk_stages").value_or(of_date.gemm_qk_stages);
  t.gemm_pv_l2_fetch_bytes =
      n.optional_int("gemm_pv_l2_fetch_bytes").value_or(of_date.gemm_pv_l2_fetch_bytes);
  t.bwd_bc = n.optional_int("bwd_bc").value_or(0);  // absent: the compiled default at the head dim
  t.bwd_br = n.optional_int("bwd_br").value_or(0);
  t.bwd_stages = n.optional_int("bwd_stages").value_or(0);
  // The Hopper kernel's tile (absent: the compiled default, vocab::HopperConfig{}).
  t.hopper_bc = n.optional_int("hopper_bc").value_or(t.hopper_bc);
  t.hopper_consumers = n.optional_int("hopper_consumers").value_or(t.hopper_consumers);
  t.hopper_stages = n.optional_int("hopper_stages").value_or(t.hopper_stages);
  if (const auto s = n.optional_field("hopper_schedule")) {
    const auto h = sim::parse_hopper_schedule(s->as_string());
    if (!h)
      s->fail("unknown Hopper schedule '" + s->as_string() +
              "' (expected serial, overlap, pingpong or serial-pingpong)");
    t.hopper_schedule = *h;
  }
  // Absent (reports before the persistent kernel): one CTA per tile.
  if (const auto p = n.optional_field("hopper_persistent")) t.hopper_persistent = p->as_bool();
  return t;
}

Provenance read_provenance(const Node& n) {
  Provenance p;
  p.tool_version = n.string_field("tool_version");
  p.git_revision = n.string_field("git_revision");
  p.date = n.string_field("date");
  p.command = n.optional_string("command");
  p.host = n.optional_string("host");
  p.gpu_name = n.optional_string("gpu_name");
  p.driver = n.optional_string("driver");
  p.cuda_runtime = n.optional_string("cuda_runtime");
  p.sm_clock_mhz = n.optional_double("sm_clock_mhz");
  p.mem_clock_mhz = n.optional_double("mem_clock_mhz");
  if (const std::string cache = n.optional_string("cache_mode"); !cache.empty()) {
    p.cache = vocab::parse_cache_protocol(cache);
    if (!p.cache)
      n.object_field("cache_mode")
          .fail("unknown cache mode '" + cache + "' (expected flush, sequence or warm)");
  }
  if (const std::string replay = n.optional_string("replay"); !replay.empty()) {
    p.replay = vocab::parse_replay_mode(replay);
    if (!p.replay)
      n.object_field("replay").fail("unknown replay mode '" + replay + "' (expected user or kernel)");
  }
  p.gpu_spec = n.optional_string("gpu_spec");
  if (auto recordings = n.optional_field("recordings")) {
    for (std::size_t i = 0, count = recordings->size(); i < count; ++i) {
      const Node r = recordings->at(i);
      Recording rec;
      rec.file = r.string_field("file");
      rec.date = r.optional_string("date");
      rec.git_revision = r.optional_string("git_revision");
      if (auto kernels = r.optional_field("kernels"))
        for (std::size_t k = 0, nk = kernels->size(); k < nk; ++k)
          rec.kernels.push_back(kernels->at(k).as_string());
      p.recordings.push_back(std::move(rec));
    }
  }
  return p;
}

// Format 1: one object per tile. A tile with measured values is a lone window (the only tiles format 1
// measured bytes of).
TileEntry read_tile_v1(const Node& n, vocab::BulkCopies bulk) {
  TileEntry t;
  t.batch = n.int_field("batch");
  t.head = n.int_field("head");
  t.q_tile = n.int_field("q_tile");
  t.kv_tile = n.int_field("kv_tile");
  t.sm_modeled = n.optional_int("sm_modeled");
  t.sm_measured = n.optional_int("sm_measured");
  t.start_modeled_s = n.optional_double("start_modeled_s");
  t.end_modeled_s = n.optional_double("end_modeled_s");
  t.start_measured_s = n.optional_double("start_measured_s");
  t.end_measured_s = n.optional_double("end_measured_s");
  read_metrics_v1(n.object_field("metrics"), t.metrics, t.counters, bulk);
  for (const auto& [m, v] : t.metrics) t.lone_window = t.lone_window || v.measured.has_value();
  return t;
}

// Format 2: tiles as columns (tiles_to_json).
std::vector<TileEntry> read_tile_columns(const Node& cols) {
  cols.require_object();
  const std::int64_t count = cols.int64_field("count");
  if (count < 0) cols.object_field("count").fail("negative tile count");
  std::vector<TileEntry> tiles(static_cast<std::size_t>(count));
  const auto column = [&](const std::string& name, bool required) -> std::optional<Node> {
    std::optional<Node> c =
        required ? std::optional<Node>(cols.object_field(name)) : cols.optional_field(name);
    if (c && c->size() != tiles.size())
      c->fail(fmt::format("{} values for {} tiles", c->size(), tiles.size()));
    return c;
  };
  const auto ints = [&](const std::string& name, auto set) {
    const auto c = column(name, true);
    const json& a = c->raw();
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      if (!a[i].is_number_integer()) c->at(i).fail("expected an integer");
      const auto v = a[i].get<std::int64_t>();
      if (v < 0 || v > std::numeric_limits<int>::max()) c->at(i).fail("tile index out of range");
      set(tiles[i], static_cast<int>(v));
    }
  };
  ints("batch", [](TileEntry& t, int v) { t.batch = v; });
  ints("head", [](TileEntry& t, int v) { t.head = v; });
  ints("q_tile", [](TileEntry& t, int v) { t.q_tile = v; });
  ints("kv_tile", [](TileEntry& t, int v) { t.kv_tile = v; });
  const auto optional_ints = [&](const std::string& name, std::optional<int> TileEntry::*field) {
    const auto c = column(name, false);
    if (!c) return;
    const json& a = c->raw();
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      if (a[i].is_null()) continue;
      if (!a[i].is_number_integer()) c->at(i).fail("expected an integer or null");
      tiles[i].*field = static_cast<int>(a[i].get<std::int64_t>());
    }
  };
  optional_ints("sm_modeled", &TileEntry::sm_modeled);
  optional_ints("sm_measured", &TileEntry::sm_measured);
  const auto read_doubles = [&](const Node& c, auto set) {
    if (c.size() != tiles.size()) c.fail(fmt::format("{} values for {} tiles", c.size(), tiles.size()));
    const json& a = c.raw();
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      if (a[i].is_null()) continue;
      if (!a[i].is_number()) c.at(i).fail("expected a number or null");
      set(tiles[i], a[i].get<double>());
    }
  };
  const auto optional_doubles = [&](const std::string& name, std::optional<double> TileEntry::*field) {
    if (const auto c = cols.optional_field(name))
      read_doubles(*c, [field](TileEntry& t, double v) { t.*field = v; });
  };
  optional_doubles("start_modeled_s", &TileEntry::start_modeled_s);
  optional_doubles("end_modeled_s", &TileEntry::end_modeled_s);
  optional_doubles("start_measured_s", &TileEntry::start_measured_s);
  optional_doubles("end_measured_s", &TileEntry::end_measured_s);
  if (const auto lone = cols.optional_field("lone_windows"))
    for (std::size_t i = 0, n = lone->size(); i < n; ++i) {
      const std::int64_t at = lone->at(i).as_int64();
      if (at < 0 || at >= count) lone->at(i).fail("tile index out of range");
      tiles[static_cast<std::size_t>(at)].lone_window = true;
    }
  if (const auto metrics = cols.optional_field("metrics")) {
    metrics->require_object();
    for (auto it = metrics->raw().begin(); it != metrics->raw().end(); ++it) {
      const Node sides = metrics->object_field(it.key());
      const auto metric = vocab::metric_from_key(it.key());
      if (!metric) sides.fail("unknown metric key '" + it.key() + "'");
      const Metric m = *metric;
      if (const auto c = sides.optional_field("measured"))
        read_doubles(*c, [m](TileEntry& t, double v) { t.metrics[m].measured = v; });
      if (const auto c = sides.optional_field("modeled"))
        read_doubles(*c, [m](TileEntry& t, double v) { t.metrics[m].modeled = v; });
    }
  }
  if (const auto counters = cols.optional_field("counters"))
    for (std::size_t i = 0, n = counters->size(); i < n; ++i) {
      const Node e = counters->at(i);
      const std::int64_t at = e.int64_field("index");
      if (at < 0 || at >= count) e.object_field("index").fail("tile index out of range");
      tiles[static_cast<std::size_t>(at)].counters = read_counters(e.object_field("counters"));
    }
  return tiles;
}

KernelEntry read_kernel(const Node& n, int version) {
  KernelEntry k;
  k.name = n.string_field("name");
  if (auto notes = n.optional_field("notes")) {
    notes->require_object();
    for (auto it = notes->raw().begin(); it != notes->raw().end(); ++it)
      k.notes[it.key()] = notes->object_field(it.key()).as_string();
  }
  if (version >= 2) {
    k.metrics = read_metrics(n.object_field("metrics"));
    if (auto counters = n.optional_field("counters")) k.counters = read_counters(*counters);
    if (auto cols = n.optional_field("tile_columns")) k.tiles = read_tile_columns(*cols);
    k.tiles_total = n.int64_field("tiles_total");
    const Node kept = n.object_field("tiles_kept");
    const auto subset = parse_tile_subset(kept.as_string());
    if (!subset)
      kept.fail("unknown tile subset '" + kept.as_string() + "' (expected all, head0, measured or windows)");
    k.tiles_kept = *subset;
  } else {
    read_metrics_v1(n.object_field("metrics"), k.metrics, k.counters, vocab::bulk_copies_of(k.name));
    if (auto tiles = n.optional_field("tiles")) {
      const std::size_t count = tiles->size();
      k.tiles.reserve(count);
      for (std::size_t i = 0; i < count; ++i)
        k.tiles.push_back(read_tile_v1(tiles->at(i), vocab::bulk_copies_of(k.name)));
    }
    // Format 1 did not record the tile total; 0 = unknown (a re-model fills it in).
    k.tiles_kept = TileSubset::all;
  }
  follow_vocabulary(k);
  if (auto samples = n.optional_field("samples")) {
    samples->require_array();
    for (std::size_t i = 0; i < samples->size(); ++i) {
      const Node smp = samples->at(i);
      CounterSample c;
      c.start_s = smp.double_field("start_s");
      c.end_s = smp.double_field("end_s");
      const Node counters = smp.object_field("counters");
      counters.require_object();
      for (auto it = counters.raw().begin(); it != counters.raw().end(); ++it)
        c.counters[it.key()] = counters.double_field(it.key());
      k.samples.push_back(std::move(c));
    }
  }
  return k;
}

SweepPoint read_point(const Node& n, std::string_view written, int version) {
  SweepPoint p;
  p.index = n.int64_field("index");
  p.workload = read_workload(n.object_field("workload"));
  const Node kind = n.object_field("kind");
  auto k = sim::parse_kernel_kind(kind.as_string());
  if (!k) kind.fail("unknown kernel kind '" + kind.as_string() + "' (expected naive, tiled or hopper)");
  p.kind = *k;
  p.tiles = read_tiles(n.object_field("tiles"), written);
  p.gpu_spec = n.string_field("gpu_spec");
  p.smem_limit = n.int64_field("smem_limit");
  p.feasible = n.bool_field("feasible");
  p.infeasible_reason = n.optional_string("infeasible_reason");
  if (const auto f = n.optional_field("fidelity")) {  // absent: the cycle model (every sweep before bounds)
    const auto parsed = vocab::parse_fidelity(f->as_string());
    if (!parsed) f->fail("unknown fidelity '" + f->as_string() + "' (expected cycle_model or bound)");
    p.fidelity = *parsed;
  }
  if (const auto b = n.optional_field("bound")) {
    PointBound pb;
    pb.time_s = b->double_field("time_s");
    pb.dram_read_min = b->double_field("dram_read_min");
    pb.dram_write_min = b->double_field("dram_write_min");
    pb.limiter = b->string_field("limiter");
    p.bound = pb;
  }
  if (version >= 2) {
    p.metrics = read_metrics(n.object_field("metrics"));
  } else {
    Counters ignored;
    read_metrics_v1(n.object_field("metrics"), p.metrics, ignored, vocab::BulkCopies::unknown);
  }
  follow_vocabulary(p.metrics, {}, vocab::BulkCopies::unknown);  // a sweep point is modeled only
  return p;
}

// Facts format 1 kept as text: CUPTI kernel replay was a note (measure.replay) or the command line; a
// report that kept tiles of head 0 only said so on its command line (--keep-tiles head0).
void upgrade_v1_facts(Report& r) {
  if (r.kind != "profile") return;
  bool kernel_replay = r.provenance.command.find("--replay kernel") != std::string::npos;
  for (const auto& k : r.kernels)
    if (const auto it = k.notes.find("measure.replay");
        it != k.notes.end() && it->second.rfind("kernel", 0) == 0)
      kernel_replay = true;
  if (r.provenance.cache)
    r.provenance.replay = kernel_replay ? vocab::ReplayMode::kernel : vocab::ReplayMode::user;
}

// The workload passes the same validation as the command line's, and every tile of one of our kernels lies
// inside that kernel's grid (vocab geometry), so no writer or view indexes outside what it allocates.
void check_shapes(const Report& r, const Node& root) {
  try {
    sim::validate(r.workload);
  } catch (const sim::InvalidInput& e) {
    root.object_field("workload").fail(e.what());
  }
  const Node kernels = root.object_field("kernels");
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    const KernelEntry& k = r.kernels[i];
    const auto id = vocab::parse_kernel_id(k.name);
    if (!id) continue;  // measured only: no geometry to hold it to
    vocab::WindowTiles grid =
        vocab::window_tiles(*id, r.tiles.tiled(), r.tiles.naive(), r.workload.seq_q, r.workload.seq_kv,
                            r.tiles.tiled_bwd(r.workload.head_dim), r.workload.head_dim);
    if (*id == vocab::KernelId::tiled_bwd) std::swap(grid.q, grid.kv);  // its records say (q tile, kv tile)
    if (*id == vocab::KernelId::hopper)  // no tile windows, but its records are (q tile, kv tile) of its grid
      grid = {vocab::hopper_q_tiles(r.tiles.hopper(), r.workload.seq_q),
              vocab::hopper_kv_tiles(r.tiles.hopper(), r.workload.seq_kv)};
    const std::int64_t kv_tiles = std::max<std::int64_t>(grid.kv, 1);
    for (std::size_t j = 0; j < k.tiles.size(); ++j) {
      const TileEntry& t = k.tiles[j];
      const auto bad = [&](const char* what, std::int64_t value, std::int64_t limit) {
        kernels.at(i).fail(fmt::format(
            "tile {}: {} {} is outside the kernel's grid ({} .. {} for {} with tiles {})", j, what, value, 0,
            limit - 1, r.workload.name, r.tiles.label_of(*id, r.workload.head_dim)));
      };
      if (t.batch < 0 || t.batch >= r.workload.batch) bad("batch", t.batch, r.workload.batch);
      if (t.head < 0 || t.head >= r.workload.heads) bad("head", t.head, r.workload.heads);
      if (t.q_tile < 0 || t.q_tile >= grid.q) bad("q tile", t.q_tile, grid.q);
      if (t.kv_tile < 0 || t.kv_tile >= kv_tiles) bad("kv tile", t.kv_tile, kv_tiles);
    }
  }
}

Report read_document(const json& doc, const std::string& origin) {
  const Node root(doc, "", origin);
  root.require_object();
  const Node version = root.object_field("format_version");
  Report r;
  r.format_version = version.as_int();
  if (r.format_version > kFormatVersion)
    throw ReportError(
        fmt::format("report {} was written by format version {}; this attnscope reads up to {}: "
                    "upgrade attnscope",
                    origin, r.format_version, kFormatVersion));
  if (r.format_version < 1)
    version.fail(fmt::format("format version {} is not valid (must be >= 1)", r.format_version));
  const Node kind = root.object_field("kind");
  r.kind = kind.as_string();
  if (r.kind != "profile" && r.kind != "simulate" && r.kind != "sweep")
    kind.fail("unknown report kind '" + r.kind + "' (expected profile, simulate or sweep)");
  r.provenance = read_provenance(root.object_field("provenance"));
  r.workload = read_workload(root.object_field("workload"));
  r.tiles = read_tiles(root.object_field("tiles"), r.provenance.date);
  const Node kernels = root.object_field("kernels");
  for (std::size_t i = 0, n = kernels.size(); i < n; ++i)
    r.kernels.push_back(read_kernel(kernels.at(i), r.format_version));
  if (r.format_version < 2) upgrade_v1_facts(r);
  if (r.kind != "sweep") check_shapes(r, root);
  if (auto def = root.optional_field("sweep_definition")) {
    r.sweep_definition.text = def->string_field("text");
    r.sweep_definition.total_points = def->int64_field("total_points");
    r.sweep_definition.shard_index = def->int_field("shard_index");
    r.sweep_definition.shard_count = def->int_field("shard_count");
    if (const auto f = def->optional_field("fidelity")) {
      const auto parsed = vocab::parse_sweep_fidelity(f->as_string());
      if (!parsed) f->fail("unknown sweep fidelity '" + f->as_string() + "' (expected cycle or two)");
      r.sweep_definition.fidelity = *parsed;
      r.sweep_definition.problems = def->int64_field("problems");
    }
    if (r.sweep_definition.shard_count < 1 || r.sweep_definition.shard_index < 0 ||
        r.sweep_definition.shard_index >= r.sweep_definition.shard_count)
      def->fail(fmt::format("shard {}/{} is not a valid shard", r.sweep_definition.shard_index,
                            r.sweep_definition.shard_count));
  }
  if (auto sweep = root.optional_field("sweep")) {
    for (std::size_t i = 0, n = sweep->size(); i < n; ++i)
      r.sweep.push_back(read_point(sweep->at(i), r.provenance.date, r.format_version));
  }
  return r;
}

}  // namespace

Report parse_report(std::string_view json_text, std::string_view origin) {
  const std::string where(origin);
  json doc;
  try {
    doc = sim::parse_json_strict(json_text);
  } catch (const sim::JsonInputError& e) {
    throw ReportError(fmt::format("report {} is not valid JSON{} at byte {}: {}", where,
                                  e.truncated() ? " (truncated: the file ends early)" : "", e.byte(),
                                  e.what()));
  }
  return read_document(doc, where);
}

namespace {

// A gzip'd report (report.json.gz, as measurement runs keep large reports): inflated in memory, within the
// same size limit as a plain report.
std::string gunzip_report(const std::string& packed, const std::string& origin) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
    throw ReportError(fmt::format("report {}: cannot start gzip decompression", origin));
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = static_cast<uInt>(packed.size());
  std::string out;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (out.size() > sim::kMaxReportBytes) {
      inflateEnd(&z);
      throw ReportError(fmt::format("report {} inflates to more than the {} bytes a report may have", origin,
                                    sim::kMaxReportBytes));
    }
    const std::size_t at = out.size();
    out.resize(at + std::max<std::size_t>(packed.size() * 4, 1 << 20));
    z.next_out = reinterpret_cast<Bytef*>(out.data() + at);
    z.avail_out = static_cast<uInt>(out.size() - at);
    rc = inflate(&z, Z_NO_FLUSH);
    out.resize(out.size() - z.avail_out);
    if (rc == Z_STREAM_END) break;
    if (rc != Z_OK || (z.avail_in == 0 && z.avail_out != 0)) {
      const std::string why = z.msg ? z.msg : (rc == Z_OK ? "truncated" : "corrupt data");
      inflateEnd(&z);
      throw ReportError(fmt::format("report {} is gzip'd but cannot be inflated: {}", origin, why));
    }
  }
  inflateEnd(&z);
  return out;
}

}  // namespace

Report read_report(const std::filesystem::path& path) {
  std::string text;
  try {
    text = sim::read_input_file(path, sim::kMaxReportBytes, "report");
  } catch (const sim::InputFileError& e) {
    throw ReportError(e.what());
  }
  if (text.empty()) throw ReportError(fmt::format("report {} is empty (0 bytes)", path.string()));
  if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
      static_cast<unsigned char>(text[1]) == 0x8b)
    text = gunzip_report(text, path.string());
  return parse_report(text, path.string());
}

}  // namespace attnscope::reports
