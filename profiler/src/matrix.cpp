// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/matrix.hpp"

#include <fmt/format.h>

#include "attnscope/sim/error.hpp"

namespace attnscope::profiler {

namespace {

// Query rows per point across all (batch, head): 32 heads x 16k rows. At seq 512 that is 1024 (batch x
// heads), enough CTAs for many waves on 132 SMs; at 16k it is 32, still 4096 CTAs of 128 rows.
constexpr std::int64_t kRowsPerPoint = std::int64_t{1} << 19;
constexpr std::int64_t kHeads = 16;

sim::Workload matrix_workload(std::int64_t seq, std::int64_t d, sim::DType dtype, bool causal) {
  sim::Workload w;
  w.heads = kHeads;
  w.batch = std::max<std::int64_t>(1, kRowsPerPoint / (seq * kHeads));
  w.seq_q = w.seq_kv = seq;
  w.head_dim = d;
  w.dtype = dtype;
  w.causal = causal;
  w.name = fmt::format("n{}-d{}-{}{}", seq, d, sim::to_string(dtype), causal ? "-causal" : "");
  return w;
}

std::vector<MatrixPoint> build(const std::vector<std::int64_t>& seqs, const std::vector<std::int64_t>& dims,
                               const std::vector<sim::DType>& dtypes, const std::vector<bool>& causals,
                               const std::vector<sim::TileConfig>& tiles) {
  std::vector<MatrixPoint> out;
  for (auto seq : seqs)
    for (auto d : dims)
      for (bool causal : causals)
        for (auto dtype : dtypes) {
          const sim::Workload w = matrix_workload(seq, d, dtype, causal);
          MatrixPoint naive{w.name + "-naive", w, sim::KernelKind::naive, sim::TileConfig{}};
          out.push_back(naive);
          for (sim::TileConfig t : tiles) {
            // Br128/Bc128 with 4 warps is not compiled at d=128 (registers): use its 8-warp twin there.
            if (d == 128 && t.br == 128 && t.bc == 128 && t.warps == 4) t.warps = 8;
            MatrixPoint p{fmt::format("{}-tiled-br{}-bc{}-w{}", w.name, t.br, t.bc, t.warps), w,
                          sim::KernelKind::tiled, t};
            out.push_back(p);
          }
        }
  return out;
}

}  // namespace

std::vector<sim::TileConfig> matrix_tile_configs() {
  std::vector<sim::TileConfig> out;
  // The default (4 warps x 32 rows, fastest measured), a smaller q tile (4 warps x 16 rows), a wider kv tile.
  for (auto [br, bc] : {std::pair{128, 64}, std::pair{64, 64}, std::pair{128, 128}}) {
    sim::TileConfig t;
    t.br = br;
    t.bc = bc;
    t.warps = 4;
    t.stages = 2;
    out.push_back(t);
  }
  return out;
}

std::vector<std::string> matrix_names() {
  return {"accuracy", "quick"};
}

std::vector<MatrixPoint> measurement_matrix(std::string_view name) {
  using sim::DType;
  // "issue8" is the accuracy matrix's earlier name: the committed recordings' command lines use it.
  if (name == "accuracy" || name == "issue8")
    return build({4096, 1024, 16384, 512, 2048, 8192}, {64, 128}, {DType::fp16, DType::bf16}, {false, true},
                 matrix_tile_configs());
  if (name == "quick") return build({1024}, {64}, {DType::fp16}, {false, true}, {matrix_tile_configs()[0]});
  throw sim::InvalidInput("unknown measurement matrix '" + std::string(name) + "' (known: accuracy, quick)");
}

}  // namespace attnscope::profiler
