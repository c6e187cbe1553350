// SPDX-License-Identifier: Apache-2.0
// What each kernel accepts and what one of its CTAs costs in on-chip resources, without a GPU in hand. The
// formulas the real kernels are built with (shared memory, launch bounds) are the shared vocabulary's
// (attnscope/vocab/geometry.hpp); what is here is the model's: which tilings it can price, and its register
// estimate.
#pragma once
#include <cstdint>

#include "attnscope/sim/dataflow.hpp"

namespace attnscope::sim {

// Throws InvalidInput naming the field when `tiles` cannot run `w` on kernel `k` (shape, head dim, dtype,
// tile sizes, warps, stages). GPU limits (shared memory, occupancy) are checked by check_config.
void validate_tiling(KernelId k, const Workload& w, const TileConfig& tiles);

// Bytes of the CTA's shared memory (vocab::tiled_smem_bytes, naive_qk_smem_bytes, naive_softmax_smem_bytes,
// naive_pv_smem_bytes): tiled (Br + 2*stages*Bc)*d*e; naive.qk (bm*d + qk_stages*bn*bk + bm*bn)*e;
// naive.softmax rows_per_cta rows of round_up(Nkv, 8) elements when Nkv <= 8192 keys (longer rows are read
// twice, without shared memory), else 0; naive.pv gemm_stages*(bm*bk + bk*d)*e.
std::int64_t smem_bytes_per_cta(KernelId k, const Workload& w, const TileConfig& tiles);

// Registers per thread the kernel is expected to need (accumulators and fragments held per thread plus a
// fixed overhead), capped by the kernel's __launch_bounds__ (vocab) and at 255. An estimate for occupancy:
// SimOptions can carry the compiled kernel's number.
int estimate_registers_per_thread(KernelId k, const Workload& w, const TileConfig& tiles);

}  // namespace attnscope::sim
