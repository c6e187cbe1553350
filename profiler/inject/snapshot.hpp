// SPDX-License-Identifier: Apache-2.0
// The program's device memory a launch can touch, saved and restored around the collector's replays.
//
// Which memory: the allocations that the launch's parameter words point into (cuMemGetAddressRange on every
// 8-byte word of the parameter values). Not every allocation of the program: PyTorch's caching allocator
// holds segments far larger than one kernel's tensors, and expandable segments map memory through the
// virtual memory API that allocation callbacks would not all show; a kernel's own arguments are what an
// attention kernel reads and writes. What this misses: memory reached only through pointers stored in
// device memory, and module globals the kernel writes (both are rare in attention kernels; see
// docs/profile-other-programs.md).
#pragma once
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace attnscope::profiler::inject {

struct Allocation {
  CUdeviceptr base = 0;
  std::size_t bytes = 0;
};

// The distinct allocations that `words` point into (words that are not device addresses are skipped).
std::vector<Allocation> allocations_of(const std::vector<std::uint64_t>& words);
std::size_t total_bytes(const std::vector<Allocation>& allocations);

// A copy of some allocations' contents, in device memory of its own.
class Snapshot {
 public:
  Snapshot() = default;
  ~Snapshot();
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  // Allocates the copy and enqueues the copies on `stream` (the caller synchronizes).
  void save(const std::vector<Allocation>& allocations, CUstream stream);
  // Enqueues copies of the saved contents back into the allocations.
  void restore(CUstream stream) const;

 private:
  std::vector<Allocation> allocations_;
  CUdeviceptr copy_ = 0;
};

}  // namespace attnscope::profiler::inject
