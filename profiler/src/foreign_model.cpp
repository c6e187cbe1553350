// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/foreign_model.hpp"

#include <fmt/format.h>

#include <charconv>
#include <variant>

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
      return vocab::tiled_bwd_row_grid(t.tiled_bwd(w.head_dim), w.seq_q, w.head_dim, slices, t.bwd_row_block);
    case vocab::KernelId::naive_qk:
      return vocab::naive_qk_grid(n, vocab::naive_qk_column_blocks(n, w.seq_kv),
                                  vocab::naive_qk_row_blocks(n, w.seq_q), slices);
    case vocab::KernelId::naive_softmax:
      return vocab::naive_softmax_grid(vocab::naive_softmax_row_blocks(n, w.seq_q), slices);
    case vocab::KernelId::naive_pv:
      return vocab::naive_pv_grid(vocab::naive_pv_row_blocks(n, w.seq_q), slices);
    case vocab::KernelId::hopper:
      return vocab::hopper_grid(t.hopper(), w.seq_q, w.heads, w.batch);
    default:
      return {};  // the naive backward has no row in the table
  }
}

// Why the name's parameters disagree with the annotation ("" when they agree).
std::string disagreement(const Captures& c, const AnnotatedShape& s) {
  if (bool_capture(c, "dropout").value_or(false)) return "dropout (the model has no dropout)";
  if (bool_capture(c, "local").value_or(false))
    return "a sliding window (Is_local; the annotation carries no window)";
  if (const auto dtype = dtype_capture(c); dtype && *dtype != s.dtype)
    return fmt::format("the kernel is compiled for {} but the annotation says dtype={}", *dtype, s.dtype);
  if (const auto d = int_capture(c, "head_dim"); d && *d != s.head_dim)
    return fmt::format("the kernel is compiled for head dim {} but the annotation says d={}", *d, s.head_dim);
  if (const auto causal = bool_capture(c, "causal"); causal && *causal != s.causal)
    return fmt::format("the kernel is compiled {} but the annotation says causal={}",
                       *causal ? "causal" : "without the causal mask", s.causal ? 1 : 0);
  return "";
}

sim::Workload workload_of(const AnnotatedShape& s, vocab::KernelId id) {
  sim::Workload w;
  w.name = "annotated";
  w.batch = s.batch;
  w.heads = s.heads;
  w.seq_q = s.seq_q;
  w.seq_kv = s.seq_kv;
  w.head_dim = s.head_dim;
  w.dtype = sim::parse_dtype(s.dtype).value_or(sim::DType::fp16);  // parse_annotation admits fp16, bf16
  w.causal = s.causal;
  w.pass = vocab::pass_of(id);
  return w;
}

// The tile's parts as the launch gives them. block_m / block_n are FlashAttention's names: query rows and
// keys. The forward's Br, Bc are (block_m, block_n); the backward's CTA holds block_n keys (Bc) and steps
// over block_m query rows (Br).
struct TileParts {
  std::optional<int> block_m, block_n, warps, stages;
  std::optional<int> consumers;           // the Hopper kernel's consumer warpgroups
  std::optional<bool> overlap, pingpong;  // and its schedule
  std::string origin;
};

// The tile parts of a launch by its row's tile source, or why they cannot be found.
std::variant<TileParts, std::string> tile_parts(const KernelRow& row, const Captures& c,
                                                const ForeignLaunch& l, const AnnotatedShape& s,
                                                const ParsedTileHint& hint) {
  TileParts t;
  switch (row.tiles) {
    case TileSource::captures:
      t.block_m = int_capture(c, "block_m");
      t.block_n = int_capture(c, "block_n");
      t.warps = int_capture(c, "warps");
      t.stages = int_capture(c, "stages");
      if (const auto single = bool_capture(c, "single_buffer")) t.stages = *single ? 1 : row.default_stages;
      if (!t.stages && row.default_stages > 0) t.stages = row.default_stages;
      t.consumers = int_capture(c, "consumers");
      t.overlap = bool_capture(c, "overlap");
      t.pingpong = bool_capture(c, "pingpong");
      t.origin = "the kernel name's template arguments";
      return t;
    case TileSource::triton: {
      if (!hint.error.empty()) return hint.error;
      if (!hint.hint)
        return std::string(
            "the Triton kernel's BLOCK_N and num_stages are neither in its name nor in its launch (push the "
            "'attnscope tiles: ...' range as examples/triton_attention.py does)");
      const std::int64_t threads = threads_of(l);
      if (threads % vocab::kWarpThreads != 0 || threads / vocab::kWarpThreads != hint.hint->num_warps)
        return fmt::format("the launch's block has {} threads, the tile hint says num_warps={}", threads,
                           hint.hint->num_warps);
      const auto from_grid = block_m_from_grid(s.seq_q, l.grid[0]);
      if (!from_grid || *from_grid != hint.hint->block_m)
        return fmt::format(
            "grid.x = {} q tiles for Nq={} does not match the tile hint's block_m={} (the Triton example "
            "launches ceil(Nq / BLOCK_M) programs along x)",
            l.grid[0], s.seq_q, hint.hint->block_m);
      t.block_m = hint.hint->block_m;
      t.block_n = hint.hint->block_n;
      t.warps = hint.hint->num_warps;
      t.stages = hint.hint->num_stages;
      t.origin = fmt::format(
          "block_m from the grid (x = ceil(Nq / BLOCK_M) = {}), num_warps from the block, block_n and "
          "num_stages from the 'attnscope tiles:' range",
          l.grid[0]);
      return t;
    }
    case TileSource::naive:
      t.origin = "the naive kernels' fixed tiling (vocab::NaiveTiling)";
      return t;
  }
  return t;
}

// Put the tile into `p` (the model's TileConfig and its label) and check the launch's block against it;
// returns why not ("" when it fits).
std::string set_tile(ForeignModelPlan& p, const TileParts& t, const ForeignLaunch& l) {
  const std::int64_t threads = threads_of(l);
  const std::int64_t head_dim = p.workload.head_dim;
  switch (p.kernel) {
    case vocab::KernelId::tiled:
      if (!t.block_m || !t.block_n || !t.warps || !t.stages)
        return "the table row gives no complete tile (block_m, block_n, warps, stages)";
      p.tiles.br = *t.block_m;
      p.tiles.bc = *t.block_n;
      p.tiles.warps = *t.warps;
      p.tiles.stages = *t.stages;
      p.tile_label = p.tiles.label();
      if (threads != std::int64_t{vocab::kWarpThreads} * *t.warps)
        return fmt::format("the launch's block has {} threads but the kernel has {} warps", threads,
                           *t.warps);
      return "";
    case vocab::KernelId::hopper: {
      if (!t.block_m || !t.block_n || !t.consumers || !t.stages || !t.overlap || !t.pingpong)
        return "the table row gives no complete Hopper tile (block_m, block_n, consumers, stages, overlap, "
               "pingpong)";
      const vocab::HopperConfig h{*t.block_m, *t.block_n, *t.consumers, *t.stages, *t.overlap, *t.pingpong};
      if (h.br != vocab::kWgmmaRows * h.consumers)
        return fmt::format("the kernel's Br {} is not 64 rows per consumer warpgroup ({} consumers)", h.br,
                           h.consumers);
      p.tiles.set_hopper(h);
      p.tile_label = p.tiles.hopper_label();
      if (threads != vocab::hopper_threads_per_cta(h))
        return fmt::format("the launch's block has {} threads, the Hopper kernel with {} consumers has {}",
                           threads, h.consumers, vocab::hopper_threads_per_cta(h));
      return "";
    }
    case vocab::KernelId::tiled_bwd:
    case vocab::KernelId::tiled_bwd_pre:
    case vocab::KernelId::tiled_bwd_post: {
      // attnscope's own pre/post kernels carry no tile: they run with the default backward tile of their d.
      if (t.block_m && t.block_n) {
        p.tiles.bwd_br = *t.block_m;
        p.tiles.bwd_bc = *t.block_n;
        p.tiles.bwd_stages = t.stages.value_or(2);
      }
      p.tile_label = p.tiles.bwd_label(head_dim);
      if (p.kernel != vocab::KernelId::tiled_bwd) {
        // FlashAttention-2's pre/post CTAs are kBlockM-row blocks of its 256 threads (the grid check below
        // holds the launch to that): the model runs the same CTAs.
        if (t.block_m) {
          p.tiles.bwd_row_block = *t.block_m;
          p.tile_label += fmt::format(", {} rows per CTA", *t.block_m);
        }
        if (threads != vocab::kBwdRowThreads)
          return fmt::format("the launch's block has {} threads; the model's {} CTAs have {}", threads,
                             vocab::to_string(p.kernel), vocab::kBwdRowThreads);
        return "";
      }
      const vocab::TiledBwdConfig b = p.tiles.tiled_bwd(head_dim);
      if (t.warps && *t.warps != vocab::tiled_bwd_warps(b))
        return fmt::format(
            "the kernel has {} warps for {} keys per CTA; the model's tiled_bwd has one warp per 16 keys "
            "({})",
            *t.warps, b.bc, vocab::tiled_bwd_warps(b));
      if (threads != vocab::tiled_bwd_threads_per_cta(b))
        return fmt::format("the launch's block has {} threads, the tile Bc={} needs {}", threads, b.bc,
                           vocab::tiled_bwd_threads_per_cta(b));
      return "";
    }
    case vocab::KernelId::naive_qk:
    case vocab::KernelId::naive_pv:
    case vocab::KernelId::naive_softmax: {
      p.tile_label = "naive";
      const vocab::NaiveTiling n = p.tiles.naive();
      const std::int64_t want = p.kernel == vocab::KernelId::naive_softmax
                                    ? vocab::naive_softmax_threads_per_cta(n)
                                    : vocab::naive_gemm_threads_per_cta(n);
      if (threads != want)
        return fmt::format("the launch's block has {} threads, attnscope's {} has {}", threads,
                           vocab::to_string(p.kernel), want);
      return "";
    }
    default:
      return fmt::format("the table maps this kernel to {}, which has no tile rule here",
                         vocab::to_string(p.kernel));
  }
}

vocab::Dim3 expected_grid(GridRule rule, const ForeignModelPlan& p) {
  switch (rule) {
    case GridRule::none:
      return {};
    case GridRule::model:
      return model_grid(p.kernel, p.workload, p.tiles);
    case GridRule::model_batch_heads: {
      const vocab::Dim3 g = model_grid(p.kernel, p.workload, p.tiles);
      return {g.x, g.z, g.y};
    }
    case GridRule::bwd_q_tiles_batch_heads:
      return {vocab::tiled_bwd_q_tiles(p.tiles.tiled_bwd(p.workload.head_dim), p.workload.seq_q),
              p.workload.batch, p.workload.heads};
  }
  return {};
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
  if (std::string why = disagreement(recognition.captures, s); !why.empty()) return refuse(std::move(why));

  ForeignModelPlan p;
  p.kernel = *row.model;
  p.workload = workload_of(s, p.kernel);
  const auto parts = tile_parts(row, recognition.captures, launch, s, hint);
  if (const auto* why = std::get_if<std::string>(&parts)) return refuse(*why);
  const TileParts& t = std::get<TileParts>(parts);
  p.tile_origin = t.origin;
  if (std::string why = set_tile(p, t, launch); !why.empty()) return refuse(std::move(why));

  p.expected_grid = expected_grid(row.grid, p);
  const vocab::Dim3 got{launch.grid[0], launch.grid[1], launch.grid[2]};
  const vocab::Dim3& want = p.expected_grid;
  if (row.grid != GridRule::none && (got.x != want.x || got.y != want.y || got.z != want.z))
    return refuse(fmt::format(
        "grid {} does not match the annotated shape (expected {} for B={} H={} Nq={} Nkv={} with {})",
        grid_text(got), grid_text(want), s.batch, s.heads, s.seq_q, s.seq_kv, p.tile_label));
  return PlanResult{std::move(p), ""};
}

}  // namespace attnscope::profiler
