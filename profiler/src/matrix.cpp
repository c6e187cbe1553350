// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/matrix.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>

#include "attnscope/sim/error.hpp"
#include "attnscope/vocab/backward.hpp"
#include "attnscope/vocab/dtype.hpp"
#include "attnscope/vocab/geometry.hpp"

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

// The naive kernels keep S (and P, and in the backward dP) in HBM: the matrices' naive points stay at or
// below this many bytes of S.
constexpr double kNaiveScoreBytesMax = 4.0 * (1u << 30);
double score_bytes(const sim::Workload& w) {
  return static_cast<double>(w.batch * w.heads) * static_cast<double>(w.seq_q) *
         static_cast<double>(w.seq_kv) * static_cast<double>(vocab::bytes_of(w.dtype));
}

// The backward pass (the tiled backward's three kernels at its head dim's default tile, and the naive
// backward's five where its P and dP fit: S of at most 4 GiB, so up to 4k tokens at 2^19 query rows), on the
// accuracy matrix's shapes.
std::vector<MatrixPoint> backward_points(const std::vector<std::int64_t>& seqs) {
  std::vector<MatrixPoint> out;
  for (auto seq : seqs)
    for (std::int64_t d : {64, 128})
      for (bool causal : {false, true})
        for (auto dtype : {sim::DType::fp16, sim::DType::bf16}) {
          sim::Workload w = matrix_workload(seq, d, dtype, causal);
          w.pass = sim::Pass::bwd;
          w.name += "-bwd";
          if (score_bytes(w) <= kNaiveScoreBytesMax)
            out.push_back({w.name + "-naive", w, sim::KernelKind::naive, sim::TileConfig{}});
          out.push_back({w.name + "-tiled", w, sim::KernelKind::tiled, sim::TileConfig{}});
        }
  // Sliding window (a quarter of the keys) with ALiBi, fp16, at three of those lengths: the general-mask
  // kernels at the one tile each pass is compiled for.
  for (auto seq : {std::int64_t{1024}, std::int64_t{4096}, std::int64_t{16384}}) {
    if (std::find(seqs.begin(), seqs.end(), seq) == seqs.end()) continue;
    for (std::int64_t d : {64, 128}) {
      sim::Workload w = matrix_workload(seq, d, sim::DType::fp16, true);
      w.pass = sim::Pass::bwd;
      w.window = seq / 4;
      w.alibi = true;
      w.name += fmt::format("-window{}-alibi-bwd", w.window);
      sim::TileConfig t;
      t.set_tiled(vocab::general_mask_tiled_config(d));
      t.set_tiled_bwd(vocab::general_mask_tiled_bwd_config());
      if (score_bytes(w) <= kNaiveScoreBytesMax)
        out.push_back({w.name + "-naive", w, sim::KernelKind::naive, t});
      out.push_back({w.name + "-tiled", w, sim::KernelKind::tiled, t});
    }
  }
  return out;
}

// SplitMix64: a generator whose sequence is fixed by its definition (std::uniform_int_distribution's is not),
// so a seed names the same shapes on every machine and compiler.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) (the modulo bias is below 2^-50 for the small n used here).
  std::int64_t below(std::int64_t n) {
    return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n));
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // log-uniform integer in [lo, hi]
  std::int64_t log_uniform(std::int64_t lo, std::int64_t hi) {
    const double l = std::log(static_cast<double>(lo)), h = std::log(static_cast<double>(hi));
    return std::clamp<std::int64_t>(std::llround(std::exp(l + (h - l) * unit())), lo, hi);
  }

 private:
  std::uint64_t state_;
};

// One fresh shape: head dim, dtype, causal, query and key lengths log-uniform in 256 .. 16384 (equal half of
// the time), 2^17 .. 2^19 query rows over (batch, head): outputs of 16 MiB and more, many waves of CTAs. The
// order of the draws is part of every seed's meaning (committed logs name their points by it).
sim::Workload fresh_shape(SplitMix64& rng) {
  sim::Workload w;
  w.head_dim = rng.below(2) == 0 ? 64 : 128;
  w.dtype = rng.below(2) == 0 ? sim::DType::fp16 : sim::DType::bf16;
  w.causal = rng.below(2) == 0;
  w.seq_q = rng.log_uniform(256, 16384);
  w.seq_kv = rng.below(2) == 0 ? w.seq_q : rng.log_uniform(256, 16384);
  const std::int64_t rows = std::int64_t{1} << (17 + rng.below(3));
  w.heads = 1 + rng.below(32);
  w.batch = std::max<std::int64_t>(
      1, std::llround(static_cast<double>(rows) / static_cast<double>(w.heads * w.seq_q)));
  return w;
}

std::vector<MatrixPoint> fresh(std::uint64_t seed, int count) {
  SplitMix64 rng(seed);
  std::vector<MatrixPoint> out;
  const auto tiles = matrix_tile_configs();
  for (int i = 0; i < count; ++i) {
    sim::Workload w = fresh_shape(rng);
    const std::int64_t pick = rng.below(4);  // naive 1/4, tiled 1/2, Hopper 1/4
    sim::KernelKind kind = pick == 0   ? sim::KernelKind::naive
                           : pick == 3 ? sim::KernelKind::hopper
                                       : sim::KernelKind::tiled;
    sim::TileConfig t = tiles[static_cast<std::size_t>(rng.below(static_cast<std::int64_t>(tiles.size())))];
    if (kind == sim::KernelKind::naive && score_bytes(w) > kNaiveScoreBytesMax) kind = sim::KernelKind::tiled;
    std::string tile_label;
    if (kind == sim::KernelKind::tiled) {
      if (w.head_dim == 128 && t.br == 128 && t.bc == 128 && t.warps == 4) t.warps = 8;  // as build() does
      tile_label = fmt::format("-br{}-bc{}-w{}", t.br, t.bc, t.warps);
    } else if (kind == sim::KernelKind::hopper) {
      t.set_hopper(matrix_hopper_config(static_cast<int>(w.head_dim)));
    }
    w.name = fmt::format("fresh{:02}-b{}-h{}-q{}-k{}-d{}-{}{}", i, w.batch, w.heads, w.seq_q, w.seq_kv,
                         w.head_dim, sim::to_string(w.dtype), w.causal ? "-causal" : "");
    out.push_back({fmt::format("{}-{}{}", w.name, sim::to_string(kind), tile_label), w, kind, t});
  }
  return out;
}

// The backward pass on shapes nobody fitted on: the same draws as fresh() for the shape, then the backward's
// kernel (naive 1/3 where its two [Nq x Nkv] matrices fit, tiled 2/3 at its default tile) and its mask:
// causal half the time, and a causal point takes a sliding window (64 .. Nkv / 2 keys, log-uniform) a third
// of the time; ALiBi a quarter of the time, with or without causal. A point with a window or ALiBi runs the
// general-mask kernels at the one tile each pass is compiled for. The seed is mixed with a constant so that
// "fresh-bwd:S" and "fresh:S" are not the same shapes.
std::vector<MatrixPoint> fresh_backward(std::uint64_t seed, int count) {
  SplitMix64 rng(seed ^ 0x6277645f66726573ull);  // "bwd_fres"
  std::vector<MatrixPoint> out;
  for (int i = 0; i < count; ++i) {
    sim::Workload w = fresh_shape(rng);
    w.pass = sim::Pass::bwd;
    if (w.causal && rng.below(3) == 0)
      w.window = rng.log_uniform(64, std::max<std::int64_t>(64, w.seq_kv / 2));
    w.alibi = rng.below(4) == 0;
    sim::KernelKind kind = rng.below(3) == 0 ? sim::KernelKind::naive : sim::KernelKind::tiled;
    if (kind == sim::KernelKind::naive && score_bytes(w) > kNaiveScoreBytesMax) kind = sim::KernelKind::tiled;
    sim::TileConfig t;
    if (w.general_mask()) {
      t.set_tiled(vocab::general_mask_tiled_config(w.head_dim));
      t.set_tiled_bwd(vocab::general_mask_tiled_bwd_config());
    }
    std::string mask = w.causal ? "-causal" : "";
    if (w.window > 0) mask += fmt::format("-window{}", w.window);
    if (w.alibi) mask += "-alibi";
    w.name = fmt::format("freshbwd{:02}-b{}-h{}-q{}-k{}-d{}-{}{}", i, w.batch, w.heads, w.seq_q, w.seq_kv,
                         w.head_dim, sim::to_string(w.dtype), mask);
    out.push_back({fmt::format("{}-{}", w.name, sim::to_string(kind)), w, kind, t});
  }
  return out;
}

// Today's UTC date as a number, 20261203 for 2026-12-03.
std::uint64_t utc_date_seed() {
  const auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  const std::chrono::year_month_day ymd(today);
  return static_cast<std::uint64_t>(static_cast<int>(ymd.year())) * 10000u +
         static_cast<unsigned>(ymd.month()) * 100u + static_cast<unsigned>(ymd.day());
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

vocab::HopperConfig matrix_hopper_config(int head_dim) {
  return head_dim == 128 ? vocab::HopperConfig{128, 128, 2, 2, false, false}
                         : vocab::HopperConfig{128, 128, 2, 3, true, true};
}

std::vector<std::string> matrix_names() {
  return {"accuracy", "quick", "fresh", "backward", "fresh-bwd"};
}

std::vector<MatrixPoint> fresh_matrix(std::uint64_t seed, int count) {
  return fresh(seed, count);
}

std::vector<MatrixPoint> fresh_backward_matrix(std::uint64_t seed, int count) {
  return fresh_backward(seed, count);
}

std::string resolved_matrix_name(std::string_view name) {
  if (name == "fresh" || name == "fresh-bwd")
    return std::string(name) + ":" + std::to_string(utc_date_seed());
  return std::string(name);
}

MatrixLog read_matrix_log(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw sim::InvalidInput("cannot read the matrix log '" + path.string() + "'");
  static const std::regex point(R"(^\[\d+/\d+\]\s+(\S+)\s+dram_read\s+([0-9.]+) MB\s+time\s+([0-9.]+) ms)");
  static const std::regex last(R"(^matrix (\S+): \d+ reports written to (.*), \d+ skipped)");
  static const std::regex stamp(R"(fresh-(\d{8})T\d{6}Z)");
  MatrixLog out;
  std::string text;
  std::smatch m;
  while (std::getline(in, text)) {
    if (std::regex_search(text, m, point)) {
      out.points.push_back({m[1], std::stod(m[2]) * 1e6, std::stod(m[3]) * 1e-3});
    } else if (std::regex_search(text, m, last)) {
      out.matrix = m[1];
      const std::string dir = m[2];
      std::smatch s;
      if (out.matrix == "fresh" && std::regex_search(dir, s, stamp)) out.matrix = "fresh:" + s[1].str();
    }
  }
  if (out.points.empty())
    throw sim::InvalidInput("'" + path.string() + "' has no point lines of `attnscope profile --matrix`");
  return out;
}

std::vector<std::pair<MatrixPoint, MatrixLogPoint>> matrix_log_points(const MatrixLog& log) {
  if (log.matrix.empty() || log.matrix == "fresh")
    throw sim::InvalidInput("the log does not say which matrix (and seed) it measured");
  std::map<std::string, MatrixPoint> by_label;
  for (MatrixPoint& p : measurement_matrix(log.matrix)) by_label.emplace(p.label, std::move(p));
  std::vector<std::pair<MatrixPoint, MatrixLogPoint>> out;
  for (const MatrixLogPoint& l : log.points) {
    const auto it = by_label.find(l.label);
    if (it == by_label.end())
      throw sim::InvalidInput("point '" + l.label + "' is not a point of matrix " + log.matrix);
    out.emplace_back(it->second, l);
  }
  return out;
}

std::vector<MatrixPoint> measurement_matrix(std::string_view name) {
  using sim::DType;
  // "issue8" is the accuracy matrix's earlier name: the committed recordings' command lines use it.
  if (name == "accuracy" || name == "issue8")
    return build({4096, 1024, 16384, 512, 2048, 8192}, {64, 128}, {DType::fp16, DType::bf16}, {false, true},
                 matrix_tile_configs());
  if (name == "quick") return build({1024}, {64}, {DType::fp16}, {false, true}, {matrix_tile_configs()[0]});
  if (name == "fresh") return fresh(utc_date_seed(), kFreshPoints);
  if (name == "backward") return backward_points({4096, 1024, 16384, 512, 2048, 8192});
  if (name == "fresh-bwd") return fresh_backward(utc_date_seed(), kFreshPoints);
  for (const std::string_view prefix : {std::string_view("fresh:"), std::string_view("fresh-bwd:")}) {
    if (!name.starts_with(prefix)) continue;
    const std::string_view digits = name.substr(prefix.size());
    std::uint64_t seed = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), seed);
    if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty())
      throw sim::InvalidInput("--matrix '" + std::string(name) + "': the seed after '" + std::string(prefix) +
                              "' must be a whole number");
    return prefix == "fresh:" ? fresh(seed, kFreshPoints) : fresh_backward(seed, kFreshPoints);
  }
  throw sim::InvalidInput(
      "unknown measurement matrix '" + std::string(name) +
      "' (known: accuracy, quick, fresh, fresh:SEED, backward, fresh-bwd, fresh-bwd:SEED)");
}

}  // namespace attnscope::profiler
