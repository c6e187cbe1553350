// SPDX-License-Identifier: Apache-2.0
// A report of a training step (reports/src/json_io.cpp, pass_totals.cpp, the writers): the backward kernels'
// names, the workload's pass and the backward tile survive the JSON round trip, and the per-pass totals are
// the model's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "attnscope/reports/from_sim.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/pass_totals.hpp"
#include "attnscope/reports/writers.hpp"
#include "attnscope/sim/simulate.hpp"

namespace attnscope::reports {
namespace {

using ::testing::HasSubstr;

sim::SimResult training_step(sim::KernelKind kind) {
  sim::Workload w = sim::preset("llm-4k");
  w.heads = 2;
  w.seq_q = w.seq_kv = 512;
  w.head_dim = 128;
  w.causal = true;
  w.pass = sim::Pass::both;
  sim::TileConfig t;
  t.bwd_br = 32;  // not the compiled d 128 default (Br 64): the round trip must carry it
  return sim::simulate(sim::load_gpu_spec("h200"), w, kind, t);
}

TEST(BackwardReport, RoundTripKeepsPassTileAndKernelNames) {
  const sim::SimResult r = training_step(sim::KernelKind::tiled);
  const Report report = report_from_simulation(r, "attnscope simulate --pass both");
  const auto path = std::filesystem::temp_directory_path() / "attnscope_backward_report.json";
  write_report_json(report, path);
  const Report back = read_report(path);
  std::filesystem::remove(path);
  EXPECT_EQ(back.workload.pass, sim::Pass::both);
  EXPECT_EQ(back.tiles.tiled_bwd(128).br, 32);
  EXPECT_EQ(back.tiles.tiled_bwd(128).bc, 128);
  ASSERT_EQ(back.kernels.size(), 4u);
  EXPECT_EQ(back.kernels[2].name, "tiled_bwd");
  EXPECT_EQ(back.kernels[2].tiles.size(), r.kernels[2].tiles.size());
}

TEST(BackwardReport, PassTotalsAreTheModelsPerPassTotals) {
  for (const sim::KernelKind kind : {sim::KernelKind::naive, sim::KernelKind::tiled}) {
    const sim::SimResult r = training_step(kind);
    const std::vector<PassTotal> passes = pass_totals(report_from_simulation(r, ""));
    ASSERT_EQ(passes.size(), 3u);
    const auto modeled = [](const PassTotal& p, Metric m) {
      const Value* v = p.metrics.find(m);
      return v != nullptr && v->modeled ? *v->modeled : -1.0;
    };
    EXPECT_EQ(passes[0].label, std::string(sim::to_string(kind)) + " forward");
    EXPECT_DOUBLE_EQ(modeled(passes[0], Metric::dram_read), static_cast<double>(r.forward.bytes.hbm_read));
    EXPECT_DOUBLE_EQ(modeled(passes[1], Metric::dram_write), static_cast<double>(r.backward.bytes.hbm_write));
    EXPECT_DOUBLE_EQ(modeled(passes[2], Metric::time), r.time_s);
    const Value* time = passes[2].metrics.find(Metric::time);
    ASSERT_NE(time, nullptr);
    EXPECT_FALSE(time->measured.has_value());  // a model-only report
  }
  // A forward-only report has no per-pass lines.
  sim::Workload w = sim::preset("vit-b16");
  EXPECT_TRUE(pass_totals(report_from_simulation(
                              sim::simulate(sim::load_gpu_spec("h200"), w, sim::KernelKind::tiled, {}), ""))
                  .empty());
}

TEST(BackwardReport, WritersPrintThePerPassTotals) {
  const Report report = report_from_simulation(training_step(sim::KernelKind::naive), "");
  EXPECT_THAT(to_text_table(report), HasSubstr("naive backward (5 kernels): modeled HBM"));
  EXPECT_THAT(to_text_table(report), HasSubstr("training step"));
  EXPECT_THAT(to_markdown(report, {}), HasSubstr("- naive training step (8 kernels): modeled HBM"));
  EXPECT_THAT(to_html(report, {}), HasSubstr("<li>naive backward (5 kernels): modeled HBM"));
}

TEST(BackwardReport, WritesSampleForTheSchemaTest) {
  const char* dir = std::getenv("ATTNSCOPE_SCHEMA_SAMPLE_DIR");
  if (dir == nullptr || *dir == '\0')
    GTEST_SKIP() << "ATTNSCOPE_SCHEMA_SAMPLE_DIR not set (the schema test sets it)";
  write_report_json(report_from_simulation(training_step(sim::KernelKind::naive), ""),
                    std::filesystem::path(dir) / "training-step-naive.json");
}

}  // namespace
}  // namespace attnscope::reports
