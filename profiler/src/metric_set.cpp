// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/metric_set.hpp"

#include <algorithm>

namespace attnscope::profiler {

const std::vector<std::string>& pm_sampling_metrics() {
  static const std::vector<std::string> names = {
      "dram__bytes_read.sum",
      "dram__bytes_write.sum",
      "lts__t_sectors_srcunit_tex_op_read.sum",
      "lts__t_sectors_srcunit_tex_op_write.sum",
      "sm__pipe_tensor_op_hmma_cycles_active.sum",
  };
  return names;
}

const std::vector<std::string>& standard_counters() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    const auto add = [&out](std::string_view name) {
      if (!name.empty() && std::find(out.begin(), out.end(), name) == out.end()) out.emplace_back(name);
    };
    for (const auto& m : vocab::kMetrics)
      for (const auto& term : m.terms) add(term.counter);
    add(vocab::kCounterLdgstsInst);
    add(vocab::kCounterL2ToL1Loads);
    // The same shared-memory traffic split by instruction: plain loads (ld.shared, ldmatrix) and stores.
    add("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum");
    add("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum");
    // L2 traffic from every source (SMs, the fabric between the two L2 partitions, copies), for comparison
    // with the SM-only sectors.
    add("lts__t_sectors_op_read.sum");
    add("lts__t_sectors_op_write.sum");
    add("lts__t_sectors_srcunit_ltcfabric.sum");
    add("sm__pipe_tensor_op_hmma_cycles_active.sum");
    add("sm__inst_executed_pipe_tensor_op_hmma.sum");
    return out;
  }();
  return names;
}

reports::Metrics derive_report_metrics(const CounterValues& c, vocab::BulkCopies bulk) {
  const auto lookup = [&c](std::string_view name) -> std::optional<double> {
    const auto it = c.find(std::string(name));
    return it == c.end() ? std::nullopt : it->second;
  };
  reports::Metrics out;
  for (const vocab::Metric m : vocab::all_metrics())
    if (const auto v = vocab::measure(m, lookup, bulk)) out[m].measured = v;
  return out;
}

std::string counter_unit(const std::string& name) {
  auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  if (has("__time_")) return "ns";
  if (has("bytes")) return "B";
  if (has("sectors")) return "sectors";
  if (has("wavefronts")) return "wavefronts";
  if (const std::string_view cycles = vocab::to_string(vocab::Unit::cycles); has(cycles.data()))
    return std::string(cycles);
  if (has("inst_executed")) return "inst";
  if (has(".pct")) return "%";
  return "";
}

}  // namespace attnscope::profiler
