// SPDX-License-Identifier: Apache-2.0
// The pieces of a cycle sweep (sweep_runner.cpp) that the work-unit view (sweep_work.cpp) runs one point at
// a time: the same report header and the same handling of each point, so both write the same report.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "attnscope/reports/gpu_variants.hpp"
#include "attnscope/reports/report.hpp"
#include "attnscope/reports/sweep_runner.hpp"

namespace attnscope::reports {

// Throws sim::InvalidInput unless 0 <= shard_index < shard_count.
void check_shard(const SweepRunOptions& options);
// The report of a cycle sweep before its points: kind, provenance, workload, definition and shard.
Report cycle_sweep_report(const SweepSpec& spec, const SweepRunOptions& options,
                          const std::string& command_line, const std::vector<GpuVariant>& variants,
                          std::int64_t total_points);
// Applies the point's shared-memory limit to its GPU variant; a point that cannot fit is marked infeasible
// here (nullopt), else the GPU to simulate it on.
std::optional<sim::GpuSpec> settle_sweep_point(SweepPoint& p, sim::GpuSpec gpu);
// settle_sweep_point, then the cycle model: the point as run_sweep leaves it.
void evaluate_sweep_point(SweepPoint& p, const sim::GpuSpec& variant);

}  // namespace attnscope::reports
