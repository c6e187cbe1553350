// SPDX-License-Identifier: Apache-2.0
// The model's entry point. A tour:
//
//   auto gpu = sim::load_gpu_spec("h200");
//   auto wl  = sim::preset("llm-4k");
//   sim::TileConfig tc;            // the compiled default: Br=128, Bc=64, 4 warps, 2 stages
//   sim::SimResult r = sim::simulate(gpu, wl, sim::KernelKind::tiled, tc, {});
//   r.totals.hbm_read;             // bytes predicted to come from HBM
//   r.kernels[0].tiles;            // per-tile records, summing to the totals
//   wl.pass = sim::Pass::both;     // a training step: forward, then backward (r.forward, r.backward)
//
// simulate() is thread-safe (no shared state) and deterministic. One simulation is one event loop on the
// calling thread (the CTAs of a kernel share the L2 and HBM, so they do not split); run it on a std::jthread
// or std::async to keep it beside a GPU run, and use run_sweep (sweep.hpp) to spread many over all cores.
#pragma once
#include <array>
#include <atomic>
#include <functional>
#include <optional>

#include "attnscope/sim/dataflow.hpp"
#include "attnscope/sim/result.hpp"
#include "attnscope/sim/tile_window.hpp"

namespace attnscope::sim {

enum class L2Start : std::uint8_t {
  cold,  // L2 flushed and clean before the first kernel (what the profiler's default --cache flush gives)
  warm,  // L2 holds what the previous run of the same kernels left (second of two back-to-back runs)
};

struct SimOptions {
  bool l2_reuse = true;  // false: every L2 request misses (the closed-form check)
  L2Start l2_start = L2Start::cold;
  bool record_tiles = true;      // keep per-tile records (sweeps switch this off)
  int threads = 0;               // threads for run_sweep when it is given these options; simulate() uses one
  TileWindow window;             // launch only these tiles (each kernel in its own tile units)
  std::optional<KernelId> only;  // simulate just this one of the kind's kernels (e.g. naive.softmax)
  // Registers per thread of each kernel (index = KernelId), e.g. the compiled kernel's numRegs; 0 = estimate.
  std::array<int, kKernelIdCount> registers_per_thread{};
  // Time attnscope's tiled backward phase by phase (KernelDataflow::MathModel::cta_phases), as its counters
  // showed. False for another program's kernel mapped onto that dataflow (FlashAttention-2's backward): its
  // shared-memory traffic and schedule are not the dataflow's, and it keeps the per-warp chains.
  bool cta_phases = true;
  // When given and set to true (from any thread), simulate() stops within about a millisecond and throws
  // sim::Cancelled: an interactive caller drops a run whose answer is no longer wanted.
  const std::atomic<bool>* cancel = nullptr;
  // Called before each kernel is modeled (index from 0, of `count`, a warm start's first pass included):
  // progress for long runs. A large naive workload takes the model minutes per kernel.
  std::function<void(const std::string& kernel, int index, int count)> on_kernel_start;
};

// Simulates the kernels of `kind` for w.pass (kernels_of: a training step runs the forward's kernels, then
// the backward's, in one L2), with per-kernel, per-pass (SimResult::forward, backward) and total results.
// Throws InvalidInput for a bad workload, a tile that does not fit shared memory, a head dim / dtype the
// kernel does not support, or a backward pass whose tensors do not fit the GPU's HBM (check_hbm_capacity).
SimResult simulate(const GpuSpec& gpu, const Workload& w, KernelKind kind, const TileConfig& tiles,
                   const SimOptions& options = {});

// Shared-memory bytes one CTA of `kind` needs with this tiling (what the kernel's SharedStorage holds).
std::int64_t smem_bytes_per_cta(const Workload& w, KernelKind kind, const TileConfig& tiles);

// Check a configuration without simulating: throws InvalidInput with the reason.
void check_config(const GpuSpec& gpu, const Workload& w, KernelKind kind, const TileConfig& tiles);

}  // namespace attnscope::sim
