// SPDX-License-Identifier: Apache-2.0
// The report of `attnscope profile [selection] -- COMMAND`: every launch the collector measured in the other
// program, one kernel entry each, named "<kernel>.<launch index>" (e.g. "flash_fwd_kernel.12") so repeated
// launches of one kernel stay apart (and a gate on "<kernel>.<metric>" sums them), in launch order, in the
// joint format of `attnscope profile` (kind "profile").
//
// This is the one place the measured launches meet the model, and the seam between the collector and the
// recognition of known attention kernels. The body in foreign_report.cpp is the collector's minimal one:
// every launch measured only (counters, derived metrics, CUDA-event time; name, grid, block, registers,
// shared memory, NVTX ranges and replay mode as notes), with the model note "not modeled: unknown kernel".
// The recognition (kernel table, shape annotation, model) replaces the body, keeping this signature.
#pragma once
#include <string>
#include <vector>

#include "attnscope/profiler/foreign.hpp"
#include "attnscope/profiler/measurement.hpp"
#include "attnscope/reports/report.hpp"

namespace attnscope::profiler {

// `launches`: the measured launches in launch order; a launch's `shape` is empty when the collector did not
// parse its annotation, whose raw text is then the innermost "attnscope:" entry of `nvtx_ranges`. `device`:
// the GPU they ran on. `command_line`: the attnscope command as typed, for the provenance.
reports::Report report_foreign_launches(const std::vector<ForeignLaunch>& launches, const DeviceInfo& device,
                                        const std::string& command_line);

}  // namespace attnscope::profiler
