// SPDX-License-Identifier: Apache-2.0
// `attnscope profile --list-kernels -- COMMAND`: every distinct kernel a program launched, as a JSON document
// meant to be committed, so tests of the kernel recognition run on real names without a GPU.
#pragma once
#include <string>
#include <vector>

#include "attnscope/profiler/foreign_records.hpp"
#include "attnscope/profiler/measurement.hpp"

namespace attnscope::profiler {

// {"command": ..., "device": ..., "kernels": [{"function", "demangled", "mangled", "launches",
// "first_launch", "grid", "block", "registers_per_thread", "static_smem_bytes", "dynamic_smem_bytes", "local_bytes_per_thread",
// "nvtx_ranges"}]}, in the order of each kernel's first launch (grid, block and ranges of that launch);
// "function" is short_kernel_name (recognize.hpp).
std::string kernel_list_json(const std::vector<ForeignLaunchRecord>& launches, const DeviceInfo& device,
                             const std::string& command_line);

}  // namespace attnscope::profiler
