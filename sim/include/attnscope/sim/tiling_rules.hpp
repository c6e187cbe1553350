// SPDX-License-Identifier: Apache-2.0
// What each kernel accepts and what one of its CTAs costs in on-chip resources, without a GPU in hand.
#pragma once
#include <cstdint>

#include "attnscope/sim/dataflow.hpp"

namespace attnscope::sim {

// Longest softmax row (keys) the naive softmax keeps in registers; longer rows are read twice.
inline constexpr std::int64_t kSoftmaxRegisterRowLimit = 8192;

// Throws InvalidInput naming the field when `tiles` cannot run `w` on kernel `k` (shape, head dim, dtype,
// tile sizes, warps, stages). GPU limits (shared memory, occupancy) are checked by check_config.
void validate_tiling(KernelId k, const Workload& w, const TileConfig& tiles);

// Bytes of the CTA's SharedStorage: tiled (Br + 2*stages*Bc)*d*e; naive.qk (bm*d + qk_stages*bn*bk +
// bm*bn)*e; naive.pv gemm_stages*(bm*bk + bk*d)*e; naive.softmax 0.
std::int64_t smem_bytes_per_cta(KernelId k, const Workload& w, const TileConfig& tiles);

// Registers per thread the kernel is expected to need (accumulators and fragments held per thread plus a
// fixed overhead), capped at 255. An estimate for occupancy: SimOptions can carry the compiled kernel's
// number.
int estimate_registers_per_thread(KernelId k, const Workload& w, const TileConfig& tiles);

}  // namespace attnscope::sim
