// SPDX-License-Identifier: Apache-2.0
// The report of `attnscope profile [selection] -- COMMAND`: every selected launch of the other program, its
// measured counters joined with the model where the launch is a recognised attention kernel with an
// annotated shape (kernel_table.hpp, recognize.hpp, foreign_model.hpp), measured only otherwise with the
// reason ("not modeled: unknown kernel", "not modeled: no shape (...)", ...). The same joint format as
// `attnscope profile` on attnscope's own kernels (kind "profile"), one kernel entry per launch, named
// "<kernel>.<launch index>" (a gate on "<kernel>.<metric>" sums its launches); each entry keeps the program's
// kernel name, grid, block, registers, shared memory and the replay mode in its notes.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "attnscope/profiler/foreign.hpp"
#include "attnscope/profiler/measurement.hpp"
#include "attnscope/reports/report.hpp"
#include "attnscope/sim/gpu_spec.hpp"

namespace attnscope::profiler {

// Modeled on the built-in GPU spec of the measured device (gpu_spec_for_device); measured only when there
// is none.
reports::Report report_foreign_launches(const std::vector<ForeignLaunch>& launches, const DeviceInfo& device,
                                        const std::string& command_line);

// Modeled on `gpu` (nullopt: every launch measured only, with that reason).
reports::Report report_foreign_launches(const std::vector<ForeignLaunch>& launches, const DeviceInfo& device,
                                        const std::string& command_line,
                                        const std::optional<sim::GpuSpec>& gpu);

// The built-in spec (sim/gpus) of a measured device: the one whose name is the device's name, else the one
// whose short name is a word of it ("NVIDIA H200 NVL" -> h200); nullopt when none is.
std::optional<sim::GpuSpec> gpu_spec_for_device(const DeviceInfo& device);

}  // namespace attnscope::profiler
