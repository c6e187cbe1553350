// SPDX-License-Identifier: Apache-2.0
// `attnscope profile [selection] -- COMMAND` on a machine without a GPU: every failure that happens before
// or without kernels has its own message and exit code (cli/exit_codes.hpp), and a program that launches
// nothing gets a clear "no kernel launched or recorded", not a crash.
#include <sys/stat.h>

#include "cli_support.hpp"

namespace {

using attnscope::cli_testing::CliTest;
using attnscope::cli_testing::write_text;

class ProfileProgram : public CliTest {
 protected:
  ProfileProgram() : CliTest("profile_program", true) {}
};

constexpr int kBadInput = 2;
constexpr int kNoCudaDevice = 10;
constexpr int kProgramNotFound = 16;
constexpr int kInjectLibMissing = 17;
constexpr int kNothingMeasured = 18;
constexpr int kProgramFailed = 19;

TEST_F(ProfileProgram, MissingProgramIsNamed) {
  if (!ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "a build without CUDA stops earlier (tested below)";
  auto r = run("profile -k flash -- /nonexistent/train.py");
  EXPECT_EQ(r.exit_code, kProgramNotFound) << r.err;
  EXPECT_NE(r.err.find("'/nonexistent/train.py' does not exist"), std::string::npos) << r.err;
  r = run("profile -- attnscope-no-such-program-on-path");
  EXPECT_EQ(r.exit_code, kProgramNotFound) << r.err;
  EXPECT_NE(r.err.find("is not found on PATH"), std::string::npos) << r.err;
}

TEST_F(ProfileProgram, NonExecutableProgramIsNamed) {
  if (!ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "a build without CUDA stops earlier (tested below)";
  write_text(dir_ / "script.sh", "#!/bin/sh\n");
  ::chmod((dir_ / "script.sh").c_str(), 0644);
  const auto r = run("profile -- ./script.sh");
  EXPECT_EQ(r.exit_code, kProgramNotFound) << r.err;
  EXPECT_NE(r.err.find("is not an executable file"), std::string::npos) << r.err;
}

TEST_F(ProfileProgram, MissingCollectorLibraryIsNamed) {
  if (!ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "a build without CUDA stops earlier (tested below)";
  const auto r = run("profile -- /bin/true", "", "ATTNSCOPE_INJECT_LIB=/nonexistent/libattnscope_inject.so ");
  EXPECT_EQ(r.exit_code, kInjectLibMissing) << r.err;
  EXPECT_NE(r.err.find("libattnscope_inject.so is missing"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/libattnscope_inject.so"), std::string::npos) << r.err;
}

TEST_F(ProfileProgram, CollectorThatCannotLoadIsNamed) {
  if (!ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "a build without CUDA stops earlier (tested below)";
  write_text(dir_ / "libattnscope_inject.so", "not a shared library\n");
  const auto lib = (dir_ / "libattnscope_inject.so").string();
  const auto r = run("profile -- /bin/true", "", "ATTNSCOPE_INJECT_LIB=" + lib + " ");
  EXPECT_EQ(r.exit_code, kInjectLibMissing) << r.err;
  EXPECT_NE(r.err.find("cannot be loaded"), std::string::npos) << r.err;
}

TEST_F(ProfileProgram, ProgramWithoutGpuWorkSaysNothingWasLaunched) {
  if (!ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "a build without CUDA stops earlier (tested below)";
  const auto r = run("profile -k flash_fwd -- /bin/true");
  EXPECT_EQ(r.exit_code, kNothingMeasured) << r.err;
  EXPECT_NE(r.err.find("no kernel launched or recorded"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "attnscope-profile.json"));
}

TEST_F(ProfileProgram, FailingProgramPassesItsOutputAndStatusOn) {
  if (!ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "a build without CUDA stops earlier (tested below)";
  const auto r = run("profile -- /bin/sh -c 'echo from the program; exit 3'");
  EXPECT_EQ(r.exit_code, kProgramFailed) << r.err;
  EXPECT_NE(r.out.find("from the program"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("the program exited with status 3"), std::string::npos) << r.err;
}

TEST_F(ProfileProgram, CollectorEnvironmentReachesTheProgram) {
  if (!ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "a build without CUDA stops earlier (tested below)";
  // A program that prints what the collector would read (and launches nothing).
  const auto r =
      run("profile -k 'flash_(fwd|bwd)' --nvtx-include attnscope --launch-skip 2 -c 5 --replay kernel -- "
          "/bin/sh -c 'env | grep -E \"^(ATTNSCOPE_INJECT_|CUDA_INJECTION64_PATH)\" | sort'",
          "", "ATTNSCOPE_INJECT_STALE=1 ");
  EXPECT_EQ(r.exit_code, kNothingMeasured) << r.err;
  EXPECT_NE(r.out.find("ATTNSCOPE_INJECT_KERNEL=flash_(fwd|bwd)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ATTNSCOPE_INJECT_NVTX=attnscope"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ATTNSCOPE_INJECT_SKIP=2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ATTNSCOPE_INJECT_COUNT=5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ATTNSCOPE_INJECT_REPLAY=kernel"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ATTNSCOPE_INJECT_OUT="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("CUDA_INJECTION64_PATH="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("libattnscope_inject.so"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("ATTNSCOPE_INJECT_STALE"), std::string::npos) << r.out;  // not inherited
}

TEST_F(ProfileProgram, BadSelectionIsBadInput) {
  auto r = run("profile -k 'flash(' -- /bin/true");
  EXPECT_EQ(r.exit_code, kBadInput) << r.err;
  EXPECT_NE(r.err.find("kernel name regex 'flash('"), std::string::npos) << r.err;
  r = run("profile -c 0 -- /bin/true");
  EXPECT_EQ(r.exit_code, kBadInput) << r.err;
  r = run("profile -k flash --");
  EXPECT_EQ(r.exit_code, kBadInput) << r.err;
  EXPECT_NE(r.err.find("command"), std::string::npos) << r.err;
}

TEST_F(ProfileProgram, BuildWithoutCudaSaysSo) {
  if (ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "this build has CUDA";
  const auto r = run("profile -- /bin/true");
  EXPECT_EQ(r.exit_code, kNoCudaDevice) << r.err;
  EXPECT_NE(r.err.find("needs a CUDA build"), std::string::npos) << r.err;
}

TEST_F(ProfileProgram, OwnKernelsProfileKeepsItsOptions) {
  // Without `--` and the program-only options, `profile` is attnscope's own kernels: -k picks one of them.
  const auto r = run("profile -k flash");
  EXPECT_EQ(r.exit_code, kBadInput) << r.err;
  EXPECT_NE(r.err.find("naive"), std::string::npos) << r.err;
}

}  // namespace
