// SPDX-License-Identifier: Apache-2.0
// Many independent simulations on a pool of threads: what-if sweeps over tiles, shapes and GPUs.
//
//   std::vector<sim::SweepJob> jobs = ...;               // (workload, kind, tiles, gpu) each
//   auto out = sim::run_sweep(jobs, {.record_tiles = false}, /*threads=*/0,
//                             [](std::size_t done, std::size_t total) { ... });
//   out[i].result  // SimResult of jobs[i], or empty with out[i].error saying why (e.g. tile too big)
//
// Each job is one simulate() call; results come back in job order whatever order they finish in.
#pragma once
#include <atomic>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/sim/simulate.hpp"

namespace attnscope::sim {

struct SweepJob {
  Workload workload;
  KernelKind kind = KernelKind::tiled;
  TileConfig tiles;
  GpuSpec gpu;
};

struct SweepOutcome {
  std::optional<SimResult> result;
  std::string error;  // InvalidInput message when the point cannot run (not an exception: sweeps expect some)
};

// Called after each finished job with (finished, total), from a worker thread, one call at a time.
using SweepProgress = std::function<void(std::size_t done, std::size_t total)>;

// Runs every job with `options` on `threads` threads (0 = options.threads, and when that is 0 too,
// std::thread::hardware_concurrency()). Setting
// *cancel to true stops handing out jobs; unstarted ones come back with error "cancelled".
std::vector<SweepOutcome> run_sweep(const std::vector<SweepJob>& jobs, const SimOptions& options,
                                    int threads = 0, const SweepProgress& progress = {},
                                    const std::atomic<bool>* cancel = nullptr);

}  // namespace attnscope::sim
