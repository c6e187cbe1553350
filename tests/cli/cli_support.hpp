// SPDX-License-Identifier: Apache-2.0
// What the command-line tests share: a per-test temporary folder (the process id keeps two test runs on one
// machine, two checkouts, out of each other's folders) and the attnscope binary (ATTNSCOPE_BIN, set per test
// target) run with its stdout and stderr captured.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace attnscope::cli_testing {

namespace fs = std::filesystem;

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

// dir_ = <temp>/attnscope_<prefix>_<pid>_<test name>, fresh for each test and removed after it.
class CliTest : public ::testing::Test {
 protected:
  // `run_in_folder`: commands run with dir_ as their working directory (relative outputs land there).
  explicit CliTest(std::string prefix, bool run_in_folder = false)
      : prefix_(std::move(prefix)), run_in_folder_(run_in_folder) {}

  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("attnscope_" + prefix_ + "_" + std::to_string(::getpid()) + "_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `redirect` replaces the default stdout capture (e.g. ">/dev/full", ">&-"); out is then empty. `env`
  // ("NAME=value ") is set for the command only.
  CommandResult run(const std::string& args, const std::string& redirect = "", const std::string& env = "") {
    const std::string out = redirect.empty() ? " >" + (dir_ / "out.txt").string() : " " + redirect;
    const std::string cmd = (run_in_folder_ ? "cd " + dir_.string() + " && " : std::string()) + env +
                            std::string(ATTNSCOPE_BIN) + " " + args + out + " 2>" +
                            (dir_ / "err.txt").string();
    const int status = std::system(cmd.c_str());
    CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = redirect.empty() ? read_text(dir_ / "out.txt") : std::string();
    r.err = read_text(dir_ / "err.txt");
    return r;
  }
  // Runs `args` and expects it refused with exit code 2 (bad input) and `why` in its error output.
  void expect_refused(const std::string& args, const std::string& why) {
    const CommandResult r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << args << ": " << r.err;
  }
  // A committed report fixture (tests/data/reports).
  static std::string data(const std::string& name) {
    return (fs::path(ATTNSCOPE_DATA_DIR) / "reports" / name).string();
  }

  fs::path dir_;

 private:
  std::string prefix_;
  bool run_in_folder_ = false;
};

}  // namespace attnscope::cli_testing
