// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/sweep_two_fidelity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "attnscope/reports/from_sim.hpp"
#include "attnscope/reports/gpu_variants.hpp"
#include "attnscope/reports/sweep_checkpoint.hpp"
#include "attnscope/reports/sweep_selection.hpp"
#include "attnscope/reports/sweep_work.hpp"
#include "attnscope/reports/units.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/sim/tile_bound.hpp"
#include "sweep_metrics.hpp"

namespace attnscope::reports {

namespace {

// A shared-memory limit as the model sees it: the per-CTA limit and a what-if SM big enough to hold it
// (as the cycle sweep does, sweep_runner.cpp).
sim::GpuSpec with_smem_limit(sim::GpuSpec gpu, std::int64_t limit) {
  if (limit > 0) {
    gpu.smem_per_block = limit;
    gpu.smem_per_sm = std::max(gpu.smem_per_sm, limit + gpu.smem_reserved_per_cta);
  }
  return gpu;
}

// One tiled point of a problem while it is being priced.
struct Entry {
  std::int64_t index = 0;
  sim::TileConfig tiles;
  std::int64_t smem_limit = 0;  // as reported: the swept limit, or the GPU's own
  std::size_t limit_slot = 0;   // which of the problem's effective GPUs
  std::size_t group = 0;        // points that simulate identically share a group (and one simulation)
  sim::TileBound bound;
};

}  // namespace

TwoFidelitySweep::TwoFidelitySweep(const SweepSpec& spec) : spec_(spec) {
  check_sweep_spec(spec_);
  if (spec_.base.pass != sim::Pass::fwd)
    throw sim::InvalidInput("sweep: the two-fidelity sweep covers the forward pass (its bound does)");
  for (const auto& v : expand_gpu_variants(spec_)) {
    labels_.push_back(v.label);
    gpus_.push_back(v.spec);
  }
  seqs_ = spec_.seqs.empty() ? std::vector<std::int64_t>{-1} : spec_.seqs;
  dims_ = spec_.head_dims.empty() ? std::vector<std::int64_t>{spec_.base.head_dim} : spec_.head_dims;
  limits_ = spec_.smem_limits.empty() ? std::vector<std::int64_t>{0} : spec_.smem_limits;
  problems_ = static_cast<std::int64_t>(count_sweep_problems(spec_));
  per_problem_ = static_cast<std::int64_t>(count_points_per_problem(spec_));
  for (std::int64_t seq : seqs_)
    for (std::int64_t d : dims_) {
      sim::Workload w = spec_.base;
      if (seq > 0) w.seq_q = w.seq_kv = seq;
      w.head_dim = d;
      sim::validate(w);
    }
}

sim::Workload TwoFidelitySweep::problem_workload(std::int64_t p) const {
  const auto n_dims = static_cast<std::int64_t>(dims_.size()),
             n_seqs = static_cast<std::int64_t>(seqs_.size());
  const std::int64_t seq = seqs_[static_cast<std::size_t>(p / n_dims % n_seqs)];
  sim::Workload w = spec_.base;
  if (seq > 0) w.seq_q = w.seq_kv = seq;
  w.head_dim = dims_[static_cast<std::size_t>(p % n_dims)];
  return w;
}

ProblemResult TwoFidelitySweep::run_problem(std::int64_t p) const {
  // Problems: GPU variant slowest, then sequence length, then head dim.
  const auto variant = static_cast<std::size_t>(p / static_cast<std::int64_t>(seqs_.size() * dims_.size()));
  const sim::Workload w = problem_workload(p);

  SweepPoint base;
  base.workload = w;
  base.gpu_spec = labels_[variant];
  base.tiles.order = spec_.order;
  sim::SimOptions options;
  options.record_tiles = false;

  ProblemResult out;
  std::int64_t index = p * per_problem_;
  if (spec_.naive_baseline) {
    SweepPoint naive = base;
    naive.index = index++;
    naive.kind = sim::KernelKind::naive;
    naive.smem_limit = gpus_[variant].smem_per_block;
    try {
      detail::set_modeled_metrics(
          naive, sim::simulate(gpus_[variant], w, sim::KernelKind::naive, naive.tiles, options));
    } catch (const sim::InvalidInput& e) {
      naive.feasible = false;
      naive.infeasible_reason = e.what();
    }
    out.points.push_back(std::move(naive));
  }
  if (!spec_.tiled) return out;

  // Price every point with the bound; points that cannot run are counted out here.
  std::vector<sim::GpuSpec> limit_gpus;
  for (std::int64_t limit : limits_) limit_gpus.push_back(with_smem_limit(gpus_[variant], limit));
  std::vector<Entry> entries;
  entries.reserve(static_cast<std::size_t>(per_problem_));
  std::map<std::tuple<std::int64_t, int, int, int, int>, std::size_t> groups;  // (smem per SM, tile) -> group
  for (std::size_t l = 0; l < limits_.size(); ++l) {
    const sim::GpuSpec& gpu = limit_gpus[l];
    for (int br : spec_.brs)
      for (int bc : spec_.bcs)
        for (int warps : spec_.warps.empty() ? std::vector<int>{default_sweep_warps(br)} : spec_.warps)
          for (int stages : spec_.stages) {
            Entry e;
            e.index = index++;
            e.tiles = base.tiles;
            e.tiles.br = br;
            e.tiles.bc = bc;
            e.tiles.warps = warps;
            e.tiles.stages = stages;
            e.smem_limit = gpu.smem_per_block;
            e.limit_slot = l;
            try {
              if (sim::smem_bytes_per_cta(w, sim::KernelKind::tiled, e.tiles) > gpu.smem_per_block) continue;
              e.bound = sim::tiled_forward_bound(gpu, w, e.tiles);
            } catch (const sim::InvalidInput&) {
              continue;  // a tiling the kernel does not have (e.g. Br not a multiple of 16 x warps)
            }
            e.group = groups.emplace(std::make_tuple(gpu.smem_per_sm, br, bc, warps, stages), groups.size())
                          .first->second;
            entries.push_back(e);
          }
  }

  // Select and model: each group is simulated at most once.
  std::vector<BoundedCandidate> candidates;
  candidates.reserve(entries.size());
  for (const Entry& e : entries)
    candidates.push_back({e.bound.time_s, e.bound.hbm_read_min + e.bound.hbm_write_min,
                          static_cast<double>(e.bound.smem_per_cta), e.index});
  std::vector<std::optional<sim::SimResult>> results(groups.size());
  std::vector<std::string> errors(groups.size());
  std::vector<bool> simulated(groups.size(), false);
  const auto model = [&](std::size_t i) -> std::optional<ModeledRank> {
    const Entry& e = entries[i];
    if (!simulated[e.group]) {
      simulated[e.group] = true;
      try {
        results[e.group] =
            sim::simulate(limit_gpus[e.limit_slot], w, sim::KernelKind::tiled, e.tiles, options);
      } catch (const sim::InvalidInput& ex) {
        errors[e.group] = ex.what();
      }
    }
    const auto& r = results[e.group];
    if (!r) return std::nullopt;
    return ModeledRank{r->time_s, static_cast<double>(r->totals.hbm_read + r->totals.hbm_write)};
  };
  std::vector<std::size_t> chosen = model_top_k(candidates, spec_.top_k, model);
  for (std::size_t i : bound_pareto_front(candidates)) {
    model(i);
    chosen.push_back(i);
  }
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());

  for (std::size_t i : chosen) {
    const Entry& e = entries[i];
    SweepPoint pt = base;
    pt.index = e.index;
    pt.kind = sim::KernelKind::tiled;
    pt.tiles = e.tiles;
    pt.smem_limit = e.smem_limit;
    pt.bound = PointBound{e.bound.time_s, e.bound.hbm_read_min, e.bound.hbm_write_min,
                          std::string(sim::to_string(e.bound.limiter))};
    if (const auto& r = results[e.group]) {
      detail::set_modeled_metrics(pt, *r);
    } else {
      pt.feasible = false;
      pt.infeasible_reason = errors[e.group];
      pt.metrics[Metric::smem_per_cta].modeled = static_cast<double>(e.bound.smem_per_cta);
    }
    out.points.push_back(std::move(pt));
  }
  std::sort(out.points.begin(), out.points.end(),
            [](const SweepPoint& a, const SweepPoint& b) { return a.index < b.index; });
  return out;
}

Report TwoFidelitySweep::make_report(std::vector<SweepPoint> points, const SweepRunOptions& options,
                                     const std::string& command_line) const {
  Report report;
  report.kind = "sweep";
  report.provenance = basic_provenance(command_line);
  report.provenance.gpu_name = gpus_.front().name;
  std::string names;
  for (const auto& n : spec_.gpus) names += (names.empty() ? "" : ",") + n;
  report.provenance.gpu_spec = names;
  report.workload = spec_.base;
  report.tiles.order = spec_.order;
  report.sweep_definition.text = spec_.definition_text();
  report.sweep_definition.total_points = problems_ * per_problem_;
  report.sweep_definition.shard_index = options.shard_index;
  report.sweep_definition.shard_count = options.shard_count;
  report.sweep_definition.fidelity = vocab::SweepFidelity::two;
  report.sweep_definition.problems = problems_;
  std::sort(points.begin(), points.end(),
            [](const SweepPoint& a, const SweepPoint& b) { return a.index < b.index; });
  report.sweep = std::move(points);
  return report;
}

Report run_two_fidelity_sweep(const SweepSpec& spec, const SweepRunOptions& options,
                              const std::string& command_line) {
  SweepWork work = make_sweep_work(spec, options, command_line);
  const std::size_t pending = work.pending.size();
  if (pending < work.units && options.resumed) options.resumed(work.units - pending, work.units);
  const auto per = static_cast<std::size_t>(count_points_per_problem(spec));
  const std::size_t total = work.units * per;
  std::size_t done = (work.units - pending) * per;
  if (options.progress) options.progress(done, total);
  std::vector<std::vector<SweepPoint>> results = std::move(work.finished);

  std::atomic<std::size_t> next{0};
  std::mutex mutex;  // the checkpoint, `done`, `failure` and the progress callback
  std::exception_ptr failure;
  const auto worker = [&] {
    for (;;) {
      const std::size_t t = next.fetch_add(1);
      if (t >= pending) return;
      const std::size_t u = work.pending[t];
      try {
        std::vector<SweepPoint> points = work.run(u);
        std::lock_guard lock(mutex);
        work.journal(u, points);
        results[u] = std::move(points);
        done += per;
        if (options.progress) options.progress(done, total);
      } catch (...) {  // e.g. the checkpoint's disk is full: stop handing out work, report it after the join
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        next = pending;
        return;
      }
    }
  };
  unsigned threads = options.threads > 0 ? static_cast<unsigned>(options.threads)
                                         : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(pending, 1)));
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
  }
  if (failure) std::rethrow_exception(failure);
  return work.assemble(std::move(results));
}

}  // namespace attnscope::reports
