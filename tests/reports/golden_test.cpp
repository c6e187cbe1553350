// SPDX-License-Identifier: Apache-2.0
// Golden-file tests of every writer (reports/src/*_writer.cpp) on the committed fixture reports, in the
// spirit of google/benchmark's reporter_output_test: volatile provenance fields (tool version, git revision,
// date, host, command) are replaced by {{PLACEHOLDERS}} before rendering, so the golden files hold the
// placeholders and match whatever build regenerated the fixtures.
//
// To accept new output after an intended change: ATTNSCOPE_UPDATE_GOLDEN=1 ./reports_golden_test, then review
// `git diff tests/data/reports/golden`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

#include "attnscope/reports/gate.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/writers.hpp"
#include "test_support.hpp"

namespace attnscope::reports {
namespace {

using testing::fixture;
using testing::read_text;

Report normalised(const std::string& name) {
  Report r = read_report(fixture(name));
  r.provenance.tool_version = "{{VERSION}}";
  r.provenance.git_revision = "{{GIT}}";
  r.provenance.date = "{{DATE}}";
  r.provenance.host = "{{HOST}}";
  r.provenance.command = "{{COMMAND}}";
  return r;
}

std::vector<std::string> gates_for(const std::string& name) {
  if (name == "synthetic-profile-small.json")
    return {"tiled.dram_read.error < 5%", "tiled.time < 0.6ms", "naive.qk.dram_write.measured <= 1.2GB",
            "tiled.l2_read.modeled > 0", "naive.time.error < 5%"};
  if (name == "simulate-tiled-small.json") return {"tiled.time < 1ms", "tiled.dram_read.modeled > 0"};
  if (name == "simulate-naive-small.json") return {"naive.time < 1ms", "naive.softmax.dram_write > 1GB"};
  return {};
}

// Line-by-line comparison with the first difference in the failure message.
void expect_matches_golden(const std::string& actual, const std::filesystem::path& golden) {
  if (const char* update = std::getenv("ATTNSCOPE_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    write_file_atomic(golden, actual);
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(golden))
      << golden << " is missing (ATTNSCOPE_UPDATE_GOLDEN=1 writes it)";
  const std::string expected = read_text(golden);
  if (actual == expected) return;
  std::size_t line = 1, a = 0, e = 0;
  while (true) {
    const std::size_t an = actual.find('\n', a), en = expected.find('\n', e);
    const std::string al = actual.substr(a, an == std::string::npos ? std::string::npos : an - a);
    const std::string el = expected.substr(e, en == std::string::npos ? std::string::npos : en - e);
    if (al != el || an == std::string::npos || en == std::string::npos) {
      std::size_t col = 0;
      while (col < al.size() && col < el.size() && al[col] == el[col]) ++col;
      const std::size_t from = col > 60 ? col - 60 : 0;
      ADD_FAILURE() << golden.filename() << ": first difference at line " << line << ", column " << col + 1
                    << "\n  expected: ..." << el.substr(from, 160) << "\n  actual:   ..."
                    << al.substr(from, 160);
      return;
    }
    a = an + 1, e = en + 1, ++line;
  }
}

struct Writer {
  std::string extension;
  std::function<std::string(const Report&, const std::vector<GateResult>&)> render;
};

const std::vector<Writer>& writers() {
  static const std::vector<Writer> w{
      {"html", [](const Report& r, const auto& g) { return to_html(r, g); }},
      {"md", [](const Report& r, const auto& g) { return to_markdown(r, g); }},
      {"junit.xml", [](const Report& r, const auto& g) { return to_junit(r, g); }},
      {"totals.csv", [](const Report& r, const auto&) { return totals_csv(r); }},
      {"tiles.csv", [](const Report& r, const auto&) { return tiles_csv(r); }},
      {"sweep.csv", [](const Report& r, const auto&) { return sweep_csv(r); }},
      {"trace.json", [](const Report& r, const auto&) { return to_chrome_trace(r); }},
      {"txt", [](const Report& r, const auto&) { return to_text_table(r); }},
  };
  return w;
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, EveryWriterMatchesItsGoldenFile) {
  const std::string name = GetParam();
  const Report r = normalised(name);
  const auto gates = evaluate_gates(gates_for(name), r);
  const std::string stem = name.substr(0, name.size() - 5);
  for (const auto& w : writers()) {
    SCOPED_TRACE(w.extension);
    expect_matches_golden(w.render(r, gates), fixture("golden") / (stem + "." + w.extension));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenTest,
                         ::testing::Values("simulate-tiled-small.json", "simulate-naive-small.json",
                                           "synthetic-profile-small.json", "sweep-small.json"),
                         [](const auto& param_info) {
                           std::string n = param_info.param.substr(0, param_info.param.size() - 5);
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

TEST(Writers, HtmlIsSelfContained) {
  const std::string html = to_html(read_report(fixture("synthetic-profile-small.json")));
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));  // only the SVG namespace
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  for (const char* section : {"id=\"errors\"", "id=\"levels\"", "id=\"heatmaps\"", "id=\"timelines\""})
    EXPECT_NE(html.find(section), std::string::npos) << section;
  EXPECT_NE(html.find("modeled − measured"), std::string::npos);  // the difference heatmap is drawn
}

TEST(Writers, WriteAllWritesEveryFormat) {
  const auto dir = std::filesystem::temp_directory_path() / "attnscope_write_all_test";
  std::filesystem::remove_all(dir);
  const Report r = read_report(fixture("synthetic-profile-small.json"));
  const WrittenFiles f = write_all(r, dir, evaluate_gates({"tiled.time < 1s"}, r));
  EXPECT_EQ(f.all().size(), 7u);  // json, html, md, totals, tiles, trace, junit (no sweep csv)
  for (const auto& p : f.all()) EXPECT_GT(std::filesystem::file_size(p), 0u) << p;
  EXPECT_EQ(to_json_string(read_report(f.json)), to_json_string(r));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attnscope::reports
