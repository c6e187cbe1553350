// SPDX-License-Identifier: Apache-2.0
// Reading a sweep: points grouped by problem (GPU + workload shape), the best tile of each problem, the
// Pareto front of HBM bytes against shared memory, and joining the shards of one sweep.
#pragma once
#include <string>
#include <vector>

#include "attnscope/reports/report.hpp"

namespace attnscope::reports {

// "h200 B1 H32 N4096x4096 d64 fp16" - what a point solves, independent of how it tiles it.
std::string problem_label(const SweepPoint& p);

struct ProblemGroup {
  std::string label;
  std::vector<const SweepPoint*> points;  // in sweep order
};
std::vector<ProblemGroup> group_by_problem(const Report& report);  // groups in order of first appearance

// Modeled value of a metric (0 when absent) and HBM bytes = dram_read + dram_write.
double modeled_metric(const SweepPoint& p, Metric metric);
double hbm_bytes(const SweepPoint& p);

// Feasible tiled or Hopper point with the least modeled time (ties: fewer HBM bytes, then lower index);
// nullptr if none.
const SweepPoint* best_point(const std::vector<const SweepPoint*>& points);
// Feasible tiled points not dominated in (smem_per_cta, HBM bytes), sorted by smem_per_cta.
std::vector<const SweepPoint*> pareto_front(const std::vector<const SweepPoint*>& points);

// Joins shards of one sweep: same definition text and shard count, each shard once, every index present.
// The result has shard 0/1 and points sorted by index, provenance from the first shard with `command`.
// Throws ReportError naming the shard that does not fit.
Report merge_sweep_reports(const std::vector<Report>& shards, const std::vector<std::string>& origins,
                           const std::string& command);

}  // namespace attnscope::reports
