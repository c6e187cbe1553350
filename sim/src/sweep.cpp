// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/sweep.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>

#include "attnscope/sim/error.hpp"

namespace attnscope::sim {

std::vector<SweepOutcome> run_sweep(const std::vector<SweepJob>& jobs, const SimOptions& options, int threads,
                                    const SweepProgress& progress, const std::atomic<bool>* cancel) {
  std::vector<SweepOutcome> out(jobs.size());
  if (jobs.empty()) return out;
  if (threads < 0) throw InvalidInput("sweep: threads must be >= 0 (0 = all cores)");
  unsigned n =
      threads > 0 ? static_cast<unsigned>(threads) : std::max(1u, std::thread::hardware_concurrency());
  n = std::min<unsigned>(n, static_cast<unsigned>(jobs.size()));

  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  std::mutex progress_mutex;
  const auto worker = [&] {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= jobs.size()) return;
      const SweepJob& job = jobs[i];
      if (cancel != nullptr && cancel->load()) {
        out[i].error = "cancelled";
      } else {
        try {
          out[i].result = simulate(job.gpu, job.workload, job.kind, job.tiles, options);
        } catch (const InvalidInput& e) {
          out[i].error = e.what();
        } catch (const Cancelled&) {  // options.cancel: the caller no longer wants this point
          out[i].error = "cancelled";
        } catch (
            const std::exception& e) {  // e.g. out of memory: report it on this point, keep the sweep going
          out[i].error = std::string("internal error: ") + e.what();
        }
      }
      std::lock_guard lock(progress_mutex);
      ++done;
      if (progress) progress(done, jobs.size());
    }
  };
  std::vector<std::jthread> pool;
  pool.reserve(n - 1);
  for (unsigned t = 1; t < n; ++t) pool.emplace_back(worker);
  worker();  // the calling thread works too
  return out;
}

}  // namespace attnscope::sim
