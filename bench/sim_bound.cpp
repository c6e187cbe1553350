// SPDX-License-Identifier: Apache-2.0
// Speed of the closed-form bound (sim/tile_bound.hpp) against its target of >= 100,000 points per second on
// one core: the tile space of the committed million-point sweep (docs/guide.md), causal and not. Run:
//   build/bench/attnscope_bench_sim --benchmark_filter=Bound
#include <benchmark/benchmark.h>

#include <vector>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/tile_bound.hpp"

namespace {

using namespace attnscope;

void bound_points(benchmark::State& state, std::int64_t seq, bool causal) {
  const sim::GpuSpec gpu = sim::load_gpu_spec("h200");
  sim::Workload w;
  w.heads = 16;
  w.seq_q = w.seq_kv = seq;
  w.head_dim = 128;
  w.causal = causal;
  std::vector<sim::TileConfig> tiles;
  for (int br : {16, 32, 64, 128, 256})
    for (int bc : {16, 32, 64, 128, 256})
      for (int warps : {1, 2, 4, 8, 16})
        for (int stages : {1, 2, 3, 4}) {
          sim::TileConfig t;
          t.br = br;
          t.bc = bc;
          t.warps = warps;
          t.stages = stages;
          tiles.push_back(t);
        }
  std::size_t i = 0;
  for (auto _ : state) {
    // Every point, including those the bound refuses (as a sweep meets them).
    try {
      benchmark::DoNotOptimize(sim::tiled_forward_bound(gpu, w, tiles[i]).time_s);
    } catch (const sim::InvalidInput&) {
    }
    i = i + 1 == tiles.size() ? 0 : i + 1;
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_BoundN4k(benchmark::State& s) {
  bound_points(s, 4096, false);
}
void BM_BoundN4kCausal(benchmark::State& s) {
  bound_points(s, 4096, true);
}
BENCHMARK(BM_BoundN4k)->MinTime(1.0);
BENCHMARK(BM_BoundN4kCausal)->MinTime(1.0);

}  // namespace
