// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/memory_footprint.hpp"

#include <fmt/format.h>

#include <limits>

#include "attnscope/sim/error.hpp"
#include "attnscope/vocab/backward.hpp"

namespace attnscope::sim {

namespace {
std::int64_t saturate(double bytes) {
  constexpr auto kMax = static_cast<double>(std::numeric_limits<std::int64_t>::max() / 2);
  return bytes >= kMax ? static_cast<std::int64_t>(kMax) : static_cast<std::int64_t>(bytes);
}
}  // namespace

MemoryFootprint memory_footprint(const Workload& w, KernelKind kind, const TileConfig& tiles) {
  const double e = bytes_of(w.dtype);
  const double bh = static_cast<double>(w.batch) * static_cast<double>(w.heads);
  const double nq = static_cast<double>(w.seq_q), nkv = static_cast<double>(w.seq_kv);
  const double d = static_cast<double>(w.head_dim);
  const bool backward = w.pass != Pass::fwd;
  // Q and O (+ dO, dQ) of Nq rows, K and V (+ dK, dV) of Nkv rows, and LSE.
  const double rows = backward ? 4.0 * (nq + nkv) : 2.0 * (nq + nkv);
  MemoryFootprint f;
  f.tensors = saturate(bh * rows * d * e + bh * nq * 4.0);
  const double matrix = bh * nq * nkv * e;  // one [B, H, Nq, Nkv] matrix
  if (kind == KernelKind::naive) {
    f.scratch = saturate(backward ? 2.0 * matrix : matrix);  // == vocab::naive_bwd_scratch_bytes backward
  } else if (backward) {
    f.scratch =
        vocab::tiled_bwd_workspace(tiles.tiled_bwd(w.head_dim), w.batch, w.heads, w.seq_q, w.head_dim).bytes;
  }
  return f;
}

void check_hbm_capacity(const GpuSpec& gpu, const Workload& w, KernelKind kind, const TileConfig& tiles) {
  if (gpu.hbm_capacity_bytes <= 0) return;
  const MemoryFootprint f = memory_footprint(w, kind, tiles);
  if (f.total() <= gpu.hbm_capacity_bytes) return;
  const auto gb = [](std::int64_t b) { return fmt::format("{:.1f} GB", static_cast<double>(b) * 1e-9); };
  const char* step = w.pass == Pass::fwd   ? "forward pass"
                     : w.pass == Pass::bwd ? "backward pass"
                                           : "training step";
  const char* scratch = kind != KernelKind::naive ? "fp32 workspace"
                        : w.pass == Pass::fwd     ? "the S = P matrix [B, H, Nq, Nkv]"
                                                  : "the P and dP = dS matrices [B, H, Nq, Nkv]";
  throw InvalidInput(fmt::format(
      "{} attention does not fit in HBM: a {} at this shape needs {} ({} of tensors + {} of {}) but {} has "
      "{} of HBM",
      to_string(kind), step, gb(f.total()), gb(f.tensors), gb(f.scratch), scratch, gpu.name,
      gb(gpu.hbm_capacity_bytes)));
}

}  // namespace attnscope::sim
