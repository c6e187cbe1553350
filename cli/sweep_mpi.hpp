// SPDX-License-Identifier: Apache-2.0
// `mpirun -n N attnscope sweep ...` (or `srun`): the sweep's work units (reports/sweep_work.hpp: problems of
// a two-fidelity sweep, points of a cycle sweep) handed out one at a time to whichever rank asks next, so
// ranks that draw cheap units take more of them (units differ in cost by 100x and more). Rank 0 hands them
// out from its main thread, runs units itself on a second thread, journals the checkpoint, and writes the one
// report; it is the report a single process writes.
//
// Built only with -DATTNSCOPE_ENABLE_MPI=ON (OpenMPI or any MPI-3 library). Without it, launched_ranks()
// still tells the command that a launcher started several copies, so it can refuse instead of running the
// whole sweep N times into the same files.
#pragma once
#include <optional>

#include "attnscope/reports/report.hpp"
#include "attnscope/reports/sweep_runner.hpp"
#include "attnscope/reports/sweep_work.hpp"

namespace attnscope::cli {

// Ranks the MPI launcher started, from its environment (OpenMPI, MPICH/PMI, PMIx, Slurm's srun); 0 when
// this process was not started by one.
int launched_ranks();

// Whether this build can run a sweep over MPI.
bool mpi_available();

// Runs `work` over MPI_COMM_WORLD (initialising and finalising MPI). Returns the report on rank 0 and
// nullopt on the others, which print nothing. options.progress and options.resumed are called on rank 0.
// Throws sim::InvalidInput when the build has no MPI.
std::optional<reports::Report> run_sweep_over_mpi(reports::SweepWork& work,
                                                  const reports::SweepRunOptions& options,
                                                  std::size_t points_per_unit);

}  // namespace attnscope::cli
