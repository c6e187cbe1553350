// SPDX-License-Identifier: Apache-2.0
#include "snapshot.hpp"

#include <algorithm>

#include "driver_call.hpp"

namespace attnscope::profiler::inject {

std::vector<Allocation> allocations_of(const std::vector<std::uint64_t>& words) {
  std::vector<Allocation> out;
  for (const std::uint64_t w : words) {
    CUdeviceptr base = 0;
    std::size_t bytes = 0;
    // Any failure means the word is not an address in device memory of this context (an integer, a host
    // pointer, a flag): not something to save.
    if (cuMemGetAddressRange(&base, &bytes, static_cast<CUdeviceptr>(w)) != CUDA_SUCCESS || bytes == 0)
      continue;
    const bool known =
        std::any_of(out.begin(), out.end(), [base](const Allocation& a) { return a.base == base; });
    if (!known) out.push_back({base, bytes});
  }
  return out;
}

std::size_t total_bytes(const std::vector<Allocation>& allocations) {
  std::size_t sum = 0;
  for (const auto& a : allocations) sum += a.bytes;
  return sum;
}

Snapshot::~Snapshot() {
  if (copy_ != 0) cuMemFree(copy_);  // nothing useful to do about a failure while tearing down
}

void Snapshot::save(const std::vector<Allocation>& allocations, CUstream stream) {
  allocations_ = allocations;
  const std::size_t bytes = total_bytes(allocations_);
  if (bytes == 0) return;
  ATTNSCOPE_CU(cuMemAlloc(&copy_, bytes));
  std::size_t at = 0;
  for (const auto& a : allocations_) {
    ATTNSCOPE_CU(cuMemcpyAsync(copy_ + at, a.base, a.bytes, stream));
    at += a.bytes;
  }
}

void Snapshot::restore(CUstream stream) const {
  std::size_t at = 0;
  for (const auto& a : allocations_) {
    ATTNSCOPE_CU(cuMemcpyAsync(a.base, copy_ + at, a.bytes, stream));
    at += a.bytes;
  }
}

}  // namespace attnscope::profiler::inject
