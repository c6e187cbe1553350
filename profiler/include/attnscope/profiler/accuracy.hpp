// SPDX-License-Identifier: Apache-2.0
// How far the model is from the hardware: the evaluation harness over the committed measurements. Its
// points are the measured-versus-modeled joins the reports show (remodel_report, under each recording's cache
// protocol and replay mode), never a second modeling of the same thing; kernel benchmarks (time only) are
// modeled under their own protocol (L2 flushed before every iteration). Summarised per metric and kernel as
// median and worst |relative error| against the metric table's targets, with a ratchet baseline so CI
// catches drift.
//
//   profiler::ModelCache models(gpu);
//   auto cases = profiler::cases_from_report(report, "h200/run/x.json", models);
//   auto rows  = profiler::accuracy_table(profiler::newest_per_case(cases));
//   profiler::check_against_baseline(rows, profiler::read_baseline(path));  // empty = no drift
#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/profiler/matrix.hpp"
#include "attnscope/profiler/model_cache.hpp"
#include "attnscope/reports/report.hpp"
#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/vocab/metric.hpp"

namespace attnscope::profiler {

// A row of the accuracy table measures one metric of the table, or (absent) the bytes of lone tile windows
// ("tile_bytes": every tile-level metric of every measured window).
using AccuracyMetric = std::optional<vocab::Metric>;
std::string accuracy_metric_name(const AccuracyMetric& m);
std::optional<AccuracyMetric> parse_accuracy_metric(std::string_view name);

// One measured value and the model's value of the same thing.
struct AccuracyPoint {
  std::string case_id, kernel;
  AccuracyMetric metric;
  double measured = 0, modeled = 0;
  bool training = false;
  bool fresh = false;  // a shape drawn at random (profile --matrix fresh), never fitted on: is_fresh_origin
  double relative_error() const;  // |modeled - measured| / measured
};

// One measured kernel run: a kernel of a report, or a benchmark. `kernel` is "tiled", "naive.qk",
// "naive.softmax", "naive.pv", or "naive" (the three kernels back to back, timed as one).
struct AccuracyCase {
  std::string id;      // e.g. the benchmark name, or "<report file>:<kernel>"
  std::string origin;  // file it came from (relative to the data folder)
  std::string kernel;
  std::string date;  // ISO 8601 UTC: of several measurements of one case only the newest counts
  // What makes two measurements the same case: kernel, workload, tiles, cache protocol and method ("bench",
  // "cupti" user replay, "cupti kernel-replay").
  std::string identity;
  sim::TileConfig tiles;
  sim::Workload workload;
  std::map<vocab::Metric, AccuracyPoint> points;  // kernel-level metrics with a target
  std::vector<AccuracyPoint> tile_points;         // lone tile windows
  bool training = false;  // part of the subset the model's fitted constants were fitted on
  bool fresh = false;     // from a fresh-shape run (is_fresh_origin)
};

// Whether a report (its path under the data folder) comes from a fresh-shape run: a folder named fresh-<UTC
// stamp>, where `attnscope profile --matrix fresh` writes the shapes drawn from that day's seed.
bool is_fresh_origin(std::string_view shown);

// The training subset (stated in docs/accuracy.md): tiled, head dim 64, fp16, non-causal, 4k tokens; hopper,
// head dim 128, fp16, non-causal, 4k tokens.
bool is_training_case(const std::string& kernel, const sim::Workload& w);

// The cases of one profile report: `remodeled` is the recording joined with this build's model
// (remodel_report); every kernel-level metric with a target and both sides becomes a point, every lone
// window's tile-level metrics tile points. `shown` names the file in case ids.
std::vector<AccuracyCase> cases_from_report(const reports::Report& remodeled, const std::string& shown);

// The cases of one recorded profile report, as `attnscope accuracy` computes them: its kernels (those whose
// case id "<shown>:<kernel>" `keep` accepts, all when `keep` is empty) joined with this build's model by
// remodel_report (the join every report shows), then cases_from_report. Not a profile: no cases. Kernels
// measured before they last changed (measured_before_kernel_change) are left out and counted in
// `superseded` (optional).
std::vector<AccuracyCase> cases_from_recording(const reports::Report& recorded, const std::string& shown,
                                               ModelCache& models,
                                               const std::function<bool(const std::string&)>& keep = {},
                                               std::size_t* superseded = nullptr);

// The cases of a Google Benchmark JSON file of bench/kernels_attention.cpp (median aggregates; the label
// names the configuration), each modeled under the benchmark's protocol: a flush before every iteration
// (the three naive kernels timed as one: flushed once, then back to back). Throws sim::InvalidInput on a
// file it cannot read or a label it cannot parse. The model runs on `threads` threads (0: all cores).
std::vector<AccuracyCase> cases_from_benchmarks(const std::filesystem::path& path, ModelCache& models,
                                                int threads = 0);

// The cases of a `profile --matrix` log (matrix.hpp, read from `path`; committed when a run's reports could
// not be): the points of one kernel (tiled, hopper), whose totals are that kernel's measured DRAM read and
// time under the flushed protocol, each modeled under it. Points of the naive or backward kinds sum several
// kernels measured one by one, which no case of the table is: they are left out and counted in `left_out`.
// The case date is the UTC stamp of the folder the log lies in (tests/data/h200/<name>-<UTC stamp>/). Throws
// sim::InvalidInput.
std::vector<AccuracyCase> cases_from_matrix_log(const MatrixLog& log, const std::filesystem::path& path,
                                                const std::string& shown, ModelCache& models,
                                                std::size_t* left_out = nullptr);

// One measurement per case: measurements with the same identity (a configuration re-measured in a newer
// run folder) are merged so that each metric, and the tile windows, come from the newest measurement that
// has them. A measurement of other naive kernels (before they changed: TileConfig::same_naive_tiling)
// contributes nothing to a newer one. `dropped` (optional) receives the number of measurements that newer
// ones replaced entirely.
std::vector<AccuracyCase> newest_per_case(std::vector<AccuracyCase> cases, std::size_t* dropped = nullptr);

std::vector<AccuracyPoint> points_of(const std::vector<AccuracyCase>& cases);

struct AccuracyTarget {
  double median = 0;
  std::optional<double> worst;  // absent: no worst-case target (tile-window bytes)
};
// The metric table's target; tile windows: 5 % median.
std::optional<AccuracyTarget> target_for(const AccuracyMetric& metric);

struct AccuracyRow {
  AccuracyMetric metric;
  std::string kernel;
  int n = 0, n_training = 0;
  std::optional<double> median, worst;                        // over all cases; absent: no measurement
  std::optional<double> median_validation, worst_validation;  // over validation cases only
  int n_fresh = 0;
  std::optional<double> median_fresh, worst_fresh;  // over the fresh shapes only
  std::optional<AccuracyTarget> target;
  bool meets() const;  // median and worst within target (false without measurement)
};

// The rows every table has (metric x kernel, "no measurement" where nothing was measured).
std::vector<AccuracyRow> accuracy_table(const std::vector<AccuracyPoint>& points);
// The tables, led by the fresh shapes' verdict (accuracy_headline): the metrics with a target, then (after
// kAccuracyUntargetedMarker, where the README's copy stops) the other measured and modeled metrics, then the
// keys a report shows without an error and why.
std::string accuracy_markdown(const std::vector<AccuracyRow>& rows);
inline constexpr std::string_view kAccuracyUntargetedMarker = "<!-- accuracy:untargeted -->";
// One line per kernel measured on fresh shapes: its DRAM read, DRAM write and time errors there (median /
// worst) against the targets (a line saying none were measured, without fresh points). The README's headline
// accuracy.
std::string accuracy_headline(const std::vector<AccuracyRow>& rows);

// Ratchet baseline: the rows as last recorded (scripts/accuracy_table.sh writes it; never hand-edited).
struct BaselineRow {
  std::string metric, kernel;
  double median = 0, worst = 0;
  bool meets = false;
};
std::vector<BaselineRow> read_baseline(const std::filesystem::path& path);  // throws sim::InvalidInput
void write_baseline(const std::filesystem::path& path, const std::vector<AccuracyRow>& rows);
// Why the check fails, one line per row: a row that met its target no longer does, or a row that missed got
// worse than its baseline. Empty = pass.
std::vector<std::string> check_against_baseline(const std::vector<AccuracyRow>& rows,
                                                const std::vector<BaselineRow>& baseline);

}  // namespace attnscope::profiler
