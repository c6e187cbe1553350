// SPDX-License-Identifier: Apache-2.0
// Covers reports/src/compare.cpp, sweep_runner.cpp and sweep_analysis.cpp: regressions first, sweep
// enumeration, shards that merge into the unsharded run, the Pareto front and the best tile.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "attnscope/reports/compare.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/sweep_analysis.hpp"
#include "attnscope/reports/sweep_runner.hpp"
#include "attnscope/sim/error.hpp"
#include "test_support.hpp"

namespace attnscope::reports {
namespace {

using ::testing::HasSubstr;
using testing::small_report;

TEST(Compare, RegressionsComeFirstAndRespectTheThreshold) {
  const Report old_report = small_report();
  Report new_report = small_report();
  new_report.kernels[1].metrics[Metric::dram_read].measured = 1.10e6;  // +10 % bytes: regression
  new_report.kernels[1].metrics[Metric::time].measured = 0.5e-4;       // -50 % time: improvement
  new_report.kernels[0].metrics[Metric::time].measured = 1.01e-4;      // +1 %: below the threshold
  const auto cmp = compare_reports(old_report, new_report, 0.02);
  ASSERT_FALSE(cmp.changes.empty());
  EXPECT_EQ(cmp.changes.front().kind, ChangeKind::regression);
  // The time error went from 10 % to 80 % (a regression of the model), the bytes error from 5 % to 4.5 %.
  std::size_t regressions = 0;
  for (const auto& c : cmp.changes) {
    if (c.kind != ChangeKind::regression) continue;
    ++regressions;
    EXPECT_EQ(c.kernel, "tiled");
  }
  EXPECT_EQ(regressions, 2u);
  EXPECT_EQ(cmp.regressions(), 2u);
  const std::string text = to_text(cmp);
  EXPECT_THAT(text, HasSubstr("REGRESSION"));
  EXPECT_THAT(text, HasSubstr("improvement"));
  EXPECT_EQ(text.find("naive.qk     time"), std::string::npos);  // +1 % is hidden as unchanged
  EXPECT_EQ(compare_reports(old_report, old_report, 0.02).regressions(), 0u);
}

TEST(Compare, NotesKernelsOnOneSideOnly) {
  Report b = small_report();
  b.kernels.pop_back();
  const auto cmp = compare_reports(small_report(), b, 0.02);
  ASSERT_EQ(cmp.notes.size(), 1u);
  EXPECT_THAT(cmp.notes[0], HasSubstr("kernel tiled is only in the old report"));
}

SweepSpec tiny_spec() {
  SweepSpec s;
  s.base = sim::preset("llm-4k");
  s.base.heads = 1;
  s.seqs = {256, 512};
  s.brs = {64, 128};
  s.bcs = {32, 64};
  s.stages = {2};
  s.smem_limits = {16 * 1024, 48 * 1024};
  s.naive_baseline = true;
  return s;
}

SweepRunOptions shard(int threads, int index = 0, int count = 1) {
  SweepRunOptions o;
  o.threads = threads;
  o.shard_index = index;
  o.shard_count = count;
  return o;
}

TEST(Sweep, EnumerationOrderAndCount) {
  const auto points = enumerate_sweep(tiny_spec());
  // per seq: 1 naive + 2 limits x 2 br x 2 bc = 9
  ASSERT_EQ(points.size(), 18u);
  for (std::size_t i = 0; i < points.size(); ++i) EXPECT_EQ(points[i].index, static_cast<std::int64_t>(i));
  EXPECT_EQ(points[0].kind, sim::KernelKind::naive);
  EXPECT_EQ(points[1].tiles.br, 64);
  EXPECT_EQ(points[1].tiles.warps, 4);  // Br / 16
  EXPECT_EQ(points[9].workload.seq_q, 512);
  SweepSpec bad = tiny_spec();
  bad.brs.clear();
  EXPECT_THROW(enumerate_sweep(bad), sim::InvalidInput);
}

TEST(Sweep, TwoShardsMergedEqualTheUnshardedRun) {
  const SweepSpec spec = tiny_spec();
  const Report whole = run_sweep(spec, shard(2), "whole");
  std::vector<Report> shards;
  for (int i = 0; i < 2; ++i) shards.push_back(run_sweep(spec, shard(1, i, 2), "shard"));
  EXPECT_EQ(shards[0].sweep.size() + shards[1].sweep.size(), whole.sweep.size());
  // Order of the shards given to merge does not matter.
  Report merged = merge_sweep_reports({shards[1], shards[0]}, {"s1.json", "s0.json"}, "whole");
  merged.provenance = whole.provenance;  // everything but provenance (dates) must be equal
  EXPECT_EQ(to_json_string(merged), to_json_string(whole));
  // Infeasible points carry their reason: Br=128, Bc=64 needs 48 KB > 16 KB.
  bool saw_infeasible = false;
  for (const auto& p : whole.sweep)
    if (!p.feasible) {
      saw_infeasible = true;
      EXPECT_THAT(p.infeasible_reason, HasSubstr("limit"));
    }
  EXPECT_TRUE(saw_infeasible);
}

TEST(Sweep, MergeRejectsMismatchedOrIncompleteShards) {
  const SweepSpec spec = tiny_spec();
  const Report s0 = run_sweep(spec, shard(1, 0, 2), "");
  const Report s1 = run_sweep(spec, shard(1, 1, 2), "");
  SweepSpec other = spec;
  other.bcs = {32};
  const Report o1 = run_sweep(other, shard(1, 1, 2), "");
  try {
    merge_sweep_reports({s0, o1}, {"a.json", "b.json"}, "");
    FAIL();
  } catch (const ReportError& e) {
    EXPECT_THAT(e.what(), HasSubstr("b.json comes from a different sweep"));
  }
  EXPECT_THROW(merge_sweep_reports({s0, s0}, {"a.json", "a2.json"}, ""), ReportError);
  try {
    merge_sweep_reports({s0}, {"a.json"}, "");
    FAIL();
  } catch (const ReportError& e) {
    EXPECT_THAT(e.what(), HasSubstr("1 of 2 shards given"));
  }
  EXPECT_THROW(run_sweep(spec, shard(1, 2, 2), ""), sim::InvalidInput);
}

TEST(SweepAnalysis, ParetoFrontAndBestPoint) {
  Report r;
  auto point = [&](std::int64_t index, double smem, double bytes, double time, bool feasible = true) {
    SweepPoint p;
    p.index = index;
    p.feasible = feasible;
    p.metrics[Metric::smem_per_cta] = Value{std::nullopt, smem};
    p.metrics[Metric::dram_read] = Value{std::nullopt, bytes};
    p.metrics[Metric::time] = Value{std::nullopt, time};
    r.sweep.push_back(p);
  };
  point(0, 10, 100, 3);
  point(1, 20, 120, 1);  // dominated by 0 in (smem, bytes), but the fastest
  point(2, 30, 50, 2);
  point(3, 40, 50, 2);          // same bytes as 2 with more smem: dominated
  point(4, 5, 10, 0.5, false);  // infeasible: ignored
  const auto groups = group_by_problem(r);
  ASSERT_EQ(groups.size(), 1u);
  const auto front = pareto_front(groups[0].points);
  ASSERT_EQ(front.size(), 2u);
  EXPECT_EQ(front[0]->index, 0);
  EXPECT_EQ(front[1]->index, 2);
  EXPECT_EQ(best_point(groups[0].points)->index, 1);
}

}  // namespace
}  // namespace attnscope::reports
