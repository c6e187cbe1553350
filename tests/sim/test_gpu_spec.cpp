// SPDX-License-Identifier: Apache-2.0
// Covers sim/src/gpu_spec.cpp: the built-in GPU files load, and bad files fail with the file and field named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/gpu_spec.hpp"

namespace attnscope::sim {
namespace {

using ::testing::HasSubstr;

std::string read_builtin(const std::string& name) {
  std::ifstream in(std::string(ATTNSCOPE_GPU_SPEC_DIR) + "/" + name + ".json");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "(no InvalidInput thrown)";
}

TEST(GpuSpec, BuiltinsLoadWithPlausibleNumbers) {
  for (const auto& name : builtin_gpu_names()) {
    SCOPED_TRACE(name);
    const GpuSpec g = load_gpu_spec(name);
    EXPECT_EQ(g.short_name, name);
    EXPECT_GE(g.sm_count, 100);
    EXPECT_GT(g.hbm_bandwidth, 1e12);
    EXPECT_EQ(g.l2_line_bytes, 128);
    EXPECT_EQ(g.l2_sector_bytes, 32);
    EXPECT_LE(g.smem_per_block, g.smem_per_sm);
    EXPECT_GT(g.tensor_flops_fp16, g.fp32_flops);
  }
  EXPECT_EQ(load_gpu_spec("h200").sm_count, 132);
  EXPECT_EQ(load_gpu_spec("a100").sm_count, 108);
}

TEST(GpuSpec, EveryNumberSaysWhereItCameFrom) {
  for (const auto& name : builtin_gpu_names()) {
    const auto doc = nlohmann::json::parse(read_builtin(name));
    for (const auto& [key, value] : doc.items()) {
      if (value.is_string()) continue;  // name, short_name
      SCOPED_TRACE(name + "." + key);
      ASSERT_TRUE(value.contains("source"));
      const std::string src = value["source"];
      EXPECT_TRUE(src.starts_with("datasheet") || src.starts_with("measured") || src.starts_with("estimate"))
          << src;
    }
  }
}

TEST(GpuSpec, UnknownNameListsTheBuiltins) {
  const std::string m = message_of([] { load_gpu_spec("h300"); });
  EXPECT_THAT(m, HasSubstr("unknown GPU 'h300'"));
  EXPECT_THAT(m, HasSubstr("h200, h100, a100"));
}

TEST(GpuSpec, MalformedJsonNamesTheFile) {
  EXPECT_THAT(message_of([] { parse_gpu_spec("{ \"name\": ", "my.json"); }),
              AllOf(HasSubstr("my.json"), HasSubstr("not valid JSON")));
  EXPECT_THAT(message_of([] { parse_gpu_spec("[1, 2]", "my.json"); }),
              HasSubstr("top level must be an object"));
}

TEST(GpuSpec, BadFieldsAreNamed) {
  auto doc = nlohmann::json::parse(read_builtin("h200"));
  auto with = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json d = doc;
    edit(d);
    return message_of([&] { parse_gpu_spec(d.dump(), "edited.json"); });
  };
  EXPECT_THAT(with([](auto& d) { d.erase("sm_count"); }),
              AllOf(HasSubstr("edited.json"), HasSubstr("'sm_count': missing")));
  EXPECT_THAT(with([](auto& d) { d["l2_ways"]["value"] = -16; }),
              HasSubstr("'l2_ways': 'value' must be a positive"));
  EXPECT_THAT(with([](auto& d) { d["hbm_bandwidth"].erase("source"); }), HasSubstr("'source' missing"));
  EXPECT_THAT(with([](auto& d) { d["hbm_bandwidth"]["source"] = "my guess"; }),
              HasSubstr("must start with datasheet"));
  EXPECT_THAT(with([](auto& d) { d["sm_count"] = 132; }), HasSubstr("must be an object"));
  EXPECT_THAT(with([](auto& d) { d["sm_count"]["value"] = 13.5; }), HasSubstr("whole number"));
  EXPECT_THAT(with([](auto& d) { d["l2_line_bytes"]["value"] = 96; }), HasSubstr("'l2_line_bytes'"));
  EXPECT_THAT(with([](auto& d) { d["l2_bytes"]["value"] = 1000000; }), HasSubstr("'l2_bytes'"));
  EXPECT_THAT(with([](auto& d) { d["hbm_efficiency"]["value"] = 1.5; }), HasSubstr("at most 1"));
  EXPECT_THAT(with([](auto& d) { d["l2_dirty_bytes"]["value"] = 1e9; }),
              HasSubstr("'l2_dirty_bytes': must not exceed l2_bytes"));
}

TEST(GpuSpec, MissingFileAndEnvOverride) {
  EXPECT_THAT(message_of([] { load_gpu_spec("/nonexistent/gpu.json"); }), HasSubstr("not a readable file"));
  ::setenv("ATTNSCOPE_GPU_SPEC_DIR", "/nonexistent-dir", 1);
  EXPECT_EQ(gpu_spec_dir(), std::filesystem::path("/nonexistent-dir"));
  EXPECT_THAT(message_of([] { load_gpu_spec("h200"); }), HasSubstr("ATTNSCOPE_GPU_SPEC_DIR"));
  ::unsetenv("ATTNSCOPE_GPU_SPEC_DIR");
  EXPECT_EQ(load_gpu_spec("h200").short_name, "h200");
}

TEST(GpuSpec, LoadsACopiedFileByPath) {
  const auto path = std::filesystem::temp_directory_path() / "attnscope_test_whatif_gpu.json";
  auto doc = nlohmann::json::parse(read_builtin("h200"));
  doc["short_name"] = "whatif";
  doc["hbm_bandwidth"]["value"] = 9.6e12;
  std::ofstream(path) << doc.dump();
  const GpuSpec g = load_gpu_spec(path.string());
  EXPECT_EQ(g.short_name, "whatif");
  EXPECT_DOUBLE_EQ(g.hbm_bandwidth, 9.6e12);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace attnscope::sim
