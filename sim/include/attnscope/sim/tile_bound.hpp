// SPDX-License-Identifier: Apache-2.0
// A closed-form lower bound on what the cycle-approximate model (simulate()) predicts for the tiled forward
// kernel: no event loop, no cache, a handful of sums over the q tiles, so a sweep can price a million tile
// configurations in seconds and run the model only on the ones that can still win.
//
//   sim::TileBound b = sim::tiled_forward_bound(gpu, workload, tiles);   // throws InvalidInput if it can't
//   run b.time_s <= simulate(gpu, workload, KernelKind::tiled, tiles).time_s  // by construction (see below)
//
// Every floor is a resource of the timing model (kernel_engine.cpp) that the kernel's work must pass through,
// divided by that resource's rate, so the model's time cannot be below any of them:
//   tensor    the SM's tensor server: MMA FLOPs plus the warps' per-step issue overhead;
//   serial    one CTA slot runs its CTAs one after another, each a chain of per-warp step times (MMA on one
//             sub-partition, then softmax, then overhead) after its first load's latency and before its last
//             store's; with one stage every step waits for its own loads;
//   smem, sfu, fp32  the SM's shared-memory, exponential and FP32 servers;
//   l2        the requests (every byte the CTAs load and store, exact: the tile-reuse law below) through the
//             L2 partitions and each SM's L2 port;
//   hbm       the compulsory reads (Q, K and V once each: the model starts with a cold L2) at the achievable
//             HBM bandwidth.
// The bound is the largest floor plus the GPU's launch cost, which the model adds to every kernel.
// Work is whole CTAs: the busiest SM holds at least ceil(CTAs / SMs) of them (pigeonhole) and the busiest
// slot ceil(CTAs / slots), so the floors use the larger of that count times the lightest CTA and the average.
//
// The tile-reuse law: the SMs read Q once and K, V once per q tile, B H (Nq d + ceil(Nq/Br) 2 Nkv d) elements
// (about half the K/V term when causal). With Br at most M / d for shared memory M per CTA this is the
// Theta(N^2 d^2 / M) traffic of any exact attention; here it is exact for the model (l2_read).
#pragma once
#include <cstdint>
#include <string_view>

#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"

namespace attnscope::sim {

// The floors of TileBound::time_s, in the order they are listed above.
enum class BoundFloor : std::uint8_t { tensor, serial, smem, sfu, fp32, l2, hbm };
std::string_view to_string(BoundFloor f);

struct TileBound {
  double time_s = 0;                        // max of the floors: a lower bound on simulate()'s time
  BoundFloor limiter = BoundFloor::tensor;  // the floor that set it
  double flops = 0;                         // tensor FLOPs, exact (what simulate() counts)
  double hbm_read_min = 0;                  // bytes: Q, K, V once (a lower bound on the model's HBM reads)
  double hbm_write_min = 0;                 // bytes: O and LSE beyond what L2 can hold dirty (a lower bound)
  double l2_read = 0, l2_write = 0;         // bytes requested by the SMs, exact
  double smem_read = 0, smem_write = 0;     // bytes, exact
  std::int64_t smem_per_cta = 0;
  int ctas_per_sm = 0;  // occupancy (estimated registers, as simulate() without a register count)
  std::int64_t ctas = 0;
};

// The bound for the tiled forward kernel of `w` (w.pass must be forward) with `tiles` on `gpu`. Throws
// InvalidInput, with simulate()'s message, where simulate() would refuse the configuration.
TileBound tiled_forward_bound(const GpuSpec& gpu, const Workload& w, const TileConfig& tiles);

}  // namespace attnscope::sim
