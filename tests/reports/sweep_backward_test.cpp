// SPDX-License-Identifier: Apache-2.0
// Sweeps over the tiled backward's tiles (--pass bwd|both) and masked workloads: every point is the model's
// own answer for that configuration, the enumeration covers the backward axes, and what no fidelity or kernel
// covers is refused with the flag that would fix it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/sweep_analysis.hpp"
#include "attnscope/reports/sweep_runner.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/simulate.hpp"

namespace attnscope::reports {
namespace {

using ::testing::HasSubstr;

// A small training problem: cheap enough to simulate every point twice.
SweepSpec small_spec(sim::Pass pass) {
  SweepSpec s;
  s.base = sim::preset("llm-4k");
  s.base.heads = 2;
  s.base.seq_q = s.base.seq_kv = 512;
  s.base.pass = pass;
  return s;
}

SweepRunOptions two_threads() {
  SweepRunOptions o;
  o.threads = 2;
  return o;
}

std::string refusal(const SweepSpec& s) {
  try {
    check_sweep_spec(s);
  } catch (const sim::InvalidInput& e) {
    return e.what();
  }
  return "";
}

TEST(SweepBackward, EveryBackwardTileIsAPointWithTheModelsNumbers) {
  SweepSpec s = small_spec(sim::Pass::bwd);
  s.head_dims = {64, 128};
  s.bwd_bcs = {64, 128};
  s.bwd_brs = {32, 64};
  s.bwd_stages = {1, 2};
  ASSERT_EQ(count_points_per_problem(s), 8u);
  const Report r = run_sweep(s, two_threads(), "test");
  ASSERT_EQ(r.sweep.size(), 16u);
  std::set<std::string> labels;
  const sim::GpuSpec gpu = sim::load_gpu_spec("h200");
  for (const SweepPoint& p : r.sweep) {
    ASSERT_TRUE(p.feasible) << p.infeasible_reason;
    EXPECT_EQ(p.workload.pass, sim::Pass::bwd);
    labels.insert(problem_label(p) + " " + tiles_label(p));
    sim::SimOptions o;
    o.record_tiles = false;
    const sim::SimResult direct = sim::simulate(gpu, p.workload, p.kind, p.tiles, o);
    EXPECT_DOUBLE_EQ(modeled_metric(p, Metric::time), direct.time_s) << tiles_label(p);
    EXPECT_DOUBLE_EQ(modeled_metric(p, Metric::dram_read), static_cast<double>(direct.totals.hbm_read));
    // Only the backward's kernels ran: no forward kernel's bytes in the totals.
    EXPECT_EQ(direct.forward.kernels, 0);
    EXPECT_GT(direct.backward.kernels, 0);
  }
  EXPECT_EQ(labels.size(), 16u) << "each point a different (problem, backward tile)";
  EXPECT_THAT(tiles_label(r.sweep.front()), HasSubstr("bwd-Bc64-Br32-s1"));
  EXPECT_THAT(problem_label(r.sweep.front()), HasSubstr(" bwd"));
  EXPECT_THAT(r.sweep_definition.text, HasSubstr("pass=bwd; bwd_bc=64,128; bwd_br=32,64; bwd_stages=1,2"));
}

TEST(SweepBackward, TrainingStepCrossesForwardAndBackwardTiles) {
  SweepSpec s = small_spec(sim::Pass::both);
  s.bcs = {32, 64};
  s.bwd_bcs = {64, 128};
  const std::vector<SweepPoint> points = enumerate_sweep(s);
  ASSERT_EQ(points.size(), 4u);
  std::set<std::pair<int, int>> tiles;
  for (const auto& p : points) tiles.insert({p.tiles.bc, p.tiles.bwd_bc});
  EXPECT_EQ(tiles.size(), 4u);
  EXPECT_THAT(tiles_label(points.front()), HasSubstr("Br128-Bc32-w4-s2, bwd-Bc64-Br"));
  EXPECT_THAT(problem_label(points.front()), HasSubstr(" fwd+bwd"));
}

TEST(SweepBackward, ForwardSweepsReadAsBefore) {
  SweepSpec s = small_spec(sim::Pass::fwd);
  s.bcs = {32, 64};
  EXPECT_EQ(s.definition_text().find("pass="), std::string::npos);
  EXPECT_EQ(s.definition_text().find("window="), std::string::npos);
  EXPECT_EQ(count_points_per_problem(s), 2u);
}

TEST(SweepBackward, RefusesWhatNoFidelityOrKernelCovers) {
  SweepSpec s = small_spec(sim::Pass::bwd);
  s.brs = {64, 128};
  EXPECT_THAT(refusal(s), HasSubstr("--pass bwd runs no forward kernel"));

  s = small_spec(sim::Pass::both);
  s.hopper = true;
  EXPECT_THAT(refusal(s), HasSubstr("Hopper kernel has a forward pass only"));

  s = small_spec(sim::Pass::bwd);
  s.fidelity = vocab::SweepFidelity::two;
  EXPECT_THAT(refusal(s), HasSubstr("--fidelity two bounds the forward pass only"));

  s = small_spec(sim::Pass::fwd);
  s.bwd_bcs = {64, 128};
  EXPECT_THAT(refusal(s), HasSubstr("need --pass bwd or both"));

  s = small_spec(sim::Pass::bwd);
  s.bwd_brs = {-32};
  EXPECT_THAT(refusal(s), HasSubstr("--bwd-br values must be positive"));

  s = small_spec(sim::Pass::fwd);
  s.base.causal = true;
  s.base.window = 128;
  s.fidelity = vocab::SweepFidelity::two;
  EXPECT_THAT(refusal(s), HasSubstr("--fidelity two bounds unmasked and causal workloads"));
}

TEST(SweepBackward, MaskedSweepPointsAreTheModelsAndNamedByTheirMask) {
  SweepSpec s = small_spec(sim::Pass::both);
  s.base.causal = true;
  s.base.window = 128;
  s.base.alibi = true;
  s.bwd_bcs = {64, 128};
  const Report r = run_sweep(s, two_threads(), "test");
  ASSERT_EQ(r.sweep.size(), 2u);
  EXPECT_THAT(r.sweep_definition.text, HasSubstr("window=128; alibi=1"));
  const sim::GpuSpec gpu = sim::load_gpu_spec("h200");
  for (const SweepPoint& p : r.sweep) {
    ASSERT_TRUE(p.feasible) << p.infeasible_reason;
    EXPECT_THAT(problem_label(p), HasSubstr("window=128"));
    sim::SimOptions o;
    o.record_tiles = false;
    EXPECT_DOUBLE_EQ(modeled_metric(p, Metric::time),
                     sim::simulate(gpu, p.workload, p.kind, p.tiles, o).time_s);
  }
  // The window removes work: the masked step is faster than the unmasked one with the same tiles.
  SweepSpec plain = small_spec(sim::Pass::both);
  plain.bwd_bcs = {64, 128};
  const Report u = run_sweep(plain, two_threads(), "test");
  EXPECT_LT(modeled_metric(r.sweep.front(), Metric::time), modeled_metric(u.sweep.front(), Metric::time));
}

TEST(SweepBackward, ReportRoundTripKeepsTheBackwardTilesOfEachPoint) {
  SweepSpec s = small_spec(sim::Pass::bwd);
  s.bwd_bcs = {64, 128};
  const Report r = run_sweep(s, two_threads(), "test");
  const Report back = parse_report(to_json_string(r, 1), "test");
  ASSERT_EQ(back.sweep.size(), r.sweep.size());
  for (std::size_t i = 0; i < r.sweep.size(); ++i) {
    EXPECT_EQ(back.sweep[i].tiles.bwd_bc, r.sweep[i].tiles.bwd_bc);
    EXPECT_EQ(back.sweep[i].workload.pass, sim::Pass::bwd);
    EXPECT_EQ(tiles_label(back.sweep[i]), tiles_label(r.sweep[i]));
  }
}

}  // namespace
}  // namespace attnscope::reports
