// SPDX-License-Identifier: Apache-2.0
// Untrusted reports never make a writer index outside what it allocates or loop forever: a tile outside its
// kernel's grid and an invalid workload are rejected by the reader (naming where), and a chart's axis over a
// range a few ULPs wide still ends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "../../reports/src/svg.hpp"
#include "attnscope/reports/json_io.hpp"
#include "test_support.hpp"

namespace attnscope::reports {
namespace {

using ::testing::HasSubstr;
using testing::fixture;
using testing::read_text;

// The committed tiled fixture with one edit applied to its JSON.
std::string edited(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json doc = nlohmann::json::parse(read_text(fixture("simulate-tiled-small.json")));
  edit(doc);
  return doc.dump();
}

std::string error_of(const std::string& text) {
  try {
    parse_report(text, "edited.json");
  } catch (const ReportError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Reliability, TileOutsideItsKernelsGridIsRejected) {
  for (const auto& [column, value] : {std::pair{"q_tile", 50000}, {"kv_tile", -1}, {"head", 7}, {"batch", 1}}) {
    const std::string msg = error_of(edited([&, column = column, value = value](nlohmann::json& d) {
      d["kernels"][0]["tile_columns"][column][0] = value;
    }));
    EXPECT_THAT(msg, HasSubstr("edited.json")) << column;
    EXPECT_THAT(msg, HasSubstr("/kernels/0")) << column;
    // Negative indices are caught by the column reader, the others by the grid check.
    EXPECT_THAT(msg, ::testing::AnyOf(HasSubstr("outside the kernel's grid"), HasSubstr("tile index out of range")))
        << column << ": " << msg;
  }
}

TEST(Reliability, InvalidWorkloadIsRejected) {
  EXPECT_THAT(error_of(edited([](nlohmann::json& d) { d["workload"]["seq_q"] = -4; })),
              HasSubstr("/workload"));
  EXPECT_THAT(error_of(edited([](nlohmann::json& d) { d["workload"]["batch"] = 4611686018427387904LL; })),
              HasSubstr("batch * heads"));
}

TEST(Reliability, AxisTicksOverATinyRangeEnd) {
  const svg::Scale s{1e14, 1e14 + 0.03125, 0, 100, false};  // two PM samples at t ~ 1e14 s
  const auto ticks = s.ticks();
  EXPECT_GE(ticks.size(), 2u);
  EXPECT_LE(ticks.size(), 21u);
}

}  // namespace
}  // namespace attnscope::reports
