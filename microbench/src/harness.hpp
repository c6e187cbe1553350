// SPDX-License-Identifier: Apache-2.0
// The microbenchmarks' host harness: the benchmark registry, the JSON recorder and summary statistics.
// Plain C++17 (included from the .cu files, which nvcc compiles as C++17).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace attnscope::microbench {

struct Stats {
  double median = 0, min = 0, max = 0;
  int n = 0;
};
Stats summarize(std::vector<double> samples);

// One parameter of a measurement: a number or a word.
struct Param {
  std::string key;
  std::string text;
  double number = 0;
  bool is_number = false;
  Param(std::string k, double v) : key(std::move(k)), number(v), is_number(true) {}
  Param(std::string k, int v) : key(std::move(k)), number(v), is_number(true) {}
  Param(std::string k, std::int64_t v) : key(std::move(k)), number(static_cast<double>(v)), is_number(true) {}
  Param(std::string k, const char* v) : key(std::move(k)), text(v) {}
  Param(std::string k, std::string v) : key(std::move(k)), text(std::move(v)) {}
};
using Params = std::vector<Param>;

// Per-block clock record written by thread 0 of each block: %clock64 and %globaltimer at start and end.
struct BlockClock {
  std::uint64_t c0, c1, g0, g1;
};
// Mean cycles per block, and the effective SM clock (sum of cycles over sum of globaltimer ns) in GHz.
struct ClockSummary {
  double mean_cycles = 0, max_cycles = 0, ghz = 0;
};
ClockSummary summarize_clocks(const std::vector<BlockClock>& blocks);

class Recorder {
 public:
  Recorder();
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  void device(const Params& info);
  void describe(const std::string& bench, const std::string& what);
  // One measured quantity: its repetitions' samples (median, min, max kept with the samples), optionally the
  // effective SM clock seen during each repetition (GHz).
  void result(const std::string& bench, const std::string& metric, const std::string& unit,
              const std::vector<double>& samples, const Params& params,
              const std::vector<double>& clock_ghz = {}, const std::string& note = "");
  // A histogram: bins of `bin_width` starting at `first`, counts per bin.
  void histogram(const std::string& bench, const std::string& metric, const std::string& unit, double first,
                 double bin_width, const std::vector<std::int64_t>& counts, const Params& params);
  // A sanity check (a checksum, a result range): failures are kept in the file and counted.
  void check(const std::string& bench, const std::string& what, bool ok, const std::string& detail);
  void elapsed(const std::string& bench, double seconds);
  int failed_checks() const;
  bool write(const std::string& path) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct Context {
  int device = 0;
  int sm_count = 0;
  int l2_bytes = 0;
  int smem_per_block_optin = 0;
  bool quick = false;  // fewer repetitions (a smoke run)
  Recorder* rec = nullptr;
  int reps(int full) const { return quick ? (full < 3 ? full : 3) : full; }
};

struct Benchmark {
  std::string name;
  std::string what;  // one line: what it measures
  std::function<void(Context&)> run;
};

// Each benchmark file adds its benchmarks here.
void add_compute_benchmarks(std::vector<Benchmark>& out);
void add_smem_benchmarks(std::vector<Benchmark>& out);
void add_memory_benchmarks(std::vector<Benchmark>& out);
void add_launch_benchmarks(std::vector<Benchmark>& out);
void add_wgmma_benchmarks(std::vector<Benchmark>& out);
void add_wgmma_overlap_benchmarks(std::vector<Benchmark>& out);
void add_partial_sector_benchmarks(std::vector<Benchmark>& out);
void add_latency_benchmarks(std::vector<Benchmark>& out);

// Progress line on stdout (flushed).
void progress(const std::string& line);

}  // namespace attnscope::microbench
