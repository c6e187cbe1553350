// SPDX-License-Identifier: Apache-2.0
// Measurement matrices: the fixed lists of workloads `attnscope profile --matrix NAME` measures in one
// process (one CUDA context, CUPTI configured once), writing one report per point.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/workload.hpp"
#include "attnscope/vocab/tile_config.hpp"

namespace attnscope::profiler {

struct MatrixPoint {
  std::string label;  // file-name safe, unique within the matrix
  sim::Workload workload;
  sim::KernelKind kind = sim::KernelKind::tiled;
  sim::TileConfig tiles;
};

// "accuracy" (the 192-point matrix the accuracy table uses; its earlier name "issue8", which the committed
// recordings' command lines carry, is accepted too): naive and tiled; sequence 512 .. 16k; head dim 64 and
// 128; tiles Br128/Bc64, Br64/Bc64, Br128/Bc128 (tiled); causal and not; fp16 and bf16; batch x heads = 2^19
// / seq rows so every point has the same number of query rows (the card stays full). Ordered so the most used
// shapes come first (seq 4k, 1k, 16k, 512, 2k, 8k), so a run cut short by a deadline still covers the middle
// of the range. "quick": a handful of small points of the same kind, to check the pipeline end to end.
// "fresh" (seed = today's UTC date, e.g. 20261203) or "fresh:SEED": fresh_matrix(seed, kFreshPoints).
// "backward": the backward pass on the accuracy matrix's shapes (sequence, head dim, dtype, causal), the
// tiled backward at its head dim's default tile at every point, the naive backward where its two [N x N]
// matrices of 2^19 query rows stay within 4 GiB each (up to 4k tokens): 80 points. Throws sim::InvalidInput
// for another name.
std::vector<MatrixPoint> measurement_matrix(std::string_view name);
// The name with its seed: "fresh" becomes "fresh:<today's UTC date>" (and "fresh-bwd" "fresh-bwd:<date>");
// other names are returned as given.
std::string resolved_matrix_name(std::string_view name);

// What `attnscope profile --matrix` prints: one line per point, "[i/n] LABEL dram_read X MB time Y ms" (the
// point's reports' measured DRAM read and time, summed over its kernels), and last "matrix NAME: ...".
struct MatrixLogPoint {
  std::string label;
  double dram_read_bytes = 0;
  double time_s = 0;
};
struct MatrixLog {
  std::string matrix;  // with its seed ("fresh:20261205"); "" when the log has no last line
  std::vector<MatrixLogPoint> points;
};
// Reads a log. A log that names a bare "fresh" (written before the seed was printed) takes the seed from the
// UTC stamp of the run's output folder on that line (".../fresh-20261205T053441Z": 20261205). Throws
// sim::InvalidInput when the file cannot be read or has no point line.
MatrixLog read_matrix_log(const std::filesystem::path& path);
// The points of `log` in its matrix, in the log's order; throws sim::InvalidInput when the log names no
// matrix or one of its labels is not a point of it.
std::vector<std::pair<MatrixPoint, MatrixLogPoint>> matrix_log_points(const MatrixLog& log);

// Shapes nobody fitted a constant on, drawn from a seed: each point's kernel (naive 1/4, tiled 1/2 with one
// of matrix_tile_configs(), Hopper 1/4 with matrix_hopper_config() of its head dim), head dim 64 or 128, fp16
// or bf16, causal or not, query and key lengths log-uniform in 256 .. 16384 (equal half of the time), 2^17 ..
// 2^19 query rows over 1 .. 32 heads and the batch. Naive points whose S would pass 4 GiB become tiled ones.
// The same seed gives the same points everywhere (SplitMix64, no std distributions).
inline constexpr int kFreshPoints = 24;
std::vector<MatrixPoint> fresh_matrix(std::uint64_t seed, int count);
// "fresh-bwd" (seed = today's UTC date) or "fresh-bwd:SEED": the backward pass on fresh shapes, drawn as
// fresh_matrix's (lengths, head dim, dtype, query rows), with the backward's kernel (naive 1/3 where its two
// [Nq x Nkv] matrices stay within 4 GiB each, tiled 2/3) and masks (causal 1/2; a sliding window on a third
// of the causal points; ALiBi 1/4), the general-mask kernels' tiles where a window or ALiBi is drawn.
std::vector<MatrixPoint> fresh_backward_matrix(std::uint64_t seed, int count);
std::vector<std::string> matrix_names();

// The three tile configurations the matrices use, warps = Br / 16.
std::vector<sim::TileConfig> matrix_tile_configs();
// The Hopper tile of the fresh matrix's Hopper points: fixed, not the kernel's default of the day, because a
// point's label names no Hopper tile and the logs of earlier runs are joined with the model again from their
// labels. It is the default the matrix was first measured with (d 64: Br 128, Bc 128, 2 consumers, 3 stages,
// overlap + ping-pong; d 128: serial at 2 stages); `scripts/gpu_hopper_profile.sh` measures the defaults.
vocab::HopperConfig matrix_hopper_config(int head_dim);

}  // namespace attnscope::profiler
