// SPDX-License-Identifier: Apache-2.0
// The two-fidelity sweep's top 10 per problem equals the exhaustive cycle-model answer on the committed
// 2,000-point subset of the million-point sweep (scripts/sweep_million.sh), and every number it models is the
// exhaustive run's, with its bound below it. ~5 s on 2 cores (2,000 points, 645 of them simulated).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "attnscope/reports/sweep_analysis.hpp"
#include "attnscope/reports/sweep_runner.hpp"

namespace attnscope::reports {
namespace {

// One problem of scripts/sweep_million.sh: its full tile space at L2 50 MB, HBM 4.8 TB/s, 132 SMs, N = 1K,
// d = 128. Keep the two in step.
SweepSpec million_subset() {
  SweepSpec s;
  s.base.batch = 1;
  s.base.heads = 8;
  s.base.seq_q = s.base.seq_kv = 1024;
  s.base.head_dim = 128;
  s.brs = {16, 32, 64, 128, 256};
  s.bcs = {16, 32, 64, 128, 256};
  s.warps = {1, 2, 4, 8, 16};
  s.stages = {1, 2, 3, 4};
  s.smem_limits = {48 * 1024, 100 * 1024, 164 * 1024, 227 * 1024};
  s.l2_sizes = {50 * 1024 * 1024};
  s.hbm_bandwidths = {4.8e12};
  s.sm_counts = {132};
  s.naive_baseline = false;
  s.max_points = 0;
  return s;
}

using Rank = std::tuple<double, double, std::int64_t>;  // time, HBM bytes, index: the sweep's ranking

std::map<std::string, std::vector<Rank>> top_per_problem(const Report& r, std::size_t k) {
  std::map<std::string, std::vector<Rank>> out;
  for (const auto& g : group_by_problem(r)) {
    std::vector<Rank> ranks;
    for (const SweepPoint* p : g.points)
      if (p->feasible && p->kind == sim::KernelKind::tiled)
        ranks.emplace_back(modeled_metric(*p, Metric::time), hbm_bytes(*p), p->index);
    std::sort(ranks.begin(), ranks.end());
    ranks.resize(std::min(k, ranks.size()));
    out[g.label] = ranks;
  }
  return out;
}

TEST(TwoFidelitySweep, TopTenEqualsTheExhaustiveCycleModelOnTheCommittedSubset) {
  SweepSpec spec = million_subset();
  ASSERT_EQ(count_sweep_points(spec), 2000u);
  const Report exhaustive = run_sweep(spec, {}, "exhaustive");
  spec.fidelity = vocab::SweepFidelity::two;
  spec.top_k = 10;
  const Report two = run_sweep(spec, {}, "two");
  EXPECT_EQ(two.sweep_definition.total_points, 2000);
  const auto want = top_per_problem(exhaustive, 10);
  ASSERT_EQ(want.size(), 1u);
  ASSERT_EQ(want.begin()->second.size(), 10u);
  EXPECT_EQ(top_per_problem(two, 10), want);
  // The pruning is real, and every modeled number is the exhaustive run's, with a bound below it.
  EXPECT_LT(two.sweep.size(), exhaustive.sweep.size() / 10);
  for (const SweepPoint& p : two.sweep) {
    SCOPED_TRACE(p.tiles.label());
    const SweepPoint& same = exhaustive.sweep.at(static_cast<std::size_t>(p.index));
    ASSERT_TRUE(p.bound.has_value());
    EXPECT_EQ(p.fidelity, vocab::Fidelity::cycle_model);
    EXPECT_EQ(p.metrics, same.metrics);
    EXPECT_LE(p.bound->time_s, modeled_metric(p, Metric::time));
    EXPECT_LE(p.bound->dram_read_min, modeled_metric(p, Metric::dram_read));
  }
}

}  // namespace
}  // namespace attnscope::reports
