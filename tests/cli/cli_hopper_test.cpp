// SPDX-License-Identifier: Apache-2.0
// Runs the attnscope binary on the Hopper kernel (cli/cmd_simulate.cpp, cmd_sweep.cpp, workload_options.cpp):
// `--kernel hopper` and `--kernel all` in simulate, its report in every format, a sweep over its tiles with
// the infeasible points' reasons, and what it refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "attnscope/reports/json_io.hpp"
#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

using attnscope::cli_testing::CommandResult;
using attnscope::cli_testing::read_text;

class CliHopper : public attnscope::cli_testing::CliTest {
 protected:
  CliHopper() : CliTest("cli_hopper") {}
};

// Without --hopper-* flags the tile is the kernel's default for the head dim (vocab::default_hopper_config),
// the one `profile --kernel hopper` launches.
TEST_F(CliHopper, DefaultTileFollowsTheHeadDim) {
  const CommandResult d64 = run("simulate --kernel hopper --heads 4 -n 1024 -d 64");
  ASSERT_EQ(d64.exit_code, 0) << d64.err;
  EXPECT_THAT(d64.out, HasSubstr("tiles hopper-Br192-Bc128-c3-s3-overlap"));
  const CommandResult d128 = run("simulate --kernel hopper --heads 4 -n 1024 -d 128");
  ASSERT_EQ(d128.exit_code, 0) << d128.err;
  EXPECT_THAT(d128.out, HasSubstr("tiles hopper-Br128-Bc128-c2-s2-pingpong-persistent"));
  // One CTA per SM over the 32 tiles: 32 CTAs.
  EXPECT_THAT(d128.out, ::testing::ContainsRegex("hopper +[0-9.]+ [kMG]?B .* 32 +1\n"));
  const CommandResult per_tile =
      run("simulate --kernel hopper --heads 4 -n 1024 -d 128 --hopper-persistent false --hopper-stages 3");
  ASSERT_EQ(per_tile.exit_code, 0) << per_tile.err;
  EXPECT_THAT(per_tile.out, HasSubstr("tiles hopper-Br128-Bc128-c2-s3-pingpong\n"));
  const CommandResult one_flag = run("simulate --kernel hopper --heads 4 -n 1024 -d 64 --hopper-stages 4");
  ASSERT_EQ(one_flag.exit_code, 0) << one_flag.err;
  EXPECT_THAT(one_flag.out, HasSubstr("tiles hopper-Br192-Bc128-c3-s4-overlap"));
}

TEST_F(CliHopper, SimulatePrintsTheHopperKernelAndWritesItsReport) {
  const fs::path json = dir_ / "h.json";
  const CommandResult r =
      run("simulate --kernel hopper --heads 4 -n 1024 -d 128 --hopper-bc 64 --hopper-stages 3 "
          "--hopper-schedule overlap --json " +
          json.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("hopper kernel, fwd pass, tiles hopper-Br128-Bc64-c2-s3-overlap"));
  EXPECT_THAT(r.out, HasSubstr("1 CTA/SM"));
  const auto report = attnscope::reports::read_report(json);
  ASSERT_EQ(report.kernels.size(), 1u);
  EXPECT_EQ(report.kernels[0].name, "hopper");
  EXPECT_EQ(report.tiles.hopper_bc, 64);
  EXPECT_EQ(report.tiles.hopper_schedule, attnscope::sim::HopperSchedule::overlap);
  for (const char* format : {"--markdown", "--html"}) {
    const fs::path out = dir_ / (std::string("h") + format);
    const CommandResult written = run("report " + json.string() + " " + format + " " + out.string());
    ASSERT_EQ(written.exit_code, 0) << written.err;
    EXPECT_THAT(read_text(out), HasSubstr("hopper-Br128-Bc64-c2-s3-overlap")) << format;
  }
  const CommandResult printed = run("report " + json.string());
  EXPECT_THAT(printed.out, HasSubstr("hopper"));
}

TEST_F(CliHopper, AllRunsTheThreeKindsAndBothStaysNaiveAndTiled) {
  const CommandResult all = run("simulate --kernel all --heads 2 -n 512");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_THAT(all.out, HasSubstr("naive kernel, fwd pass"));
  EXPECT_THAT(all.out, HasSubstr("tiled kernel, fwd pass"));
  EXPECT_THAT(all.out, HasSubstr("hopper kernel, fwd pass"));
  const CommandResult both = run("simulate --kernel both --heads 2 -n 512");
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_THAT(both.out, Not(HasSubstr("hopper")));
  // A mask the Hopper kernel is not built for: `all` still simulates the others.
  const CommandResult window = run("simulate --kernel all --heads 2 -n 512 --window 128");
  ASSERT_EQ(window.exit_code, 0) << window.err;
  EXPECT_THAT(window.out, HasSubstr("not simulated: hopper"));
  EXPECT_THAT(window.out, HasSubstr("tiled kernel, fwd pass"));
}

TEST_F(CliHopper, RefusesWhatTheKernelCannotRun) {
  const CommandResult bwd = run("simulate --kernel hopper --pass bwd");
  EXPECT_EQ(bwd.exit_code, 2);
  EXPECT_THAT(bwd.err, HasSubstr("forward pass only"));
  const CommandResult consumers = run("simulate --kernel hopper --hopper-consumers 4");
  EXPECT_EQ(consumers.exit_code, 2);
  EXPECT_THAT(consumers.err, HasSubstr("consumers"));
  const CommandResult schedule = run("simulate --kernel hopper --hopper-schedule fast");
  EXPECT_EQ(schedule.exit_code, 2);
  EXPECT_THAT(schedule.err, HasSubstr("serial, overlap, pingpong"));
}

TEST_F(CliHopper, SweepsItsTilesAndListsTheInfeasibleOnesWithTheReason) {
  const fs::path json = dir_ / "sweep.json";
  const CommandResult r = run(
      "sweep --kernel hopper --heads 2 -n 512 -d 128 --hopper-bc 64,128,256 "
      "--hopper-consumers 2 --hopper-stages 2,4 --hopper-schedule serial,overlap --hopper-persistent false "
      "--no-progress -o " +
      json.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = attnscope::reports::read_report(json);
  ASSERT_EQ(report.sweep.size(), 12u);
  int infeasible = 0;
  for (const auto& p : report.sweep) {
    EXPECT_EQ(p.kind, attnscope::sim::KernelKind::hopper);
    if (!p.feasible) {
      ++infeasible;
      EXPECT_THAT(p.infeasible_reason, HasSubstr("shared memory"));
    }
  }
  // d 128: Q is 32 KiB and each K/V slot pair 2 Bc 256 B; over the 227 KiB a CTA may hold are Bc 256 at 2
  // and 4 stages (288, 544 KiB) and Bc 128 at 4 stages (288 KiB), each for both schedules.
  EXPECT_EQ(infeasible, 6);
  EXPECT_THAT(r.out, HasSubstr("best tile: hopper-"));
}

// One CTA per tile or per SM as an axis: the persistent kernel's second Q buffer (32 KiB at d 128) takes 3
// stages of Bc 128 over the limit (256 KiB) where one CTA per tile fits (224 KiB).
TEST_F(CliHopper, SweepsOneCtaPerTileAgainstPersistent) {
  const fs::path json = dir_ / "sweep-persistent.json";
  const CommandResult r =
      run("sweep --kernel hopper --heads 2 -n 512 -d 128 --hopper-consumers 2 --hopper-stages 2,3 "
          "--hopper-schedule pingpong --hopper-persistent false,true --no-progress -o " +
          json.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = attnscope::reports::read_report(json);
  ASSERT_EQ(report.sweep.size(), 4u);
  int persistent = 0;
  for (const auto& p : report.sweep) {
    persistent += p.tiles.hopper_persistent ? 1 : 0;
    const bool fits = !(p.tiles.hopper_persistent && p.tiles.hopper_stages == 3);
    EXPECT_EQ(p.feasible, fits) << attnscope::reports::tiles_label(p) << ": " << p.infeasible_reason;
  }
  EXPECT_EQ(persistent, 2);
  // Without Hopper axes each head dim runs its own default tile (the preset's head dim is 64: its default,
  // 3 consumers at 3 stages, does not fit shared memory at d 128).
  const fs::path by_dim = dir_ / "sweep-by-dim.json";
  const CommandResult dims =
      run("sweep --kernel hopper --heads 2 -n 512 -d 64,128 --no-progress -o " + by_dim.string());
  ASSERT_EQ(dims.exit_code, 0) << dims.err;
  const auto report_dims = attnscope::reports::read_report(by_dim);
  ASSERT_EQ(report_dims.sweep.size(), 2u);
  for (const auto& p : report_dims.sweep) {
    EXPECT_TRUE(p.feasible) << attnscope::reports::tiles_label(p) << ": " << p.infeasible_reason;
    attnscope::sim::TileConfig want;
    want.set_hopper(
        attnscope::vocab::default_hopper_config(static_cast<int>(p.workload.head_dim), p.workload.causal));
    EXPECT_EQ(p.tiles.hopper_label(), want.hopper_label()) << p.workload.head_dim;
  }
  const CommandResult bad = run("sweep --kernel hopper -d 128 --hopper-persistent maybe --no-progress");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.err, HasSubstr("not true or false"));
}

}  // namespace

namespace {

// `run --kernel hopper` (and `all`) without a GPU joins the newest committed recording of the Hopper kernel
// at the workload and tile: the one of the kernel as it is now (recorded in a folder inside a dated run), not
// an older recording of an earlier version of the kernel at the same shape. The H200 recordings are of the
// tile that was the d 128 default until 2026-12-06 (serial, 2 stages), named here.
TEST_F(CliHopper, RunJoinsTheNewestHopperRecording) {
  const fs::path out = dir_ / "run-hopper";
  const CommandResult r =
      run("run --kernel hopper -d 128 --hopper-stages 2 --hopper-schedule serial "
          "--device never --out " +
          out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto report = attnscope::reports::read_report(out / "report.json");
  ASSERT_EQ(report.kernels.size(), 1u);
  EXPECT_EQ(report.kernels[0].name, "hopper");
  ASSERT_EQ(report.provenance.recordings.size(), 1u);
  // The newest committed Hopper llm-4k d 128 profile (2026-12-05 13:32 UTC, with the bulk-copy counters).
  EXPECT_THAT(report.provenance.recordings[0].file, HasSubstr("validate-20261205T133223Z"));
  const CommandResult all = run("run --kernel all --device never --out " + (dir_ / "run-all").string());
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const auto three = attnscope::reports::read_report(dir_ / "run-all" / "report.json");
  std::vector<std::string> names;
  for (const auto& k : three.kernels) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{"naive.qk", "naive.softmax", "naive.pv", "tiled", "hopper"}));
}

}  // namespace
