// SPDX-License-Identifier: Apache-2.0
// How much HBM a workload holds while its kernels run, and whether that fits the GPU: the naive kernels keep
// [B, H, Nq, Nkv] matrices in HBM (S = P forward; P and dP = dS backward), which outgrow any GPU long before
// the tiled kernels' O(N) tensors do.
#pragma once
#include <cstdint>

#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"

namespace attnscope::sim {

struct MemoryFootprint {
  std::int64_t tensors = 0;  // inputs and outputs: Q, K, V, O, LSE (+ dO, dQ, dK, dV with a backward pass)
  std::int64_t scratch = 0;  // naive: S (forward only) or P and dP/dS (vocab::naive_bwd_scratch_bytes);
                             // tiled backward: its fp32 workspace (vocab::tiled_bwd_workspace)
  std::int64_t total() const { return tensors + scratch; }
};

// The HBM `kind` holds for w.pass (a training step holds the most: the backward's tensors beside the
// forward's outputs). Counted in doubles and saturated, so that shapes past any GPU still compare.
MemoryFootprint memory_footprint(const Workload& w, KernelKind kind, const TileConfig& tiles);

// Throws InvalidInput stating the bytes needed against gpu.hbm_capacity_bytes when they do not fit (no-op
// when the spec gives no capacity).
void check_hbm_capacity(const GpuSpec& gpu, const Workload& w, KernelKind kind, const TileConfig& tiles);

}  // namespace attnscope::sim
