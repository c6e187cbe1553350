// SPDX-License-Identifier: Apache-2.0
// `attnscope profile -- COMMAND` on a GPU, on foreign_smoke (a small CUDA program with in-place kernels that
// checks its own results): the collector measures the selected launches with user replay and kernel replay,
// the program still computes the right values, NVTX ranges and the annotation reach the records, a worker
// thread's launch carries the main thread's ranges, --list-kernels lists both kernels, and a regex that
// matches nothing exits 18 listing them.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "attnscope/profiler/foreign_records.hpp"

namespace attnscope::profiler {
namespace {

namespace fs = std::filesystem;

struct Result {
  int exit_code = -1;
  std::string out;
  ForeignRun run;
};

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("attnscope_foreign_gpu_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

// The binaries as built, or where a packed copy put them (scripts/gpu_foreign.sh).
std::string path_of(const char* env, const char* built) {
  const char* v = std::getenv(env);
  return v != nullptr && *v != '\0' ? v : built;
}

Result profile(const std::string& options, const std::string& name) {
  const fs::path records = scratch(name + ".jsonl"), out = scratch(name + ".txt");
  const std::string cmd = path_of("ATTNSCOPE_TEST_BIN", ATTNSCOPE_BIN) + " profile --inject-log --records " +
                          records.string() + " -o " + scratch(name + ".json").string() + " " + options +
                          " -- " + path_of("ATTNSCOPE_TEST_FOREIGN_SMOKE", ATTNSCOPE_FOREIGN_SMOKE) + " >" +
                          out.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  Result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(out);
  std::ostringstream text;
  text << in.rdbuf();
  r.out = text.str();
  r.run = read_foreign_records(records);
  return r;
}

TEST(ForeignGpu, UserReplayMeasuresAndKeepsTheProgramRight) {
  const auto r = profile("-k accumulate", "user");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("foreign_smoke: results right"), std::string::npos) << r.out;
  ASSERT_TRUE(r.run.device) << r.out;
  ASSERT_EQ(r.run.launches.size(), 3u) << r.out;
  for (const auto& l : r.run.launches) {
    EXPECT_EQ(l.launch.replay, ForeignReplay::user) << r.out;
    EXPECT_GT(l.passes, 0);
    ASSERT_TRUE(l.launch.event_time_s);
    EXPECT_GT(*l.launch.event_time_s, 0.0);
    const auto it = l.launch.counters.find("dram__bytes_read.sum");
    ASSERT_NE(it, l.launch.counters.end());
    ASSERT_TRUE(it->second);
    // It reads x and y (16 MB each) from a flushed L2: at least that much from DRAM.
    EXPECT_GT(*it->second, 30e6) << r.out;
    EXPECT_EQ(l.annotation, "attnscope: B=1 H=1 Nq=128 Nkv=128 d=64 dtype=fp16 causal=0") << r.out;
    EXPECT_EQ(l.launch.nvtx_ranges.front(), "foreign_smoke main");
  }
  EXPECT_TRUE(r.run.errors.empty()) << r.out;
  ASSERT_TRUE(r.run.summary);
  EXPECT_GE(r.run.summary->launches_seen, 5u) << r.out;  // the runtime may launch kernels of its own
}

TEST(ForeignGpu, StructParameterAndWorkerThread) {
  const auto r = profile("-k smoke_struct -c 1", "struct");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  ASSERT_EQ(r.run.launches.size(), 1u) << r.out;
  const auto& l = r.run.launches[0];
  EXPECT_EQ(l.launch.replay, ForeignReplay::user) << r.out;  // the pointers inside Args were found
  EXPECT_EQ(l.nvtx_thread, "main+own");
  EXPECT_EQ(l.launch.nvtx_ranges, (std::vector<std::string>{"foreign_smoke main", "worker"}));
  EXPECT_GE(l.launch.launch_index, 3u);  // after the three accumulates
}

TEST(ForeignGpu, KernelReplayKeepsTheProgramRight) {
  const auto r = profile("--replay kernel -k accumulate --launch-skip 1 -c 1", "kernel");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  ASSERT_EQ(r.run.launches.size(), 1u) << r.out;
  EXPECT_EQ(r.run.launches[0].launch.replay, ForeignReplay::kernel);
  EXPECT_GE(r.run.launches[0].launch.launch_index, 1u);  // the second accumulate
  EXPECT_FALSE(r.run.launches[0].launch.event_time_s);
}

TEST(ForeignGpu, ListKernelsAndNoMatch) {
  auto r = profile("--list-kernels", "list");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_GE(r.run.launches.size(), 5u) << r.out;
  r = profile("-k no_such_kernel", "nomatch");
  EXPECT_EQ(r.exit_code, 18) << r.out;
  EXPECT_NE(r.out.find("no launch matched the selection"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("attnscope_smoke_accumulate"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace attnscope::profiler
