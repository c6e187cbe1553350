// SPDX-License-Identifier: Apache-2.0
// Generates the fixture reports under tests/data/reports/ (the README there lists the commands): a
// `simulate` report from the model, optionally with a SYNTHETIC measured side (modeled values times fixed
// per-metric factors) so the writers' measured-vs-modeled paths have data without a GPU. Synthetic reports
// say so in provenance.gpu_name and in a note on every kernel; they are never measurements.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>

#include "attnscope/reports/from_sim.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"

namespace {

using namespace attnscope;

// Whether a real profile measures `m` (the metric table says why not where it does not: FLOPs, the shared
// memory per CTA and the model's request hits have no counter). Synthetic measured values go only there.
bool measurable(vocab::Metric m) {
  return vocab::info(m).not_measured.empty();
}

// Deterministic, metric-dependent factors in [0.9, 1.1], different per tile, so errors and differences vary.
double synthetic_factor(const std::string& metric, int a, int b) {
  std::size_t h = 1469598103934665603ull;
  for (char c : metric) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  h = (h ^ static_cast<std::size_t>(a * 7919 + b * 104729)) * 1099511628211ull;
  return 0.9 + 0.2 * static_cast<double>(h % 1000) / 999.0;
}

void add_synthetic_measured(reports::Report& r) {
  r.kind = "profile";
  r.provenance.gpu_name = "SYNTHETIC (model x fixed factors; not a measurement)";
  r.provenance.cache = vocab::CacheProtocol::flush;
  r.provenance.replay = vocab::ReplayMode::user;
  int kernel_index = 0;
  for (auto& k : r.kernels) {
    ++kernel_index;
    k.notes["synthetic"] = "measured values are modeled values times fixed factors, for writer tests only";
    for (const vocab::Metric m : vocab::all_metrics()) {
      if (!k.metrics.contains(m) || !measurable(m)) continue;
      reports::Value& v = k.metrics[m];
      if (v.modeled)
        v.measured = std::round(*v.modeled * synthetic_factor(std::string(vocab::key(m)), kernel_index, -kernel_index) *
                                1e12) /
                     1e12;
    }
    for (auto& t : k.tiles) {
      t.sm_measured = t.sm_modeled;
      if (t.start_modeled_s)
        t.start_measured_s = *t.start_modeled_s * synthetic_factor("start", t.q_tile, t.kv_tile);
      if (t.end_modeled_s && t.start_measured_s)
        t.end_measured_s = *t.start_measured_s + (*t.end_modeled_s - *t.start_modeled_s) *
                                                     synthetic_factor("dur", t.q_tile, t.kv_tile);
      for (const vocab::Metric m : vocab::all_metrics()) {
        if (!t.metrics.contains(m) || !measurable(m)) continue;
        reports::Value& v = t.metrics[m];
        if (v.modeled) v.measured = std::round(*v.modeled * synthetic_factor(std::string(vocab::key(m)), t.q_tile, t.kv_tile));
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"generate a fixture report for the reports tests"};
  long long batch = 1, heads = 2, seq = 512, head_dim = 64;
  int br = 128, bc = 64, stages = 2;
  std::string kernel = "tiled", gpu = "h200", output;
  bool causal = false, synthetic = false;
  app.add_option("--batch", batch);
  app.add_option("--heads", heads);
  app.add_option("--seq", seq);
  app.add_option("--head-dim", head_dim);
  app.add_option("--br", br);
  app.add_option("--bc", bc);
  app.add_option("--stages", stages);
  app.add_option("--kernel", kernel)->check(CLI::IsMember({"naive", "tiled", "both"}));
  app.add_option("--gpu", gpu);
  app.add_flag("--causal", causal);
  app.add_flag("--synthetic-measured", synthetic, "add a SYNTHETIC measured side (labelled as such)");
  app.add_option("-o,--output", output)->required();
  CLI11_PARSE(app, argc, argv);
  try {
    const sim::GpuSpec spec = sim::load_gpu_spec(gpu);
    sim::Workload w = sim::preset("llm-4k");
    w.name = "fixture";
    w.batch = batch, w.heads = heads, w.seq_q = w.seq_kv = seq, w.head_dim = head_dim, w.causal = causal;
    sim::TileConfig tiles;
    tiles.br = br, tiles.bc = bc, tiles.stages = stages, tiles.warps = br / 16;
    std::string command;
    for (int i = 0; i < argc; ++i) {
      if (i > 0) command += ' ';
      command += i == 0 ? "attnscope_make_report_fixture" : argv[i];
    }
    reports::Report report;
    for (const char* kind : {"naive", "tiled"}) {
      if (kernel != "both" && kernel != kind) continue;
      const auto result = sim::simulate(spec, w, *sim::parse_kernel_kind(kind), tiles);
      reports::Report part = reports::report_from_simulation(result, command);
      if (report.kernels.empty())
        report = part;
      else
        report.kernels.insert(report.kernels.end(), part.kernels.begin(), part.kernels.end());
    }
    if (synthetic) add_synthetic_measured(report);
    reports::write_report_json(report, output);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_report_fixture: %s\n", e.what());
    return 1;
  }
  return 0;
}
