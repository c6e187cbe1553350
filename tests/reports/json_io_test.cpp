// SPDX-License-Identifier: Apache-2.0
// Covers reports/src/json_io.cpp: round trips, strict reading (malformed, truncated, newer version, wrong
// types, missing fields) and atomic writes.
#include "attnscope/reports/json_io.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "attnscope/reports/writers.hpp"
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

// Every field of two tile entries is equal (TileEntry has no operator==: its metrics and counters do).
void expect_same_tiles(const std::vector<TileEntry>& a, const std::vector<TileEntry>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE("tile " + std::to_string(i));
    EXPECT_EQ(a[i].batch, b[i].batch);
    EXPECT_EQ(a[i].head, b[i].head);
    EXPECT_EQ(a[i].q_tile, b[i].q_tile);
    EXPECT_EQ(a[i].kv_tile, b[i].kv_tile);
    EXPECT_EQ(a[i].sm_modeled, b[i].sm_modeled);
    EXPECT_EQ(a[i].sm_measured, b[i].sm_measured);
    EXPECT_EQ(a[i].start_modeled_s, b[i].start_modeled_s);
    EXPECT_EQ(a[i].end_modeled_s, b[i].end_modeled_s);
    EXPECT_EQ(a[i].start_measured_s, b[i].start_measured_s);
    EXPECT_EQ(a[i].end_measured_s, b[i].end_measured_s);
    EXPECT_EQ(a[i].lone_window, b[i].lone_window);
    EXPECT_TRUE(a[i].metrics == b[i].metrics);
    EXPECT_EQ(a[i].counters, b[i].counters);
  }
}

// Every field of two reports' kernels and provenance is equal.
void expect_same_report(const Report& a, const Report& b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.provenance.date, b.provenance.date);
  EXPECT_EQ(a.provenance.cache, b.provenance.cache);
  EXPECT_EQ(a.provenance.replay, b.provenance.replay);
  EXPECT_EQ(a.provenance.recordings, b.provenance.recordings);
  EXPECT_EQ(a.provenance.sm_clock_mhz, b.provenance.sm_clock_mhz);
  EXPECT_EQ(a.provenance.mem_clock_mhz, b.provenance.mem_clock_mhz);
  EXPECT_EQ(a.tiles.label(), b.tiles.label());
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (std::size_t i = 0; i < a.kernels.size(); ++i) {
    SCOPED_TRACE(a.kernels[i].name);
    EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_TRUE(a.kernels[i].metrics == b.kernels[i].metrics);
    EXPECT_EQ(a.kernels[i].counters, b.kernels[i].counters);
    EXPECT_EQ(a.kernels[i].notes, b.kernels[i].notes);
    EXPECT_EQ(a.kernels[i].tiles_total, b.kernels[i].tiles_total);
    EXPECT_EQ(a.kernels[i].tiles_kept, b.kernels[i].tiles_kept);
    expect_same_tiles(a.kernels[i].tiles, b.kernels[i].tiles);
  }
}

TEST(JsonIo, RoundTripKeepsEveryField) {
  const Report r = small_report();
  const std::string text = to_json_string(r);
  EXPECT_THAT(text, HasSubstr("\"format_version\": 2"));
  const Report back = parse_report(text, "memory");
  EXPECT_EQ(back.format_version, kFormatVersion);
  EXPECT_EQ(to_json_string(back), text);
  expect_same_report(back, r);
  ASSERT_EQ(back.kernels.size(), 2u);
  EXPECT_EQ(back.kernels[1].name, "tiled");
  EXPECT_EQ(back.kernels[1].tiles.size(), 6u);
  EXPECT_EQ(back.kernels[1].tiles[4].sm_measured, 2);
  EXPECT_FALSE(back.kernels[1].tiles[0].sm_measured.has_value());  // a null in its column
  EXPECT_FALSE(back.kernels[1].tiles[0].start_measured_s.has_value());
  EXPECT_EQ(modeled_of(back.kernels[0].metrics, Metric::dram_read), 1.05e6);
  ASSERT_TRUE(back.kernels[0].metrics.contains(Metric::flops));
  EXPECT_FALSE(measured_of(back.kernels[0].metrics, Metric::flops).has_value());
  EXPECT_FALSE(back.kernels[0].metrics.contains(Metric::l2_read));
  EXPECT_EQ(back.kernels[0].notes.at("l2_writeback"), "dirty lines written after the kernel");
  // Format 2: raw counters apart from the metrics, the tile total and subset, lone windows and their
  // counters.
  EXPECT_DOUBLE_EQ(back.kernels[0].counters.at("l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum"), 3.5e6);
  EXPECT_EQ(back.kernels[0].tiles_total, 12);
  EXPECT_EQ(back.kernels[0].tiles_kept, TileSubset::head0);
  EXPECT_TRUE(back.kernels[1].tiles[5].lone_window);
  EXPECT_FALSE(back.kernels[1].tiles[4].lone_window);
  EXPECT_DOUBLE_EQ(back.kernels[1].tiles[5].counters.at("dram__bytes_read.sum"), 1001.0);
  EXPECT_TRUE(back.kernels[1].tiles[4].counters.empty());
  EXPECT_TRUE(back.workload.causal);
  EXPECT_DOUBLE_EQ(back.workload.scale, 0.125);
  EXPECT_EQ(back.tiles.label(), "Br64-Bc32-w4-s2");
  EXPECT_EQ(back.provenance.sm_clock_mhz, 1980.0);
  EXPECT_FALSE(back.provenance.mem_clock_mhz.has_value());
  EXPECT_EQ(back.provenance.cache, vocab::CacheProtocol::flush);
  EXPECT_EQ(back.provenance.replay, vocab::ReplayMode::user);
  ASSERT_EQ(back.provenance.recordings.size(), 2u);
  EXPECT_EQ(back.provenance.recordings[0].file, "h200/run/unit-naive.json");
  EXPECT_EQ(back.provenance.recordings[1].kernels, std::vector<std::string>{"tiled"});
  // Format 2 stores the tiles as columns, not one object per tile.
  auto j = nlohmann::json::parse(text);
  EXPECT_FALSE(j["kernels"][0].contains("tiles"));
  EXPECT_EQ(j["kernels"][1]["tile_columns"]["count"], 6);
  EXPECT_EQ(j["kernels"][1]["tile_columns"]["lone_windows"], nlohmann::json::array({5}));
  // A metric's unit is the metric table's: a unit string in the file (written for people) is not read.
  j["kernels"][0]["metrics"]["dram_read"]["unit"] = "s";
  j["kernels"][0]["metrics"]["time"].erase("unit");
  EXPECT_EQ(to_json_string(parse_report(j.dump(), "memory")), text);
}

// A report read and written again is equal to itself, a lone window and a protocol of each kind included;
// a report that joins no recording and was not profiled keeps those fields absent.
TEST(JsonIo, FormatTwoRoundTripOfProtocolsAndEmptyFields) {
  for (const auto cache :
       {vocab::CacheProtocol::flush, vocab::CacheProtocol::sequence, vocab::CacheProtocol::warm}) {
    Report r = small_report();
    r.provenance.cache = cache;
    r.provenance.replay = vocab::ReplayMode::kernel;
    const Report back = parse_report(to_json_string(r), "memory");
    expect_same_report(back, r);
  }
  Report plain = small_report();
  plain.kind = "simulate";
  plain.provenance.cache.reset();
  plain.provenance.replay.reset();
  plain.provenance.recordings.clear();
  for (auto& k : plain.kernels) {
    k.counters.clear();
    for (auto& t : k.tiles) t.lone_window = false, t.counters.clear();
  }
  const Report back = parse_report(to_json_string(plain), "memory");
  expect_same_report(back, plain);
  EXPECT_FALSE(back.provenance.cache.has_value());
  EXPECT_FALSE(back.provenance.replay.has_value());
  EXPECT_TRUE(back.provenance.recordings.empty());
}

TEST(JsonIo, RoundTripOfPmSamples) {
  Report r = small_report();
  r.kernels[1].samples.push_back(
      {0.0, 2e-6, {{"dram__bytes_read.sum", 8.0e6}, {"dram__bytes_write.sum", 1.5e5}}});
  r.kernels[1].samples.push_back(
      {2e-6, 4e-6, {{"dram__bytes_read.sum", 7.5e6}, {"dram__bytes_write.sum", 0.0}}});
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
  p.metrics[Metric::smem_per_cta] = Value{std::nullopt, 65536.0};
  r.sweep.push_back(p);
  const Report back = parse_report(to_json_string(r), "memory");
  ASSERT_EQ(back.sweep.size(), 1u);
  EXPECT_EQ(back.sweep[0].index, 3);
  EXPECT_EQ(back.sweep[0].kind, sim::KernelKind::naive);
  EXPECT_EQ(back.sweep[0].infeasible_reason, "too big");
  EXPECT_EQ(back.sweep_definition.shard_index, 1);
  EXPECT_EQ(back.sweep_definition.shard_count, 2);
  EXPECT_TRUE(back.sweep[0].metrics == p.metrics);
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

// A format-1 report (every H200 recording committed under tests/data/h200 is one) is converted on reading:
// its `l2_read` was the slices' count and becomes `l2_read_lts`; `l2_read` is derived again from the
// crossbar counter (the bytes the SMs received); its `l2_hit` splits into the slices' hits (measured,
// `l2_hit_lts`) and the model's request hits (modeled, `l2_hit`); raw counters move out of the metrics.
TEST(JsonIo, FormatOneReportIsConverted) {
  const auto path = std::filesystem::path(ATTNSCOPE_DATA_DIR) / "h200" / "h200-20261202T171145Z" /
                    "llm-4k-tiled-br128-bc64-w4.json";
  const auto v1 = nlohmann::json::parse(read_text(path));
  ASSERT_EQ(v1["format_version"], 1);
  const auto& m1 = v1["kernels"][0]["metrics"];
  const double lts_read = m1["l2_read"]["measured"], requests = m1["l2_read"]["modeled"];
  const double xbar = m1["l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum"]["measured"];
  const double hit_lts = m1["l2_hit"]["measured"], hit_model = m1["l2_hit"]["modeled"];
  ASSERT_NE(lts_read, xbar);  // the two counts differ in this recording, so the test tells them apart

  const Report r = read_report(path);
  EXPECT_EQ(r.format_version, 1);  // what the file was written in (the HTML footer says so)
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelEntry& k = r.kernels[0];
  EXPECT_EQ(measured_of(k.metrics, Metric::l2_read_lts), lts_read);
  EXPECT_EQ(measured_of(k.metrics, Metric::l2_read), xbar);
  EXPECT_EQ(modeled_of(k.metrics, Metric::l2_read), requests);  // the model's SM requests
  // The slices' count comes after the L2 request coalescer, which the model does not predict: format 1's
  // modeled value for it is dropped.
  EXPECT_FALSE(modeled_of(k.metrics, Metric::l2_read_lts).has_value());
  EXPECT_EQ(measured_of(k.metrics, Metric::l2_hit_lts), hit_lts);
  EXPECT_FALSE(modeled_of(k.metrics, Metric::l2_hit_lts).has_value());  // not modeled
  EXPECT_EQ(modeled_of(k.metrics, Metric::l2_hit), hit_model);
  EXPECT_FALSE(measured_of(k.metrics, Metric::l2_hit).has_value());  // not measured
  // The other metrics keep both sides as recorded.
  EXPECT_EQ(measured_of(k.metrics, Metric::dram_read), m1["dram_read"]["measured"].get<double>());
  EXPECT_EQ(modeled_of(k.metrics, Metric::dram_read), m1["dram_read"]["modeled"].get<double>());
  EXPECT_EQ(measured_of(k.metrics, Metric::time), m1["time"]["measured"].get<double>());
  // Raw counters are counters, not metrics.
  EXPECT_EQ(k.counters.at("l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum"), xbar);
  EXPECT_EQ(k.counters.at("lts__t_sectors_srcunit_tex_op_read.sum"),
            m1["lts__t_sectors_srcunit_tex_op_read.sum"]["measured"].get<double>());
  // Tiles with measured values were lone windows (the only tiles format 1 measured bytes of), converted too.
  std::size_t lone = 0;
  for (const TileEntry& t : k.tiles) {
    if (!t.lone_window) {
      EXPECT_TRUE(t.counters.empty());
      continue;
    }
    ++lone;
    ASSERT_TRUE(t.counters.count("l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum"));
    EXPECT_EQ(measured_of(t.metrics, Metric::l2_read),
              t.counters.at("l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum"));
    EXPECT_EQ(measured_of(t.metrics, Metric::l2_read_lts),
              32.0 * t.counters.at("lts__t_sectors_srcunit_tex_op_read.sum"));
  }
  EXPECT_EQ(lone, 6u);
  EXPECT_EQ(k.tiles.size(), v1["kernels"][0]["tiles"].size());
  // Facts format 1 kept as text become typed.
  EXPECT_EQ(r.provenance.cache, vocab::CacheProtocol::flush);
  EXPECT_EQ(r.provenance.replay, vocab::ReplayMode::user);

  // Written again it is a format-2 file that reads back the same (not converted a second time).
  const std::string text = to_json_string(r);
  EXPECT_EQ(nlohmann::json::parse(text)["format_version"], kFormatVersion);
  const Report again = parse_report(text, "memory");
  expect_same_report(again, r);
}

TEST(JsonIo, MalformedTileColumnNamesWhere) {
  const std::string text = to_json_string(small_report());
  auto j = nlohmann::json::parse(text);
  j["kernels"][1]["tile_columns"]["head"].erase(0);
  EXPECT_THAT(error_of(j.dump()), HasSubstr("/kernels/1/tile_columns/head: 5 values for 6 tiles"));
  j = nlohmann::json::parse(text);
  j["kernels"][0]["tile_columns"]["start_modeled_s"].push_back(1.0);
  EXPECT_THAT(error_of(j.dump()), HasSubstr("/kernels/0/tile_columns/start_modeled_s: 7 values for 6 tiles"));
  j = nlohmann::json::parse(text);
  j["kernels"][1]["tile_columns"]["metrics"]["dram_read"]["measured"].erase(3);
  EXPECT_THAT(error_of(j.dump()),
              HasSubstr("/kernels/1/tile_columns/metrics/dram_read/measured: 5 values for 6 tiles"));
  j = nlohmann::json::parse(text);
  j["kernels"][1]["tile_columns"]["count"] = 7;
  EXPECT_THAT(error_of(j.dump()), HasSubstr("/kernels/1/tile_columns/batch: 6 values for 7 tiles"));
  j = nlohmann::json::parse(text);
  j["kernels"][1]["tile_columns"]["lone_windows"] = {6};
  EXPECT_THAT(error_of(j.dump()),
              HasSubstr("/kernels/1/tile_columns/lone_windows/0: tile index out of range"));
  j = nlohmann::json::parse(text);
  j["kernels"][1]["tile_columns"]["metrics"]["dram_reads"] =
      j["kernels"][1]["tile_columns"]["metrics"]["dram_read"];
  EXPECT_THAT(error_of(j.dump()),
              HasSubstr("/kernels/1/tile_columns/metrics/dram_reads: unknown metric key"));
  j = nlohmann::json::parse(text);
  j["kernels"][1]["metrics"]["l2_bogus"] = {{"measured", 1.0}};
  EXPECT_THAT(error_of(j.dump()), HasSubstr("/kernels/1/metrics/l2_bogus: unknown metric key 'l2_bogus'"));
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
                      HasSubstr("reads up to 2"), HasSubstr("upgrade attnscope")));
  }
}

TEST(JsonIo, WrongTypeNamesTheJsonPointer) {
  nlohmann::json j = nlohmann::json::parse(to_json_string(small_report()));
  j["kernels"][1]["metrics"]["time"]["modeled"] = "fast";
  EXPECT_THAT(error_of(j.dump()),
              HasSubstr("/kernels/1/metrics/time/modeled: expected a number, got string"));
  j = nlohmann::json::parse(to_json_string(small_report()));
  j["kernels"][0]["tile_columns"]["q_tile"][2] = 1.5;  // format 2: tiles are columns
  EXPECT_THAT(error_of(j.dump()), HasSubstr("/kernels/0/tile_columns/q_tile/2: expected an integer"));
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

// Reports this build writes, for the schema test (reports_schema_test validates them against
// reports/schema/report.schema.json): every field in use, and a format-1 recording converted and written
// again. Runs as the schema test's setup, with ATTNSCOPE_SCHEMA_SAMPLE_DIR set
// (tests/reports/CMakeLists.txt).
TEST(JsonIo, WritesSamplesForTheSchemaTest) {
  const char* dir = std::getenv("ATTNSCOPE_SCHEMA_SAMPLE_DIR");
  if (dir == nullptr || *dir == '\0')
    GTEST_SKIP() << "ATTNSCOPE_SCHEMA_SAMPLE_DIR not set (the schema test sets it)";
  Report every_field = small_report();
  every_field.kernels[1].samples.push_back({0.0, 2e-6, {{"dram__bytes_read.sum", 8.0e6}}});
  write_report_json(every_field, std::filesystem::path(dir) / "every-field.json");
  const Report converted = read_report(std::filesystem::path(ATTNSCOPE_DATA_DIR) / "h200" /
                                       "h200-20261202T171145Z" / "llm-4k-naive-sequence.json");
  write_report_json(converted, std::filesystem::path(dir) / "converted-format-1.json");
}

TEST(JsonIo, EmptyAndMissingFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "attnscope_json_io_test";
  std::filesystem::create_directories(dir);
  write_file_atomic(dir / "empty.json", "");
  EXPECT_THROW(read_report(dir / "empty.json"), ReportError);
  EXPECT_THROW(read_report(dir / "does-not-exist.json"), ReportError);
  std::filesystem::remove_all(dir);
}

// A gzip'd report (report.json.gz) reads as the plain one; a damaged or truncated one is an error that names
// the file, never a partial report.
TEST(JsonIo, GzippedReportsReadAndDamagedOnesAreRefused) {
  const auto dir = std::filesystem::temp_directory_path() / "attnscope_json_io_gz_test";
  std::filesystem::create_directories(dir);
  const auto plain = dir / "report.json";
  std::filesystem::copy_file(fixture("simulate-tiled-small.json"), plain,
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_EQ(std::system(("gzip -kf " + plain.string()).c_str()), 0);
  const auto packed = dir / "report.json.gz";
  EXPECT_EQ(to_json_string(read_report(packed)), to_json_string(read_report(plain)));
  const std::string bytes = read_text(packed);
  write_file_atomic(dir / "cut.json.gz", bytes.substr(0, bytes.size() / 2));
  EXPECT_THAT([&] { read_report(dir / "cut.json.gz"); },
              ::testing::ThrowsMessage<ReportError>(
                  AllOf(HasSubstr("cut.json.gz"), HasSubstr("gzip'd but cannot be inflated"))));
  std::string damaged = bytes;
  for (std::size_t i = 20; i < damaged.size() - 8; i += 7) damaged[i] = static_cast<char>(damaged[i] ^ 0x5a);
  write_file_atomic(dir / "damaged.json.gz", damaged);
  EXPECT_THROW(read_report(dir / "damaged.json.gz"), ReportError);
  std::filesystem::remove_all(dir);
}

// A Hopper profile recorded before the bulk-copy counters were collected (the H200, 2026-12-03): its l2_read
// (the load pipe's share, 0 for a kernel that loads by bulk copies) and smem_write (without the bulk copies'
// fills) are not shown as measured, the kernel says why, and the text report gives each reason once.
TEST(JsonIo, OlderRecordingsFollowTodaysMetricTable) {
  const Report r =
      read_report(std::filesystem::path(ATTNSCOPE_DATA_DIR) / "h200" / "hopper-epilogue-20261203T215057Z" /
                  "hopper-profile" / "llm-4k-hopper-fp16-d64-no-causal.json.gz");
  ASSERT_EQ(r.kernels.size(), 1u);
  const KernelEntry& k = r.kernels[0];
  EXPECT_DOUBLE_EQ(k.counters.at("l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum"), 0.0);  // as recorded
  EXPECT_FALSE(measured_of(k.metrics, Metric::l2_read).has_value());
  EXPECT_FALSE(measured_of(k.metrics, Metric::smem_write).has_value());
  EXPECT_TRUE(measured_of(k.metrics, Metric::dram_read).has_value());
  EXPECT_TRUE(measured_of(k.metrics, Metric::l2_read_lts).has_value());
  EXPECT_FALSE(modeled_of(k.metrics, Metric::l2_read_lts).has_value());  // measured only
  EXPECT_THAT(k.notes.at("measure.not_comparable"), HasSubstr("l2_read, smem_write"));
  const std::string text = to_text_table(r);
  EXPECT_THAT(text, HasSubstr("l2_read_lts not modeled: the L2 request coalescer"));
  EXPECT_THAT(text, HasSubstr("hopper: l2_read, smem_write: not shown as measured"));
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
