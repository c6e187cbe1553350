// SPDX-License-Identifier: Apache-2.0
// The report: one run of attnscope (profile, simulate or sweep), measured and modeled values side by side.
// This is the format every writer, the gates, the GUI and `compare` read. Its JSON form is versioned
// (kFormatVersion) and described by reports/schema/report.schema.json.
//
// Metric keys (the same at kernel and tile level, and in gates such as 'tiled.dram_read.error < 5%'):
//   dram_read, dram_write   bytes       HBM traffic
//   l2_read, l2_write       bytes       SM -> L2 requests
//   l2_hit                  bytes       part of l2 requests that hit
//   smem_read, smem_write   bytes       shared memory traffic
//   time                    seconds     kernel duration
//   cycles                  SM cycles
//   flops                   FLOP
//   (any further key a user adds by CUPTI metric name, measured only)
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"

namespace attnscope::reports {

inline constexpr int kFormatVersion = 1;

struct Value {
  std::optional<double> measured;  // absent: not measured (no GPU, or metric unavailable on the chip)
  std::optional<double> modeled;   // absent: the model does not predict it
  std::string unit;                // "B", "s", "cycles", "FLOP", ...
  // (modeled - measured) / measured when both are present and measured != 0.
  std::optional<double> relative_error() const;
};
using Metrics = std::map<std::string, Value>;

struct TileEntry {
  int batch = 0, head = 0, q_tile = 0, kv_tile = 0;
  std::optional<int> sm_modeled, sm_measured;
  std::optional<double> start_modeled_s, end_modeled_s;    // seconds from kernel start
  std::optional<double> start_measured_s, end_measured_s;  // from %globaltimer, seconds from kernel start
  Metrics metrics;
};

// One PM sample of a measured kernel: raw counter values accumulated over [start_s, end_s), seconds from
// the kernel's first sample (DRAM and L2 throughput over time; measured only, the model has no equivalent).
struct CounterSample {
  double start_s = 0, end_s = 0;
  std::map<std::string, double> counters;
};

struct KernelEntry {
  std::string name;  // "tiled", "naive.qk", "naive.softmax", "naive.pv"
  Metrics metrics;
  std::vector<TileEntry> tiles;
  std::vector<CounterSample> samples;        // empty unless profiled with --pm-sampling
  std::map<std::string, std::string> notes;  // e.g. {"l2_writeback": "explanation"}
};

struct Provenance {
  std::string tool_version, git_revision;
  std::string date;     // ISO 8601 UTC
  std::string command;  // full command line
  std::string host;
  std::string gpu_name;  // measured device, or the modeled spec when nothing was measured
  std::string driver;    // "580.159.04" or empty
  std::string cuda_runtime;
  std::optional<double> sm_clock_mhz, mem_clock_mhz;
  std::string cache_mode;  // "flush" | "warm" | "" (not profiled)
  std::string gpu_spec;    // model's GPU spec short name or file
};

// A sweep: one row per configuration, for what-if studies.
struct SweepPoint {
  sim::Workload workload;
  sim::KernelKind kind = sim::KernelKind::tiled;
  sim::TileConfig tiles;
  std::string gpu_spec;
  std::int64_t smem_limit = 0;  // bytes of shared memory per CTA allowed in this point
  bool feasible = true;
  std::string infeasible_reason;
  Metrics metrics;         // modeled only
  std::int64_t index = 0;  // position in the full sweep's enumeration (shards keep it; merge sorts by it)
};

// What a sweep enumerated, so shards of one sweep can be recognised and joined (`attnscope merge`).
struct SweepDefinition {
  std::string text;               // canonical description of the axes and the base workload; "" = not a sweep
  std::int64_t total_points = 0;  // points in the whole sweep (all shards)
  int shard_index = 0;            // this report holds points with index % shard_count == shard_index
  int shard_count = 1;
};

struct Report {
  int format_version = kFormatVersion;
  std::string kind = "profile";  // "profile" | "simulate" | "sweep"
  Provenance provenance;
  sim::Workload workload;
  sim::TileConfig tiles;             // tiled kernel's Br/Bc/warps/stages and the naive GEMM tiling
  std::vector<KernelEntry> kernels;  // naive.qk, naive.softmax, naive.pv and/or tiled, in launch order
  std::vector<SweepPoint> sweep;
  SweepDefinition sweep_definition;  // set when kind == "sweep"
};

// The kernel entry called `name`, or nullptr.
const KernelEntry* find_kernel(const Report& report, std::string_view name);
// The unit a known metric key is measured in ("B" for bytes, "s", "cycles", "FLOP"); "" for unknown keys.
std::string_view default_unit(std::string_view metric);
// True for metrics where more is worse (bytes moved, time, cycles): what `compare` calls a regression.
bool lower_is_better(std::string_view metric);
// Known metric keys in display order (the keys listed above).
const std::vector<std::string>& known_metric_keys();
// The keys of `metrics` in display order: known keys first in the order above, then the rest by name.
std::vector<std::string> ordered_metric_keys(const Metrics& metrics);

}  // namespace attnscope::reports
