// SPDX-License-Identifier: Apache-2.0
// Covers the two-fidelity sweep (reports/src/sweep_two_fidelity.cpp, sweep_selection.cpp,
// sweep_checkpoint.cpp, sweep_work.cpp, gpu_variants.cpp) on small sweeps: branch and bound against brute
// force on random bounds; shards, checkpoints and work units in any order give the report a single
// uninterrupted run gives. The subset of the million-point sweep is sweep_subset_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <tuple>

#include "attnscope/reports/gpu_variants.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/sweep_analysis.hpp"
#include "attnscope/reports/sweep_checkpoint.hpp"
#include "attnscope/reports/sweep_runner.hpp"
#include "attnscope/reports/sweep_selection.hpp"
#include "attnscope/reports/sweep_work.hpp"
#include "attnscope/reports/writers.hpp"

namespace attnscope::reports {
namespace {

namespace fs = std::filesystem;

using Rank = std::tuple<double, double, std::int64_t>;  // time, HBM bytes, index: the sweep's ranking

// Brute force: the exact top k of random instances whose bounds lie below their values, with ties.
TEST(SweepSelection, BranchAndBoundFindsTheExactTopK) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 60), k = 1 + static_cast<int>(rng() % 12);
    std::vector<BoundedCandidate> c(static_cast<std::size_t>(n));
    std::vector<std::optional<ModeledRank>> truth(c.size());
    for (int i = 0; i < n; ++i) {
      const double time = static_cast<double>(rng() % 20);  // few values: many ties
      const double hbm = static_cast<double>(rng() % 3);
      c[static_cast<std::size_t>(i)] = {time * (0.3 + 0.7 * static_cast<double>(rng() % 100) / 100.0), 0, 0,
                                        i};
      if (rng() % 10 != 0) truth[static_cast<std::size_t>(i)] = ModeledRank{time, hbm};  // 1 in 10 refused
    }
    std::vector<int> calls(c.size(), 0);
    const auto modeled = model_top_k(c, k, [&](std::size_t i) {
      ++calls[i];
      return truth[i];
    });
    std::vector<Rank> all, found;
    for (std::size_t i = 0; i < c.size(); ++i)
      if (truth[i]) all.emplace_back(truth[i]->time, truth[i]->hbm, c[i].index);
    for (std::size_t i : modeled)
      if (truth[i]) found.emplace_back(truth[i]->time, truth[i]->hbm, c[i].index);
    std::sort(all.begin(), all.end());
    std::sort(found.begin(), found.end());
    all.resize(std::min<std::size_t>(static_cast<std::size_t>(k), all.size()));
    found.resize(std::min<std::size_t>(static_cast<std::size_t>(k), found.size()));
    EXPECT_EQ(found, all) << "trial " << trial;
    for (int v : calls) EXPECT_LE(v, 1);
  }
}

TEST(SweepSelection, ParetoFrontOfTheBoundsKeepsOnlyUndominatedPoints) {
  const std::vector<BoundedCandidate> c{
      {1.0, 10, 100, 0},  // fastest
      {2.0, 5, 100, 1},   // fewer bytes
      {3.0, 5, 100, 2},   // dominated by 1
      {3.0, 9, 50, 3},    // least shared memory
      {1.0, 10, 100, 4},  // equal to 0: only the lower index stays
  };
  EXPECT_EQ(bound_pareto_front(c), (std::vector<std::size_t>{0, 1, 3}));
}

TEST(GpuVariants, ReplaceTheSpecsValuesOneAxisAtATime) {
  SweepSpec spec;
  spec.gpus = {"h200", "a100"};
  spec.l2_sizes = {100 * 1024 * 1024};
  spec.sm_counts = {66, 264};
  spec.smem_per_sm = {456 * 1024};
  const auto variants = expand_gpu_variants(spec);
  ASSERT_EQ(variants.size(), 4u);
  EXPECT_EQ(count_sweep_problems(spec), 4u);
  const sim::GpuSpec h200 = sim::load_gpu_spec("h200");
  EXPECT_EQ(variants[0].label, "h200 l2=104857600 sms=66 smem_sm=466944");
  EXPECT_EQ(variants[3].label, "a100 l2=104857600 sms=264 smem_sm=466944");
  EXPECT_EQ(variants[0].spec.l2_bytes, 100 * 1024 * 1024);
  EXPECT_EQ(variants[1].spec.sm_count, 264);
  EXPECT_EQ(variants[0].spec.smem_per_sm, 456 * 1024);
  EXPECT_EQ(variants[0].spec.smem_per_block, h200.smem_per_block);  // a bigger SM; the per-CTA limit stays
  EXPECT_EQ(variants[0].spec.hbm_bandwidth, h200.hbm_bandwidth);    // not swept: the spec's own
  EXPECT_EQ(gpu_variant_labels(spec)[2], variants[2].label);
  // A smaller SM caps what one CTA may use.
  spec.smem_per_sm = {64 * 1024};
  EXPECT_EQ(expand_gpu_variants(spec)[0].spec.smem_per_block, 64 * 1024 - h200.smem_reserved_per_cta);
  // Without overrides a variant is the spec itself, named as sweeps always named it.
  SweepSpec plain;
  EXPECT_EQ(gpu_variant_labels(plain), std::vector<std::string>{"h200"});
}

// A small sweep of several problems (two GPUs variants, two lengths) that runs in a second or two.
SweepSpec small_two_fidelity() {
  SweepSpec s;
  s.base.heads = 4;
  s.base.head_dim = 64;
  s.seqs = {256, 512};
  s.brs = {32, 64, 128};
  s.bcs = {32, 64};
  s.warps = {1, 2, 4};
  s.stages = {1, 2};
  s.sm_counts = {66, 132};
  s.naive_baseline = false;
  s.fidelity = vocab::SweepFidelity::two;
  s.top_k = 3;
  return s;
}

std::string without_date(Report r) {
  r.provenance.date.clear();
  return to_json_string(r);
}

TEST(TwoFidelitySweep, EveryOutputSaysWhichModelProducedItsNumbers) {
  const Report r = run_sweep(small_two_fidelity(), {}, "cmd");
  ASSERT_FALSE(r.sweep.empty());
  const std::string csv = sweep_csv(r);
  EXPECT_NE(csv.find(",fidelity,bound_time,bound_dram_read_min,bound_dram_write_min,bound_limiter\n"),
            std::string::npos);
  // One row per modeled point, each from the cycle model with its bound beside it.
  std::size_t rows = 0, pos = 0;
  while ((pos = csv.find(",cycle_model,", pos)) != std::string::npos) ++rows, ++pos;
  EXPECT_EQ(rows, r.sweep.size());
  EXPECT_NE(to_markdown(r).find("priced by the closed-form bound"), std::string::npos);
  // The JSON round trip keeps both.
  const Report back = parse_report(to_json_string(r), "test");
  ASSERT_EQ(back.sweep.size(), r.sweep.size());
  EXPECT_EQ(back.sweep_definition.fidelity, vocab::SweepFidelity::two);
  EXPECT_EQ(back.sweep_definition.problems, r.sweep_definition.problems);
  for (std::size_t i = 0; i < r.sweep.size(); ++i) {
    EXPECT_EQ(back.sweep[i].bound, r.sweep[i].bound);
    EXPECT_EQ(back.sweep[i].fidelity, vocab::Fidelity::cycle_model);
  }
}

// A two-fidelity report for the JSON Schema test (reports_schema_test validates it).
TEST(TwoFidelitySweep, WritesSampleForTheSchemaTest) {
  const char* dir = std::getenv("ATTNSCOPE_SCHEMA_SAMPLE_DIR");
  if (dir == nullptr || *dir == '\0')
    GTEST_SKIP() << "ATTNSCOPE_SCHEMA_SAMPLE_DIR not set (the schema test sets it)";
  write_report_json(run_sweep(small_two_fidelity(), {}, "cmd"), fs::path(dir) / "sweep-two-fidelity.json");
}

TEST(TwoFidelitySweep, ShardsMergeIntoTheSingleProcessReport) {
  const SweepSpec spec = small_two_fidelity();
  const Report whole = run_sweep(spec, {}, "cmd");
  std::vector<Report> shards;
  for (int i = 0; i < 3; ++i) {
    SweepRunOptions o;
    o.shard_index = i;
    o.shard_count = 3;
    shards.push_back(run_sweep(spec, o, "cmd"));
  }
  EXPECT_EQ(without_date(merge_sweep_reports(shards, {}, "cmd")), without_date(whole));
  shards.pop_back();
  EXPECT_THROW(merge_sweep_reports(shards, {}, "cmd"), ReportError);
}

// What an MPI run does, without MPI: units run in any order, their points encoded and decoded as they travel
// between ranks, assemble into the report run_sweep writes, for both fidelities.
TEST(SweepWork, UnitsInAnyOrderAssembleIntoTheSingleProcessReport) {
  for (const auto fidelity : {vocab::SweepFidelity::cycle, vocab::SweepFidelity::two}) {
    SweepSpec spec = small_two_fidelity();
    spec.fidelity = fidelity;
    spec.naive_baseline = true;
    spec.seqs = {256};
    SCOPED_TRACE(std::string(vocab::to_string(fidelity)));
    SweepWork work = make_sweep_work(spec, {}, "cmd");
    ASSERT_EQ(work.pending.size(), work.units);
    std::vector<std::size_t> order = work.pending;
    std::shuffle(order.begin(), order.end(), std::mt19937(3));
    std::vector<std::vector<SweepPoint>> results(work.units);
    for (std::size_t u : order) results[u] = decode_points(encode_points(work.run(u)));
    EXPECT_EQ(without_date(work.assemble(std::move(results))), without_date(run_sweep(spec, {}, "cmd")));
  }
}

TEST(TwoFidelitySweep, ResumesFromACheckpointCutShortByAKill) {
  const SweepSpec spec = small_two_fidelity();
  const fs::path dir = fs::temp_directory_path() / ("attnscope_checkpoint_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "sweep.checkpoint").string();
  SweepRunOptions o;
  o.checkpoint = path;
  const Report first = run_sweep(spec, o, "cmd");
  std::ostringstream read;
  read << std::ifstream(path, std::ios::binary).rdbuf();
  const std::string text = read.str();
  // Header + one line per problem (2 variants x 2 lengths).
  ASSERT_EQ(std::count(text.begin(), text.end(), '\n'), 5);
  // A kill in the middle of the third problem's line: two whole lines and a torn one.
  std::size_t cut = 0;
  for (int i = 0; i < 3; ++i) cut = text.find('\n', cut) + 1;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      << text.substr(0, cut + (text.find('\n', cut) - cut) / 2);
  std::size_t resumed_units = 0;
  {
    SweepCheckpoint cp(path, spec.definition_text(), 0, 1);
    resumed_units = cp.finished_count();
  }
  EXPECT_EQ(resumed_units, 2u);
  const Report resumed = run_sweep(spec, o, "cmd");
  EXPECT_EQ(without_date(resumed), without_date(first));
  // A checkpoint of another sweep is refused, not mixed in.
  SweepSpec other = spec;
  other.top_k = 4;
  EXPECT_THROW(run_sweep(other, o, "cmd"), ReportError);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace attnscope::reports
