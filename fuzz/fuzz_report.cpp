// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the report reader, and every text writer on whatever it accepts. Rejection must be a
// ReportError; an accepted report must render and survive a round trip through its own JSON.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/writers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnscope::reports;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Report r;
  try {
    r = parse_report(text, "fuzz.json");
  } catch (const ReportError&) {
    return 0;
  }
  (void)to_text_table(r);
  (void)to_markdown(r);
  (void)totals_csv(r);
  (void)tiles_csv(r);
  (void)sweep_csv(r);
  (void)to_chrome_trace(r);
  // What we write we must read back.
  try {
    (void)parse_report(to_json_string(r, -1), "round-trip.json");
  } catch (const ReportError& e) {
    std::fprintf(stderr, "round trip failed: %s\n", e.what());
    std::abort();
  }
  return 0;
}
