// SPDX-License-Identifier: Apache-2.0
// Turning the model's results into report entries (modeled side only). The profiler fills the measured
// side of the same entries; a `simulate` report has modeled values alone.
#pragma once
#include "attnscope/reports/report.hpp"
#include "attnscope/sim/result.hpp"

namespace attnscope::reports {

// Kernel totals and per-tile records of one modeled kernel, metric keys as in report.hpp.
KernelEntry modeled_kernel_entry(const sim::KernelResult& kernel, const sim::GpuSpec& gpu);
// A whole "simulate" report: provenance (tool version, git revision, date, command), workload, tiles,
// kernels.
Report report_from_simulation(const sim::SimResult& result, const std::string& command_line);
// Fill provenance fields that do not depend on a GPU (version, git revision, UTC date, host, command).
Provenance basic_provenance(const std::string& command_line);

}  // namespace attnscope::reports
