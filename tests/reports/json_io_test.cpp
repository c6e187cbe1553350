// SPDX-License-Identifier: Apache-2.0
// Covers reports/src/json_io.cpp: round trips, strict reading (malformed, truncated, newer version, wrong
// types, missing fields) and atomic writes.
#include "attnscope/reports/json_io.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace attnscope::reports {
namespace {

using ::testing::AllOf;
using testing::fixture;
using ::testing::HasSubstr;
using testing::read_text;
using testing::small_report;

std::string error_of(std::string_view text, std::string_view origin = "x.json") {
  try {
    parse_report(text, origin);
  } catch (const ReportError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(JsonIo, RoundTripKeepsEveryField) {
  const Report r = small_report();
  const std::string text = to_json_string(r);
  const Report back = parse_report(text, "memory");
  EXPECT_EQ(to_json_string(back), text);
  ASSERT_EQ(back.kernels.size(), 2u);
  EXPECT_EQ(back.kernels[1].name, "tiled");
  EXPECT_EQ(back.kernels[1].tiles.size(), 6u);
  EXPECT_EQ(back.kernels[1].tiles[4].sm_measured, 2);
  EXPECT_DOUBLE_EQ(*back.kernels[0].metrics.at("dram_read").modeled, 1.05e6);
  EXPECT_FALSE(back.kernels[0].metrics.at("flops").measured.has_value());
  EXPECT_EQ(back.kernels[0].notes.at("l2_writeback"), "dirty lines written after the kernel");
  EXPECT_TRUE(back.workload.causal);
  EXPECT_DOUBLE_EQ(back.workload.scale, 0.125);
  EXPECT_EQ(back.tiles.label(), "Br64-Bc32-w4-s2");
  EXPECT_EQ(back.provenance.sm_clock_mhz, 1980.0);
  EXPECT_FALSE(back.provenance.mem_clock_mhz.has_value());
}

TEST(JsonIo, RoundTripOfPmSamples) {
  Report r = small_report();
  r.kernels[1].samples.push_back({0.0, 2e-6, {{"dram__bytes_read.sum", 8.0e6}, {"dram__bytes_write.sum", 1.5e5}}});
  r.kernels[1].samples.push_back({2e-6, 4e-6, {{"dram__bytes_read.sum", 7.5e6}, {"dram__bytes_write.sum", 0.0}}});
  const std::string text = to_json_string(r);
  const Report back = parse_report(text, "memory");
  EXPECT_EQ(to_json_string(back), text);
  ASSERT_EQ(back.kernels[1].samples.size(), 2u);
  EXPECT_DOUBLE_EQ(back.kernels[1].samples[1].start_s, 2e-6);
  EXPECT_DOUBLE_EQ(back.kernels[1].samples[0].counters.at("dram__bytes_read.sum"), 8.0e6);
  EXPECT_TRUE(back.kernels[0].samples.empty());
  EXPECT_EQ(text.find("\"samples\"", text.find("\"tiled\"")) != std::string::npos, true);
  // A sample without its counters is named by its JSON pointer.
  auto j = nlohmann::json::parse(text);
  j["kernels"][1]["samples"][0].erase("counters");
  EXPECT_THAT(error_of(j.dump()), HasSubstr("/kernels/1/samples/0"));
}

TEST(JsonIo, RoundTripOfSweepPoints) {
  Report r = small_report();
  r.kind = "sweep";
  r.sweep_definition = {"def", 4, 1, 2};
  SweepPoint p;
  p.index = 3;
  p.gpu_spec = "h100";
  p.smem_limit = 49152;
  p.feasible = false;
  p.infeasible_reason = "too big";
  p.kind = sim::KernelKind::naive;
  p.metrics["smem_per_cta"] = Value{std::nullopt, 65536.0, "B"};
  r.sweep.push_back(p);
  const Report back = parse_report(to_json_string(r), "memory");
  ASSERT_EQ(back.sweep.size(), 1u);
  EXPECT_EQ(back.sweep[0].index, 3);
  EXPECT_EQ(back.sweep[0].kind, sim::KernelKind::naive);
  EXPECT_EQ(back.sweep[0].infeasible_reason, "too big");
  EXPECT_EQ(back.sweep_definition.shard_index, 1);
  EXPECT_EQ(back.sweep_definition.shard_count, 2);
  EXPECT_EQ(to_json_string(back), to_json_string(r));
}

TEST(JsonIo, CommittedFixturesReadAndRoundTrip) {
  for (const char* name : {"simulate-tiled-small.json", "simulate-naive-small.json",
                           "synthetic-profile-small.json", "sweep-small.json"}) {
    SCOPED_TRACE(name);
    const Report r = read_report(fixture(name));
    EXPECT_FALSE(r.kernels.empty() && r.sweep.empty());
    EXPECT_EQ(to_json_string(r), read_text(fixture(name)));
  }
}

TEST(JsonIo, MalformedFileNamesFileAndByteOffset) {
  const std::string msg = error_of(read_text(fixture("malformed.json")), "malformed.json");
  EXPECT_THAT(msg, AllOf(HasSubstr("malformed.json"), HasSubstr("not valid JSON"), HasSubstr("at byte")));
  EXPECT_THAT(error_of("{\"format_version\": 1,, }"), HasSubstr("at byte 22"));
}

TEST(JsonIo, TruncatedFileSaysItEndsEarly) {
  const std::string msg = error_of(read_text(fixture("truncated.json")), "truncated.json");
  EXPECT_THAT(msg, AllOf(HasSubstr("truncated.json"), HasSubstr("truncated"), HasSubstr("at byte")));
}

TEST(JsonIo, FutureVersionAsksForAnUpgrade) {
  try {
    read_report(fixture("future-version.json"));
    FAIL() << "expected a ReportError";
  } catch (const ReportError& e) {
    EXPECT_THAT(e.what(),
                AllOf(HasSubstr("future-version.json"), HasSubstr("was written by format version 3"),
                      HasSubstr("reads up to 1"), HasSubstr("upgrade attnscope")));
  }
}

TEST(JsonIo, WrongTypeNamesTheJsonPointer) {
  nlohmann::json j = nlohmann::json::parse(to_json_string(small_report()));
  j["kernels"][1]["metrics"]["time"]["modeled"] = "fast";
  EXPECT_THAT(error_of(j.dump()),
              HasSubstr("/kernels/1/metrics/time/modeled: expected a number, got string"));
  j = nlohmann::json::parse(to_json_string(small_report()));
  j["kernels"][0]["tiles"][2]["q_tile"] = 1.5;
  EXPECT_THAT(error_of(j.dump()), HasSubstr("/kernels/0/tiles/2/q_tile: expected an integer, got number"));
  j = nlohmann::json::parse(to_json_string(small_report()));
  j["workload"]["dtype"] = "int8";
  EXPECT_THAT(error_of(j.dump()), HasSubstr("/workload/dtype: unknown dtype 'int8'"));
}

TEST(JsonIo, MissingFieldIsNamed) {
  nlohmann::json j = nlohmann::json::parse(to_json_string(small_report()));
  j["kernels"][0].erase("name");
  EXPECT_THAT(error_of(j.dump()), HasSubstr("/kernels/0: missing required field 'name'"));
  j = nlohmann::json::parse(to_json_string(small_report()));
  j.erase("format_version");
  EXPECT_THAT(error_of(j.dump()), HasSubstr("missing required field 'format_version'"));
  EXPECT_THAT(error_of("[1, 2]"), HasSubstr("expected an object, got array"));
}

TEST(JsonIo, EmptyAndMissingFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "attnscope_json_io_test";
  std::filesystem::create_directories(dir);
  write_file_atomic(dir / "empty.json", "");
  EXPECT_THROW(read_report(dir / "empty.json"), ReportError);
  EXPECT_THROW(read_report(dir / "does-not-exist.json"), ReportError);
  std::filesystem::remove_all(dir);
}

TEST(JsonIo, AtomicWriteReplacesTargetAndLeavesNoTemporaryFile) {
  const auto dir = std::filesystem::temp_directory_path() / "attnscope_atomic_test";
  std::filesystem::remove_all(dir);
  const auto path = dir / "sub" / "r.json";
  write_report_json(small_report(), path);
  Report changed = small_report();
  changed.workload.name = "second";
  write_report_json(changed, path);
  EXPECT_EQ(read_report(path).workload.name, "second");
  int files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir / "sub")) ++files;
  EXPECT_EQ(files, 1);  // the temporary was renamed away
  // A directory that cannot be written to gives a ReportError naming the target.
  EXPECT_THROW(write_file_atomic("/proc/attnscope-cannot-write/r.json", "x"), ReportError);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attnscope::reports
