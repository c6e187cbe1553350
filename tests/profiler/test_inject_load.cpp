// SPDX-License-Identifier: Apache-2.0
// The collector library as the CUDA driver loads it, without a GPU: it opens (every symbol resolved, its
// CUPTI found), InitializeInjection reads the selection from the environment and writes its start record,
// and what it cannot do (subscribe to CUPTI on a machine with only the driver's stub library, a malformed
// regex) becomes an error record, not a crash. Each case runs in a child process: CUPTI state and the
// collector's exit handler stay out of the test runner.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "attnscope/profiler/foreign_records.hpp"
#include "attnscope/profiler/foreign_selection.hpp"

namespace attnscope::profiler {
namespace {

namespace fs = std::filesystem;

// The records of one InitializeInjection call in a child process with `env` set; nothing when the machine
// has neither a driver nor the toolkit's stub of it (the collector needs libcuda.so.1 to load).
std::optional<ForeignRun> load_collector(const std::map<std::string, std::string>& env,
                                         const fs::path& records) {
  fs::remove(records);
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    ::setenv(kEnvInjectOut, records.c_str(), 1);
    // The real driver where there is one, else the toolkit's stub (same soname, libcuda.so.1).
    if (!::dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL) &&
        (ATTNSCOPE_CUDA_STUB[0] == '\0' || !::dlopen(ATTNSCOPE_CUDA_STUB, RTLD_NOW | RTLD_GLOBAL)))
      std::_Exit(3);
    void* lib = ::dlopen(ATTNSCOPE_INJECT_LIB, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) std::_Exit(4);
    using Init = int (*)();
    const auto init = reinterpret_cast<Init>(::dlsym(lib, "InitializeInjection"));
    if (init == nullptr) std::_Exit(5);
    init();
    std::exit(0);  // runs the collector's exit handler (the summary, when it subscribed)
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
  const int code = WEXITSTATUS(status);
  if (code == 3) return std::nullopt;
  EXPECT_NE(code, 4) << "the collector does not load: " << ATTNSCOPE_INJECT_LIB;
  EXPECT_NE(code, 5) << "the collector exports no InitializeInjection";
  return read_foreign_records(records);
}

fs::path records_path(const char* name) {
  return fs::temp_directory_path() / (std::string("attnscope_inject_") + std::to_string(::getpid()) + name);
}

TEST(InjectLoad, StartRecordCarriesTheSelection) {
  const auto path = records_path("start.jsonl");
  const auto loaded =
      load_collector({{kEnvInjectKernel, "flash_fwd"}, {kEnvInjectSkip, "1"}, {kEnvInjectCount, "2"}}, path);
  if (!loaded) GTEST_SKIP() << "no libcuda.so.1 and no stub at '" << ATTNSCOPE_CUDA_STUB << "'";
  const ForeignRun& run = *loaded;
  ASSERT_TRUE(run.start) << "no start record";
  EXPECT_EQ(run.start->kernel_regex, "flash_fwd");
  EXPECT_EQ(run.start->skip, 1u);
  EXPECT_EQ(run.start->count, std::optional<std::uint64_t>(2));
  EXPECT_TRUE(run.unreadable.empty());
  // Without a GPU driver CUPTI refuses the subscription (an error record); with one, the exit handler wrote
  // the summary of a program that launched nothing.
  if (run.errors.empty()) {
    ASSERT_TRUE(run.summary);
    EXPECT_EQ(run.summary->launches_seen, 0u);
  } else {
    EXPECT_EQ(run.errors[0].code, "cupti_error") << run.errors[0].message;
    EXPECT_NE(run.errors[0].message.find("cuptiSubscribe"), std::string::npos) << run.errors[0].message;
  }
  fs::remove(path);
}

TEST(InjectLoad, MalformedRegexIsAnErrorRecord) {
  const auto path = records_path("regex.jsonl");
  const auto loaded = load_collector({{kEnvInjectNvtx, "(unclosed"}}, path);
  if (!loaded) GTEST_SKIP() << "no libcuda.so.1 and no stub at " << ATTNSCOPE_CUDA_STUB;
  const ForeignRun& run = *loaded;
  ASSERT_TRUE(run.start);
  ASSERT_EQ(run.errors.size(), 1u);
  EXPECT_EQ(run.errors[0].code, "bad_input");
  EXPECT_NE(run.errors[0].message.find("NVTX range regex '(unclosed'"), std::string::npos)
      << run.errors[0].message;
  fs::remove(path);
}

}  // namespace
}  // namespace attnscope::profiler
