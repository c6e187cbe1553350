// SPDX-License-Identifier: Apache-2.0
// A sweep as independent work units, for runners that spread them over processes (MPI, sweep_mpi.hpp): a
// two-fidelity sweep's units are its problems, a cycle sweep's its points. Any process can run any unit; the
// assembled report is the one run_sweep writes, whatever order and wherever the units ran.
//
//   SweepWork work = make_sweep_work(spec, options, command_line);
//   for (std::size_t u : work.pending) results[u] = work.run(u);       // anywhere, any order (longest first)
//   Report r = work.assemble(std::move(results));                        // results[u] for every unit
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/reports/report.hpp"
#include "attnscope/reports/sweep_runner.hpp"

namespace attnscope::reports {

struct SweepWork {
  std::size_t units = 0;
  // Units still to run, the costliest first (estimated from their shapes); the others' points are already in
  // `finished` (from the checkpoint).
  std::vector<std::size_t> pending;
  std::vector<std::vector<SweepPoint>> finished;  // [unit], filled for units not pending
  // The points of unit u (thread-safe; shares nothing between calls).
  std::function<std::vector<SweepPoint>(std::size_t u)> run;
  // Journals unit u to options.checkpoint (no-op without one); not thread-safe.
  std::function<void(std::size_t u, const std::vector<SweepPoint>& points)> journal;
  // The report from every unit's points (results[u] for u < units).
  std::function<Report(std::vector<std::vector<SweepPoint>> results)> assemble;
};

// Throws sim::InvalidInput for a bad spec or shard, ReportError for a checkpoint of another sweep.
SweepWork make_sweep_work(const SweepSpec& spec, const SweepRunOptions& options,
                          const std::string& command_line);

// A unit's points as one line of text and back (a minimal sweep report: the one serialisation of a point),
// exact: doubles are written in their shortest round-trip form. decode throws ReportError.
std::string encode_points(const std::vector<SweepPoint>& points);
std::vector<SweepPoint> decode_points(std::string_view text);

}  // namespace attnscope::reports
