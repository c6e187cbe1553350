// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/foreign_model.hpp"

#include <fmt/format.h>

#include <charconv>

#include "attnscope/vocab/backward.hpp"

namespace attnscope::profiler {

namespace {

using Captures = std::map<std::string, std::string, std::less<>>;

std::optional<int> int_capture(const Captures& c, std::string_view key) {
  const auto it = c.find(key);
  if (it == c.end()) return std::nullopt;
  int v = 0;
  const auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  if (ec != std::errc() || end != it->second.data() + it->second.size()) return std::nullopt;
  return v;
}

std::optional<bool> bool_capture(const Captures& c, std::string_view key) {
  const auto it = c.find(key);
  if (it == c.end()) return std::nullopt;
  return it->second == "true" || it->second == "1";
}

// "fp16" / "bf16" for the C++ element types the table's rows capture.
std::optional<std::string> dtype_capture(const Captures& c) {
  const auto it = c.find("dtype");
  if (it == c.end()) return std::nullopt;
  if (it->second == "cutlass::half_t" || it->second == "__half") return "fp16";
  if (it->second == "cutlass::bfloat16_t" || it->second == "__nv_bfloat16") return "bf16";
  return it->second;
}

PlanResult refuse(std::string why) {
  return PlanResult{std::nullopt, "not modeled: " + std::move(why)};
}

std::int64_t threads_of(const ForeignLaunch& l) {
  return std::int64_t{l.block[0]} * l.block[1] * l.block[2];
}

// The smallest power of two Br (16 to 1024) whose q tiles cover Nq in exactly `q_tiles` CTAs: the Triton
// example's grid is (ceil(Nq / BLOCK_M), H, B) and its BLOCK_M a power of two (tl.arange needs one).
std::optional<int> block_m_from_grid(std::int64_t seq_q, std::int64_t q_tiles) {
  for (int br = 16; br <= 1024; br *= 2)
    if (vocab::ceil_div(seq_q, br) == q_tiles) return br;
  return std::nullopt;
}

vocab::Dim3 model_grid(vocab::KernelId id, const sim::Workload& w, const sim::TileConfig& t) {
  const std::int64_t slices = w.batch * w.heads;
  const vocab::NaiveTiling n = t.naive();
  switch (id) {
    case vocab::KernelId::tiled:
      return vocab::tiled_grid(vocab::tiled_q_tiles(t.tiled(), w.seq_q), w.heads, w.batch);
    case vocab::KernelId::tiled_bwd:
      return vocab::tiled_bwd_grid(t.tiled_bwd(w.head_dim), w.seq_kv, w.heads, w.batch);
    case vocab::KernelId::tiled_bwd_pre:
    case vocab::KernelId::tiled_bwd_post:
      return vocab::tiled_bwd_row_grid(t.tiled_bwd(w.head_dim), w.seq_q, w.head_dim, slices);
    case vocab::KernelId::naive_qk:
      return vocab::naive_qk_grid(n, vocab::naive_qk_column_blocks(n, w.seq_kv),
                                  vocab::naive_qk_row_blocks(n, w.seq_q), slices);
    case vocab::KernelId::naive_softmax:
      return vocab::naive_softmax_grid(vocab::naive_softmax_row_blocks(n, w.seq_q), slices);
    case vocab::KernelId::naive_pv:
      return vocab::naive_pv_grid(vocab::naive_pv_row_blocks(n, w.seq_q), slices);
    default:
      return {};  // the naive backward has no row in the table
  }
}

}  // namespace

std::string grid_text(const vocab::Dim3& g) {
  return fmt::format("({}, {}, {})", g.x, g.y, g.z);
}

PlanResult plan_foreign_model(const ForeignLaunch& launch, const Recognition& recognition,
                              const ParsedAnnotation& shape, const ParsedTileHint& hint) {
  if (recognition.row == nullptr) return refuse("unknown kernel");
  const KernelRow& row = *recognition.row;
  if (!row.model) return refuse(std::string(row.not_modeled));
  if (!shape.error.empty()) return refuse(shape.error);
  if (!shape.shape) return refuse("no shape (wrap the call in attnscope.annotate(...))");
  const AnnotatedShape& s = *shape.shape;
  const Captures& c = recognition.captures;
  const vocab::KernelId id = *row.model;

  // What the name says must agree with what the annotation says.
  if (bool_capture(c, "dropout").value_or(false)) return refuse("dropout (the model has no dropout)");
  if (const auto dtype = dtype_capture(c); dtype && *dtype != s.dtype)
    return refuse(
        fmt::format("the kernel is compiled for {} but the annotation says dtype={}", *dtype, s.dtype));
  if (const auto d = int_capture(c, "head_dim"); d && *d != s.head_dim)
    return refuse(
        fmt::format("the kernel is compiled for head dim {} but the annotation says d={}", *d, s.head_dim));
  if (const auto causal = bool_capture(c, "causal"); causal && *causal != s.causal)
    return refuse(fmt::format("the kernel is compiled {} but the annotation says causal={}",
                              *causal ? "causal" : "without the causal mask", s.causal ? 1 : 0));

  ForeignModelPlan p;
  p.kernel = id;
  p.workload.name = "annotated";
  p.workload.batch = s.batch;
  p.workload.heads = s.heads;
  p.workload.seq_q = s.seq_q;
  p.workload.seq_kv = s.seq_kv;
  p.workload.head_dim = s.head_dim;
  p.workload.dtype = *sim::parse_dtype(s.dtype);
  p.workload.causal = s.causal;
  p.workload.pass = vocab::pass_of(id);

  // The tile. block_m / block_n are FlashAttention's names: query rows and keys. The forward's Br, Bc are
  // (block_m, block_n); the backward's CTA holds block_n keys (Bc) and steps over block_m query rows (Br).
  std::optional<int> block_m = int_capture(c, "block_m"), block_n = int_capture(c, "block_n");
  std::optional<int> warps = int_capture(c, "warps"), stages = int_capture(c, "stages");
  if (bool_capture(c, "single_buffer")) stages = *bool_capture(c, "single_buffer") ? 1 : row.default_stages;
  if (!stages && row.default_stages > 0) stages = row.default_stages;
  switch (row.tiles) {
    case TileSource::captures:
      p.tile_origin = "the kernel name's template arguments";
      break;
    case TileSource::triton: {
      if (!hint.error.empty()) return refuse(hint.error);
      if (!hint.hint)
        return refuse(
            "the Triton kernel's BLOCK_N and num_stages are neither in its name nor in its launch (push "
            "the 'attnscope tiles: ...' range as examples/triton_attention.py does)");
      const std::int64_t threads = threads_of(launch);
      if (threads % vocab::kWarpThreads != 0 || threads / vocab::kWarpThreads != hint.hint->num_warps)
        return refuse(fmt::format("the launch's block has {} threads, the tile hint says num_warps={}",
                                  threads, hint.hint->num_warps));
      const auto from_grid = block_m_from_grid(s.seq_q, launch.grid[0]);
      if (!from_grid || *from_grid != hint.hint->block_m)
        return refuse(fmt::format(
            "grid.x = {} q tiles for Nq={} does not match the tile hint's block_m={} (the Triton example "
            "launches ceil(Nq / BLOCK_M) programs along x)",
            launch.grid[0], s.seq_q, hint.hint->block_m));
      block_m = hint.hint->block_m;
      block_n = hint.hint->block_n;
      warps = hint.hint->num_warps;
      stages = hint.hint->num_stages;
      p.tile_origin = fmt::format(
          "block_m from the grid (x = ceil(Nq / BLOCK_M) = {}), num_warps from the block, block_n and "
          "num_stages from the 'attnscope tiles:' range",
          launch.grid[0]);
      break;
    }
    case TileSource::naive:
      p.tile_origin = "the naive kernels' fixed tiling (vocab::NaiveTiling)";
      break;
  }

  const std::int64_t threads = threads_of(launch);
  if (id == vocab::KernelId::tiled) {
    if (!block_m || !block_n || !warps || !stages)
      return refuse("the table row gives no complete tile (block_m, block_n, warps, stages)");
    p.tiles.br = *block_m;
    p.tiles.bc = *block_n;
    p.tiles.warps = *warps;
    p.tiles.stages = *stages;
    if (threads != std::int64_t{vocab::kWarpThreads} * *warps)
      return refuse(
          fmt::format("the launch's block has {} threads but the kernel has {} warps", threads, *warps));
    p.tile_label = p.tiles.label();
  } else if (id == vocab::KernelId::tiled_bwd || id == vocab::KernelId::tiled_bwd_pre ||
             id == vocab::KernelId::tiled_bwd_post) {
    // attnscope's own pre/post kernels carry no tile: they run with the default backward tile of their d.
    if (block_m && block_n) {
      p.tiles.bwd_br = *block_m;
      p.tiles.bwd_bc = *block_n;
      p.tiles.bwd_stages = stages.value_or(2);
    }
    const vocab::TiledBwdConfig b = p.tiles.tiled_bwd(s.head_dim);
    if (id == vocab::KernelId::tiled_bwd) {
      if (warps && *warps != vocab::tiled_bwd_warps(b))
        return refuse(
            fmt::format("the kernel has {} warps for {} keys per CTA; the model's tiled_bwd has one warp per "
                        "16 keys ({})",
                        *warps, b.bc, vocab::tiled_bwd_warps(b)));
      if (threads != vocab::tiled_bwd_threads_per_cta(b))
        return refuse(fmt::format("the launch's block has {} threads, the tile Bc={} needs {}", threads, b.bc,
                                  vocab::tiled_bwd_threads_per_cta(b)));
    }
    p.tile_label = p.tiles.bwd_label(s.head_dim);
  } else {
    p.tile_label = "naive";
  }

  switch (row.grid) {
    case GridRule::none:
      break;
    case GridRule::model:
      p.expected_grid = model_grid(id, p.workload, p.tiles);
      break;
    case GridRule::model_batch_heads: {
      const vocab::Dim3 g = model_grid(id, p.workload, p.tiles);
      p.expected_grid = {g.x, g.z, g.y};
      break;
    }
    case GridRule::bwd_q_tiles_batch_heads:
      p.expected_grid = {vocab::tiled_bwd_q_tiles(p.tiles.tiled_bwd(s.head_dim), s.seq_q), s.batch, s.heads};
      break;
  }
  const vocab::Dim3 got{launch.grid[0], launch.grid[1], launch.grid[2]};
  const vocab::Dim3& want = p.expected_grid;
  if (row.grid != GridRule::none && (got.x != want.x || got.y != want.y || got.z != want.z))
    return refuse(fmt::format(
        "grid {} does not match the annotated shape (expected {} for B={} H={} Nq={} Nkv={} with {})",
        grid_text(got), grid_text(want), s.batch, s.heads, s.seq_q, s.seq_kv, p.tile_label));
  return PlanResult{std::move(p), ""};
}

}  // namespace attnscope::profiler
