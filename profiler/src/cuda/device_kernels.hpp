// SPDX-License-Identifier: Apache-2.0
// The profiler's own small kernels: fill inputs with random values, and put L2 in a known state.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace attnscope::profiler::cuda {

enum class ElementType { fp16, bf16, fp32 };

// Uniform values in [-1, 1) from a counter-based hash of (seed, index): fresh, reproducible, not zeros.
void fill_uniform(void* data, std::size_t count, ElementType type, std::uint64_t seed, cudaStream_t stream);

// Reads `bytes` of `buffer` (several times the L2 size) with ordinary cached loads and stores nothing: every
// L2 line ends up holding a clean line of the buffer, and every dirty line that was there has been written
// back to DRAM during this kernel (not during the next one).
void l2_flush_read(const void* buffer, std::size_t bytes, cudaStream_t stream);

// Invalidates the 128-byte L2 lines of `buffer` without writing them back (PTX discard.global.L2). Run after
// l2_flush_read, whose lines are clean, it leaves L2 empty, as a driver-level flush and invalidate would.
void l2_discard(const void* buffer, std::size_t bytes, cudaStream_t stream);

}  // namespace attnscope::profiler::cuda
