// SPDX-License-Identifier: Apache-2.0
// The recorder (one JSON document for the whole run) and the summary statistics.
#include "harness.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

namespace attnscope::microbench {

Stats summarize(std::vector<double> samples) {
  Stats s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.n = static_cast<int>(n);
  s.min = samples.front();
  s.max = samples.back();
  s.median = n % 2 == 1 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  return s;
}

ClockSummary summarize_clocks(const std::vector<BlockClock>& blocks) {
  ClockSummary c;
  double cycles = 0, ns = 0;
  for (const BlockClock& b : blocks) {
    const auto dc = static_cast<double>(b.c1 - b.c0);
    cycles += dc;
    ns += static_cast<double>(b.g1 - b.g0);
    c.max_cycles = std::max(c.max_cycles, dc);
  }
  if (!blocks.empty()) c.mean_cycles = cycles / static_cast<double>(blocks.size());
  c.ghz = ns > 0 ? cycles / ns : 0;
  return c;
}

namespace {
nlohmann::json params_json(const Params& params) {
  nlohmann::json j = nlohmann::json::object();
  for (const Param& p : params) {
    if (p.is_number)
      j[p.key] = p.number;
    else
      j[p.key] = p.text;
  }
  return j;
}
nlohmann::json stats_json(const std::vector<double>& samples) {
  const Stats s = summarize(samples);
  return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"repetitions", s.n}, {"samples", samples}};
}
}  // namespace

struct Recorder::Impl {
  nlohmann::json doc = nlohmann::json::object();
  int failed = 0;
  nlohmann::json& bench(const std::string& name) {
    nlohmann::json& b = doc["benchmarks"][name];
    if (b.is_null())
      b = {{"what", ""}, {"results", nlohmann::json::array()}, {"checks", nlohmann::json::array()}};
    return b;
  }
};

Recorder::Recorder() : impl_(std::make_unique<Impl>()) {
  impl_->doc["format"] = "attnscope-microbench 1";
  impl_->doc["benchmarks"] = nlohmann::json::object();
}
Recorder::~Recorder() = default;

void Recorder::device(const Params& info) {
  impl_->doc["device"] = params_json(info);
}

void Recorder::describe(const std::string& bench, const std::string& what) {
  impl_->bench(bench)["what"] = what;
}

void Recorder::result(const std::string& bench, const std::string& metric, const std::string& unit,
                      const std::vector<double>& samples, const Params& params,
                      const std::vector<double>& clock_ghz, const std::string& note) {
  nlohmann::json r = {{"metric", metric}, {"unit", unit}, {"params", params_json(params)}};
  r.update(stats_json(samples));
  if (!clock_ghz.empty()) r["sm_clock_ghz"] = stats_json(clock_ghz);
  if (!note.empty()) r["note"] = note;
  impl_->bench(bench)["results"].push_back(std::move(r));
  const Stats s = summarize(samples);
  std::string line = "  " + metric;
  for (const Param& p : params)
    line += " " + p.key + "=" + (p.is_number ? nlohmann::json(p.number).dump() : p.text);
  line += ": " + nlohmann::json(s.median).dump() + " " + unit + " (min " + nlohmann::json(s.min).dump() +
          ", max " + nlohmann::json(s.max).dump() + ", n " + std::to_string(s.n) + ")";
  if (!clock_ghz.empty()) line += " @ " + nlohmann::json(summarize(clock_ghz).median).dump() + " GHz";
  progress(line);
}

void Recorder::histogram(const std::string& bench, const std::string& metric, const std::string& unit,
                         double first, double bin_width, const std::vector<std::int64_t>& counts,
                         const Params& params) {
  impl_->bench(bench)["histograms"].push_back({{"metric", metric},
                                               {"unit", unit},
                                               {"first", first},
                                               {"bin_width", bin_width},
                                               {"counts", counts},
                                               {"params", params_json(params)}});
}

void Recorder::check(const std::string& bench, const std::string& what, bool ok, const std::string& detail) {
  impl_->bench(bench)["checks"].push_back({{"what", what}, {"ok", ok}, {"detail", detail}});
  if (!ok) {
    ++impl_->failed;
    progress("  CHECK FAILED: " + bench + ": " + what + ": " + detail);
  }
}

void Recorder::elapsed(const std::string& bench, double seconds) {
  impl_->bench(bench)["elapsed_s"] = seconds;
}

int Recorder::failed_checks() const {
  return impl_->failed;
}

bool Recorder::write(const std::string& path) const {
  nlohmann::json doc = impl_->doc;
  doc["failed_checks"] = impl_->failed;
  std::ofstream f(path);
  if (!f) return false;
  f << doc.dump(1) << '\n';
  return static_cast<bool>(f);
}

void progress(const std::string& line) {
  std::cout << line << std::endl;
}

}  // namespace attnscope::microbench
