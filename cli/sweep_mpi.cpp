// SPDX-License-Identifier: Apache-2.0
#include "sweep_mpi.hpp"

#include <cstdlib>
#include <string>

#include "attnscope/sim/error.hpp"

#ifdef ATTNSCOPE_HAVE_MPI
#include <mpi.h>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace attnscope::cli {

int launched_ranks() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_NTASKS"}) {
    // SLURM_NTASKS is set in a whole job's environment, also for a plain `attnscope` in its batch script;
    // only srun's tasks have SLURM_PROCID too.
    if (std::string(name) == "SLURM_NTASKS" && std::getenv("SLURM_PROCID") == nullptr) continue;
    if (const char* v = std::getenv(name)) {
      const int n = std::atoi(v);
      if (n > 0) return n;
    }
  }
  return 0;
}

#ifndef ATTNSCOPE_HAVE_MPI

bool mpi_available() {
  return false;
}

std::optional<reports::Report> run_sweep_over_mpi(reports::SweepWork&, const reports::SweepRunOptions&,
                                                  std::size_t) {
  throw sim::InvalidInput(
      "this attnscope was built without MPI (configure with -DATTNSCOPE_ENABLE_MPI=ON); run one process per "
      "machine with --shard i/n and join the shards with `attnscope merge`");
}

#else

bool mpi_available() {
  return true;
}

namespace {

constexpr int kTagResult = 1;  // worker -> rank 0: "<unit>\t<points>" (empty: the first request)
constexpr int kTagAssign = 2;  // rank 0 -> worker: the unit to run next, -1 to stop

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  std::fprintf(stderr, "attnscope sweep: %s failed (MPI error %d)\n", what, rc);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

// Seconds spent inside work.run on this rank, and the units it ran (printed with
// ATTNSCOPE_SWEEP_RANK_STATS=1: how the parallel efficiency splits into per-point slowdown and idle ranks).
struct RankStats {
  double busy_s = 0;
  std::size_t units = 0;
};

std::vector<reports::SweepPoint> run_timed(reports::SweepWork& work, std::size_t unit, RankStats& stats) {
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<reports::SweepPoint> points = work.run(unit);
  stats.busy_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++stats.units;
  return points;
}

void print_stats(int rank, const RankStats& stats, std::chrono::steady_clock::time_point start) {
  if (std::getenv("ATTNSCOPE_SWEEP_RANK_STATS") == nullptr) return;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "attnscope sweep: rank %d ran %zu unit(s), busy %.3f s of %.3f s\n", rank, stats.units,
               stats.busy_s, wall);
}

// Each worker keeps two requests in flight: while it runs a unit, its next assignment is already on the way,
// so the time rank 0 takes to answer (it polls) never leaves a worker idle.
constexpr int kRequestsInFlight = 2;

// A worker rank: ask, run, send back, until told to stop. Rank 0 answers every message with one unit or -1;
// after the first -1 every answer is -1, and a worker receives exactly kRequestsInFlight of them.
void serve_units(reports::SweepWork& work, int rank) {
  const auto start = std::chrono::steady_clock::now();
  RankStats stats;
  const auto receive = [] {
    std::int64_t unit = -1;
    check(MPI_Recv(&unit, 1, MPI_INT64_T, 0, kTagAssign, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    return unit;
  };
  std::string message;  // empty: a request
  for (int i = 0; i < kRequestsInFlight; ++i)
    check(MPI_Send(message.data(), 0, MPI_CHAR, 0, kTagResult, MPI_COMM_WORLD), "MPI_Send");
  int awaited = kRequestsInFlight;
  for (;;) {
    const std::int64_t unit = receive();
    --awaited;
    if (unit < 0) {
      while (awaited-- > 0) receive();  // the other -1 answers
      print_stats(rank, stats, start);
      return;
    }
    try {
      message = std::to_string(unit) + "\t" +
                reports::encode_points(run_timed(work, static_cast<std::size_t>(unit), stats));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "attnscope sweep: unit %lld failed: %s\n", static_cast<long long>(unit), e.what());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    check(MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kTagResult, MPI_COMM_WORLD),
          "MPI_Send");
    ++awaited;
  }
}

}  // namespace

std::optional<reports::Report> run_sweep_over_mpi(reports::SweepWork& work,
                                                  const reports::SweepRunOptions& options,
                                                  std::size_t points_per_unit) {
  int provided = 0;
  // Only rank 0's main thread calls MPI; its second thread runs units without it.
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) {
    serve_units(work, rank);
    MPI_Finalize();
    return std::nullopt;
  }

  std::vector<std::vector<reports::SweepPoint> > results = std::move(work.finished);
  const std::size_t pending = work.pending.size();
  if (pending < work.units && options.resumed) options.resumed(work.units - pending, work.units);
  std::mutex mutex;  // next, done, results, the checkpoint and the progress callback
  std::size_t next = 0, done = (work.units - pending) * points_per_unit;
  const std::size_t total = work.units * points_per_unit;
  const auto finish = [&](std::size_t unit, std::vector<reports::SweepPoint> points) {
    std::lock_guard lock(mutex);
    work.journal(unit, points);
    results[unit] = std::move(points);
    done += points_per_unit;
    if (options.progress) options.progress(done, total);
  };
  const auto take = [&]() -> std::int64_t {
    std::lock_guard lock(mutex);
    return next < pending ? static_cast<std::int64_t>(work.pending[next++]) : -1;
  };
  std::exception_ptr failure;
  const auto start = std::chrono::steady_clock::now();
  RankStats local_stats;
  std::jthread local([&] {
    try {
      for (std::int64_t u = take(); u >= 0; u = take())
        finish(static_cast<std::size_t>(u), run_timed(work, static_cast<std::size_t>(u), local_stats));
    } catch (...) {
      failure = std::current_exception();
    }
  });
  // Hand out units until every worker rank has been told to stop. Polling with a short sleep leaves the
  // core to the local thread (a blocking receive spins on it in most MPI libraries).
  int stopped = 0;  // -1 answers sent: kRequestsInFlight per worker
  std::string buffer;
  while (stopped < kRequestsInFlight * (size - 1)) {
    int flag = 0;
    MPI_Status status;
    check(MPI_Iprobe(MPI_ANY_SOURCE, kTagResult, MPI_COMM_WORLD, &flag, &status), "MPI_Iprobe");
    if (!flag) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    buffer.resize(static_cast<std::size_t>(count));
    check(MPI_Recv(buffer.data(), count, MPI_CHAR, status.MPI_SOURCE, kTagResult, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE),
          "MPI_Recv");
    if (!buffer.empty()) {
      const auto tab = buffer.find('\t');
      std::size_t unit = 0;
      std::from_chars(buffer.data(), buffer.data() + tab, unit);
      finish(unit, reports::decode_points(std::string_view(buffer).substr(tab + 1)));
    }
    const std::int64_t assign = take();
    if (assign < 0) ++stopped;
    check(MPI_Send(&assign, 1, MPI_INT64_T, status.MPI_SOURCE, kTagAssign, MPI_COMM_WORLD), "MPI_Send");
  }
  local.join();
  print_stats(0, local_stats, start);
  MPI_Finalize();
  if (failure) std::rethrow_exception(failure);
  return work.assemble(std::move(results));
}

#endif

}  // namespace attnscope::cli
