// SPDX-License-Identifier: Apache-2.0
// Chrome trace-event JSON (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU):
// complete events ("ph": "X") in microseconds. Process 1 holds the modeled timeline, process 2 the
// measured one; one thread per SM. Kernels follow each other in launch order, each offset by the duration of
// the kernels before it on the same side (modeled or measured). A measured kernel's PM samples become counter
// events ("ph": "C") in the measured process: a "DRAM throughput" track (read and write, GB/s), which
// Perfetto and chrome://tracing draw as a counter track under the SM rows; the samples are placed on the
// kernel's time axis from its first DRAM bytes (reports/pm_samples.hpp).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "attnscope/reports/pm_samples.hpp"
#include "attnscope/reports/writers.hpp"

namespace attnscope::reports {

namespace {

constexpr int kModeledPid = 1;
constexpr int kMeasuredPid = 2;
constexpr int kKernelTid = 100000;  // a row above the SMs with one span per kernel

double kernel_duration(const KernelEntry& k, bool measured) {
  if (const Value* t = k.metrics.find(Metric::time)) {
    const auto& v = measured ? t->measured : t->modeled;
    if (v) return *v;
  }
  double end = 0;  // fall back to the last tile's end
  for (const auto& t : k.tiles) {
    const auto& e = measured ? t.end_measured_s : t.end_modeled_s;
    if (e && *e > end) end = *e;
  }
  return end;
}

}  // namespace

std::string to_chrome_trace(const Report& report) {
  using nlohmann::json;
  json events = json::array();
  for (int pid : {kModeledPid, kMeasuredPid}) {
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", 0},
                      {"args", {{"name", pid == kModeledPid ? "modeled" : "measured"}}}});
    events.push_back({{"name", "process_sort_index"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", 0},
                      {"args", {{"sort_index", pid}}}});
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", pid},
                      {"tid", kKernelTid},
                      {"args", {{"name", "kernels"}}}});
  }
  for (bool measured : {false, true}) {
    const int pid = measured ? kMeasuredPid : kModeledPid;
    double offset_s = 0;
    std::map<int, bool> named_sms;
    bool any = false;
    for (const auto& k : report.kernels) {
      const double duration = kernel_duration(k, measured);
      for (const auto& t : k.tiles) {
        const auto& sm = measured ? t.sm_measured : t.sm_modeled;
        const auto& start = measured ? t.start_measured_s : t.start_modeled_s;
        const auto& end = measured ? t.end_measured_s : t.end_modeled_s;
        if (!sm || !start || !end) continue;
        any = true;
        if (!named_sms[*sm]) {
          named_sms[*sm] = true;
          events.push_back({{"name", "thread_name"},
                            {"ph", "M"},
                            {"pid", pid},
                            {"tid", *sm},
                            {"args", {{"name", "SM " + std::to_string(*sm)}}}});
        }
        json args{{"batch", t.batch}, {"head", t.head}, {"q_tile", t.q_tile}, {"kv_tile", t.kv_tile}};
        for (const auto& [key, v] : t.metrics) {
          const auto& value = measured ? v.measured : v.modeled;
          if (value) args[std::string(vocab::key(key))] = *value;
        }
        events.push_back(
            {{"name", k.name + " q" + std::to_string(t.q_tile) + " kv" + std::to_string(t.kv_tile)},
             {"cat", k.name},
             {"ph", "X"},
             {"pid", pid},
             {"tid", *sm},
             {"ts", (offset_s + *start) * 1e6},
             {"dur", (*end - *start) * 1e6},
             {"args", std::move(args)}});
      }
      // Aligned on the kernel's first DRAM bytes and cut at its duration (pm_samples.hpp says why).
      if (const auto samples = measured
                                   ? dram_throughput(k, duration > 0 ? std::optional(duration) : std::nullopt)
                                   : std::vector<DramThroughputSample>{};
          !samples.empty()) {
        any = true;
        for (const auto& smp : samples)
          events.push_back(
              {{"name", "DRAM throughput"},
               {"cat", k.name},
               {"ph", "C"},
               {"pid", pid},
               {"ts", (offset_s + smp.start_s) * 1e6},
               {"args",
                {{"read GB/s", smp.read_bytes_per_s / 1e9}, {"write GB/s", smp.write_bytes_per_s / 1e9}}}});
        // The track falls to zero where the kernel ends (its last sample may run past it by part of an
        // interval), not at the next kernel's first sample.
        events.push_back({{"name", "DRAM throughput"},
                          {"cat", k.name},
                          {"ph", "C"},
                          {"pid", pid},
                          {"ts", (offset_s + (duration > 0 ? std::min(duration, samples.back().end_s)
                                                           : samples.back().end_s)) *
                                     1e6},
                          {"args", {{"read GB/s", 0.0}, {"write GB/s", 0.0}}}});
      }
      if (duration > 0 && (any || !k.tiles.empty()))
        events.push_back({{"name", k.name},
                          {"cat", "kernel"},
                          {"ph", "X"},
                          {"pid", pid},
                          {"tid", kKernelTid},
                          {"ts", offset_s * 1e6},
                          {"dur", duration * 1e6}});
      offset_s += duration;
    }
  }
  json doc{{"traceEvents", std::move(events)},
           {"displayTimeUnit", "ns"},
           {"otherData",
            {{"tool", "attnscope " + report.provenance.tool_version},
             {"workload", report.workload.name},
             {"gpu", report.provenance.gpu_name}}}};
  return doc.dump(1) + "\n";
}

}  // namespace attnscope::reports
