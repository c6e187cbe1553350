// SPDX-License-Identifier: Apache-2.0
// Reading GPU specs from JSON. Every number is an object {"value": N, "source": "datasheet|measured|estimate:
// ..."} so a what-if file keeps saying where its numbers came from; a missing source is an error, not a
// default.
#include "attnscope/sim/gpu_spec.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/json_input.hpp"

#ifndef ATTNSCOPE_GPU_SPEC_DIR
#define ATTNSCOPE_GPU_SPEC_DIR "sim/gpus"
#endif

namespace attnscope::sim {
namespace {

using nlohmann::json;

class SpecReader {
 public:
  SpecReader(const json& doc, std::string_view origin) : doc_(doc), origin_(origin) {}

  [[noreturn]] void fail(std::string_view field, std::string_view why) const {
    throw InvalidInput("GPU spec " + origin_ + ": field '" + std::string(field) + "': " + std::string(why));
  }

  std::string text(const char* field) const {
    if (!doc_.contains(field)) fail(field, "missing");
    const json& f = doc_.at(field);
    if (!f.is_string() || f.get_ref<const std::string&>().empty()) fail(field, "must be a non-empty string");
    return f.get<std::string>();
  }

  // A positive number with its provenance. `integral` rejects fractions for counts and byte sizes.
  double number(const char* field, bool integral) const {
    if (!doc_.contains(field)) fail(field, "missing");
    const json& f = doc_.at(field);
    if (!f.is_object()) fail(field, R"(must be an object {"value": <number>, "source": "..."})");
    if (!f.contains("value") || !f.at("value").is_number()) fail(field, "'value' missing or not a number");
    if (!f.contains("source") || !f.at("source").is_string())
      fail(field, "'source' missing (say datasheet, measured or estimate)");
    const std::string src = f.at("source").get<std::string>();
    if (src.rfind("datasheet", 0) != 0 && src.rfind("measured", 0) != 0 && src.rfind("estimate", 0) != 0)
      fail(field, "'source' must start with datasheet, measured or estimate, got '" + src + "'");
    const double x = f.at("value").get<double>();
    if (!(x > 0.0) || !std::isfinite(x)) fail(field, "'value' must be a positive finite number");
    if (integral && x != std::floor(x)) fail(field, "'value' must be a whole number");
    return x;
  }
  // An optional field: `fallback` when absent, checked like number() when present.
  double optional_number(const char* field, bool integral, double fallback,
                         double limit = std::numeric_limits<double>::max()) const {
    if (!doc_.contains(field)) return fallback;
    const double x = number(field, integral);
    if (x > limit) fail(field, fmt::format("'value' {} is implausibly large (at most {})", x, limit));
    return x;
  }
  // A whole number of at most `limit`: the model allocates per SM, per channel, per way and per byte of L2,
  // so a spec claiming 2^30 SMs must fail here, not in an allocation.
  std::int64_t count(const char* field, double limit) const {
    const double x = number(field, true);
    if (x > limit) fail(field, fmt::format("'value' {} is implausibly large (at most {})", x, limit));
    return static_cast<std::int64_t>(x);
  }
  int small_count(const char* field, int limit) const { return static_cast<int>(count(field, limit)); }

 private:
  const json& doc_;
  std::string origin_;
};

// Generous bounds on a GPU's resources (an H200 has 132 SMs, 228 KiB of shared memory per SM, 60 MB of L2).
constexpr double kMaxBytesPerSm = double(1 << 30);
constexpr double kMaxL2Bytes = double(std::int64_t{1} << 36);
constexpr std::int64_t kMaxL2Lines = std::int64_t{1} << 24;

bool is_power_of_two(std::int64_t x) {
  return x > 0 && (x & (x - 1)) == 0;
}

}  // namespace

GpuSpec parse_gpu_spec(std::string_view json_text, std::string_view origin) {
  json doc;
  try {
    doc = parse_json_strict(json_text);
  } catch (const JsonInputError& e) {
    throw InvalidInput(fmt::format("GPU spec {}: not valid JSON at byte {}: {}", origin, e.byte(), e.what()));
  }
  if (!doc.is_object())
    throw InvalidInput("GPU spec " + std::string(origin) + ": top level must be an object");
  const SpecReader r(doc, origin);
  GpuSpec g;
  g.name = r.text("name");
  g.short_name = r.text("short_name");
  g.sm_count = r.small_count("sm_count", 4096);
  g.sm_clock_hz = r.number("sm_clock_hz", false);
  g.smem_per_sm = r.count("smem_per_sm", kMaxBytesPerSm);
  g.smem_per_block = r.count("smem_per_block", kMaxBytesPerSm);
  g.smem_reserved_per_cta = r.count("smem_reserved_per_cta", kMaxBytesPerSm);
  g.regs_per_sm = r.count("regs_per_sm", 1 << 24);
  g.max_threads_per_sm = r.small_count("max_threads_per_sm", 1 << 16);
  g.max_ctas_per_sm = r.small_count("max_ctas_per_sm", 1024);
  g.hbm_bandwidth = r.number("hbm_bandwidth", false);
  g.hbm_efficiency = r.number("hbm_efficiency", false);
  g.hbm_latency_ns = r.number("hbm_latency_ns", false);
  g.hbm_channels = r.small_count("hbm_channels", 4096);
  g.l2_bytes = r.count("l2_bytes", kMaxL2Bytes);
  g.l2_line_bytes = r.small_count("l2_line_bytes", 4096);
  g.l2_sector_bytes = r.small_count("l2_sector_bytes", 4096);
  g.l2_ways = r.small_count("l2_ways", 1024);
  g.l2_partitions = r.small_count("l2_partitions", 4096);
  g.l2_near_copies = static_cast<int>(r.optional_number("l2_near_copies", true, g.l2_near_copies, 64));
  g.l2_dirty_bytes = static_cast<std::int64_t>(r.optional_number("l2_dirty_bytes", true, 0.0));
  g.l2_bandwidth = r.number("l2_bandwidth", false);
  g.l2_latency_ns = r.number("l2_latency_ns", false);
  g.sm_l2_bytes_per_cycle = r.number("sm_l2_bytes_per_cycle", false);
  g.tensor_flops_fp16 = r.number("tensor_flops_fp16", false);
  g.tensor_flops_fp32 = r.number("tensor_flops_fp32", false);
  g.fp32_flops = r.number("fp32_flops", false);
  g.sfu_exp_per_s = r.number("sfu_exp_per_s", false);
  g.mma_sync_efficiency = r.number("mma_sync_efficiency", false);
  g.wgmma_flops_per_sm_cycle =
      r.optional_number("wgmma_flops_per_sm_cycle", false, g.wgmma_flops_per_sm_cycle);
  g.wgmma_round_latency_cycles =
      r.optional_number("wgmma_round_latency_cycles", false, g.wgmma_round_latency_cycles);
  g.wgmma_exp_hidden = r.optional_number("wgmma_exp_hidden", false, g.wgmma_exp_hidden, 1.0);
  g.mma_sync_flops_per_sm_cycle =
      r.optional_number("mma_sync_flops_per_sm_cycle", false, g.mma_sync_flops_per_sm_cycle);
  g.sm_clock_tensor_hz = r.optional_number("sm_clock_tensor_hz", false, g.sm_clock_tensor_hz);
  g.smsp_per_sm = static_cast<int>(r.optional_number("smsp_per_sm", true, g.smsp_per_sm, 64));
  g.smem_bytes_per_cycle = r.optional_number("smem_bytes_per_cycle", false, g.smem_bytes_per_cycle);
  g.warp_step_overhead_cycles =
      r.optional_number("warp_step_overhead_cycles", false, g.warp_step_overhead_cycles);
  g.hbm_capacity_bytes = static_cast<std::int64_t>(r.optional_number("hbm_capacity_bytes", true, 0.0));
  // A millisecond is far beyond any launch latency: a value that large is a unit mistake (us or s for ns).
  g.launch_overhead_ns = r.optional_number("launch_overhead_ns", false, g.launch_overhead_ns, 1e6);

  // Consistency the cache model relies on.
  if (g.hbm_efficiency > 1.0) r.fail("hbm_efficiency", "must be at most 1");
  if (g.mma_sync_efficiency > 1.0) r.fail("mma_sync_efficiency", "must be at most 1");
  if (g.wgmma_flops_per_sm_cycle > 0.0 && !(g.sm_clock_tensor_hz > 0.0))
    r.fail("wgmma_flops_per_sm_cycle", "needs sm_clock_tensor_hz (the clock the per-cycle rates run at)");
  if (g.smem_per_block > g.smem_per_sm) r.fail("smem_per_block", "must not exceed smem_per_sm");
  if (!is_power_of_two(g.l2_sector_bytes)) r.fail("l2_sector_bytes", "must be a power of two");
  if (!is_power_of_two(g.l2_line_bytes) || g.l2_line_bytes % g.l2_sector_bytes != 0 ||
      g.l2_line_bytes / g.l2_sector_bytes > 4)
    r.fail("l2_line_bytes", "must be a power of two holding 1 to 4 sectors (what the L2 model packs)");
  if (g.l2_ways > 64) r.fail("l2_ways", "at most 64 ways are modeled");
  if (g.l2_near_copies > 1) r.fail("l2_near_copies", "must be 1 (leave the field out for one copy per line)");
  // The L2 model keeps state per line.
  if (g.l2_bytes / g.l2_line_bytes > kMaxL2Lines)
    r.fail("l2_bytes", fmt::format("more than {} lines of l2_line_bytes are not modeled", kMaxL2Lines));
  const std::int64_t set_bytes = std::int64_t{g.l2_line_bytes} * g.l2_ways * g.l2_partitions;
  if (g.l2_bytes % set_bytes != 0)
    r.fail("l2_bytes", "must be a multiple of l2_line_bytes * l2_ways * l2_partitions");
  if (g.l2_dirty_bytes > g.l2_bytes) r.fail("l2_dirty_bytes", "must not exceed l2_bytes");
  return g;
}

std::filesystem::path gpu_spec_dir() {
  if (const char* env = std::getenv("ATTNSCOPE_GPU_SPEC_DIR"); env != nullptr && *env != '\0') return env;
  return ATTNSCOPE_GPU_SPEC_DIR;
}

std::vector<std::string> builtin_gpu_names() {
  return {"h200", "h100", "a100"};
}

GpuSpec load_gpu_spec(std::string_view name_or_path) {
  std::filesystem::path path;
  bool builtin = false;
  for (const auto& n : builtin_gpu_names()) {
    if (name_or_path == n) {
      path = gpu_spec_dir() / (n + ".json");
      builtin = true;
    }
  }
  if (!builtin) {
    path = std::filesystem::path(name_or_path);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      std::string known;
      for (const auto& n : builtin_gpu_names()) known += (known.empty() ? "" : ", ") + n;
      throw InvalidInput("unknown GPU '" + std::string(name_or_path) + "': not one of " + known +
                         " and not a readable file");
    }
  }
  std::string text;
  try {
    text = read_input_file(path, kMaxGpuSpecBytes, "GPU spec");
  } catch (const InputFileError& e) {
    throw InvalidInput(std::string(e.what()) +
                       (builtin ? " (set ATTNSCOPE_GPU_SPEC_DIR to the folder holding h200.json)" : ""));
  }
  return parse_gpu_spec(text, path.string());
}

}  // namespace attnscope::sim
