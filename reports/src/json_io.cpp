// SPDX-License-Identifier: Apache-2.0
// The report's JSON form (reports/schema/report.schema.json, docs/report-format.md). The reader walks the
// document with the JSON pointer of every node in hand, so each error names where it is.
#include "attnscope/reports/json_io.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

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

// Tile metrics leave out a unit that is the key's default (most of a large report's bytes are tiles).
ojson metrics_to_json(const Metrics& metrics, bool omit_default_units = false) {
  ojson out = ojson::object();
  for (const auto& [key, value] : metrics) {
    ojson v = ojson::object();
    if (value.measured) v["measured"] = optional_number(value.measured);
    if (value.modeled) v["modeled"] = optional_number(value.modeled);
    if (!value.unit.empty() && !(omit_default_units && value.unit == default_unit(key)))
      v["unit"] = value.unit;
    if (auto e = value.relative_error()) v["error"] = optional_number(e);  // derived; ignored on read
    out[key] = std::move(v);
  }
  return out;
}

ojson workload_to_json(const sim::Workload& w) {
  return {{"name", w.name},
          {"batch", w.batch},
          {"heads", w.heads},
          {"seq_q", w.seq_q},
          {"seq_kv", w.seq_kv},
          {"head_dim", w.head_dim},
          {"dtype", std::string(sim::to_string(w.dtype))},
          {"causal", w.causal},
          {"scale", w.scale}};
}

ojson tiles_to_json(const sim::TileConfig& t) {
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

ojson tile_entry_to_json(const TileEntry& t) {
  ojson j{{"batch", t.batch}, {"head", t.head}, {"q_tile", t.q_tile}, {"kv_tile", t.kv_tile}};
  if (t.sm_modeled) j["sm_modeled"] = *t.sm_modeled;
  if (t.sm_measured) j["sm_measured"] = *t.sm_measured;
  if (t.start_modeled_s) j["start_modeled_s"] = optional_number(t.start_modeled_s);
  if (t.end_modeled_s) j["end_modeled_s"] = optional_number(t.end_modeled_s);
  if (t.start_measured_s) j["start_measured_s"] = optional_number(t.start_measured_s);
  if (t.end_measured_s) j["end_measured_s"] = optional_number(t.end_measured_s);
  j["metrics"] = metrics_to_json(t.metrics, true);
  return j;
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
          {"cache_mode", p.cache_mode},
          {"gpu_spec", p.gpu_spec}};
  j["sm_clock_mhz"] = optional_number(p.sm_clock_mhz);
  j["mem_clock_mhz"] = optional_number(p.mem_clock_mhz);
  return j;
}

ojson report_to_json(const Report& r) {
  ojson j;
  j["format_version"] = r.format_version;
  j["kind"] = r.kind;
  j["provenance"] = provenance_to_json(r.provenance);
  j["workload"] = workload_to_json(r.workload);
  j["tiles"] = tiles_to_json(r.tiles);
  ojson kernels = ojson::array();
  for (const auto& k : r.kernels) {
    ojson tiles = ojson::array();
    for (const auto& t : k.tiles) tiles.push_back(tile_entry_to_json(t));
    ojson notes = ojson::object();
    for (const auto& [key, value] : k.notes) notes[key] = value;
    ojson entry = {{"name", k.name},
                   {"metrics", metrics_to_json(k.metrics)},
                   {"notes", notes},
                   {"tiles", std::move(tiles)}};
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
    ojson points = ojson::array();
    for (const auto& p : r.sweep) {
      ojson pj{{"index", p.index},
               {"workload", workload_to_json(p.workload)},
               {"kind", std::string(sim::to_string(p.kind))},
               {"tiles", tiles_to_json(p.tiles)},
               {"gpu_spec", p.gpu_spec},
               {"smem_limit", p.smem_limit},
               {"feasible", p.feasible},
               {"metrics", metrics_to_json(p.metrics)}};
      if (!p.infeasible_reason.empty()) pj["infeasible_reason"] = p.infeasible_reason;
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

void write_file_atomic(const std::filesystem::path& path, std::string_view contents) {
  namespace fs = std::filesystem;
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::error_code ec;
  if (!fs::exists(dir, ec)) fs::create_directories(dir, ec);
  if (ec) throw ReportError(fmt::format("cannot create directory {}: {}", dir.string(), ec.message()));
  // A unique temporary name in the same directory, so the rename is atomic (same file system).
  std::random_device rd;
  const fs::path tmp = dir / fmt::format(".{}.tmp-{}-{:08x}", path.filename().string(), ::getpid(), rd());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) throw ReportError(fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  const char* data = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      throw ReportError(fmt::format("cannot write {}: {}", path.string(), why));
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw ReportError(fmt::format("cannot write {}: {}", path.string(), why));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    throw ReportError(fmt::format("cannot write {}: {}", path.string(), why));
  }
  // Make the rename itself durable.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
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

Metrics read_metrics(const Node& n, bool default_units = false) {
  n.require_object();
  Metrics out;
  for (auto it = n.raw().begin(); it != n.raw().end(); ++it) {
    Node v = n.object_field(it.key());
    v.require_object();
    Value value;
    value.measured = v.optional_double("measured");
    value.modeled = v.optional_double("modeled");
    value.unit = v.optional_string("unit");
    if (default_units && !v.has("unit")) value.unit = std::string(default_unit(it.key()));
    out.emplace(it.key(), std::move(value));
  }
  return out;
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
  p.cache_mode = n.optional_string("cache_mode");
  p.gpu_spec = n.optional_string("gpu_spec");
  return p;
}

TileEntry read_tile(const Node& n) {
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
  t.metrics = read_metrics(n.object_field("metrics"), true);
  return t;
}

KernelEntry read_kernel(const Node& n) {
  KernelEntry k;
  k.name = n.string_field("name");
  k.metrics = read_metrics(n.object_field("metrics"));
  if (auto notes = n.optional_field("notes")) {
    notes->require_object();
    for (auto it = notes->raw().begin(); it != notes->raw().end(); ++it)
      k.notes[it.key()] = notes->object_field(it.key()).as_string();
  }
  if (auto tiles = n.optional_field("tiles")) {
    const std::size_t count = tiles->size();
    k.tiles.reserve(count);
    for (std::size_t i = 0; i < count; ++i) k.tiles.push_back(read_tile(tiles->at(i)));
  }
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

SweepPoint read_point(const Node& n, std::string_view written) {
  SweepPoint p;
  p.index = n.int64_field("index");
  p.workload = read_workload(n.object_field("workload"));
  const Node kind = n.object_field("kind");
  auto k = sim::parse_kernel_kind(kind.as_string());
  if (!k) kind.fail("unknown kernel kind '" + kind.as_string() + "' (expected naive or tiled)");
  p.kind = *k;
  p.tiles = read_tiles(n.object_field("tiles"), written);
  p.gpu_spec = n.string_field("gpu_spec");
  p.smem_limit = n.int64_field("smem_limit");
  p.feasible = n.bool_field("feasible");
  p.infeasible_reason = n.optional_string("infeasible_reason");
  p.metrics = read_metrics(n.object_field("metrics"));
  return p;
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
  for (std::size_t i = 0, n = kernels.size(); i < n; ++i) r.kernels.push_back(read_kernel(kernels.at(i)));
  if (auto def = root.optional_field("sweep_definition")) {
    r.sweep_definition.text = def->string_field("text");
    r.sweep_definition.total_points = def->int64_field("total_points");
    r.sweep_definition.shard_index = def->int_field("shard_index");
    r.sweep_definition.shard_count = def->int_field("shard_count");
    if (r.sweep_definition.shard_count < 1 || r.sweep_definition.shard_index < 0 ||
        r.sweep_definition.shard_index >= r.sweep_definition.shard_count)
      def->fail(fmt::format("shard {}/{} is not a valid shard", r.sweep_definition.shard_index,
                            r.sweep_definition.shard_count));
  }
  if (auto sweep = root.optional_field("sweep")) {
    for (std::size_t i = 0, n = sweep->size(); i < n; ++i)
      r.sweep.push_back(read_point(sweep->at(i), r.provenance.date));
  }
  return r;
}

}  // namespace

Report parse_report(std::string_view json_text, std::string_view origin) {
  const std::string where(origin);
  json doc;
  try {
    doc = json::parse(json_text.begin(), json_text.end());
  } catch (const json::parse_error& e) {
    // e.byte is 1-based: the byte at which parsing stopped.
    const bool truncated = e.byte >= json_text.size();
    std::string detail = e.what();
    if (auto pos = detail.find("syntax error while parsing value - "); pos != std::string::npos)
      detail = detail.substr(pos + 35);
    else if (auto pos2 = detail.find(": "); pos2 != std::string::npos)
      detail = detail.substr(pos2 + 2);
    throw ReportError(fmt::format("report {} is not valid JSON{} at byte {}: {}", where,
                                  truncated ? " (truncated: the file ends early)" : "", e.byte, detail));
  }
  return read_document(doc, where);
}

Report read_report(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportError(fmt::format("cannot open report {}: {}", path.string(), std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw ReportError(fmt::format("cannot read report {}", path.string()));
  const std::string text = buffer.str();
  if (text.empty()) throw ReportError(fmt::format("report {} is empty (0 bytes)", path.string()));
  return parse_report(text, path.string());
}

}  // namespace attnscope::reports
