// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/sweep_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "attnscope/reports/json_io.hpp"

namespace attnscope::reports {

std::string problem_label(const SweepPoint& p) {
  const auto& w = p.workload;
  return fmt::format("{} B{} H{} N{}x{} d{} {}{}{}", p.gpu_spec, w.batch, w.heads, w.seq_q, w.seq_kv,
                     w.head_dim, sim::to_string(w.dtype), sim::mask_label(w),
                     w.pass == sim::Pass::fwd   ? ""
                     : w.pass == sim::Pass::bwd ? " bwd"
                                                : " fwd+bwd");
}

std::vector<ProblemGroup> group_by_problem(const Report& report) {
  std::vector<ProblemGroup> groups;
  std::map<std::string, std::size_t> index;
  for (const auto& p : report.sweep) {
    const std::string label = problem_label(p);
    auto [it, inserted] = index.emplace(label, groups.size());
    if (inserted) groups.push_back({label, {}});
    groups[it->second].points.push_back(&p);
  }
  return groups;
}

double modeled_metric(const SweepPoint& p, Metric metric) {
  return modeled_of(p.metrics, metric).value_or(0.0);
}

double hbm_bytes(const SweepPoint& p) {
  return modeled_metric(p, Metric::dram_read) + modeled_metric(p, Metric::dram_write);
}

const SweepPoint* best_point(const std::vector<const SweepPoint*>& points) {
  const SweepPoint* best = nullptr;
  for (const SweepPoint* p : points) {
    if (!p->feasible || p->kind == sim::KernelKind::naive) continue;
    if (!best) {
      best = p;
      continue;
    }
    const double t = modeled_metric(*p, Metric::time), tb = modeled_metric(*best, Metric::time);
    const double h = hbm_bytes(*p), hb = hbm_bytes(*best);
    if (t < tb || (t == tb && (h < hb || (h == hb && p->index < best->index)))) best = p;
  }
  return best;
}

std::vector<const SweepPoint*> pareto_front(const std::vector<const SweepPoint*>& points) {
  std::vector<const SweepPoint*> candidates;
  for (const SweepPoint* p : points)
    if (p->feasible && p->kind == sim::KernelKind::tiled) candidates.push_back(p);
  std::sort(candidates.begin(), candidates.end(), [](const SweepPoint* a, const SweepPoint* b) {
    const double sa = modeled_metric(*a, Metric::smem_per_cta), sb = modeled_metric(*b, Metric::smem_per_cta);
    if (sa != sb) return sa < sb;
    const double ha = hbm_bytes(*a), hb = hbm_bytes(*b);
    if (ha != hb) return ha < hb;
    return a->index < b->index;
  });
  // Walking by increasing shared memory, a point is on the front when it moves fewer bytes than every
  // point before it.
  std::vector<const SweepPoint*> front;
  double best_bytes = 0;
  for (const SweepPoint* p : candidates) {
    const double h = hbm_bytes(*p);
    if (front.empty() || h < best_bytes) {
      front.push_back(p);
      best_bytes = h;
    }
  }
  return front;
}

Report merge_sweep_reports(const std::vector<Report>& shards, const std::vector<std::string>& origins,
                           const std::string& command) {
  if (shards.empty()) throw ReportError("merge: no reports given");
  auto origin = [&](std::size_t i) { return i < origins.size() ? origins[i] : fmt::format("#{}", i + 1); };
  const Report& first = shards.front();
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const Report& s = shards[i];
    if (s.kind != "sweep" || s.sweep_definition.text.empty())
      throw ReportError(fmt::format("merge: {} is a {} report, not a sweep shard", origin(i), s.kind));
    if (s.sweep_definition.text != first.sweep_definition.text)
      throw ReportError(fmt::format("merge: {} comes from a different sweep than {}:\n  {}\n  {}", origin(i),
                                    origin(0), s.sweep_definition.text, first.sweep_definition.text));
    if (s.sweep_definition.shard_count != first.sweep_definition.shard_count ||
        s.sweep_definition.total_points != first.sweep_definition.total_points)
      throw ReportError(
          fmt::format("merge: {} is shard {}/{} of {} points, but {} is shard {}/{} of {} points", origin(i),
                      s.sweep_definition.shard_index, s.sweep_definition.shard_count,
                      s.sweep_definition.total_points, origin(0), first.sweep_definition.shard_index,
                      first.sweep_definition.shard_count, first.sweep_definition.total_points));
  }
  std::map<int, std::size_t> seen;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    auto [it, inserted] = seen.emplace(shards[i].sweep_definition.shard_index, i);
    if (!inserted)
      throw ReportError(fmt::format("merge: {} and {} are both shard {}/{}", origin(it->second), origin(i),
                                    it->first, first.sweep_definition.shard_count));
  }
  Report merged = first;
  merged.provenance.command = command;
  merged.sweep.clear();
  for (const auto& s : shards) merged.sweep.insert(merged.sweep.end(), s.sweep.begin(), s.sweep.end());
  std::sort(merged.sweep.begin(), merged.sweep.end(),
            [](const SweepPoint& a, const SweepPoint& b) { return a.index < b.index; });
  merged.sweep_definition.shard_index = 0;
  merged.sweep_definition.shard_count = 1;
  if (first.sweep_definition.fidelity == vocab::SweepFidelity::two) {
    // A two-fidelity shard lists only its problems' modeled points: complete when every shard is there.
    if (static_cast<int>(shards.size()) != first.sweep_definition.shard_count)
      throw ReportError(fmt::format("merge: {} of {} shards given: every shard is needed once", shards.size(),
                                    first.sweep_definition.shard_count));
    return merged;
  }
  if (static_cast<std::int64_t>(merged.sweep.size()) != first.sweep_definition.total_points)
    throw ReportError(fmt::format(
        "merge: the shards hold {} of the sweep's {} points ({} of {} shards given)", merged.sweep.size(),
        first.sweep_definition.total_points, shards.size(), first.sweep_definition.shard_count));
  for (std::size_t i = 0; i < merged.sweep.size(); ++i)
    if (merged.sweep[i].index != static_cast<std::int64_t>(i))
      throw ReportError(fmt::format(
          "merge: point {} is {} (shards {} of {} given: every shard is needed once)", i,
          i < merged.sweep.size() && merged.sweep[i].index > static_cast<std::int64_t>(i) ? "missing"
                                                                                          : "duplicated",
          shards.size(), first.sweep_definition.shard_count));
  merged.sweep_definition.shard_index = 0;
  merged.sweep_definition.shard_count = 1;
  return merged;
}

}  // namespace attnscope::reports
