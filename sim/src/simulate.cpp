// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/simulate.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/l2_cache.hpp"
#include "attnscope/sim/memory_footprint.hpp"
#include "attnscope/sim/occupancy.hpp"
#include "attnscope/sim/tiling_rules.hpp"
#include "kernel_engine.hpp"

namespace attnscope::sim {

std::int64_t smem_bytes_per_cta(const Workload& w, KernelKind kind, const TileConfig& tiles) {
  std::int64_t most = 0;  // the naive kind: its largest kernel (naive.pv or naive.qk)
  for (KernelId k : kernels_of(kind, w.pass)) most = std::max(most, smem_bytes_per_cta(k, w, tiles));
  return most;
}

namespace {

// Shape, tiling and occupancy of every kernel of `kind`; `registers` overrides the estimate per kernel.
void check_kernels(const GpuSpec& gpu, const Workload& w, KernelKind kind, const TileConfig& tiles,
                   const std::array<int, kKernelIdCount>& registers) {
  if (!vocab::has_backward(kind) && w.pass != Pass::fwd)
    throw InvalidInput(std::string(to_string(kind)) +
                       ": the kernel has a forward pass only (--pass fwd), no " +
                       std::string(to_string(w.pass)) + " pass");
  for (KernelId k : kernels_of(kind, w.pass)) {
    const KernelDataflow flow(k, w, tiles);  // validates shape and tiling
    const int given = registers[static_cast<std::size_t>(k)];
    try {
      occupancy(gpu, flow.smem_per_cta(), flow.threads_per_cta(),
                given > 0 ? given : flow.estimated_registers_per_thread());
    } catch (const InvalidInput& e) {
      const std::string tile = tiles.label_of(k, w.head_dim);
      throw InvalidInput(std::string(to_string(k)) + " " + tile + ": " + e.what());
    }
  }
}

// The L2 model of this thread, reused by the next simulation of a GPU with the same L2 geometry (cleared,
// so every simulation still starts cold): allocating and first-touching its megabytes for each of a sweep's
// thousands of simulations cost more than clearing it.
L2Cache& thread_l2(const GpuSpec& gpu) {
  struct Geometry {
    std::int64_t bytes;
    int line, sector, ways, partitions;
    std::int64_t dirty_bytes;  // the dirty budget is the cache's too
    bool operator==(const Geometry&) const = default;
  };
  thread_local std::unique_ptr<L2Cache> cache;
  thread_local Geometry built{};
  const Geometry wanted{gpu.l2_bytes, gpu.l2_line_bytes, gpu.l2_sector_bytes,
                        gpu.l2_ways,  gpu.l2_partitions, gpu.l2_dirty_bytes};
  if (cache && built == wanted) {
    cache->clear();
  } else {
    cache = std::make_unique<L2Cache>(gpu);
    built = wanted;
  }
  return *cache;
}

}  // namespace

void check_config(const GpuSpec& gpu, const Workload& w, KernelKind kind, const TileConfig& tiles) {
  check_kernels(gpu, w, kind, tiles, {});
  // The backward pass's memory is checked: its naive kind holds two N x N matrices. (The forward's check
  // is left to the caller, so that the model can still price a forward shape past the GPU's memory.)
  if (w.pass != Pass::fwd) check_hbm_capacity(gpu, w, kind, tiles);
}

SimResult simulate(const GpuSpec& gpu, const Workload& w, KernelKind kind, const TileConfig& tiles,
                   const SimOptions& options) {
  for (int r : options.registers_per_thread)
    if (r < 0 || r > 255) throw InvalidInput("registers_per_thread must be in [0, 255] (0 = estimate)");
  check_kernels(gpu, w, kind, tiles, options.registers_per_thread);
  if (w.pass != Pass::fwd) check_hbm_capacity(gpu, w, kind, tiles);
  std::vector<KernelId> kernels = kernels_of(kind, w.pass);
  if (options.only) {
    if (std::find(kernels.begin(), kernels.end(), *options.only) == kernels.end())
      throw InvalidInput("kernel " + std::string(to_string(*options.only)) + " is not part of the " +
                         std::string(to_string(kind)) + " kind's " + std::string(to_string(w.pass)) +
                         " pass");
    kernels = {*options.only};
  }
  L2Cache& l2 = thread_l2(gpu);
  const AddressMap map(w, vocab::tiled_bwd_padded_rows(tiles.tiled_bwd(w.head_dim), w.seq_q));
  if (map.end() / static_cast<std::uint64_t>(gpu.l2_line_bytes) / l2.sets() >= L2Cache::kMaxBlocks)
    throw InvalidInput("workload: tensors too large for the model's address space (23-bit L2 tags)");

  SimResult result;
  result.gpu = gpu;
  result.workload = w;
  result.tiles = tiles;
  result.kind = kind;
  // A warm start runs the same kernels once first and keeps only what they leave in L2.
  const int passes = options.l2_start == L2Start::warm ? 2 : 1;
  const int launches = passes * static_cast<int>(kernels.size());
  int launch = 0;
  for (int pass = 0; pass < passes; ++pass) {
    const bool kept = pass == passes - 1;
    for (KernelId k : kernels) {
      if (options.on_kernel_start) options.on_kernel_start(std::string(to_string(k)), launch, launches);
      ++launch;
      const KernelDataflow flow(k, w, tiles, options.window);
      detail::EngineOptions eo;
      eo.l2_reuse = options.l2_reuse;
      eo.record_tiles = options.record_tiles && kept;
      eo.registers_per_thread = options.registers_per_thread[static_cast<std::size_t>(k)];
      eo.cancel = options.cancel;
      eo.cta_phases = options.cta_phases;
      KernelResult kr = detail::run_kernel(gpu, flow, l2, eo);
      if (kept) result.kernels.push_back(std::move(kr));
    }
  }
  for (const KernelResult& k : result.kernels) {
    result.totals += k.totals;
    result.flops += k.flops;
    result.time_s += k.time_s;
    if (const auto id = parse_kernel_id(k.name)) {
      PassTotals& p = pass_of(*id) == Pass::fwd ? result.forward : result.backward;
      p.bytes += k.totals;
      p.flops += k.flops;
      p.time_s += k.time_s;
      ++p.kernels;
    }
  }
  return result;
}

}  // namespace attnscope::sim
