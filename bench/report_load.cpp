// SPDX-License-Identifier: Apache-2.0
// Speed of the report boundary: reading a 65,536-tile report (llm-4k tiled, every tile of every head) from
// its JSON file, and building the GUI's tile heatmap model over it (the work behind opening a report and
// switching kernels), and turning the live model's per-tile records into report tile entries. Run:
//   build/ci/bench/attnscope_bench_report --benchmark_out=tests/data/bench/report_load_<rev>.json
//   --benchmark_out_format=json
// The fixture is written once per process by the model itself (attnscope simulate's report), so the file
// holds real per-tile values.
#include <benchmark/benchmark.h>

#include <QCoreApplication>
#include <filesystem>
#include <memory>

#include "attnscope/reports/from_sim.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/sim/simulate.hpp"
#include "models/tile_grid_model.hpp"

namespace {

using namespace attnscope;

const std::filesystem::path& fixture() {
  static const std::filesystem::path path = [] {
    const sim::GpuSpec gpu = sim::load_gpu_spec("h200");
    sim::SimOptions o;
    o.record_tiles = true;
    const auto result = sim::simulate(gpu, sim::preset("llm-4k"), sim::KernelKind::tiled, sim::TileConfig{}, o);
    const reports::Report r = reports::report_from_simulation(result, "bench");
    auto p = std::filesystem::temp_directory_path() / "attnscope_bench_65536_tiles.json";
    reports::write_report_json(r, p);
    return p;
  }();
  return path;
}

void BM_ReadReport65536Tiles(benchmark::State& state) {
  const auto& path = fixture();
  std::size_t tiles = 0;
  for (auto _ : state) {
    const reports::Report r = reports::read_report(path);
    tiles = r.kernels.front().tiles.size();
    benchmark::DoNotOptimize(tiles);
  }
  state.counters["tiles"] = static_cast<double>(tiles);
}
BENCHMARK(BM_ReadReport65536Tiles)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The live what-if model's conversion: the model's 65,536 per-tile records become the report's tile entries
// (what the GUI shows after every what-if change), on one thread.
void BM_TileEntriesFromModel65536Tiles(benchmark::State& state) {
  const sim::GpuSpec gpu = sim::load_gpu_spec("h200");
  sim::SimOptions o;
  o.record_tiles = true;
  const auto result = sim::simulate(gpu, sim::preset("llm-4k"), sim::KernelKind::tiled, sim::TileConfig{}, o);
  for (auto _ : state) {
    const reports::Report r = reports::report_from_simulation(result, "bench");
    benchmark::DoNotOptimize(r.kernels.front().tiles.size());
  }
}
BENCHMARK(BM_TileEntriesFromModel65536Tiles)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_TileGridModel65536Tiles(benchmark::State& state) {
  auto report = std::make_shared<const reports::Report>(reports::read_report(fixture()));
  int argc = 1;
  char name[] = "bench";
  char* argv[] = {name};
  QCoreApplication app(argc, argv);
  for (auto _ : state) {
    gui::TileGridModel model;
    model.setReports(report, nullptr);  // the heatmap of the first kernel, batch 0, head 0
    for (int head = 0; head < 4; ++head) model.setHead(head);  // browsing heads rebuilds the grid
    benchmark::DoNotOptimize(model.rowCount());
  }
}
BENCHMARK(BM_TileGridModel65536Tiles)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
