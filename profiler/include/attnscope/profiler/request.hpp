// SPDX-License-Identifier: Apache-2.0
// What to measure: a workload, which kernels, how the L2 starts, which tile windows, which extra metrics.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"
#include "attnscope/vocab/protocol.hpp"

namespace attnscope::profiler {

// L2 state at the start of every measured range, and CUPTI's replay: the vocabulary's typed facts.
using CacheMode = vocab::CacheProtocol;
using vocab::ReplayMode;
inline std::optional<CacheMode> parse_cache_mode(std::string_view s) {
  return vocab::parse_cache_protocol(s);
}
using vocab::parse_replay_mode;
using vocab::to_string;

// How a flush puts L2 into its known state. Both first read a buffer of twice the L2's size, which writes
// back every dirty line; they differ in what L2 holds afterwards, which decides where the measured kernel's
// own writes are allocated and so how many of them reach DRAM before it ends (the L2 write-back effect).
enum class FlushMethod {
  read_discard,  // default: then discard the buffer's lines (discard.global.L2): L2 empty and clean
  read,          // stop after the read: L2 full of clean lines of the buffer
};
std::optional<FlushMethod> parse_flush_method(std::string_view s);
std::string_view to_string(FlushMethod m);

// Which tile windows to re-launch and measure, each alone (one CTA, one tile, of batch 0 / head 0).
enum class TileMode {
  none,
  sample,  // default: a few tiles at the start, middle and end of the grid
  row,     // every tile of three q-tile rows (first, middle, last)
  all,     // every tile of (batch 0, head 0)
};
std::optional<TileMode> parse_tile_mode(std::string_view s);
std::string_view to_string(TileMode m);

// One window: kernel name and the tile, in that kernel's tile units (see the kernels' dataflow).
struct WindowSpec {
  std::string kernel;  // "tiled", "naive.qk", "naive.softmax", "naive.pv"
  int batch = 0, head = 0, q_tile = 0, kv_tile = 0;
  friend bool operator==(const WindowSpec&, const WindowSpec&) = default;
};

struct MeasureRequest {
  sim::Workload workload;
  sim::KernelKind kind = sim::KernelKind::tiled;
  sim::TileConfig tiles;
  CacheMode cache = CacheMode::flush;
  ReplayMode replay = ReplayMode::user;
  std::vector<std::string> extra_metrics;  // --metric NAME (unsupported -> ProfilerError metric_unsupported)
  std::vector<WindowSpec> windows;
  bool timeline = true;              // one instrumented launch for per-tile timestamps (where compiled)
  std::uint64_t pm_sampling_ns = 0;  // > 0: one more launch per kernel under PM sampling at this interval
  bool use_cupti = true;             // false: --launch-only (run each kernel once, no counters: for ncu)
  std::uint64_t seed = 0x5eed;       // inputs are uniform random in [-1, 1), fresh per run
};

// The kernel names one kind launches for a pass, in order (sim::kernels_of: a training step is the
// forward's kernels, then the backward's).
std::vector<std::string> kernel_names(sim::KernelKind kind, sim::Pass pass = sim::Pass::fwd);

}  // namespace attnscope::profiler
