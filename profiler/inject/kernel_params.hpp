// SPDX-License-Identifier: Apache-2.0
// Reading a launch's parameter values as the device will see them, to find the memory the kernel can touch:
// every 8-byte-aligned 64-bit word, from the caller's kernelParams array laid out by the function's
// parameter layout (cuFuncGetParamInfo), or from the packed buffer of the `extra` launch option. No driver
// calls: unit-tested on the CPU.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace attnscope::profiler::inject {

struct KernelParam {
  std::size_t offset = 0, size = 0;  // in the device-side parameter layout
};

// The non-zero words at 8-byte-aligned offsets of the device-side layout: candidates for device pointers (a
// pointer parameter, or a pointer field of a struct passed by value such as FlashAttention's params).
// `kernel_params` and `extra` as cuLaunchKernel takes them (extra: CU_LAUNCH_PARAM_BUFFER_POINTER /
// _SIZE pairs up to CU_LAUNCH_PARAM_END). Absent when the values cannot be read: kernel_params given
// without a layout, a null entry, or an `extra` option this reader does not know.
std::optional<std::vector<std::uint64_t>> parameter_words(
    void* const* kernel_params, void* const* extra, const std::optional<std::vector<KernelParam>>& layout);

}  // namespace attnscope::profiler::inject
