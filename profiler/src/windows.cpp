// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/windows.hpp"

#include <algorithm>
#include <set>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"

namespace attnscope::profiler {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// The kernels' fixed softmax tiling: one warp per row, 8 rows per CTA (see the dataflow).
constexpr int kSoftmaxRowsPerCta = 8;

// Query-tile height and kv-tile width of a kernel, in rows / keys.
std::pair<std::int64_t, std::int64_t> tile_extent(const sim::TileConfig& t, const std::string& kernel) {
  if (kernel == "tiled") return {t.br, t.bc};
  if (kernel == "hopper") return {std::int64_t{64} * t.hopper_consumers, t.hopper_bc};
  if (kernel == "naive.qk") return {t.gemm_bm, t.gemm_bn};
  if (kernel == "naive.softmax") return {kSoftmaxRowsPerCta, 0};
  if (kernel == "naive.pv") return {t.gemm_bm, 0};
  throw sim::InvalidInput("unknown kernel name '" + kernel + "'");
}

}  // namespace

TileGrid tile_grid(const sim::Workload& w, const sim::TileConfig& t, const std::string& kernel) {
  const auto [rows, keys] = tile_extent(t, kernel);
  TileGrid g;
  g.q_tiles = static_cast<int>(ceil_div(w.seq_q, rows));
  g.kv_tiles = keys > 0 ? static_cast<int>(ceil_div(w.seq_kv, keys)) : 1;
  return g;
}

bool tile_visited(const sim::Workload& w, const sim::TileConfig& t, const std::string& kernel, int q_tile,
                  int kv_tile) {
  const TileGrid g = tile_grid(w, t, kernel);
  if (q_tile < 0 || q_tile >= g.q_tiles || kv_tile < 0 || kv_tile >= g.kv_tiles) return false;
  if (!w.causal) return true;
  const auto [rows, keys] = tile_extent(t, kernel);
  // Bottom-right aligned mask: row i sees key j iff j <= i + Nkv - Nq.
  const std::int64_t last_row = std::min<std::int64_t>(w.seq_q, (q_tile + 1) * rows) - 1;
  const std::int64_t last_key_seen = last_row + w.seq_kv - w.seq_q;
  if (last_key_seen < 0) return false;  // the whole tile of rows sees no key
  if (keys == 0) return true;           // softmax / pv: one tile per row block
  return kv_tile * keys <= last_key_seen;
}

std::vector<WindowSpec> plan_windows(const sim::Workload& w, sim::KernelKind kind, const sim::TileConfig& t,
                                     TileMode mode) {
  std::vector<WindowSpec> out;
  // A lone window runs one tile as a workload of its own rows and keys, which keeps a causal mask's effect on
  // bytes (none inside a visited tile) but not a sliding window's or ALiBi's position along the diagonal.
  if (mode == TileMode::none || w.general_mask()) return out;
  for (const auto& kernel : kernel_names(kind)) {
    const TileGrid g = tile_grid(w, t, kernel);
    std::set<int> rows;
    if (mode == TileMode::all) {
      for (int q = 0; q < g.q_tiles; ++q) rows.insert(q);
    } else {
      rows = {0, g.q_tiles / 2, g.q_tiles - 1};
    }
    for (int q : rows) {
      std::vector<int> visited;
      for (int kv = 0; kv < g.kv_tiles; ++kv)
        if (tile_visited(w, t, kernel, q, kv)) visited.push_back(kv);
      if (visited.empty()) continue;
      std::set<int> cols;
      if (mode == TileMode::sample) {
        cols = {visited.front(), visited.back()};
      } else {
        cols.insert(visited.begin(), visited.end());
      }
      for (int kv : cols) out.push_back(WindowSpec{kernel, 0, 0, q, kv});
    }
  }
  return out;
}

sim::Workload window_workload(const sim::Workload& w, const sim::TileConfig& t, const WindowSpec& window) {
  const auto [rows, keys] = tile_extent(t, window.kernel);
  sim::Workload ww = w;
  ww.name = w.name + "[" + window.kernel + " window]";
  ww.batch = 1;
  ww.heads = 1;
  ww.scale = w.effective_scale();
  ww.seq_q = std::min<std::int64_t>(rows, w.seq_q - static_cast<std::int64_t>(window.q_tile) * rows);
  // One kv tile (tiled, naive.qk), or whole rows of S (softmax, pv).
  ww.seq_kv = keys > 0
                  ? std::min<std::int64_t>(keys, w.seq_kv - static_cast<std::int64_t>(window.kv_tile) * keys)
                  : w.seq_kv;
  // The lone tile moves the same bytes with or without the mask (masking inside a visited tile changes
  // arithmetic, not loads or stores), and the small workload cannot reproduce the mask's alignment.
  ww.causal = false;
  if (ww.seq_q <= 0 || ww.seq_kv <= 0)
    throw sim::InvalidInput("tile window " + window.kernel + " (" + std::to_string(window.q_tile) + ", " +
                            std::to_string(window.kv_tile) + ") lies outside the workload");
  return ww;
}

sim::KernelResult model_window(const sim::GpuSpec& gpu, const sim::Workload& w, sim::KernelKind kind,
                               const sim::TileConfig& t, const WindowSpec& window) {
  sim::SimOptions o;
  o.l2_start = sim::L2Start::cold;
  o.record_tiles = false;
  o.threads = 1;
  // The lone launch runs this one kernel from a flushed L2: without `only`, the naive kind's earlier kernels
  // would run first and leave S (or P) in the model's L2, where the lone softmax or pv found it as hits.
  o.only = sim::parse_kernel_id(window.kernel);
  const sim::SimResult r = sim::simulate(gpu, window_workload(w, t, window), kind, t, o);
  for (const auto& k : r.kernels)
    if (k.name == window.kernel) return k;
  throw sim::InvalidInput("the model has no kernel '" + window.kernel + "' for the window's workload");
}

}  // namespace attnscope::profiler
