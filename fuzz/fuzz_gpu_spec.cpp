// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the GPU spec reader. Rejection must be sim::InvalidInput; an accepted spec must give an
// occupancy and a feasibility answer for a small workload without overflow or an unbounded allocation.
#include <cstdint>
#include <string_view>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/sim/workload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnscope::sim;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  GpuSpec gpu;
  try {
    gpu = parse_gpu_spec(text, "fuzz.json");
  } catch (const InvalidInput&) {
    return 0;
  }
  Workload w = preset("llm-4k");
  w.heads = 1;
  w.seq_q = w.seq_kv = 128;
  for (const KernelKind kind : {KernelKind::naive, KernelKind::tiled}) {
    try {
      check_config(gpu, w, kind, TileConfig{});
    } catch (const InvalidInput&) {
    }
  }
  return 0;
}
