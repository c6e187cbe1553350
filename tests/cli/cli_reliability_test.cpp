// SPDX-License-Identifier: Apache-2.0
// What the attnscope binary does with hostile or unlucky inputs and outputs: every case gets a clear message
// and the exit code docs/guide.md documents (2 bad input, 4 unreadable report, 15 output not written).
// The reproducers live in tests/data/reliability (also the fuzzers' seeds) or are written here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

using attnscope::cli_testing::CommandResult;
using attnscope::cli_testing::read_text;
using attnscope::cli_testing::write_text;

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

class CliReliability : public attnscope::cli_testing::CliTest {
 protected:
  CliReliability() : CliTest("cli_rel", /*run_in_folder=*/true) {}
  static std::string reproducer(const std::string& name) {
    return (fs::path(ATTNSCOPE_DATA_DIR) / "reliability" / name).string();
  }
  // The small profile fixture with one edit, written into the test's folder.
  std::string edited_report(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json doc = nlohmann::json::parse(read_text(data("synthetic-profile-small.json")));
    edit(doc);
    const fs::path p = dir_ / name;
    write_text(p, doc.dump());
    return p.string();
  }
  std::size_t temporaries() const {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename().string().find(".tmp-") != std::string::npos) ++n;
    return n;
  }
};

// ---- Outputs ------------------------------------------------------------------------------------------

TEST_F(CliReliability, DeviceAndStdoutDestinationsAreWrittenNotReplaced) {
  CommandResult r = run("report -q " + data("synthetic-profile-small.json") + " --markdown /dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced";
  // Standard output redirected to a file: the Markdown comes after what was printed, nothing is replaced.
  r = run("report " + data("synthetic-profile-small.json") + " --markdown /dev/stdout");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto table = r.out.find("dram_read"), markdown = r.out.find("## attnscope profile");
  EXPECT_NE(table, std::string::npos);
  EXPECT_NE(markdown, std::string::npos);
  EXPECT_LT(table, markdown);
}

TEST_F(CliReliability, FifoDestinationIsWrittenDirectly) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader and the writer in one shell, which waits for the reader to have read everything.
  const std::string cmd = "cd " + dir_.string() + " && { cat pipe > from-pipe.md & " + ATTNSCOPE_BIN +
                          " report -q " + data("synthetic-profile-small.json") +
                          " --markdown pipe; rc=$?; wait; exit $rc; }";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  EXPECT_THAT(read_text(dir_ / "from-pipe.md"), HasSubstr("## attnscope profile"));
}

TEST_F(CliReliability, SymlinkDestinationIsRefusedAndLeftAlone) {
  write_text(dir_ / "target.md", "keep me\n");
  fs::create_symlink("target.md", dir_ / "link.md");
  const CommandResult r = run("report -q " + data("synthetic-profile-small.json") + " --markdown link.md");
  EXPECT_EQ(r.exit_code, 15);
  EXPECT_THAT(r.err, AllOf(HasSubstr("cannot write link.md"), HasSubstr("symbolic link to target.md")));
  EXPECT_TRUE(fs::is_symlink(dir_ / "link.md"));
  EXPECT_EQ(read_text(dir_ / "target.md"), "keep me\n");
  EXPECT_EQ(temporaries(), 0u);
}

TEST_F(CliReliability, ReplacedFileKeepsItsPermissions) {
  write_text(dir_ / "secret.md", "old\n");
  fs::permissions(dir_ / "secret.md", fs::perms::owner_read | fs::perms::owner_write);
  const CommandResult r = run("report -q " + data("synthetic-profile-small.json") + " --markdown secret.md");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(fs::status(dir_ / "secret.md").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_THAT(read_text(dir_ / "secret.md"), HasSubstr("## attnscope profile"));
}

TEST_F(CliReliability, DirectoryDestinationFailsWithoutLeavingAFolder) {
  CommandResult r = run("simulate -n 256 --json dir/");
  EXPECT_EQ(r.exit_code, 15);
  EXPECT_THAT(r.err, HasSubstr("cannot write dir/"));
  EXPECT_EQ(count_of(r.err, "cannot write"), 1u) << r.err;  // said once, not "cannot write X: cannot write X"
  EXPECT_FALSE(fs::exists(dir_ / "dir"));
  fs::create_directory(dir_ / "folder");
  r = run("simulate -n 256 --json folder");
  EXPECT_EQ(r.exit_code, 15);
  EXPECT_THAT(r.err, HasSubstr("cannot write folder: it is a directory"));
}

// A temporary file left by a process killed with SIGKILL is removed by the next write into its folder,
// which names the file that process had not replaced.
TEST_F(CliReliability, StaleTemporaryOfADeadProcessIsRemoved) {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);  // its process id now names no process
  const fs::path stale = dir_ / (".summary.md.tmp-" + std::to_string(child) + "-0badc0de");
  write_text(stale, "half of a file");
  const CommandResult r = run("report -q " + data("synthetic-profile-small.json") + " --markdown summary.md");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_THAT(r.err,
              AllOf(HasSubstr("removed"), HasSubstr("stopped before it replaced"), HasSubstr("summary.md")));
  EXPECT_EQ(temporaries(), 0u);
}

// One failing destination among several: nothing is replaced, and no temporary file stays.
TEST_F(CliReliability, FailedOutputOfSeveralReplacesNone) {
  write_text(dir_ / "r.html", "old html\n");
  fs::create_directory(dir_ / "taken.md");
  const CommandResult r =
      run("report -q " + data("synthetic-profile-small.json") + " --html r.html --markdown taken.md --csv c");
  EXPECT_EQ(r.exit_code, 15);
  EXPECT_THAT(r.err, HasSubstr("cannot write taken.md: it is a directory"));
  EXPECT_EQ(read_text(dir_ / "r.html"), "old html\n");
  EXPECT_FALSE(fs::exists(dir_ / "c-totals.csv"));
  EXPECT_EQ(temporaries(), 0u);
}

TEST_F(CliReliability, LostStandardOutputIsAnIoError) {
  for (const std::string redirect : {">/dev/full", ">&-"}) {
    CommandResult r = run("report " + data("synthetic-profile-small.json"), redirect);
    EXPECT_EQ(r.exit_code, 15) << redirect;
    EXPECT_THAT(r.err, HasSubstr("cannot write standard output")) << redirect;
    r = run("metrics", redirect);
    EXPECT_EQ(r.exit_code, 15) << redirect;
  }
}

TEST_F(CliReliability, UnwritableOutputsOfRunAndAccuracyExitFifteen) {
  CommandResult r = run("run --device never --measurements " + dir_.string() + " -n 256 --out /dev/null/sub");
  EXPECT_EQ(r.exit_code, 15) << r.err;
  EXPECT_THAT(r.err, HasSubstr("cannot write /dev/null/sub/report.json"));
  // One small recording as the measurement folder keeps this fast.
  fs::create_directories(dir_ / "data" / "h200" / "run");
  fs::copy_file(data("synthetic-profile-small.json"), dir_ / "data" / "h200" / "run" / "profile.json");
  r = run("accuracy --data data --markdown /dev/null/accuracy.md");
  EXPECT_EQ(r.exit_code, 15) << r.err;
  EXPECT_THAT(r.err, HasSubstr("cannot write /dev/null/accuracy.md"));
}

// ---- Inputs -------------------------------------------------------------------------------------------

TEST_F(CliReliability, DuplicateKeysAndOutOfRangeNumbersAreMalformed) {
  CommandResult r = run("report " + reproducer("duplicate-kind.json"));
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err, AllOf(HasSubstr("duplicate-kind.json"), HasSubstr("duplicate key 'kind'")));
  r = run("report " + reproducer("number-1e400.json"));
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err, AllOf(HasSubstr("number-1e400.json"), HasSubstr("number overflow"), HasSubstr("1e400")));
  r = run("report " + reproducer("deep-nesting.json"));
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err, HasSubstr("nesting deeper than"));
}

TEST_F(CliReliability, NonRegularReportsAreRefusedAtOnce) {
  CommandResult r = run("report /dev/zero");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err, HasSubstr("report /dev/zero is a character device, not a file"));
  ASSERT_EQ(::mkfifo((dir_ / "fifo.json").c_str(), 0600), 0);
  r = run("report fifo.json");  // no writer: must not block
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err, HasSubstr("report fifo.json is a FIFO, not a file"));
  r = run("report " + dir_.string());
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err, AllOf(HasSubstr("is a directory"), Not(HasSubstr("empty"))));
}

TEST_F(CliReliability, GpuSpecsWithUnboundedResourcesAreBadInput) {
  for (const char* file : {"gpu-2e30-sms.json", "gpu-2e30-channels.json"}) {
    const CommandResult r = run(std::string("simulate -n 256 --gpu ") + reproducer(file));
    EXPECT_EQ(r.exit_code, 2) << file << r.err;
    EXPECT_THAT(r.err, HasSubstr("implausibly large")) << file;
  }
  const CommandResult r = run("simulate -n 256 --gpu " + reproducer("gpu-duplicate-key.json"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("duplicate key 'sm_count'"));
}

TEST_F(CliReliability, SweepNumbersAreRangeChecked) {
  CommandResult r = run("sweep --no-progress -n 256 --br 4294967360");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--br: '4294967360' is out of range"));
  r = run("sweep --no-progress --seq 1000.7");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--seq: '1000.7' is not a whole number"));
  r = run("sweep --no-progress --seq 1e30");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--seq: '1e30' is out of range"));
  r = run("sweep --no-progress -n 256 --max-points -5");  // not 2^64 - 5
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--max-points"));
  r = run("sweep --no-progress --shard 0/99999999999");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--shard '0/99999999999' is not i/n"));
  EXPECT_FALSE(fs::exists(dir_ / "sweep.json"));
}

TEST_F(CliReliability, HugeSweepIsRefusedBeforeItStarts) {
  // 983,040 points: 4 GPUs x 8 lengths x 4 head dims x 8 limits x 5 Br x 4 Bc x 6 warps x 8 stages.
  const CommandResult r =
      run("sweep --no-progress --gpu h200,h100,a100,h200 --seq 128,256,512,1K,2K,4K,8K,16K --head-dim "
          "32,64,128,256 "
          "--smem 16K,32K,48K,64K,100K,160K,227K,256K --br 16,32,64,128,256 --bc 16,32,64,128 --warps "
          "1,2,4,8,16,32 "
          "--stages 1,2,3,4,5,6,7,8 --kernel tiled");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err,
              AllOf(HasSubstr("983040 points are more than the limit of 100000"), HasSubstr("--max-points")));
  EXPECT_FALSE(fs::exists(dir_ / "sweep.json"));
}

// ---- Escaping -----------------------------------------------------------------------------------------

TEST_F(CliReliability, ReportTextIsEscapedInMarkdownTerminalAndCsv) {
  const std::string report = edited_report("hostile.json", [](nlohmann::json& doc) {
    doc["workload"]["name"] = "<img src=x onerror=alert(1)>\x1b]0;owned\x07";
    doc["kernels"][0]["name"] = "=cmd|' /C calc'!A0";
  });
  const CommandResult r = run("report " + report + " --markdown r.md --csv c");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string md = read_text(dir_ / "r.md");
  EXPECT_THAT(md, AllOf(HasSubstr("&lt;img src=x onerror=alert(1)&gt;"), Not(HasSubstr("<img"))));
  EXPECT_THAT(r.out, AllOf(HasSubstr("\\x1b]0;owned\\x07"), Not(HasSubstr("\x1b"))));
  const std::string csv = read_text(dir_ / "c-totals.csv");
  EXPECT_THAT(csv, AllOf(HasSubstr("'=cmd|' /C calc'!A0"), Not(HasSubstr("\n=cmd"))));
}

TEST_F(CliReliability, CompareOfAVanishingValuePrintsNoInfinity) {
  const auto with_time = [](double v) {
    return [v](nlohmann::json& doc) {
      for (auto& k : doc["kernels"]) k["metrics"]["time"]["measured"] = v;
    };
  };
  const std::string old_report = edited_report("old.json", with_time(5e-324));
  const std::string new_report = edited_report("new.json", with_time(1.0));
  const CommandResult r = run("compare " + old_report + " " + new_report + " --markdown cmp.md");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, AllOf(HasSubstr("REGRESSION"), Not(HasSubstr("inf"))));
  EXPECT_THAT(read_text(dir_ / "cmp.md"), Not(HasSubstr("inf")));
}

}  // namespace
