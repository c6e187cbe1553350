// SPDX-License-Identifier: Apache-2.0
// Speed of the model against its targets (one core unless said): llm-4k tiled <= 200 ms, llm-4k naive <= 1 s,
// a 1,000-point tile sweep <= 60 s on 2 cores. Run:
//   build/bench/attnscope_bench_sim --benchmark_out=tests/data/bench/sim_model.json
//   --benchmark_out_format=json
#include <benchmark/benchmark.h>

#include <algorithm>
#include <ctime>

#include "attnscope/sim/simulate.hpp"
#include "attnscope/sim/sweep.hpp"

namespace {

using namespace attnscope;

void simulate_preset(benchmark::State& state, sim::KernelKind kind, bool record_tiles) {
  const sim::GpuSpec gpu = sim::load_gpu_spec("h200");
  const sim::Workload w = sim::preset("llm-4k");
  sim::SimOptions o;
  o.record_tiles = record_tiles;
  for (auto _ : state) {
    sim::SimResult r = sim::simulate(gpu, w, kind, sim::TileConfig{}, o);
    benchmark::DoNotOptimize(r.time_s);
  }
}

void BM_SimulateTiledLlm4k(benchmark::State& s) {
  simulate_preset(s, sim::KernelKind::tiled, true);
}
void BM_SimulateTiledLlm4kNoTiles(benchmark::State& s) {
  simulate_preset(s, sim::KernelKind::tiled, false);
}
void BM_SimulateNaiveLlm4k(benchmark::State& s) {
  simulate_preset(s, sim::KernelKind::naive, true);
}
BENCHMARK(BM_SimulateTiledLlm4k)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_SimulateTiledLlm4kNoTiles)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_SimulateNaiveLlm4k)->Unit(benchmark::kMillisecond)->MinTime(3.0);

// A 1,000-point tile sweep at the llm-4k shape: head dim x causal x Br x Bc x stages x launch order, tiled
// kernel, records off (what `attnscope sweep` does). Points whose tile does not fit shared memory fail fast.
std::vector<sim::SweepJob> thousand_points() {
  const sim::GpuSpec gpu = sim::load_gpu_spec("h200");
  std::vector<sim::SweepJob> jobs;
  for (int d : {64, 128})
    for (bool causal : {false, true})
      for (int br : {32, 64, 128, 256, 512})
        for (int bc : {16, 32, 64, 128, 256})
          for (int stages : {1, 2, 3, 4, 5})
            for (auto order : {sim::LaunchOrder::q_tile_fastest, sim::LaunchOrder::head_fastest}) {
              sim::SweepJob j;
              j.gpu = gpu;
              j.workload = sim::preset("llm-4k");
              j.workload.head_dim = d;
              j.workload.causal = causal;
              j.tiles.br = br;
              j.tiles.warps = std::min(br / 16, 16);
              j.tiles.bc = bc;
              j.tiles.stages = stages;
              j.tiles.order = order;
              jobs.push_back(j);
            }
  return jobs;
}

void BM_Sweep1000Points2Threads(benchmark::State& state) {
  const auto jobs = thousand_points();
  sim::SimOptions o;
  o.record_tiles = false;
  std::size_t feasible = 0;
  const std::clock_t cpu0 = std::clock();  // CPU time of the whole process: both threads
  for (auto _ : state) {
    const auto out = sim::run_sweep(jobs, o, 2);
    feasible = 0;
    for (const auto& p : out) feasible += p.result.has_value() ? 1 : 0;
  }
  state.counters["points"] = static_cast<double>(jobs.size());
  state.counters["feasible"] = static_cast<double>(feasible);
  // On a shared machine the wall time depends on the neighbours; CPU seconds / 2 is the time on 2 free cores.
  state.counters["process_cpu_s"] = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
}
BENCHMARK(BM_Sweep1000Points2Threads)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
