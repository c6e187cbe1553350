// SPDX-License-Identifier: Apache-2.0
// Runs the attnscope binary on the backward pass (cli/cmd_simulate.cpp, workload_options.cpp): the training
// step of both kinds at the FlashAttention paper's Figure 2 shape, the naive step that does not fit in HBM,
// `run` of the backward against the recorded training step, and the commands that do not run a backward pass
// yet.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "attnscope/reports/json_io.hpp"
#include "attnscope/vocab/kernel.hpp"
#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

using attnscope::cli_testing::CommandResult;
using attnscope::cli_testing::read_text;

class CliBackward : public attnscope::cli_testing::CliTest {
 protected:
  // Relative outputs (s.json, p.json) land in dir_, not in whatever folder the test runs from.
  CliBackward() : CliTest("cli_bwd", /*run_in_folder=*/true) {}
};

// FlashAttention (Dao et al. 2022), Figure 2's shape: B 64, H 16, N 1024, d 64, fp16. Without L2 reuse the
// HBM bytes are the requests' closed form; the naive step moves at least 11 passes over its N x N matrices.
TEST_F(CliBackward, TrainingStepAtFigureTwoShapePrintsBothKindsHbmBytes) {
  const fs::path json = dir_ / "fig2.json";
  const CommandResult r =
      run("simulate -b 64 --heads 16 -n 1024 -d 64 --pass both --no-l2-reuse --json " + json.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("naive kernel, both pass"));
  EXPECT_THAT(r.out, HasSubstr("tiled kernel, both pass"));
  EXPECT_THAT(r.out, HasSubstr("training step"));
  const auto report = attnscope::reports::read_report(json);
  ASSERT_EQ(report.kernels.size(), 12u);  // 3 + 5 naive, 1 + 3 tiled
  double naive = 0, tiled = 0;
  for (const auto& k : report.kernels) {
    const auto id = attnscope::vocab::parse_kernel_id(k.name);
    ASSERT_TRUE(id.has_value()) << k.name;
    const auto* read = k.metrics.find(attnscope::vocab::Metric::dram_read);
    const auto* write = k.metrics.find(attnscope::vocab::Metric::dram_write);
    ASSERT_TRUE(read != nullptr && write != nullptr) << k.name;
    const double hbm = read->modeled.value_or(0) + write->modeled.value_or(0);
    (attnscope::vocab::kind_of(*id) == attnscope::vocab::KernelKind::naive ? naive : tiled) += hbm;
  }
  const double matrix = 64.0 * 16 * 1024 * 1024 * 2;
  EXPECT_GE(naive, 11 * matrix);
  EXPECT_LT(tiled, naive);
  const CommandResult printed = run("report " + json.string());
  EXPECT_THAT(printed.out, HasSubstr("naive training step (8 kernels): modeled HBM"));
  EXPECT_THAT(printed.out, HasSubstr("tiled training step (4 kernels): modeled HBM"));
}

TEST_F(CliBackward, NaiveTrainingStepPastHbmIsRefusedWithWhatItNeeds) {
  CommandResult r = run("simulate -b 1 --heads 8 -n 131072 -d 128 --pass both --kernel naive");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.err, HasSubstr("naive attention does not fit in HBM: a training step at this shape needs "
                               "551.9 GB"));
  EXPECT_THAT(r.err, HasSubstr("NVIDIA H200 has 141.0 GB of HBM"));
}

// `run --pass bwd` without a GPU joins the committed H200 training step at llm-4k (each kernel measured alone
// from a flushed L2, tests/data/h200/profile-bwd-*/, gzip'd) with this build's model: the backward kernels
// of both kinds, measured and modeled, and none of the forward's.
TEST_F(CliBackward, RunOfTheBackwardJoinsTheRecordedTrainingStep) {
  const fs::path out = dir_ / "run-bwd";
  const CommandResult r = run("run --pass bwd --device never --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("llm-4k-training-step.json.gz"));
  const auto report = attnscope::reports::read_report(out / "report.json");
  std::vector<std::string> names;
  for (const auto& k : report.kernels) names.push_back(k.name);
  EXPECT_THAT(
      names, ::testing::UnorderedElementsAre("naive_bwd.dv", "naive_bwd.dp", "naive_bwd.ds", "naive_bwd.dq",
                                             "naive_bwd.dk", "tiled_bwd.pre", "tiled_bwd", "tiled_bwd.post"));
  for (const auto& k : report.kernels) {
    EXPECT_TRUE(attnscope::reports::measured_of(k.metrics, attnscope::vocab::Metric::dram_read)) << k.name;
    // A kernel recorded before it last changed (the tiled backward before 2026-12-06 on the H200) is shown
    // measured only, and says why; every other kernel is modeled beside its measurement.
    if (k.notes.contains("kernel_changed")) {
      EXPECT_EQ(k.name, "tiled_bwd");
      EXPECT_FALSE(attnscope::reports::modeled_of(k.metrics, attnscope::vocab::Metric::dram_read));
      EXPECT_THAT(r.out, HasSubstr("tiled_bwd: measured only: measured on"));
    } else {
      EXPECT_TRUE(attnscope::reports::modeled_of(k.metrics, attnscope::vocab::Metric::dram_read)) << k.name;
    }
  }
  // A backward tile nobody recorded: the model alone stands for the tiled kernels, and says so.
  const CommandResult other =
      run("run --pass bwd --device never --bwd-bc 64 --bwd-br 64 --out " + (dir_ / "run-bwd-64").string());
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_THAT(other.err, HasSubstr("no recorded measurement of some kernels"));
}

TEST_F(CliBackward, CommandsWithoutABackwardPassRefuseIt) {
  // `sweep` models the backward (its tiles are axes, tests/cli/cli_sweep_test.cpp), but not with the
  // forward-only bound.
  const CommandResult two = run("sweep --pass bwd --fidelity two --seq 512 --no-progress -o s.json");
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_THAT(two.err, HasSubstr("--fidelity two bounds the forward pass only"));
  // `profile` measures the backward kernel by kernel: the pass is accepted (here it then needs a GPU).
  const CommandResult profile = run("profile --pass both --kernel tiled -o p.json");
  EXPECT_THAT(profile.err, Not(HasSubstr("forward pass only")));
  EXPECT_EQ(run("simulate --pass sideways").exit_code, 2);
}

// Sliding window and ALiBi: the model prices them at the compiled tiles by default (the header names the
// mask and those tiles), a window without causality is refused, `run` without a GPU models them and never
// joins a recording of another mask, `profile` accepts them (then needs a GPU) except for the Hopper kernel
// and the matrices, and a sweep prices them.
TEST_F(CliBackward, MasksAreModeledMeasuredWhereBuiltAndRefusedElsewhere) {
  const CommandResult sim = run("simulate --kernel tiled --window 1024 --alibi --pass both");
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_THAT(sim.out, HasSubstr("causal window=1024 alibi"));
  EXPECT_THAT(sim.out, HasSubstr("compiled for Br 128 Bc 64 warps 4 stages 2 (forward) and Bc 128 Br 32"));
  EXPECT_THAT(sim.out, HasSubstr("4*B*H*d*visible pairs"));
  const CommandResult open = run("simulate --window 64 --no-causal");
  EXPECT_EQ(open.exit_code, 2);
  EXPECT_THAT(open.err, HasSubstr("--window is a causal mask"));

  // `run` on a masked llm-4k: the committed llm-4k recordings are unmasked or causal, so the model alone.
  const fs::path out = dir_ / "run-window";
  const CommandResult ran = run("run --window 256 --alibi -d 128 --device never --out " + out.string());
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_THAT(ran.out + ran.err, HasSubstr("model only"));
  const auto report = attnscope::reports::read_report(out / "report.json");
  EXPECT_EQ(report.workload.window, 256);
  EXPECT_TRUE(report.workload.alibi);
  EXPECT_EQ(report.tiles.warps, 8);  // d 128's compiled general-mask tile: Br 128, Bc 64, 8 warps
  ASSERT_FALSE(report.kernels.empty());
  for (const auto& k : report.kernels) {
    for (const auto& [m, v] : k.metrics) EXPECT_FALSE(v.measured.has_value()) << k.name;
  }

  // `profile` takes masks; without a GPU it stops at the device, not at the mask.
  const CommandResult profiled = run("profile --alibi --window 128 --kernel tiled -o p.json");
  EXPECT_NE(profiled.exit_code, 0);
  EXPECT_THAT(profiled.err, Not(HasSubstr("--window/--alibi")));
  expect_refused("profile --kernel hopper --window 128 -o p.json", "no sliding window or ALiBi");
  expect_refused("profile --kernel tiled --alibi --bc 128 -o p.json",
                 "compiled for --br 128 --bc 64 --warps 4 --stages 2 at head dim 64");
  expect_refused("profile --kernel tiled --alibi --pass bwd --bwd-br 64 -o p.json",
                 "--bwd-bc 128 --bwd-br 32 --bwd-stages 2 only");
  expect_refused("profile --matrix quick --alibi --out-dir m", "each matrix fixes its points' workloads");
  expect_refused("profile --matrix backward --first-point 91 --out-dir m", "has points 1 .. 90");

  // A sweep models them (cycle fidelity).
  const CommandResult swept = run("sweep --window 256 --seq 512 --kernel tiled --no-progress -o s.json");
  ASSERT_EQ(swept.exit_code, 0) << swept.err;
  EXPECT_THAT(swept.out, HasSubstr("causal window=256"));
}

// A forward pass the GPU's memory cannot hold is still priced (a what-if), and the output says so before the
// model starts: here a spec whose HBM is 1 GB against llm-4k's naive forward (1.14 GB with its S matrix).
TEST_F(CliBackward, ForwardPastTheGpusMemoryIsModeledAndSaidSoFirst) {
  std::string spec = read_text(fs::path(ATTNSCOPE_GPU_SPEC_DIR) / "h200.json");
  const std::string key = "\"hbm_capacity_bytes\": {\"value\": 141e9";
  const auto at = spec.find(key);
  ASSERT_NE(at, std::string::npos);
  spec.replace(at, key.size(), "\"hbm_capacity_bytes\": {\"value\": 1e9");
  const fs::path small = dir_ / "h200_1gb.json";
  attnscope::cli_testing::write_text(small, spec);
  const CommandResult naive = run("simulate --kernel naive --gpu " + small.string());
  ASSERT_EQ(naive.exit_code, 0) << naive.err;
  EXPECT_THAT(naive.out, HasSubstr("note: naive needs 1.14 GB of HBM at this shape"));
  EXPECT_THAT(naive.out, HasSubstr("the GPU cannot hold it; modeled as a what-if"));
  EXPECT_LT(naive.out.find("note: naive needs"), naive.out.find("naive.qk "));  // before the table
  const CommandResult tiled = run("simulate --kernel tiled --gpu " + small.string());
  ASSERT_EQ(tiled.exit_code, 0) << tiled.err;
  EXPECT_THAT(tiled.out, Not(HasSubstr("cannot hold it")));
}

}  // namespace
