// SPDX-License-Identifier: Apache-2.0
// The report: one run of attnscope (profile, simulate or sweep), measured and modeled values side by side.
// This is the format every writer, the gates, the GUI and `compare` read. Its JSON form is versioned
// (kFormatVersion) and described by reports/schema/report.schema.json.
//
// Metrics are typed: a Metrics holds one Value per vocab::Metric (the metric table,
// vocab/include/attnscope/vocab/metric.hpp, gives each its key, unit, level and counter formula). Keys become
// text only at the file boundary (JSON, CSV, gate expressions). Raw CUPTI counters are kept apart, under
// their own names, in `counters`.
#pragma once
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"
#include "attnscope/vocab/fidelity.hpp"
#include "attnscope/vocab/metric.hpp"
#include "attnscope/vocab/protocol.hpp"

namespace attnscope::reports {

// 2: metrics typed by the metric table; `l2_read` is the bytes the SMs receive from L2 and the slices'
// count is `l2_read_lts` (format 1 called the slices' count `l2_read`); raw counters apart; typed protocol
// fields; tiles stored as columns. Format 1 files are read and converted.
inline constexpr int kFormatVersion = 2;

using vocab::Metric;

// An optional double in 8 bytes: "absent" is one NaN bit pattern no arithmetic produces. A report holds
// hundreds of thousands of these (two per metric per tile), so half the size of std::optional<double> is
// half the memory the tile entries walk. Reads like std::optional<double> and converts to it.
class MaybeDouble {
 public:
  constexpr MaybeDouble() = default;
  constexpr MaybeDouble(std::nullopt_t) {}
  constexpr MaybeDouble(double v) : bits_(std::bit_cast<std::uint64_t>(v)) {}
  constexpr MaybeDouble(const std::optional<double>& v) : bits_(v ? std::bit_cast<std::uint64_t>(*v) : kAbsent) {}
  constexpr bool has_value() const { return bits_ != kAbsent; }
  constexpr explicit operator bool() const { return has_value(); }
  constexpr double operator*() const { return std::bit_cast<double>(bits_); }
  constexpr double value_or(double fallback) const { return has_value() ? **this : fallback; }
  constexpr void reset() { bits_ = kAbsent; }
  constexpr operator std::optional<double>() const {
    return has_value() ? std::optional<double>(**this) : std::nullopt;
  }
  friend constexpr bool operator==(const MaybeDouble& a, const MaybeDouble& b) {
    return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
  }
  friend constexpr bool operator==(const MaybeDouble& a, std::nullopt_t) { return !a.has_value(); }

 private:
  static constexpr std::uint64_t kAbsent = 0x7ff4a7750a75c0deull;  // a signalling NaN with a payload
  std::uint64_t bits_ = kAbsent;
};

struct Value {
  MaybeDouble measured;  // absent: not measured (no GPU, or metric unavailable on the chip)
  MaybeDouble modeled;   // absent: the model does not predict it
  // (modeled - measured) / measured when both are present, measured != 0 and the ratio is finite.
  std::optional<double> relative_error() const;
  friend bool operator==(const Value&, const Value&) = default;
};

// One Value per metric of the table; a metric is present once it has been assigned.
class Metrics {
 public:
  Value& operator[](Metric m) {
    present_ |= bit(m);
    return values_[index(m)];
  }
  const Value* find(Metric m) const { return contains(m) ? &values_[index(m)] : nullptr; }
  bool contains(Metric m) const { return (present_ & bit(m)) != 0; }
  void erase(Metric m) {
    present_ &= ~bit(m);
    values_[index(m)] = {};
  }
  bool empty() const { return present_ == 0; }
  std::size_t size() const;
  friend bool operator==(const Metrics&, const Metrics&) = default;

  // Present metrics in table order, as (metric, value) pairs.
  class const_iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = std::pair<Metric, const Value&>;
    using difference_type = std::ptrdiff_t;
    using reference = value_type;
    using pointer = void;
    const_iterator(const Metrics* m, std::size_t i) : m_(m), i_(i) { skip(); }
    std::pair<Metric, const Value&> operator*() const {
      return {static_cast<Metric>(i_), m_->values_[i_]};
    }
    const_iterator& operator++() {
      ++i_;
      skip();
      return *this;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.i_ == b.i_; }

   private:
    void skip() {
      while (i_ < vocab::kMetricCount && !(m_->present_ & (1u << i_))) ++i_;
    }
    const Metrics* m_;
    std::size_t i_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, vocab::kMetricCount}; }

 private:
  static std::size_t index(Metric m) { return static_cast<std::size_t>(m); }
  static std::uint32_t bit(Metric m) { return 1u << index(m); }
  std::array<Value, vocab::kMetricCount> values_{};
  std::uint32_t present_ = 0;
};

// The measured or modeled side of `m`, absent when the metric or the side is.
std::optional<double> measured_of(const Metrics& metrics, Metric m);
std::optional<double> modeled_of(const Metrics& metrics, Metric m);

// Raw CUPTI counter name -> value (measured only; units as CUPTI names them).
using Counters = std::map<std::string, double>;

struct TileEntry {
  int batch = 0, head = 0, q_tile = 0, kv_tile = 0;
  std::optional<int> sm_modeled, sm_measured;
  std::optional<double> start_modeled_s, end_modeled_s;    // seconds from kernel start
  std::optional<double> start_measured_s, end_measured_s;  // from %globaltimer, seconds from kernel start
  // A tile window: the tile was launched alone (one CTA, from a flushed L2) and measured under its own
  // range. Its modeled values are the model of that lone launch, not the tile's share of the full run.
  bool lone_window = false;
  Metrics metrics;
  Counters counters;  // a window's raw counters
};

// One PM sample of a measured kernel: raw counter values accumulated over [start_s, end_s), seconds from
// the kernel's first sample (DRAM and L2 throughput over time; measured only, the model has no equivalent).
struct CounterSample {
  double start_s = 0, end_s = 0;
  std::map<std::string, double> counters;
};

// Which of a kernel's tiles a report keeps.
enum class TileSubset : std::uint8_t {
  all,       // every tile the kernel runs
  head0,     // batch 0 / head 0 only
  measured,  // tiles with a timeline record or a window measurement
  windows,   // window measurements only
};
std::string_view to_string(TileSubset s);
std::optional<TileSubset> parse_tile_subset(std::string_view s);

struct KernelEntry {
  std::string name;  // "tiled", "naive.qk", "naive.softmax", "naive.pv"
  Metrics metrics;
  Counters counters;  // raw CUPTI counters of the whole kernel (measured)
  std::vector<TileEntry> tiles;
  // How many tiles the kernel runs in all, and which of them `tiles` keeps ("2,048 of 65,536 tiles").
  std::int64_t tiles_total = 0;
  TileSubset tiles_kept = TileSubset::all;
  std::vector<CounterSample> samples;        // empty unless profiled with --pm-sampling
  std::map<std::string, std::string> notes;  // e.g. {"l2_writeback": "explanation"}
};

// A recording a report joins (a re-modeled report can join several, e.g. the naive kernels from one run and
// the tiled kernel from another).
struct Recording {
  std::string file;          // as the report's writer found it
  std::string date;          // the recording's provenance date
  std::string git_revision;  // the revision that measured it
  std::vector<std::string> kernels;
  friend bool operator==(const Recording&, const Recording&) = default;
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
  std::optional<vocab::CacheProtocol> cache;  // absent: not profiled
  std::optional<vocab::ReplayMode> replay;    // absent: not profiled
  std::string gpu_spec;                       // model's GPU spec short name or file
  std::vector<Recording> recordings;          // the measurements this report joins (empty: its own)
};

// A two-fidelity sweep's closed-form numbers for a point (sim/tile_bound.hpp): lower bounds on the cycle
// model's time and HBM bytes, and the floor that set the time.
struct PointBound {
  double time_s = 0;
  double dram_read_min = 0, dram_write_min = 0;
  std::string limiter;  // sim::BoundFloor as text: "tensor", "serial", ...
  bool operator==(const PointBound&) const = default;
};

struct SweepPoint {
  sim::Workload workload;
  sim::KernelKind kind = sim::KernelKind::tiled;
  sim::TileConfig tiles;
  std::string gpu_spec;
  std::int64_t smem_limit = 0;  // bytes of shared memory per CTA allowed in this point
  bool feasible = true;
  std::string infeasible_reason;
  Metrics metrics;         // modeled only, by `fidelity`
  std::int64_t index = 0;  // position in the full sweep's enumeration (shards keep it; merge sorts by it)
  vocab::Fidelity fidelity = vocab::Fidelity::cycle_model;  // the model that produced `metrics`
  std::optional<PointBound> bound;                          // set by a two-fidelity sweep
};

// What a sweep enumerated, so shards of one sweep can be recognised and joined (`attnscope merge`).
struct SweepDefinition {
  std::string text;               // canonical description of the axes and the base workload; "" = not a sweep
  std::int64_t total_points = 0;  // points in the whole sweep (all shards)
  int shard_index = 0;            // this report holds points with index % shard_count == shard_index
  int shard_count = 1;
  vocab::SweepFidelity fidelity = vocab::SweepFidelity::cycle;  // two: `total_points` priced, some kept
  std::int64_t problems = 0;  // two: problems in the whole sweep (shards split them: index % count)
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

// The tile a report's kernels ran with, for headers: the tiled kernel's label, the Hopper kernel's
// (hopper_label) when the report has only that one, both when it has both.
std::string tiles_label(const Report& report);
// The tile of one sweep point: its kind's label ("-" for the naive kernels, whose tiling is fixed).
std::string tiles_label(const SweepPoint& p);

}  // namespace attnscope::reports
