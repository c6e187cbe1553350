// SPDX-License-Identifier: Apache-2.0
// `attnscope sweep --fidelity two` as a batch job meets it: killed with SIGKILL in the middle, then run again
// with the same command, it resumes from its checkpoint and writes the report an uninterrupted run writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_support.hpp"

namespace attnscope::cli_testing {
namespace {

using ::testing::HasSubstr;

class CliSweep : public CliTest {
 protected:
  CliSweep() : CliTest("sweep", true) {}

  // 16 problems of a few hundred milliseconds each on one thread: a kill lands between the first and last.
  static std::string sweep_args() {
    return "sweep --kernel tiled --heads 8 --seq 1K,2K --head-dim 64,128 --br 32,64,128 --bc 32,64,128 "
           "--warps 2,4 --stages 1,2 --sms 66,132 --l2 25M,50M --fidelity two --top-k 5 -j 1 --no-progress "
           "--checkpoint sweep.checkpoint -o sweep.json";
  }
  // Runs the sweep in `folder` (relative paths land there), to completion.
  CommandResult run_in(const fs::path& folder) {
    fs::create_directories(folder);
    const std::string cmd = "cd " + folder.string() + " && " + ATTNSCOPE_BIN + " " + sweep_args() + " >" +
                            (folder / "out.txt").string() + " 2>" + (folder / "err.txt").string();
    const int status = std::system(cmd.c_str());
    CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(folder / "out.txt");
    r.err = read_text(folder / "err.txt");
    return r;
  }
  // The report without the date it was written (two runs a second apart differ there only).
  static std::string report_without_date(const fs::path& path) {
    nlohmann::json j = nlohmann::json::parse(read_text(path));
    j["provenance"].erase("date");
    return j.dump(1);
  }
};

std::size_t lines_in(const fs::path& p) {
  const std::string text = read_text(p);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST_F(CliSweep, KilledSweepResumesToTheUninterruptedReport) {
  const CommandResult whole = run_in(dir_ / "whole");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_FALSE(fs::exists(dir_ / "whole" / "sweep.checkpoint"));  // removed once the report is written

  const fs::path killed = dir_ / "killed";
  fs::create_directories(killed);
  const pid_t child = ::fork();
  if (child == 0) {
    if (::chdir(killed.c_str()) != 0) ::_exit(127);
    const std::string cmd = std::string("exec ") + ATTNSCOPE_BIN + " " + sweep_args() + " >out.txt 2>err.txt";
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ASSERT_GT(child, 0);
  // Kill it once the header and two problems are journaled (or give up after a minute).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (lines_in(killed / "sweep.checkpoint") < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the sweep finished before the kill: make it longer";
  EXPECT_FALSE(fs::exists(killed / "sweep.json"));
  const std::size_t journaled = lines_in(killed / "sweep.checkpoint") - 1;
  ASSERT_GE(journaled, 2u);
  ASSERT_LT(journaled, 16u);

  const CommandResult resumed = run_in(killed);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_THAT(resumed.err, HasSubstr("resumed " + std::to_string(journaled) + " of 16 problem(s)"));
  EXPECT_EQ(report_without_date(killed / "sweep.json"), report_without_date(dir_ / "whole" / "sweep.json"));
}

// Started by an MPI launcher as 3 ranks, a build without MPI refuses (each rank would run the whole sweep
// into the same files) and says how to spread the work instead.
TEST_F(CliSweep, BuildWithoutMpiRefusesSeveralRanks) {
  if (ATTNSCOPE_MPI_BUILD)
    GTEST_SKIP() << "this attnscope has MPI (tests/cli/mpi_sweep_identical.sh covers it)";
  const CommandResult r =
      run("sweep --kernel tiled --seq 256 --no-progress -o s.json", ">/dev/null", "OMPI_COMM_WORLD_SIZE=3 ");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("started as 3 ranks, but this attnscope was built without MPI"));
  EXPECT_THAT(r.err, HasSubstr("--shard i/n"));
  EXPECT_FALSE(fs::exists(dir_ / "s.json"));
  // One process (no launcher, or a launcher's single rank) runs as always.
  EXPECT_EQ(
      run("sweep --kernel tiled --seq 256 --no-progress -o s.json", "", "OMPI_COMM_WORLD_SIZE=1 ").exit_code,
      0);
}

TEST_F(CliSweep, CheckpointNeedsTheTwoFidelitySweep) {
  const CommandResult r = run("sweep --kernel tiled --seq 256 --checkpoint c --no-progress -o s.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--checkpoint needs --fidelity two"));
}

TEST_F(CliSweep, BackwardTilesAreAnAxisOfTheTrainingStep) {
  const CommandResult r =
      run("sweep --kernel tiled --heads 2 --seq 512 --pass both --bwd-bc 64,128 --bwd-br 32,64 --no-progress "
          "-o s.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("fwd+bwd: 4 points, 4 feasible"));
  EXPECT_THAT(r.out, HasSubstr("best tile: Br128-Bc64-w4-s2, bwd-Bc"));
  const nlohmann::json j = nlohmann::json::parse(read_text(dir_ / "s.json"));
  ASSERT_EQ(j["sweep"].size(), 4u);
  for (const auto& p : j["sweep"]) EXPECT_EQ(p["workload"]["pass"], "both");
}

TEST_F(CliSweep, ForwardTileListsWithABackwardOnlySweepAreRefused) {
  const CommandResult r =
      run("sweep --kernel tiled --seq 512 --pass bwd --br 64,128 --no-progress -o s.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--pass bwd runs no forward kernel"));
}

}  // namespace
}  // namespace attnscope::cli_testing
