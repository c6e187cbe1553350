// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/sweep_work.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>

#include "attnscope/reports/gpu_variants.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/sweep_checkpoint.hpp"
#include "attnscope/reports/sweep_two_fidelity.hpp"
#include "sweep_cycle_parts.hpp"

namespace attnscope::reports {

std::string encode_points(const std::vector<SweepPoint>& points) {
  Report r;
  r.kind = "sweep";
  r.sweep = points;
  r.sweep_definition.text = "points";
  std::string text = to_json_string(r, -1);
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

std::vector<SweepPoint> decode_points(std::string_view text) {
  return parse_report(text, "sweep points").sweep;
}

namespace {

// Longest first: runners hand units out in `pending` order, so the last ones to finish are short and ranks or
// threads finish together (units differ in cost by 100x). The cost of simulating a tiled kernel grows with
// the K/V bytes its CTAs walk through L2, B H Nq Nkv d / Br; a problem's with B H Nq Nkv d.
void longest_first(std::vector<std::size_t>& pending, const std::function<double(std::size_t)>& cost) {
  std::vector<double> c(pending.size());
  for (std::size_t i = 0; i < pending.size(); ++i) c[i] = cost(pending[i]);
  std::vector<std::size_t> order(pending.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return c[a] > c[b]; });
  std::vector<std::size_t> sorted;
  sorted.reserve(pending.size());
  for (std::size_t i : order) sorted.push_back(pending[i]);
  pending = std::move(sorted);
}

double attention_size(const sim::Workload& w) {
  return static_cast<double>(w.batch) * static_cast<double>(w.heads) * static_cast<double>(w.seq_q) *
         static_cast<double>(w.seq_kv) * static_cast<double>(w.head_dim);
}

SweepWork two_fidelity_work(const SweepSpec& spec, const SweepRunOptions& options,
                            const std::string& command_line) {
  auto sweep = std::make_shared<const TwoFidelitySweep>(spec);
  auto problems = std::make_shared<std::vector<std::int64_t>>();  // unit -> problem of this shard
  for (std::int64_t p = options.shard_index; p < sweep->problem_count(); p += options.shard_count)
    problems->push_back(p);
  std::shared_ptr<SweepCheckpoint> checkpoint;
  if (!options.checkpoint.empty())
    checkpoint = std::make_shared<SweepCheckpoint>(options.checkpoint, spec.definition_text(),
                                                   options.shard_index, options.shard_count);
  SweepWork work;
  work.units = problems->size();
  work.finished.resize(work.units);
  for (std::size_t u = 0; u < work.units; ++u) {
    if (checkpoint && checkpoint->finished((*problems)[u]))
      work.finished[u] = checkpoint->points((*problems)[u]);
    else
      work.pending.push_back(u);
  }
  longest_first(work.pending,
                [&](std::size_t u) { return attention_size(sweep->problem_workload((*problems)[u])); });
  work.run = [sweep, problems](std::size_t u) { return sweep->run_problem((*problems)[u]).points; };
  work.journal = [checkpoint, problems](std::size_t u, const std::vector<SweepPoint>& points) {
    if (checkpoint) checkpoint->append((*problems)[u], points);
  };
  work.assemble = [sweep, options, command_line](std::vector<std::vector<SweepPoint>> results) {
    std::vector<SweepPoint> points;
    for (auto& r : results)
      for (auto& p : r) points.push_back(std::move(p));
    return sweep->make_report(std::move(points), options, command_line);
  };
  return work;
}

SweepWork cycle_work(const SweepSpec& spec, const SweepRunOptions& options, const std::string& command_line) {
  std::vector<SweepPoint> all = enumerate_sweep(spec);
  const std::vector<GpuVariant> variants = expand_gpu_variants(spec);
  auto gpus = std::make_shared<std::map<std::string, sim::GpuSpec>>();
  for (const auto& v : variants) gpus->emplace(v.label, v.spec);
  auto shell = std::make_shared<const Report>(
      cycle_sweep_report(spec, options, command_line, variants, static_cast<std::int64_t>(all.size())));
  auto points = std::make_shared<std::vector<SweepPoint>>();  // unit -> point of this shard
  for (auto& p : all)
    if (p.index % options.shard_count == options.shard_index) points->push_back(std::move(p));
  SweepWork work;
  work.units = points->size();
  work.finished.resize(work.units);
  for (std::size_t u = 0; u < work.units; ++u) work.pending.push_back(u);
  longest_first(work.pending, [&](std::size_t u) {
    const SweepPoint& p = (*points)[u];
    const int br = p.kind == sim::KernelKind::tiled    ? p.tiles.br
                   : p.kind == sim::KernelKind::hopper ? 64 * p.tiles.hopper_consumers
                                                       : 1;
    return attention_size(p.workload) / std::max(1, br);
  });
  work.run = [points, gpus](std::size_t u) {
    SweepPoint p = (*points)[u];
    evaluate_sweep_point(p, gpus->at(p.gpu_spec));
    return std::vector<SweepPoint>{std::move(p)};
  };
  work.journal = [](std::size_t, const std::vector<SweepPoint>&) {};
  work.assemble = [shell](std::vector<std::vector<SweepPoint>> results) {
    Report r = *shell;
    for (auto& unit : results)
      for (auto& p : unit) r.sweep.push_back(std::move(p));
    return r;
  };
  return work;
}

}  // namespace

SweepWork make_sweep_work(const SweepSpec& spec, const SweepRunOptions& options,
                          const std::string& command_line) {
  check_shard(options);
  return spec.fidelity == vocab::SweepFidelity::two ? two_fidelity_work(spec, options, command_line)
                                                    : cycle_work(spec, options, command_line);
}

}  // namespace attnscope::reports
