// SPDX-License-Identifier: Apache-2.0
// `attnscope profile -- COMMAND` without a GPU: the collector's JSON-lines records (round trip, a record cut
// short by a killed program), the launch selection (regex, NVTX, skip, count) and the measured-only report.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "attnscope/profiler/foreign_kernel_list.hpp"
#include "attnscope/profiler/foreign_records.hpp"
#include "attnscope/profiler/foreign_report.hpp"
#include "attnscope/profiler/foreign_selection.hpp"

namespace attnscope::profiler {
namespace {

ForeignLaunchRecord sample_launch(std::uint64_t index) {
  ForeignLaunchRecord r;
  ForeignLaunch& l = r.launch;
  l.mangled_name = "_ZN5flash16flash_fwd_kernelEv";
  l.demangled_name = "void flash::flash_fwd_kernel<Traits<64, 128>, true>(Flash_fwd_params)";
  l.grid = {32, 16, 1};
  l.block = {128, 1, 1};
  l.registers_per_thread = 255;
  l.static_smem_bytes = 0;
  l.dynamic_smem_bytes = 49152;
  l.local_bytes_per_thread = 48;
  l.launch_index = index;
  l.nvtx_ranges = {"step", "attnscope: B=1 H=16 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=1"};
  l.replay = ForeignReplay::user;
  l.counters = {{"dram__bytes_read.sum", 1.5e8}, {"lts__t_sectors_srcunit_ltcfabric.sum", std::nullopt}};
  l.event_time_s = 1.25e-3;
  r.annotation = l.nvtx_ranges.back();
  r.nvtx_thread = "main+own";
  r.passes = 7;
  r.unavailable_metrics = {"lts__t_sectors_srcunit_ltcfabric.sum"};
  r.notes = {"saved and restored 4 allocation(s)"};
  return r;
}

std::string lines(const std::vector<std::string>& records) {
  std::string out;
  for (const auto& r : records) out += r + "\n";
  return out;
}

TEST(ForeignRecords, RoundTripOfEveryRecord) {
  ForeignStart start;
  start.kernel_regex = "flash_fwd";
  start.count = 2;
  start.pid = 42;
  DeviceInfo device;
  device.name = "NVIDIA H200";
  device.chip = "GH100";
  device.l2_bytes = 52428800;
  device.sm_count = 132;
  ForeignError error{std::uint64_t{3}, "void k()", "no_counter_permission", "no permission"};
  ForeignSummary summary;
  summary.launches_seen = 10;
  summary.matched = 4;
  summary.selected = 2;
  summary.measured = 2;
  summary.kernels = {{"void k()", 6}, {"flash", 4}};
  const std::string text = lines({to_json_line(start), to_json_line(device), to_json_line(sample_launch(5)),
                                  to_json_line(error), to_json_line(summary)});
  const ForeignRun run = parse_foreign_records(text, "records.jsonl");
  EXPECT_TRUE(run.unreadable.empty());
  ASSERT_TRUE(run.start);
  EXPECT_EQ(run.start->kernel_regex, "flash_fwd");
  EXPECT_EQ(run.start->count, std::optional<std::uint64_t>(2));
  EXPECT_EQ(run.start->pid, 42);
  ASSERT_TRUE(run.device);
  EXPECT_EQ(run.device->name, "NVIDIA H200");
  EXPECT_EQ(run.device->l2_bytes, 52428800);
  ASSERT_EQ(run.launches.size(), 1u);
  const auto& r = run.launches[0];
  const auto expected = sample_launch(5);
  EXPECT_EQ(r.launch.mangled_name, expected.launch.mangled_name);
  EXPECT_EQ(r.launch.demangled_name, expected.launch.demangled_name);
  EXPECT_EQ(r.launch.grid, expected.launch.grid);
  EXPECT_EQ(r.launch.block, expected.launch.block);
  EXPECT_EQ(r.launch.registers_per_thread, 255);
  EXPECT_EQ(r.launch.dynamic_smem_bytes, 49152);
  EXPECT_EQ(r.launch.local_bytes_per_thread, 48);
  EXPECT_EQ(r.launch.launch_index, 5u);
  EXPECT_EQ(r.launch.nvtx_ranges, expected.launch.nvtx_ranges);
  EXPECT_FALSE(r.launch.shape);  // parsing the annotation is the recogniser's
  EXPECT_EQ(r.launch.replay, ForeignReplay::user);
  EXPECT_EQ(r.launch.counters, expected.launch.counters);
  EXPECT_EQ(r.launch.event_time_s, expected.launch.event_time_s);
  EXPECT_EQ(r.annotation, expected.annotation);
  EXPECT_EQ(r.nvtx_thread, "main+own");
  EXPECT_EQ(r.passes, 7);
  EXPECT_EQ(r.unavailable_metrics, expected.unavailable_metrics);
  EXPECT_EQ(r.notes, expected.notes);
  ASSERT_EQ(run.errors.size(), 1u);
  EXPECT_EQ(run.errors[0].launch_index, std::optional<std::uint64_t>(3));
  EXPECT_EQ(run.errors[0].code, "no_counter_permission");
  ASSERT_TRUE(run.summary);
  EXPECT_EQ(run.summary->launches_seen, 10u);
  EXPECT_EQ(run.summary->kernels.size(), 2u);
  EXPECT_EQ(run.summary->kernels[1].second, 4u);
}

// A launch recorded before the collector read the function's local memory says so (-1), not 0: "no spills"
// would be a claim the recording cannot back.
TEST(ForeignRecords, LocalMemoryOfAnOlderRecordIsUnknown) {
  std::string line = to_json_line(sample_launch(0));
  const std::string field = "\"local_bytes_per_thread\":48,";
  const auto at = line.find(field);
  ASSERT_NE(at, std::string::npos) << line;
  line.erase(at, field.size());
  const auto run = parse_foreign_records(line + "\n", "x");
  ASSERT_EQ(run.launches.size(), 1u);
  EXPECT_EQ(run.launches[0].launch.local_bytes_per_thread, -1);
}

TEST(ForeignRecords, ShapeRoundTrips) {
  auto launch = sample_launch(0);
  launch.launch.shape = AnnotatedShape{2, 16, 1024, 2048, 128, "bf16", true};
  const auto run = parse_foreign_records(to_json_line(launch) + "\n", "x");
  ASSERT_EQ(run.launches.size(), 1u);
  ASSERT_TRUE(run.launches[0].launch.shape);
  EXPECT_EQ(run.launches[0].launch.shape->seq_kv, 2048);
  EXPECT_EQ(run.launches[0].launch.shape->dtype, "bf16");
  EXPECT_TRUE(run.launches[0].launch.shape->causal);
}

TEST(ForeignRecords, LastLineCutShortIsReportedAndEarlierRecordsKept) {
  const std::string whole = to_json_line(sample_launch(1)) + "\n" + to_json_line(sample_launch(2)) + "\n";
  const std::string cut = to_json_line(sample_launch(3)).substr(0, 40);  // killed mid-write: no newline
  const auto run = parse_foreign_records(whole + cut, "records.jsonl");
  ASSERT_EQ(run.launches.size(), 2u);
  EXPECT_EQ(run.launches[1].launch.launch_index, 2u);
  ASSERT_EQ(run.unreadable.size(), 1u);
  EXPECT_NE(run.unreadable[0].find("records.jsonl line 3"), std::string::npos) << run.unreadable[0];
  EXPECT_NE(run.unreadable[0].find("cut short"), std::string::npos) << run.unreadable[0];
  EXPECT_FALSE(run.summary);
}

TEST(ForeignRecords, BadLinesInTheMiddleAreNamedAndSkipped) {
  const std::string text = "{not json\n" + to_json_line(sample_launch(1)) + "\n{\"record\":\"weird\"}\n\n";
  const auto run = parse_foreign_records(text, "f");
  EXPECT_EQ(run.launches.size(), 1u);
  ASSERT_EQ(run.unreadable.size(), 2u);
  EXPECT_NE(run.unreadable[0].find("f line 1"), std::string::npos);
  EXPECT_NE(run.unreadable[1].find("unknown record 'weird'"), std::string::npos) << run.unreadable[1];
}

TEST(ForeignRecords, NewerFormatIsRefused) {
  ForeignStart start;
  start.format = kForeignRecordsFormat + 1;
  const auto run = parse_foreign_records(to_json_line(start) + "\n", "f");
  EXPECT_FALSE(run.start);
  ASSERT_EQ(run.unreadable.size(), 1u);
  EXPECT_NE(run.unreadable[0].find("newer"), std::string::npos);
}

TEST(ForeignRecords, MissingFileIsAnEmptyRun) {
  const auto run = read_foreign_records("/nonexistent/attnscope-records.jsonl");
  EXPECT_FALSE(run.start);
  EXPECT_TRUE(run.launches.empty());
}

TEST(ForeignSelection, FromEnvironment) {
  std::map<std::string, std::string> env = {{kEnvInjectKernel, "flash_(fwd|bwd)"},
                                            {kEnvInjectNvtx, "^attnscope:"},
                                            {kEnvInjectSkip, "2"},
                                            {kEnvInjectCount, "3"}};
  const auto get = [&env](const char* n) -> const char* {
    const auto it = env.find(n);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  const auto s = selection_from_env(get);
  EXPECT_EQ(s.kernel_regex, "flash_(fwd|bwd)");
  EXPECT_EQ(s.nvtx_regex, "^attnscope:");
  EXPECT_EQ(s.skip, 2u);
  EXPECT_EQ(s.count, std::optional<std::uint64_t>(3));
  env[kEnvInjectCount] = "3x";
  EXPECT_THROW(selection_from_env(get), std::invalid_argument);
  env.clear();
  const auto none = selection_from_env(get);
  EXPECT_TRUE(none.kernel_regex.empty());
  EXPECT_EQ(none.skip, 0u);
  EXPECT_FALSE(none.count);
}

TEST(ForeignSelection, RegexSearchesTheDemangledName) {
  LaunchSelector s({"flash_fwd", "", 0, std::nullopt});
  EXPECT_TRUE(s.matches("void flash::flash_fwd_kernel<T>(Flash_fwd_params)", {}));
  EXPECT_FALSE(s.matches("void flash::flash_bwd_dq_dk_dv_loop_kernel<T>(Flash_bwd_params)", {}));
  LaunchSelector all({"", "", 0, std::nullopt});
  EXPECT_TRUE(all.matches("_attn_fwd", {}));
}

TEST(ForeignSelection, NvtxFilterMatchesAnyOpenRange) {
  LaunchSelector s({"", "^attnscope:", 0, std::nullopt});
  EXPECT_FALSE(s.matches("k", {}));
  EXPECT_FALSE(s.matches("k", {"forward", "layer 3"}));
  EXPECT_TRUE(s.matches("k", {"attnscope: B=1 H=8", "inner"}));
  EXPECT_TRUE(s.matches("k", {"outer", "attnscope: causal=1"}));
}

TEST(ForeignSelection, SkipAndCountApplyToMatchingLaunchesOnly) {
  LaunchSelector s({"attn", "", 1, std::uint64_t{2}});
  std::vector<bool> picked;
  for (const char* name : {"gemm", "attn", "gemm", "attn", "attn", "softmax", "attn"})
    picked.push_back(s.select(name, {}));
  // attn #1 skipped, attn #2 and #3 selected, attn #4 past the count.
  EXPECT_EQ(picked, (std::vector<bool>{false, false, false, true, true, false, false}));
  EXPECT_EQ(s.selected(), 2u);
  EXPECT_TRUE(s.done());
}

TEST(ForeignSelection, BadRegexNamesWhichOne) {
  try {
    LaunchSelector s({"flash(", "", 0, std::nullopt});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kernel name regex 'flash('"), std::string::npos) << e.what();
  }
  EXPECT_THROW(LaunchSelector({"", "[", 0, std::nullopt}), std::invalid_argument);
}

// The records as the CLI hands them to the report: one entry per launch, named "<kernel>.<launch index>",
// measured values from the counters and the event time. The kernel here is no attention kernel, so the
// recognition leaves it measured only.
TEST(ForeignReport, EveryLaunchIsAnEntryWithItsMeasuredValues) {
  DeviceInfo device;
  device.name = "NVIDIA H200";
  auto unknown = sample_launch(4).launch;
  unknown.mangled_name = unknown.demangled_name =
      "void my_namespace::my_reduction_kernel<float>(float*, int)";
  auto replayed = unknown;
  replayed.launch_index = 9;
  replayed.replay = ForeignReplay::kernel;
  replayed.event_time_s.reset();
  const auto report = report_foreign_launches({unknown, replayed}, device, "attnscope profile -- x");
  EXPECT_EQ(report.kind, "profile");
  EXPECT_EQ(report.provenance.gpu_name, "NVIDIA H200");
  ASSERT_EQ(report.kernels.size(), 2u);
  const auto& k = report.kernels[0];
  EXPECT_EQ(k.name, "my_reduction_kernel.4");
  EXPECT_EQ(report.kernels[1].name, "my_reduction_kernel.9");
  EXPECT_EQ(k.notes.at("model").rfind("not modeled", 0), 0u) << k.notes.at("model");
  EXPECT_EQ(reports::measured_of(k.metrics, reports::Metric::time), std::optional<double>(1.25e-3));
  EXPECT_EQ(reports::measured_of(k.metrics, reports::Metric::dram_read), std::optional<double>(1.5e8));
  EXPECT_FALSE(reports::measured_of(report.kernels[1].metrics, reports::Metric::time));
}

TEST(ForeignReport, KernelListCountsLaunchesPerKernel) {
  auto other = sample_launch(2);
  other.launch.mangled_name = "_attn_fwd";
  other.launch.demangled_name = "_attn_fwd";
  const std::string text = kernel_list_json({sample_launch(0), other, sample_launch(5)}, {}, "cmd");
  EXPECT_NE(text.find("\"function\": \"flash_fwd_kernel\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"launches\": 2"), std::string::npos) << text;
  EXPECT_NE(text.find("\"function\": \"_attn_fwd\""), std::string::npos) << text;
  EXPECT_LT(text.find("flash_fwd_kernel"), text.find("_attn_fwd"));  // first launch first
}

}  // namespace
}  // namespace attnscope::profiler
