// SPDX-License-Identifier: Apache-2.0
// How far the model is from the hardware: measured cases (kernel benchmarks, profile reports) run through
// simulate() with the same workload and tiles, summarised per metric and kernel as median and worst
// |relative error| against issue 8's targets, with a ratchet baseline so CI catches drift.
//
//   auto cases = sim::load_benchmark_cases("tests/data/bench/kernels_h200_2026-12-02.json");
//   auto evals = sim::evaluate_cases(gpu, cases);
//   auto rows  = sim::accuracy_table(evals);
//   sim::check_against_baseline(rows, sim::read_baseline(path));  // empty = no drift
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/simulate.hpp"

namespace attnscope::sim {

// Measured bytes of one tile (profile reports' per-tile entries), by metric key ("dram_read", ...).
struct MeasuredTile {
  int batch = 0, head = 0, q_tile = 0, kv_tile = 0;
  std::map<std::string, double> measured;
  // The model of the same measurement, when the caller has it: a tile window measured alone (one CTA, cold
  // L2) is compared with the model of that lone launch, not with the tile's share of the full run. Empty:
  // the full run's per-tile attribution is used.
  std::map<std::string, double> modeled;
};

// One measured kernel run. `kernel` is "tiled", "naive.qk", "naive.softmax", "naive.pv", or "naive" (the
// three kernels back to back, timed as one).
struct AccuracyCase {
  std::string id;      // e.g. the benchmark name, or "<report file>:<kernel>"
  std::string origin;  // file it came from (relative to the data folder)
  std::string kernel;
  // When it was measured (ISO 8601 UTC from the report's provenance or the benchmark context): of several
  // measurements of the same case only the newest counts (newest_per_case).
  std::string date;
  // How it was measured beyond the L2 start: "bench" (Google Benchmark), "cupti" (user replay), "cupti
  // kernel-replay". Measurements taken differently are different cases.
  std::string method;
  Workload workload;
  KernelKind kind = KernelKind::tiled;
  TileConfig tiles;
  L2Start l2_start = L2Start::cold;  // benchmarks flush L2 before every timed iteration
  // A naive kernel measured inside the back-to-back chain (profiler --cache sequence): modeled as that kernel
  // of the whole chain, not alone.
  bool in_sequence = false;
  std::map<std::string, double> measured;  // "time" (s), "dram_read", "dram_write", "l2_read", "l2_read_lts",
                                           // "l2_write" (B)
  std::vector<MeasuredTile> measured_tiles;  // compared as metric "tile_bytes" (every byte metric of a tile)
  bool training = false;                     // part of the subset the model's fitted constants were fitted on
};

// The training subset (stated in docs/accuracy.md): tiled, head dim 64, fp16, non-causal, 4k tokens.
bool is_training_case(const AccuracyCase& c);

// Reads a Google Benchmark JSON file of bench/kernels_attention.cpp (median aggregates; the label names the
// configuration; the naive tiling is that of the kernels of the file's date, naive_tiling_measured_at).
// Throws InvalidInput on a file it cannot read or a label it cannot parse.
std::vector<AccuracyCase> load_benchmark_cases(const std::filesystem::path& path);

// One measurement per case: cases that agree on kernel, workload, tiles, L2 start and method (a re-measured
// configuration in a newer run folder) are merged so that each metric, and the tile windows, come from the
// newest measurement that has them; older runs stay in tests/data as history. A measurement of other naive
// kernels (before they changed: TileConfig::same_naive_tiling) contributes nothing to a newer one. `dropped`
// (optional) receives the number of measurements that newer ones replaced entirely.
std::vector<AccuracyCase> newest_per_case(std::vector<AccuracyCase> cases, std::size_t* dropped = nullptr);

// Measured and modeled value of one metric of one case (or one tile, for "tile_bytes").
struct AccuracyPoint {
  std::string case_id, kernel, metric;
  double measured = 0, modeled = 0;
  bool training = false;
  double relative_error() const;  // |modeled - measured| / measured
};

// Runs the model for every case (on `threads` threads; 0 = all cores) and returns one point per measured
// metric. Cases with the same simulation share one run.
std::vector<AccuracyPoint> evaluate_cases(const GpuSpec& gpu, const std::vector<AccuracyCase>& cases,
                                          int threads = 0);

struct AccuracyTarget {
  double median = 0;
  std::optional<double> worst;  // absent: no worst-case target (tile-window bytes)
};
// Issue 8's targets: DRAM 3%/8%, L2 5%/10%, time 10%/20%, tile-window bytes 5% median.
std::optional<AccuracyTarget> target_for(const std::string& metric);

struct AccuracyRow {
  std::string metric, kernel;
  int n = 0, n_training = 0;
  std::optional<double> median, worst;                        // over all cases; absent: no measurement
  std::optional<double> median_validation, worst_validation;  // over validation cases only
  std::optional<AccuracyTarget> target;
  bool meets() const;  // median and worst within target (false without measurement)
};

// The rows every table has (metric x kernel, "no measurement" where nothing was measured), filled in from
// `points`.
std::vector<AccuracyRow> accuracy_table(const std::vector<AccuracyPoint>& points);
std::string accuracy_markdown(const std::vector<AccuracyRow>& rows);

// Ratchet baseline: the rows as last recorded (scripts/accuracy_table.sh writes it; never hand-edited).
struct BaselineRow {
  std::string metric, kernel;
  double median = 0, worst = 0;
  bool meets = false;
};
std::vector<BaselineRow> read_baseline(const std::filesystem::path& path);  // throws InvalidInput
void write_baseline(const std::filesystem::path& path, const std::vector<AccuracyRow>& rows);
// Why the check fails, one line per row: a row that met its target no longer does, or a row that missed got
// worse than its baseline. Empty = pass.
std::vector<std::string> check_against_baseline(const std::vector<AccuracyRow>& rows,
                                                const std::vector<BaselineRow>& baseline);

}  // namespace attnscope::sim
