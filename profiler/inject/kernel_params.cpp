// SPDX-License-Identifier: Apache-2.0
#include "kernel_params.hpp"

#include <cuda.h>

#include <cstring>

namespace attnscope::profiler::inject {

namespace {

// Appends the non-zero 8-byte words of `bytes` that sit at 8-byte-aligned offsets of the device-side
// layout, the parameter starting at `device_offset`.
void scan(std::vector<std::uint64_t>& words, const unsigned char* bytes, std::size_t size,
          std::size_t device_offset) {
  for (std::size_t at = (8 - device_offset % 8) % 8; at + 8 <= size; at += 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, bytes + at, 8);
    if (w != 0) words.push_back(w);
  }
}

}  // namespace

std::optional<std::vector<std::uint64_t>> parameter_words(
    void* const* kernel_params, void* const* extra, const std::optional<std::vector<KernelParam>>& layout) {
  std::vector<std::uint64_t> words;
  if (kernel_params != nullptr) {
    if (!layout) return std::nullopt;
    for (std::size_t i = 0; i < layout->size(); ++i) {
      if (kernel_params[i] == nullptr) return std::nullopt;
      scan(words, static_cast<const unsigned char*>(kernel_params[i]), (*layout)[i].size,
           (*layout)[i].offset);
    }
    return words;
  }
  if (extra != nullptr) {
    const unsigned char* buffer = nullptr;
    std::size_t size = 0;
    bool size_given = false;
    for (void* const* e = extra; *e != CU_LAUNCH_PARAM_END; e += 2) {
      if (*e == CU_LAUNCH_PARAM_BUFFER_POINTER) {
        buffer = static_cast<const unsigned char*>(e[1]);
      } else if (*e == CU_LAUNCH_PARAM_BUFFER_SIZE) {
        if (e[1] == nullptr) return std::nullopt;
        size = *static_cast<const std::size_t*>(e[1]);
        size_given = true;
      } else {
        return std::nullopt;
      }
    }
    if (buffer == nullptr && size != 0) return std::nullopt;
    if (buffer != nullptr && !size_given) return std::nullopt;
    if (buffer != nullptr) scan(words, buffer, size, 0);
    return words;
  }
  return words;  // a kernel without parameters
}

}  // namespace attnscope::profiler::inject
