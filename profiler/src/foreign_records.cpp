// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/foreign_records.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attnscope/profiler/error.hpp"

namespace attnscope::profiler {

using nlohmann::json;

namespace {

// NVTX messages are the program's text: bytes that are not UTF-8 are replaced, never fatal.
std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

json optional_number(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

std::optional<double> optional_from(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<double>();
}

template <typename T>
T value_or(const json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  return it == j.end() || it->is_null() ? fallback : it->get<T>();
}

std::array<std::uint32_t, 3> dims(const json& j, const char* key) {
  std::array<std::uint32_t, 3> d{1, 1, 1};
  const auto it = j.find(key);
  if (it == j.end()) return d;
  if (!it->is_array() || it->size() != 3) throw std::invalid_argument(std::string(key) + " is not [x, y, z]");
  for (std::size_t i = 0; i < 3; ++i) d[i] = (*it)[i].get<std::uint32_t>();
  return d;
}

ForeignStart start_from(const json& j) {
  ForeignStart s;
  s.format = j.at("format").get<int>();
  s.list_kernels = value_or(j, "list_kernels", false);
  s.kernel_regex = value_or<std::string>(j, "kernel_regex", "");
  s.nvtx_regex = value_or<std::string>(j, "nvtx_regex", "");
  s.replay = value_or<std::string>(j, "replay", "user");
  s.skip = value_or<std::uint64_t>(j, "skip", 0);
  if (j.contains("count") && !j["count"].is_null()) s.count = j["count"].get<std::uint64_t>();
  s.pid = value_or<std::int64_t>(j, "pid", 0);
  return s;
}

DeviceInfo device_from(const json& j) {
  DeviceInfo d;
  d.name = value_or<std::string>(j, "name", "");
  d.chip = value_or<std::string>(j, "chip", "");
  d.driver = value_or<std::string>(j, "driver", "");
  d.cuda_runtime = value_or<std::string>(j, "cuda_runtime", "");
  d.l2_bytes = value_or<std::int64_t>(j, "l2_bytes", 0);
  d.sm_count = value_or(j, "sm_count", 0);
  d.sm_clock_mhz = optional_from(j, "sm_clock_mhz");
  d.mem_clock_mhz = optional_from(j, "mem_clock_mhz");
  return d;
}

ForeignLaunchRecord launch_from(const json& j) {
  ForeignLaunchRecord r;
  ForeignLaunch& l = r.launch;
  l.mangled_name = j.at("mangled_name").get<std::string>();
  l.demangled_name = value_or(j, "demangled_name", l.mangled_name);
  l.grid = dims(j, "grid");
  l.block = dims(j, "block");
  l.registers_per_thread = value_or(j, "registers_per_thread", 0);
  l.static_smem_bytes = value_or(j, "static_smem_bytes", 0);
  l.dynamic_smem_bytes = value_or(j, "dynamic_smem_bytes", 0);
  l.local_bytes_per_thread = value_or(j, "local_bytes_per_thread", -1);
  l.launch_index = j.at("launch_index").get<std::uint64_t>();
  l.nvtx_ranges = value_or(j, "nvtx_ranges", std::vector<std::string>{});
  if (const auto it = j.find("shape"); it != j.end() && !it->is_null()) {
    AnnotatedShape s;
    s.batch = it->at("batch").get<std::int64_t>();
    s.heads = it->at("heads").get<std::int64_t>();
    s.seq_q = it->at("seq_q").get<std::int64_t>();
    s.seq_kv = it->at("seq_kv").get<std::int64_t>();
    s.head_dim = it->at("head_dim").get<std::int64_t>();
    s.dtype = it->at("dtype").get<std::string>();
    s.causal = it->at("causal").get<bool>();
    l.shape = s;
  }
  const auto replay = value_or<std::string>(j, "replay", "user");
  if (replay != "user" && replay != "kernel")
    throw std::invalid_argument("replay '" + replay + "' is unknown");
  l.replay = replay == "user" ? ForeignReplay::user : ForeignReplay::kernel;
  if (const auto it = j.find("counters"); it != j.end())
    for (const auto& [name, value] : it->items())
      l.counters[name] = value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
  l.event_time_s = optional_from(j, "event_time_s");
  r.annotation = value_or<std::string>(j, "annotation", "");
  r.nvtx_thread = value_or<std::string>(j, "nvtx_thread", "own");
  r.passes = value_or(j, "passes", 0);
  r.unavailable_metrics = value_or(j, "unavailable_metrics", std::vector<std::string>{});
  r.notes = value_or(j, "notes", std::vector<std::string>{});
  return r;
}

ForeignError error_from(const json& j) {
  ForeignError e;
  if (j.contains("launch_index") && !j["launch_index"].is_null())
    e.launch_index = j["launch_index"].get<std::uint64_t>();
  e.kernel = value_or<std::string>(j, "kernel", "");
  e.code = value_or<std::string>(j, "code", "cupti_error");
  e.message = j.at("message").get<std::string>();
  return e;
}

ForeignSummary summary_from(const json& j) {
  ForeignSummary s;
  s.launches_seen = value_or<std::uint64_t>(j, "launches_seen", 0);
  s.matched = value_or<std::uint64_t>(j, "matched", 0);
  s.selected = value_or<std::uint64_t>(j, "selected", 0);
  s.measured = value_or<std::uint64_t>(j, "measured", 0);
  s.runtime_launches = value_or<std::uint64_t>(j, "runtime_launches", 0);
  if (const auto it = j.find("kernels"); it != j.end())
    for (const auto& k : *it)
      s.kernels.emplace_back(k.at("name").get<std::string>(), k.at("launches").get<std::uint64_t>());
  return s;
}

}  // namespace

std::string to_json_line(const ForeignStart& s) {
  json j = {{"record", "start"},
            {"format", s.format},
            {"list_kernels", s.list_kernels},
            {"kernel_regex", s.kernel_regex},
            {"nvtx_regex", s.nvtx_regex},
            {"replay", s.replay},
            {"skip", s.skip},
            {"pid", s.pid}};
  j["count"] = s.count ? json(*s.count) : json(nullptr);
  return dump(j);
}

std::string to_json_line(const DeviceInfo& d) {
  json j = {{"record", "device"},
            {"name", d.name},
            {"chip", d.chip},
            {"driver", d.driver},
            {"cuda_runtime", d.cuda_runtime},
            {"l2_bytes", d.l2_bytes},
            {"sm_count", d.sm_count}};
  j["sm_clock_mhz"] = optional_number(d.sm_clock_mhz);
  j["mem_clock_mhz"] = optional_number(d.mem_clock_mhz);
  return dump(j);
}

std::string to_json_line(const ForeignLaunchRecord& r) {
  const ForeignLaunch& l = r.launch;
  json j = {{"record", "launch"},
            {"mangled_name", l.mangled_name},
            {"demangled_name", l.demangled_name},
            {"grid", l.grid},
            {"block", l.block},
            {"registers_per_thread", l.registers_per_thread},
            {"static_smem_bytes", l.static_smem_bytes},
            {"dynamic_smem_bytes", l.dynamic_smem_bytes},
            {"local_bytes_per_thread", l.local_bytes_per_thread},
            {"launch_index", l.launch_index},
            {"nvtx_ranges", l.nvtx_ranges},
            {"nvtx_thread", r.nvtx_thread},
            {"annotation", r.annotation},
            {"replay", l.replay == ForeignReplay::user ? "user" : "kernel"},
            {"passes", r.passes},
            {"unavailable_metrics", r.unavailable_metrics},
            {"notes", r.notes}};
  if (l.shape)
    j["shape"] = {{"batch", l.shape->batch},   {"heads", l.shape->heads},       {"seq_q", l.shape->seq_q},
                  {"seq_kv", l.shape->seq_kv}, {"head_dim", l.shape->head_dim}, {"dtype", l.shape->dtype},
                  {"causal", l.shape->causal}};
  else
    j["shape"] = nullptr;
  json counters = json::object();
  for (const auto& [name, value] : l.counters) counters[name] = optional_number(value);
  j["counters"] = std::move(counters);
  j["event_time_s"] = optional_number(l.event_time_s);
  return dump(j);
}

std::string to_json_line(const ForeignError& e) {
  json j = {{"record", "error"}, {"kernel", e.kernel}, {"code", e.code}, {"message", e.message}};
  j["launch_index"] = e.launch_index ? json(*e.launch_index) : json(nullptr);
  return dump(j);
}

std::string to_json_line(const ForeignSummary& s) {
  json kernels = json::array();
  for (const auto& [name, launches] : s.kernels) kernels.push_back({{"name", name}, {"launches", launches}});
  json j = {{"record", "summary"},          {"launches_seen", s.launches_seen},
            {"matched", s.matched},         {"selected", s.selected},
            {"measured", s.measured},       {"runtime_launches", s.runtime_launches},
            {"kernels", std::move(kernels)}};
  return dump(j);
}

ForeignRun parse_foreign_records(std::string_view text, std::string_view origin) {
  ForeignRun run;
  std::size_t pos = 0, line_number = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    const bool complete = end != std::string_view::npos;
    if (!complete) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const auto where = [&] { return fmt::format("{} line {}", origin, line_number); };
    try {
      const json j = json::parse(line);
      const std::string kind = j.at("record").get<std::string>();
      if (kind == "start") {
        ForeignStart s = start_from(j);
        if (s.format > kForeignRecordsFormat)
          throw std::invalid_argument(fmt::format(
              "format {} is newer than this attnscope reads ({}): the collector library and the attnscope "
              "binary come from different builds",
              s.format, kForeignRecordsFormat));
        run.start = s;
      } else if (kind == "device") {
        run.device = device_from(j);
      } else if (kind == "launch") {
        run.launches.push_back(launch_from(j));
      } else if (kind == "error") {
        run.errors.push_back(error_from(j));
      } else if (kind == "summary") {
        run.summary = summary_from(j);
      } else {
        throw std::invalid_argument("unknown record '" + kind + "'");
      }
    } catch (const std::exception& e) {
      // A program killed while the collector wrote leaves its last line cut short, without a newline.
      if (!complete)
        run.unreadable.push_back(where() + ": cut short (the program stopped while this record was written)");
      else
        run.unreadable.push_back(where() + ": " + e.what());
    }
  }
  return run;
}

ForeignRun read_foreign_records(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ProfilerError(ErrorCode::io_error, fmt::format("cannot read the collector's records {}: {}",
                                                         path.string(), std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_foreign_records(text.str(), path.string());
}

}  // namespace attnscope::profiler
