// SPDX-License-Identifier: Apache-2.0
// The measurement matrices: the fresh shapes are fixed by their seed alone, every point is one the model and
// the compiled kernels accept, and the draw covers what the validation needs (every kernel, both head dims,
// both dtypes, causal and not, unequal lengths).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "attnscope/profiler/accuracy.hpp"
#include "attnscope/profiler/matrix.hpp"
#include "attnscope/profiler/model_cache.hpp"
#include "attnscope/reports/from_sim.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/vocab/backward.hpp"
#include "attnscope/vocab/geometry.hpp"

namespace attnscope::profiler {
namespace {

TEST(FreshMatrix, TheSeedAloneFixesThePoints) {
  const auto a = fresh_matrix(20261203, kFreshPoints);
  const auto b = measurement_matrix("fresh:20261203");
  ASSERT_EQ(a.size(), static_cast<std::size_t>(kFreshPoints));
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].label, b[i].label);
  // Another seed, other shapes.
  const auto c = fresh_matrix(20261204, kFreshPoints);
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i].label == c[i].label ? 1 : 0;
  EXPECT_LT(same, a.size() / 4);
  // Today's matrix has the same size (its seed is the date).
  EXPECT_EQ(measurement_matrix("fresh").size(), a.size());
}

TEST(FreshMatrix, EveryPointIsAcceptedByTheModelAndCoversTheAxes) {
  const sim::GpuSpec gpu = sim::load_gpu_spec("h200");
  std::set<std::string> labels, kinds;
  std::set<std::int64_t> dims;
  bool causal = false, plain = false, fp16 = false, bf16 = false, unequal = false;
  for (std::uint64_t seed : {20261203u, 20261204u, 20261205u}) {
    for (const MatrixPoint& p : fresh_matrix(seed, kFreshPoints)) {
      EXPECT_NO_THROW(sim::check_config(gpu, p.workload, p.kind, p.tiles)) << p.label;
      // Outputs of at least 16 MiB: the accuracy targets for bytes apply.
      const double out_bytes = static_cast<double>(p.workload.batch * p.workload.heads * p.workload.seq_q *
                                                   p.workload.head_dim * 2);
      EXPECT_GE(out_bytes, 16.0 * (1 << 20) * 0.5) << p.label;  // rounding of the batch may halve it at most
      if (p.kind == sim::KernelKind::naive) {
        const double score_bytes = static_cast<double>(p.workload.batch * p.workload.heads) *
                                   static_cast<double>(p.workload.seq_q * p.workload.seq_kv) * 2.0;
        EXPECT_LE(score_bytes, 4.0 * (1u << 30)) << p.label;
      }
      if (seed == 20261203u) labels.insert(p.label);
      kinds.insert(std::string(sim::to_string(p.kind)));
      dims.insert(p.workload.head_dim);
      (p.workload.causal ? causal : plain) = true;
      (p.workload.dtype == sim::DType::fp16 ? fp16 : bf16) = true;
      unequal = unequal || p.workload.seq_q != p.workload.seq_kv;
    }
  }
  EXPECT_EQ(labels.size(), static_cast<std::size_t>(kFreshPoints)) << "labels name files: unique";
  EXPECT_EQ(kinds, (std::set<std::string>{"naive", "tiled", "hopper"}));
  EXPECT_EQ(dims, (std::set<std::int64_t>{64, 128}));
  EXPECT_TRUE(causal && plain && fp16 && bf16 && unequal);
}

TEST(FreshMatrix, ABadSeedIsRefused) {
  EXPECT_THROW(measurement_matrix("fresh:today"), sim::InvalidInput);
  EXPECT_THROW(measurement_matrix("fresh:"), sim::InvalidInput);
}

// The backward matrix: every point runs the backward pass only; the tiled backward at every shape of the
// accuracy matrix, the naive backward where its [N x N] matrices stay within 4 GiB; each point's model is
// the backward's kernels.
TEST(Matrix, BackwardMatrixCoversTheAccuracyShapesForTheBackwardPass) {
  const auto points = measurement_matrix("backward");
  int naive = 0, tiled = 0;
  std::set<std::string> labels;
  for (const MatrixPoint& p : points) {
    EXPECT_TRUE(labels.insert(p.label).second) << p.label << " twice";
    EXPECT_EQ(p.workload.pass, sim::Pass::bwd) << p.label;
    EXPECT_EQ(p.workload.seq_q * p.workload.batch * p.workload.heads, std::int64_t{1} << 19) << p.label;
    if (p.kind == sim::KernelKind::naive) {
      ++naive;
      EXPECT_LE(p.workload.seq_q, 4096) << p.label;
    } else {
      ++tiled;
      EXPECT_EQ(p.kind, sim::KernelKind::tiled) << p.label;
    }
    EXPECT_NO_THROW(sim::check_config(sim::load_gpu_spec("h200"), p.workload, p.kind, p.tiles)) << p.label;
  }
  // sequence x head dim x causal x dtype, plus a sliding window with ALiBi at 1k, 4k, 16k x head dim
  EXPECT_EQ(tiled, 6 * 2 * 2 * 2 + 3 * 2);
  EXPECT_EQ(naive, 4 * 2 * 2 * 2 + 2 * 2);  // 512, 1k, 2k, 4k; masked 1k and 4k
  EXPECT_EQ(points.size(), 90u);
  int masked = 0;
  for (const MatrixPoint& p : points) {
    if (!p.workload.general_mask()) continue;
    ++masked;
    EXPECT_EQ(p.workload.window, p.workload.seq_kv / 4) << p.label;
    EXPECT_TRUE(p.workload.alibi && p.workload.causal) << p.label;
    // The GPU kernels for these masks are compiled for one tile per pass.
    const vocab::TiledConfig f = vocab::general_mask_tiled_config(p.workload.head_dim);
    EXPECT_EQ(p.tiles.warps, f.warps) << p.label;
    EXPECT_EQ(p.tiles.bwd_br, vocab::general_mask_tiled_bwd_config().br) << p.label;
  }
  EXPECT_EQ(masked, 10);
}

// The backward's fresh shapes: the seed alone fixes them, and not to the forward's; every point runs the
// backward pass only, is one the model accepts, keeps the naive backward's matrices within 4 GiB, and the
// draws over a few seeds cover both kernels, both head dims and dtypes, causal and not, a sliding window,
// ALiBi with and without causal, and unequal lengths.
TEST(FreshMatrix, TheBackwardsFreshShapesCoverItsKernelsAndMasks) {
  const sim::GpuSpec gpu = sim::load_gpu_spec("h200");
  const auto a = fresh_backward_matrix(20261207, kFreshPoints);
  const auto b = measurement_matrix("fresh-bwd:20261207");
  ASSERT_EQ(a.size(), static_cast<std::size_t>(kFreshPoints));
  ASSERT_EQ(b.size(), a.size());
  const auto fwd = fresh_matrix(20261207, kFreshPoints);
  std::size_t same_shape = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].label, b[i].label);
    same_shape +=
        a[i].workload.seq_q == fwd[i].workload.seq_q && a[i].workload.heads == fwd[i].workload.heads;
  }
  EXPECT_LT(same_shape, a.size() / 4) << "the backward's draw is not the forward's";
  EXPECT_EQ(measurement_matrix("fresh-bwd").size(), a.size());
  EXPECT_EQ(resolved_matrix_name("fresh-bwd").rfind("fresh-bwd:", 0), 0u);
  EXPECT_THROW(measurement_matrix("fresh-bwd:x"), sim::InvalidInput);

  std::set<std::string> labels, kinds;
  std::set<std::int64_t> dims;
  bool causal = false, plain = false, fp16 = false, bf16 = false, unequal = false, window = false,
       alibi_causal = false, alibi_plain = false;
  for (std::uint64_t seed : {20261207u, 20261208u, 20261209u}) {
    for (const MatrixPoint& p : fresh_backward_matrix(seed, kFreshPoints)) {
      const sim::Workload& w = p.workload;
      EXPECT_EQ(w.pass, sim::Pass::bwd) << p.label;
      EXPECT_NO_THROW(sim::check_config(gpu, w, p.kind, p.tiles)) << p.label;
      EXPECT_TRUE(p.kind == sim::KernelKind::naive || p.kind == sim::KernelKind::tiled) << p.label;
      if (p.kind == sim::KernelKind::naive) {
        const double score_bytes =
            static_cast<double>(w.batch * w.heads) * static_cast<double>(w.seq_q * w.seq_kv) * 2.0;
        EXPECT_LE(score_bytes, 4.0 * (1u << 30)) << p.label;
      }
      if (w.window > 0) {
        EXPECT_TRUE(w.causal) << p.label;
        EXPECT_GE(w.window, 64) << p.label;
      }
      if (w.general_mask()) {
        // The GPU kernels for these masks are compiled for one tile per pass.
        EXPECT_EQ(p.tiles.bwd_br, vocab::general_mask_tiled_bwd_config().br) << p.label;
        EXPECT_EQ(p.tiles.warps, vocab::general_mask_tiled_config(w.head_dim).warps) << p.label;
      }
      if (seed == 20261207u) {
        EXPECT_TRUE(labels.insert(p.label).second) << p.label << " twice";
      }
      kinds.insert(std::string(sim::to_string(p.kind)));
      dims.insert(w.head_dim);
      (w.causal ? causal : plain) = true;
      (w.dtype == sim::DType::fp16 ? fp16 : bf16) = true;
      unequal = unequal || w.seq_q != w.seq_kv;
      window = window || w.window > 0;
      (w.causal ? alibi_causal : alibi_plain) |= w.alibi;
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"naive", "tiled"}));
  EXPECT_EQ(dims, (std::set<std::int64_t>{64, 128}));
  EXPECT_TRUE(causal && plain && fp16 && bf16 && unequal && window && alibi_causal && alibi_plain);
}

// The committed log of the first fresh shapes (their reports were lost; the log is what the GPU printed).
const std::filesystem::path kFreshLog =
    std::filesystem::path(ATTNSCOPE_DATA_DIR) / "h200" / "matrix-logs-20261205T053441Z" / "fresh.log";

std::filesystem::path write_log(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "attnscope-matrix-log-test-20261205T000000Z";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}

TEST(MatrixLog, TheCommittedFreshLogNamesItsSeedThroughItsFolder) {
  const MatrixLog log = read_matrix_log(kFreshLog);
  EXPECT_EQ(log.matrix, "fresh:20261205");  // the last line says "fresh" and ".../fresh-20261205T053441Z"
  ASSERT_EQ(log.points.size(), static_cast<std::size_t>(kFreshPoints));
  EXPECT_EQ(log.points[0].label, "fresh00-b1-h27-q7634-k7634-d128-fp16-causal-naive");
  EXPECT_DOUBLE_EQ(log.points[0].dram_read_bytes, 5127.34e6);
  EXPECT_DOUBLE_EQ(log.points[0].time_s, 19.214e-3);
  const auto points = matrix_log_points(log);
  ASSERT_EQ(points.size(), log.points.size());
  for (const auto& [p, l] : points) EXPECT_EQ(p.label, l.label);
}

TEST(MatrixLog, ForwardPointsBecomeFreshCases) {
  ModelCache models(sim::load_gpu_spec("h200"));
  std::size_t left_out = 0;
  const MatrixLog log = read_matrix_log(kFreshLog);
  const auto cases =
      cases_from_matrix_log(log, kFreshLog, "h200/matrix-logs-20261205T053441Z/fresh.log", models, &left_out);
  EXPECT_EQ(cases.size(), static_cast<std::size_t>(kFreshPoints));  // all forward points
  EXPECT_EQ(left_out, 0u);
  int naive = 0;
  for (const AccuracyCase& c : cases) {
    EXPECT_TRUE(c.fresh);
    EXPECT_FALSE(c.training);
    EXPECT_EQ(c.date, "2026-12-05T05:34:41Z");
    ASSERT_TRUE(c.points.contains(vocab::Metric::dram_read));
    ASSERT_TRUE(c.points.contains(vocab::Metric::time));
    const AccuracyPoint& read = c.points.at(vocab::Metric::dram_read);
    EXPECT_GT(read.modeled, 0.0);
    if (c.kernel == "naive") {
      // The naive forward as a whole: the log's total of its three kernels (each from a flushed L2) against
      // the sum of the three kernels' models under that protocol.
      ++naive;
      double sum = 0.0;
      for (const char* k : {"naive.qk", "naive.softmax", "naive.pv"}) {
        const auto m =
            models.kernel(c.workload, sim::KernelKind::naive, c.tiles, k, vocab::CacheProtocol::flush, false);
        sum += *reports::modeled_of(reports::modeled_kernel_entry(*m, models.gpu()).metrics,
                                    vocab::Metric::dram_read);
      }
      EXPECT_DOUBLE_EQ(read.modeled, sum) << c.id;
    } else {
      EXPECT_TRUE(c.kernel == "tiled" || c.kernel == "hopper") << c.kernel;
      // One kernel under the same protocol as the log's point (the fresh shapes' DRAM reads are within 1 %).
      EXPECT_LT(read.relative_error(), 0.01) << c.id;
    }
  }
  EXPECT_EQ(naive, 6);
}

TEST(MatrixLog, ALogOfAnotherMatrixOrWithoutItsSeedIsRefused) {
  const std::string line = "[1/1] nope-b1-h1 dram_read 1.00 MB  time 0.0100 ms\n";
  EXPECT_THROW(matrix_log_points(read_matrix_log(write_log(
                   "foreign.log", line + "matrix quick: 1 reports written to /tmp/x, 0 skipped\n"))),
               sim::InvalidInput);
  EXPECT_THROW(matrix_log_points(read_matrix_log(
                   write_log("noseed.log", line + "matrix fresh: 1 reports written to /tmp/x, 0 skipped\n"))),
               sim::InvalidInput);
  EXPECT_THROW(read_matrix_log(write_log("empty.log", "compute-sanitizer: 0 errors\n")), sim::InvalidInput);
  EXPECT_THROW(read_matrix_log("/nonexistent/matrix.log"), sim::InvalidInput);
  // A log that names its seed is read whatever its folder.
  EXPECT_EQ(read_matrix_log(
                write_log("seeded.log", line + "matrix fresh:7: 1 reports written to /tmp/x, 0 skipped\n"))
                .matrix,
            "fresh:7");
}

}  // namespace
}  // namespace attnscope::profiler
