// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/occupancy.hpp"

#include <algorithm>
#include <string>

#include "attnscope/sim/error.hpp"

namespace attnscope::sim {

Occupancy occupancy(const GpuSpec& gpu, std::int64_t smem_per_cta, int threads_per_cta,
                    int registers_per_thread) {
  if (smem_per_cta > gpu.smem_per_block)
    throw InvalidInput("tile needs " + std::to_string(smem_per_cta) + " bytes of shared memory per CTA but " +
                       gpu.name + " allows at most " + std::to_string(gpu.smem_per_block));
  if (threads_per_cta > 1024 || threads_per_cta > gpu.max_threads_per_sm)
    throw InvalidInput("CTA of " + std::to_string(threads_per_cta) +
                       " threads exceeds the 1024-thread limit");
  if (registers_per_thread < 1 || registers_per_thread > 255)
    throw InvalidInput("registers per thread must be in [1, 255], got " +
                       std::to_string(registers_per_thread));
  Occupancy o;
  o.ctas_per_sm = gpu.max_ctas_per_sm;
  o.limiter = "CTA slots";
  const auto tighten = [&o](std::int64_t n, std::string_view why) {
    if (n < o.ctas_per_sm) {
      o.ctas_per_sm = static_cast<int>(std::max<std::int64_t>(n, 0));
      o.limiter = why;
    }
  };
  tighten(gpu.max_threads_per_sm / threads_per_cta, "threads");
  const std::int64_t warps = (threads_per_cta + 31) / 32;
  const std::int64_t regs_per_warp = (std::int64_t{registers_per_thread} * 32 + 255) / 256 * 256;
  tighten(gpu.regs_per_sm / (regs_per_warp * warps), "registers");
  if (smem_per_cta > 0)
    tighten(gpu.smem_per_sm / (smem_per_cta + gpu.smem_reserved_per_cta), "shared memory");
  if (o.ctas_per_sm < 1)
    throw InvalidInput("not even one CTA fits on an SM of " + gpu.name + " (limited by " +
                       std::string(o.limiter) + ": " + std::to_string(smem_per_cta) + " B shared memory, " +
                       std::to_string(threads_per_cta) + " threads, " + std::to_string(registers_per_thread) +
                       " registers per thread)");
  return o;
}

}  // namespace attnscope::sim
