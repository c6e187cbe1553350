// SPDX-License-Identifier: Apache-2.0
// Runs the attnscope binary (cli/cmd_report.cpp, cmd_compare.cpp, cmd_sweep.cpp) as a CI job would.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "attnscope/reports/json_io.hpp"
#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

using attnscope::cli_testing::CommandResult;
using attnscope::cli_testing::read_text;

class Cli : public attnscope::cli_testing::CliTest {
 protected:
  Cli() : CliTest("cli") {}
};

TEST_F(Cli, ReportPrintsTableAndPassesGates) {
  const CommandResult r = run("report " + data("synthetic-profile-small.json") +
                              " --gate 'tiled.time < 1s' --gate "
                              "'tiled.l2_read.modeled > 0'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("kernel"), HasSubstr("dram_read"), HasSubstr("measured"),
                           HasSubstr("modeled"), HasSubstr("pass  tiled.time < 1s")));
}

TEST_F(Cli, ReportJsonCopyKeepsTotalsAndDropsTilesOnlyWhereAsked) {
  const std::string in = data("synthetic-profile-small.json");
  const fs::path all = dir_ / "all.json", head0 = dir_ / "head0.json";
  CommandResult r = run("report -q " + in + " --json " + all.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run("report -q " + in + " --keep-tiles head0 --json " + head0.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The same tables from the original, the whole copy and the trimmed copy: totals and counters are whole.
  const std::string original = run("report " + in).out;
  EXPECT_EQ(run("report " + all.string()).out, original);
  // The trimmed copy says which tiles it kept, after the same tables.
  const std::string trimmed = run("report " + head0.string()).out;
  EXPECT_EQ(trimmed.substr(0, original.size()), original);
  EXPECT_THAT(trimmed.substr(original.size()), HasSubstr("tiled: 21 of 42 tiles (batch 0 / head 0)"));
  EXPECT_THAT(read_text(head0), HasSubstr("\"tiles_kept\": \"head0\""));
  EXPECT_LT(fs::file_size(head0), fs::file_size(all));
  r = run("report -q " + in + " --keep-tiles windows");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--json"));
  r = run("report -q " + in + " --keep-tiles some --json " + (dir_ / "x.json").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("not one of all, head0, measured, windows"));
  EXPECT_FALSE(fs::exists(dir_ / "x.json"));
}

TEST_F(Cli, FailingGateExitsThreeAndJUnitRecordsTheFailure) {
  const fs::path junit = dir_ / "gates.xml", md = dir_ / "summary.md", html = dir_ / "r.html";
  const CommandResult r = run("report " + data("synthetic-profile-small.json") +
                              " --gate 'tiled.time < 1s' --gate 'tiled.dram_read.error < 0.001%' --junit " +
                              junit.string() + " --markdown " + md.string() + " --html " + html.string() +
                              " --csv " + (dir_ / "c").string() + " --trace " + (dir_ / "t.json").string());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err,
              AllOf(HasSubstr("1 of 2 gate(s) failed"), HasSubstr("FAILED tiled.dram_read.error < 0.001%")));
  const std::string xml = read_text(junit);
  EXPECT_THAT(xml, AllOf(HasSubstr("tests=\"2\" failures=\"1\""), HasSubstr("name=\"tiled.time &lt; 1s\""),
                         HasSubstr("<failure type=\"gate\" message=\"tiled.dram_read")));
  EXPECT_THAT(read_text(md), HasSubstr("Gates: 1 of 2 passed"));
  EXPECT_THAT(read_text(html), HasSubstr("FAIL"));
  EXPECT_TRUE(fs::exists(dir_ / "c-totals.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "c-tiles.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "t.json"));
}

TEST_F(Cli, BadGateIsBadInputNamingWhatExists) {
  CommandResult r = run("report " + data("synthetic-profile-small.json") + " --gate 'flash.time < 1ms'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, AllOf(HasSubstr("no kernel 'flash'"), HasSubstr("naive.qk")));
  r = run("report " + data("synthetic-profile-small.json") + " --gate 'tiled.time 1ms'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("no comparison"));
}

TEST_F(Cli, MalformedTruncatedAndFutureReportsExitFourWithAClearMessage) {
  CommandResult r = run("report " + data("malformed.json"));
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err, AllOf(HasSubstr("malformed.json"), HasSubstr("not valid JSON at byte")));
  r = run("report " + data("truncated.json"));
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err, AllOf(HasSubstr("truncated.json"), HasSubstr("truncated")));
  r = run("report " + data("future-version.json"));
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err,
              HasSubstr("was written by format version 3; this attnscope reads up to 2: upgrade attnscope"));
  r = run("report " + (dir_ / "missing.json").string());
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err, HasSubstr("cannot open report"));
}

// A check with nothing to check fails (a typo in --data once passed CI on zero cases), and a shape whose
// batch x heads overflows is bad input, not a run that prints zeros.
TEST_F(Cli, AccuracyWithoutMeasurementsAndOverflowingShapesAreErrors) {
  auto r = run("accuracy --data " + (dir_ / "no-such-folder").string() + " --check");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, ::testing::HasSubstr("no measurement found"));
  r = run("simulate -b 4611686018427387904 --heads 4");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_THAT(r.err, ::testing::HasSubstr("batch * heads"));
}

TEST_F(Cli, CompareFailsOnRegressionOnlyWhenAsked) {
  using namespace attnscope::reports;
  Report worse = read_report(data("synthetic-profile-small.json"));
  for (auto& k : worse.kernels)
    if (k.name == "tiled") {
      Value& v = k.metrics[Metric::dram_read];
      v.measured = *v.measured * 1.5;
    }
  const fs::path worse_path = dir_ / "worse.json";
  write_report_json(worse, worse_path);
  CommandResult r = run("compare " + data("synthetic-profile-small.json") + " " + worse_path.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("REGRESSION"), HasSubstr("dram_read")));
  r = run("compare " + data("synthetic-profile-small.json") + " " + worse_path.string() +
          " --fail-on-regression");
  EXPECT_EQ(r.exit_code, 3);
  r = run("compare " + data("synthetic-profile-small.json") + " " + data("synthetic-profile-small.json") +
          " --fail-on-regression --threshold 2%");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("no change beyond the threshold"));
}

TEST_F(Cli, TwoShardsMergedEqualTheUnshardedSweep) {
  const std::string axes =
      " --heads 1 --seq 256,512 --br 64,128 --bc 32,64 --stages 2 --smem 16K,48K --gpu h200,h100 "
      "--no-progress";
  ASSERT_EQ(run("sweep" + axes + " -o " + (dir_ / "all.json").string()).exit_code, 0);
  ASSERT_EQ(run("sweep" + axes + " --shard 0/2 -o " + (dir_ / "s0.json").string()).exit_code, 0);
  ASSERT_EQ(run("sweep" + axes + " --shard 1/2 -o " + (dir_ / "s1.json").string()).exit_code, 0);
  const CommandResult m = run("merge " + (dir_ / "s1.json").string() + " " + (dir_ / "s0.json").string() +
                              " -o " + (dir_ / "merged.json").string());
  ASSERT_EQ(m.exit_code, 0) << m.err;
  using namespace attnscope::reports;
  Report all = read_report(dir_ / "all.json"), merged = read_report(dir_ / "merged.json");
  EXPECT_EQ(all.sweep.size(), 2u * 2u * (1u + 2u * 2u * 2u));
  merged.provenance = all.provenance;  // compare everything except provenance (dates, command)
  EXPECT_EQ(to_json_string(merged), to_json_string(all));
  // A shard of a different sweep is refused.
  ASSERT_EQ(run("sweep --heads 1 --seq 256 --shard 1/2 --no-progress -o " + (dir_ / "other.json").string())
                .exit_code,
            0);
  const CommandResult bad = run("merge " + (dir_ / "s0.json").string() + " " +
                                (dir_ / "other.json").string() + " -o " + (dir_ / "bad.json").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("comes from a different sweep"));
}

TEST_F(Cli, SweepOfMoreThanAThousandConfigurationsFromOneCommand) {
  const fs::path html = dir_ / "sweep.html";
  const CommandResult r =
      run("sweep --heads 1 --kernel tiled --br 64,128 --bc 32,64,128 --stages 2,3 --seq 128,256,384,512,640 "
          "--head-dim 64,128 --smem 48K,100K,227K --gpu h200,h100,a100 -o " +
          (dir_ / "sweep.json").string() + " --html " + html.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, AllOf(HasSubstr("1080 configurations"), HasSubstr("sweep: 1080/1080 points (100%)")));
  EXPECT_THAT(r.out, HasSubstr("best tile: Br"));
  const std::string page = read_text(html);
  for (const char* chart : {"HBM bytes vs block size", "Time vs block size", "Bytes vs shared-memory size M",
                            "Θ(N²d²/M)", "Pareto front"})
    EXPECT_THAT(page, HasSubstr(chart));
}

TEST_F(Cli, SweepRejectsBadLists) {
  CommandResult r = run("sweep --br 64,abc --no-progress -o " + (dir_ / "x.json").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--br: 'abc' is not an integer"));
  r = run("sweep --shard 2/2 --no-progress -o " + (dir_ / "x.json").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("shard 2/2 is not valid"));
}

// Flag errors are reported before any GPU is looked for, so they read the same on a machine without one.
TEST_F(Cli, ProfileOnlyMetricsNeedsAMetric) {
  const CommandResult r = run("profile --only-metrics -o " + (dir_ / "p.json").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--only-metrics needs at least one --metric NAME"));
}

// `attnscope run` without a GPU (cmd_run.cpp): the committed H200 recordings of llm-4k are re-modeled, so
// the quick start's report holds real counters next to the model; with no recordings, the model alone,
// said in every kernel's notes.
TEST_F(Cli, RunWithoutGpuReModelsTheNewestRecording) {
  const CommandResult r = run("run --device never --out " + (dir_ / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // "1 recorded NVIDIA H200 measurement" or "N recorded ... measurements": the newest run folder may hold one
  // recording of every kernel (attnscope run's) or one per kernel kind.
  EXPECT_THAT(r.out, HasSubstr("recorded NVIDIA H200 measurement"));
  const auto report = attnscope::reports::read_report(dir_ / "out" / "report.json");
  for (const char* name : {"naive.qk", "naive.softmax", "naive.pv", "tiled"}) {
    const auto* k = attnscope::reports::find_kernel(report, name);
    ASSERT_NE(k, nullptr) << name;
    const attnscope::reports::Value* m = k->metrics.find(attnscope::reports::Metric::dram_read);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_TRUE(m->measured.has_value()) << name;
    EXPECT_TRUE(m->modeled.has_value()) << name;
  }
  // The report names the recordings it joins, and which kernels each gave.
  ASSERT_FALSE(report.provenance.recordings.empty());
  std::vector<std::string> joined;
  for (const auto& rec : report.provenance.recordings) {
    EXPECT_THAT(rec.file, HasSubstr("llm-4k")) << rec.file;
    EXPECT_FALSE(rec.date.empty()) << rec.file;
    joined.insert(joined.end(), rec.kernels.begin(), rec.kernels.end());
  }
  std::sort(joined.begin(), joined.end());
  EXPECT_EQ(joined, (std::vector<std::string>{"naive.pv", "naive.qk", "naive.softmax", "tiled"}));
  EXPECT_TRUE(report.provenance.cache.has_value());
  EXPECT_TRUE(fs::exists(dir_ / "out" / "report.html"));

  fs::create_directories(dir_ / "empty");
  const CommandResult alone = run("run --device never --measurements " + (dir_ / "empty").string() +
                                  " --out " + (dir_ / "alone").string());
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  const auto modeled = attnscope::reports::read_report(dir_ / "alone" / "report.json");
  ASSERT_FALSE(modeled.kernels.empty());
  for (const auto& k : modeled.kernels) {
    EXPECT_THAT(k.notes.at("source"), HasSubstr("model only")) << k.name;
    ASSERT_TRUE(k.metrics.contains(attnscope::reports::Metric::dram_read)) << k.name;
    EXPECT_FALSE(
        attnscope::reports::measured_of(k.metrics, attnscope::reports::Metric::dram_read).has_value())
        << k.name;
  }
}

}  // namespace

// `simulate --matrix NAME --against LOG`: a matrix run's printed totals joined with the model's, point by
// point (a log whose measured totals are twice the model's shows -50 % on both), and bad input refused.
TEST_F(Cli, MatrixTotalsJoinAMatrixRunsLogWithTheModel) {
  const CommandResult model = run("simulate --matrix quick");
  ASSERT_EQ(model.exit_code, 0) << model.err;
  std::istringstream lines(model.out);
  std::string line, log;
  int taken = 0;
  while (std::getline(lines, line) && taken < 2) {
    std::istringstream fields(line);
    std::string label;
    double mb = 0, ms = 0;
    if (!(fields >> label >> mb >> ms) || label.rfind("n1024-", 0) != 0) continue;
    ++taken;
    log += "[" + std::to_string(taken) + "/4] " + label + "  dram_read " + std::to_string(2 * mb) +
           " MB  time " + std::to_string(2 * ms) + " ms\n";
  }
  ASSERT_EQ(taken, 2) << model.out;
  const fs::path path = dir_ / "matrix.log";
  std::ofstream(path) << "deadline of 10 s reached after 2 of 4 points: stopping\n" << log;
  const CommandResult joined = run("simulate --matrix quick --against " + path.string());
  ASSERT_EQ(joined.exit_code, 0) << joined.err;
  EXPECT_THAT(joined.out, AllOf(HasSubstr("(2 points;"), HasSubstr("naive         1       50.0 %"),
                                HasSubstr("tiled         1       50.0 %"), HasSubstr("-50.0 %")));
  EXPECT_THAT(joined.out, Not(HasSubstr("causal")));  // points the run did not reach are left out

  std::ofstream(dir_ / "empty.log") << "nothing measured\n";
  const CommandResult empty = run("simulate --matrix quick --against " + (dir_ / "empty.log").string());
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_THAT(empty.err, HasSubstr("has no point lines"));
  const CommandResult other = run("simulate --matrix fresh:1 --against " + path.string());
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_THAT(other.err, HasSubstr("none of the 2 points"));
  const CommandResult alone = run("simulate --against " + path.string());
  EXPECT_EQ(alone.exit_code, 2);
  EXPECT_THAT(alone.err, HasSubstr("--against needs --matrix"));
  EXPECT_EQ(run("simulate --matrix nosuch").exit_code, 2);
}
