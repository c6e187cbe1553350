// SPDX-License-Identifier: Apache-2.0
// Measurement matrices: the fixed lists of workloads `attnscope profile --matrix NAME` measures in one
// process (one CUDA context, CUPTI configured once), writing one report per point.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"

namespace attnscope::profiler {

struct MatrixPoint {
  std::string label;  // file-name safe, unique within the matrix
  sim::Workload workload;
  sim::KernelKind kind = sim::KernelKind::tiled;
  sim::TileConfig tiles;
};

// "accuracy" (the 192-point matrix the accuracy table uses; its earlier name "issue8", which the committed
// recordings' command lines carry, is accepted too): naive and tiled; sequence 512 .. 16k; head dim 64 and 128; tiles Br128/Bc64, Br64/Bc64,
// Br128/Bc128 (tiled); causal and not; fp16 and bf16; batch x heads = 2^19 / seq rows so every point has
// the same number of query rows (the card stays full). Ordered so the most used shapes come first (seq 4k,
// 1k, 16k, 512, 2k, 8k), so a run cut short by a deadline still covers the middle of the range.
// "quick": a handful of small points of the same kind, to check the pipeline end to end.
// Throws sim::InvalidInput for another name.
std::vector<MatrixPoint> measurement_matrix(std::string_view name);
std::vector<std::string> matrix_names();

// The three tile configurations the matrices use, warps = Br / 16.
std::vector<sim::TileConfig> matrix_tile_configs();

}  // namespace attnscope::profiler
