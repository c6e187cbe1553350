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

// The collector's side played by the program itself: it appends prepared records to ATTNSCOPE_INJECT_OUT,
// as the collector would inside a real program, so everything after the program ran is tested without a GPU.
class FakeCollector : public ProfileProgram {
 protected:
  // Runs `attnscope profile <options> -- sh -c 'cat records >> $ATTNSCOPE_INJECT_OUT; exit <status>'`.
  attnscope::cli_testing::CommandResult run_with_records(const std::string& records, int status,
                                                         const std::string& options = "") {
    write_text(dir_ / "records.src", records);
    return run("profile " + options + " -- /bin/sh -c 'cat records.src >> \"$ATTNSCOPE_INJECT_OUT\"; exit " +
               std::to_string(status) + "'");
  }
  static std::string start() {
    return R"json({"record":"start","format":1,"list_kernels":false,"kernel_regex":"foo","nvtx_regex":"",)json"
           R"json("replay":"user","skip":0,"count":null,"pid":1})json"
           "\n";
  }
  static std::string device() {
    return R"json({"record":"device","name":"NVIDIA H200","chip":"GH100","driver":"CUDA driver API 13.0",)json"
           R"json("cuda_runtime":"","l2_bytes":52428800,"sm_count":132})json"
           "\n";
  }
  static std::string launch(int index) {
    return R"json({"record":"launch","mangled_name":"_Z3fooPf","demangled_name":"foo(float*)",)json"
           R"json("grid":[4,1,1],"block":[32,1,1],"registers_per_thread":16,"static_smem_bytes":0,)json"
           R"json("dynamic_smem_bytes":0,"launch_index":)json" +
           std::to_string(index) +
           R"json(,"nvtx_ranges":[],"nvtx_thread":"own","annotation":"","replay":"user","passes":3,)json"
           R"json("unavailable_metrics":[],"notes":["saved and restored 1 allocation(s)"],"shape":null,)json"
           R"json("counters":{"dram__bytes_read.sum":4096.0},"event_time_s":2e-06})json"
           "\n";
  }
  static std::string summary(const std::string& kernels) {
    return R"json({"record":"summary","launches_seen":7,"matched":0,"selected":0,"measured":0,)json"
           R"json("runtime_launches":7,"kernels":[)json" +
           kernels + "]}\n";
  }
  static std::string permission_error() {
    return R"json({"record":"error","launch_index":null,"kernel":"","code":"no_counter_permission",)json"
           R"json("message":"no permission to read GPU performance counters (ERR_NVGPUCTRPERM)"})json"
           "\n";
  }
};

TEST_F(FakeCollector, RecordsBecomeTheReport) {
  if (!ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "a build without CUDA stops before the program runs";
  const auto r = run_with_records(start() + device() + launch(3) + launch(5), 0, "-k foo -o foo.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("launch 3 foo: grid (4, 1, 1) block (32, 1, 1), user replay, 3 pass(es), 0.002 ms"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("saved and restored 1 allocation(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("measured 2 launch(es) on NVIDIA H200: wrote foo.json"), std::string::npos) << r.out;
  const std::string report = attnscope::cli_testing::read_text(dir_ / "foo.json");
  EXPECT_NE(report.find("\"foo.3\""), std::string::npos);
  EXPECT_NE(report.find("\"foo.5\""), std::string::npos);
}

TEST_F(FakeCollector, CounterPermissionErrorHasItsExitCode) {
  if (!ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "a build without CUDA stops before the program runs";
  const auto r = run_with_records(start() + permission_error() + summary(""), 0);
  EXPECT_EQ(r.exit_code, 12) << r.err;
  EXPECT_NE(r.err.find("collector error: no permission to read GPU performance counters"), std::string::npos)
      << r.err;
}

TEST_F(FakeCollector, ProgramKilledMidRecordKeepsWhatWasMeasured) {
  if (!ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "a build without CUDA stops before the program runs";
  const std::string cut = launch(9).substr(0, 60);  // no newline: the program died while it was written
  const auto r = run_with_records(start() + device() + launch(8) + cut, 137, "-o killed.json");
  EXPECT_EQ(r.exit_code, kProgramFailed) << r.err;
  EXPECT_NE(r.err.find("line 4: cut short"), std::string::npos) << r.err;
  EXPECT_NE(
      r.err.find("the program exited with status 137; the report holds the 1 launch(es) measured before"),
      std::string::npos)
      << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "killed.json"));
}

TEST_F(FakeCollector, NoMatchListsWhatTheProgramLaunched) {
  if (!ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "a build without CUDA stops before the program runs";
  const std::string kernels = R"json({"name":"void gemm_kernel<128>(float*)","launches":5},)json"
                              R"json({"name":"softmax_kernel","launches":2})json";
  const auto r = run_with_records(start() + summary(kernels), 0, "-k flash_fwd");
  EXPECT_EQ(r.exit_code, kNothingMeasured) << r.err;
  EXPECT_NE(r.err.find("no launch matched the selection (kernel name ~ /flash_fwd/)"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("the program launched 7 kernels (2 distinct)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("5 x void gemm_kernel<128>(float*)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 x softmax_kernel"), std::string::npos) << r.err;
}

TEST_F(FakeCollector, ListKernelsWritesTheKernelList) {
  if (!ATTNSCOPE_CUDA_BUILD) GTEST_SKIP() << "a build without CUDA stops before the program runs";
  const auto r = run_with_records(start() + device() + launch(0) + launch(1), 0, "--list-kernels -o k.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string list = attnscope::cli_testing::read_text(dir_ / "k.json");
  EXPECT_NE(list.find("\"function\": \"foo\""), std::string::npos) << list;
  EXPECT_NE(list.find("\"launches\": 2"), std::string::npos) << list;
  EXPECT_NE(list.find("\"device\": \"NVIDIA H200\""), std::string::npos) << list;
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
