// SPDX-License-Identifier: Apache-2.0
// The two-fidelity sweep: every point priced by the closed-form bound (sim/tile_bound.hpp, ~a microsecond),
// the cycle-approximate model run only on each problem's candidates (sweep_selection.hpp: the exact top K and
// the bounds' Pareto front). A problem is one GPU variant x sequence length x head dim; its points are the
// tile configurations x shared-memory limits. The report lists the modeled points (fidelity cycle_model,
// with their bounds), in index order; sweep_definition.total_points counts every point priced.
//
//   SweepSpec s = ...;  s.fidelity = vocab::SweepFidelity::two;  s.top_k = 10;
//   Report r = run_sweep(s, {.threads = 0, .checkpoint = "sweep.json.checkpoint"}, command_line);
//
// Work is split by problem: threads take problems one at a time, shard i/n (and MPI rank, sweep_mpi.hpp)
// the problems with index % n == i, and the checkpoint journals finished problems.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/reports/report.hpp"
#include "attnscope/reports/sweep_runner.hpp"
#include "attnscope/sim/gpu_spec.hpp"

namespace attnscope::reports {

// What one problem contributes to the report, and how much of it the cycle model saw.
struct ProblemResult {
  std::vector<SweepPoint> points;  // modeled points (and the naive baseline), index order
};

// Prepared once per sweep: the GPU variants and the enumeration's shape. Cheap to copy.
class TwoFidelitySweep {
 public:
  explicit TwoFidelitySweep(const SweepSpec& spec);  // throws sim::InvalidInput
  std::int64_t problem_count() const { return problems_; }
  std::int64_t points_per_problem() const { return per_problem_; }
  // The workload of problem `p` (its sequence length and head dim set).
  sim::Workload problem_workload(std::int64_t p) const;
  // Prices and selects problem `p` (0 <= p < problem_count()); thread-safe.
  ProblemResult run_problem(std::int64_t p) const;
  // The report around `points` (all problems' points, any order): sorted, with the definition filled in.
  Report make_report(std::vector<SweepPoint> points, const SweepRunOptions& options,
                     const std::string& command_line) const;

 private:
  SweepSpec spec_;
  std::vector<std::string> labels_;
  std::vector<sim::GpuSpec> gpus_;
  std::vector<std::int64_t> seqs_, dims_, limits_;
  std::int64_t problems_ = 0, per_problem_ = 0;
};

// Runs the shard's problems on options.threads threads, resuming from and journaling to options.checkpoint.
Report run_two_fidelity_sweep(const SweepSpec& spec, const SweepRunOptions& options,
                              const std::string& command_line);

}  // namespace attnscope::reports
