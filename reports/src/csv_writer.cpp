// SPDX-License-Identifier: Apache-2.0
// CSV for pandas or a spreadsheet: plain numbers in base units (bytes, seconds), empty cells for absent
// values.
#include <set>

#include "attnscope/reports/writers.hpp"
#include "text_util.hpp"

namespace attnscope::reports {

using detail::csv_field;
using detail::number_or_empty;

std::string totals_csv(const Report& report) {
  std::string out = "kernel,metric,unit,measured,modeled,relative_error\n";
  for (const auto& k : report.kernels) {
    for (const auto& [metric, v] : k.metrics)
      out += fmt::format("{},{},{},{},{},{}\n", csv_field(k.name), vocab::key(metric),
                         vocab::to_string(vocab::info(metric).unit), number_or_empty(v.measured),
                         number_or_empty(v.modeled), number_or_empty(v.relative_error()));
    // Raw counters after the metrics, measured only, under their CUPTI names.
    for (const auto& [name, value] : k.counters)
      out += fmt::format("{},{},,{},,\n", csv_field(k.name), csv_field(name), number_or_empty(value));
  }
  return out;
}

std::string tiles_csv(const Report& report) {
  // One column pair per metric key present on any tile, so every row has the same columns.
  std::set<Metric> keys;
  for (const auto& k : report.kernels)
    for (const auto& t : k.tiles)
      for (const auto& [key, v] : t.metrics) keys.insert(key);
  std::string out =
      "kernel,batch,head,q_tile,kv_tile,sm_modeled,sm_measured,start_modeled_s,end_modeled_s,"
      "start_measured_s,end_measured_s";
  for (const auto key : keys) out += fmt::format(",{0}_measured,{0}_modeled", vocab::key(key));
  out += '\n';
  auto opt_int = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string(); };
  for (const auto& k : report.kernels) {
    for (const auto& t : k.tiles) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{}", csv_field(k.name), t.batch, t.head, t.q_tile,
                         t.kv_tile, opt_int(t.sm_modeled), opt_int(t.sm_measured),
                         number_or_empty(t.start_modeled_s), number_or_empty(t.end_modeled_s),
                         number_or_empty(t.start_measured_s), number_or_empty(t.end_measured_s));
      for (const auto key : keys) {
        const Value* v = t.metrics.find(key);
        if (v == nullptr)
          out += ",,";
        else
          out += fmt::format(",{},{}", number_or_empty(v->measured), number_or_empty(v->modeled));
      }
      out += '\n';
    }
  }
  return out;
}

std::string sweep_csv(const Report& report) {
  std::set<Metric> keys;
  for (const auto& p : report.sweep)
    for (const auto& [key, v] : p.metrics) keys.insert(key);
  std::string out =
      "index,gpu,workload,batch,heads,seq_q,seq_kv,head_dim,dtype,causal,kernel,br,bc,warps,stages,smem_"
      "limit,"
      "feasible,infeasible_reason";
  for (const auto key : keys) {
    out += ',';
    out += vocab::key(key);
  }
  // A two-fidelity sweep says which model produced the metrics, and gives the bound's numbers beside them.
  const bool two = report.sweep_definition.fidelity == vocab::SweepFidelity::two;
  if (two) out += ",fidelity,bound_time,bound_dram_read_min,bound_dram_write_min,bound_limiter";
  out += '\n';
  for (const auto& p : report.sweep) {
    const auto& w = p.workload;
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", p.index,
                       csv_field(p.gpu_spec), csv_field(w.name), w.batch, w.heads, w.seq_q, w.seq_kv,
                       w.head_dim, sim::to_string(w.dtype), w.causal ? 1 : 0, sim::to_string(p.kind),
                       p.tiles.br, p.tiles.bc, p.tiles.warps, p.tiles.stages, p.smem_limit,
                       p.feasible ? 1 : 0, csv_field(p.infeasible_reason));
    for (const auto key : keys) {
      out += ",";
      if (const Value* v = p.metrics.find(key)) out += number_or_empty(v->modeled);
    }
    if (two) {
      out += fmt::format(",{}", vocab::to_string(p.fidelity));
      if (p.bound)
        out += fmt::format(",{},{},{},{}", number_or_empty(p.bound->time_s),
                           number_or_empty(p.bound->dram_read_min), number_or_empty(p.bound->dram_write_min),
                           csv_field(p.bound->limiter));
      else
        out += ",,,,";
    }
    out += '\n';
  }
  return out;
}

}  // namespace attnscope::reports
