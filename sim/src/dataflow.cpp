// SPDX-License-Identifier: Apache-2.0
// CTA programs of the forward kernels, written from the dataflow contract (docs/dataflow.md); grids, shared
// memory and tile counts are the shared vocabulary's (attnscope/vocab/geometry.hpp). The backward kernels'
// programs are in dataflow_backward.cpp, the Hopper kernel's in dataflow_hopper.cpp.
#include "attnscope/sim/dataflow.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/tiling_rules.hpp"
#include "attnscope/vocab/geometry.hpp"
#include "dataflow_blocks.hpp"

namespace attnscope::sim {

using detail::block;

std::vector<KernelId> kernels_of(KernelKind kind, Pass pass) {
  std::vector<KernelId> out;
  for (KernelId k : vocab::kAllKernelIds)  // kAllKernelIds lists each (kind, pass)'s kernels in launch order
    if (vocab::kind_of(k) == kind && pass_of(k) == Pass::fwd && pass != Pass::bwd) out.push_back(k);
  for (KernelId k : vocab::kAllKernelIds)
    if (vocab::kind_of(k) == kind && pass_of(k) == Pass::bwd && pass != Pass::fwd) out.push_back(k);
  return out;
}

std::uint64_t BlockAccess::sectors(std::uint32_t sector_bytes) const {
  if (rows == 0 || row_bytes == 0) return 0;
  const std::uint64_t s = sector_bytes;
  // Each piece of each row is its own request; joined rows are split back first.
  if (piece_bytes > 0 && !pieces_whole_sectors(sector_bytes)) {
    std::uint64_t n = 0;
    for_each_piece([&](std::uint64_t lo, std::uint64_t hi) { n += (hi - 1) / s - lo / s + 1; });
    return n;
  }
  if (address % s == 0 && row_bytes % s == 0 && (rows == 1 || pitch % s == 0))
    return std::uint64_t{rows} * (row_bytes / s);
  std::uint64_t n = 0;
  for (std::uint32_t r = 0; r < rows; ++r) {
    const std::uint64_t a = address + r * pitch;
    n += (a + row_bytes - 1) / s - a / s + 1;
    if (l1_has_head && a % s != 0) --n;  // the sector shared with the previous step's piece is in L1
  }
  return n;
}

namespace {

// Window [begin, end) of `count` tiles, checked: end = -1 means all.
std::pair<std::int64_t, std::int64_t> window_range(int begin, int end, std::int64_t count, const char* what) {
  if (begin < 0 || begin >= count)
    throw InvalidInput(std::string("tile window: ") + what + "_begin " + std::to_string(begin) +
                       " is outside the kernel's " + std::to_string(count) + " " + what + "s");
  if (end >= 0 && (end <= begin || end > count))
    throw InvalidInput(std::string("tile window: ") + what + "_end " + std::to_string(end) + " must be in (" +
                       std::to_string(begin) + ", " + std::to_string(count) + "] or -1 for all");
  return {begin, end < 0 ? count : end};
}

// Warp grid of the naive GEMMs' CTA tile: 2 rows of warps when the count is even (8 warps = 2 x 4).
int gemm_warp_rows(const TileConfig& t) {
  return t.gemm_warps % 2 == 0 ? 2 : 1;
}

}  // namespace

TileRange tiled_kv_tile_range(const Workload& w, const TileConfig& t, int q_tile) {
  const vocab::TiledConfig c = t.tiled();
  const auto end =
      static_cast<int>(vocab::tiled_visible_kv_tiles(c, w.seq_q, w.seq_kv, vocab::mask_of(w.causal), q_tile));
  const auto first = static_cast<int>(
      vocab::first_visible_kv_tile<std::int64_t>(c.br, c.bc, w.seq_q, w.seq_kv, w.window, q_tile));
  return {std::min(first, end), end};
}

int tiled_kv_tiles_visited(const Workload& w, const TileConfig& t, int q_tile) {
  return tiled_kv_tile_range(w, t, q_tile).count();
}

KernelDataflow::KernelDataflow(KernelId id, const Workload& w, const TileConfig& tiles,
                               const TileWindow& window)
    : id_(id),
      w_(w),
      t_(tiles),
      window_(window),
      map_(w, vocab::tiled_bwd_padded_rows(tiles.tiled_bwd(w.head_dim), w.seq_q)),
      bwd_(tiles.tiled_bwd(w.head_dim)) {
  validate_tiling(id, w, tiles);
  smem_ = smem_bytes_per_cta(id, w, tiles);
  const std::int64_t slices = w.batch * w.heads;
  if (pass_of(id) == Pass::bwd) {
    if (!window.is_all())
      throw InvalidInput(std::string(to_string(id)) +
                         ": tile windows are not modeled for the backward kernels (the whole grid only)");
    backward_grid();
    cta_count_ = (grid_.x1 - grid_.x0) * (grid_.y1 - grid_.y0) * (grid_.z1 - grid_.z0);
    return;
  }
  if (id == KernelId::hopper) {
    if (!window.is_all())
      throw InvalidInput(
          "hopper: a tile window inside the full grid is not modeled for this kernel (profiler::model_window "
          "models a lone window as a workload of its own rows and keys)");
    hopper_grid();
    cta_count_ = (grid_.x1 - grid_.x0) * (grid_.y1 - grid_.y0) * (grid_.z1 - grid_.z0);
    return;
  }
  const vocab::WindowTiles all = vocab::window_tiles(id, tiles.tiled(), tiles.naive(), w.seq_q, w.seq_kv);
  const auto [q0, q1] = window_range(window.q_tile_begin, window.q_tile_end, all.q, "q_tile");
  // The launched part of the grid: the vocabulary's grid for the window, offset to the window's first tile.
  const auto place = [this](const vocab::Dim3& g, std::int64_t x0, std::int64_t y0) {
    grid_ = {x0, x0 + g.x, y0, y0 + g.y, 0, g.z};
  };
  switch (id) {
    case KernelId::tiled: {
      warps_ = tiles.warps;
      threads_ = vocab::tiled_threads_per_cta(tiles.tiled());
      stages_ = tiles.stages;
      window_range(window.kv_tile_begin, window.kv_tile_end, all.kv, "kv_tile");
      const vocab::Dim3 g = vocab::tiled_grid(q1 - q0, w.heads, w.batch);
      if (tiles.order == LaunchOrder::q_tile_fastest)
        place(g, q0, 0);
      else
        place(vocab::Dim3{g.y, g.x, g.z}, 0, q0);  // the model's alternative order: heads fastest
      break;
    }
    case KernelId::naive_qk: {
      warps_ = tiles.gemm_warps;
      threads_ = vocab::naive_gemm_threads_per_cta(tiles.naive());
      stages_ = tiles.gemm_qk_stages;
      const auto [n0, n1] = window_range(window.kv_tile_begin, window.kv_tile_end, all.kv, "kv_tile");
      // x = groups of gemm_qk_tiles_per_cta column blocks of the window (the last group may be shorter).
      place(vocab::naive_qk_grid(tiles.naive(), n1 - n0, q1 - q0, slices), 0, q0);
      qk_column_end_ = n1;
      break;
    }
    case KernelId::naive_softmax: {
      warps_ = tiles.softmax_rows_per_cta;
      threads_ = vocab::naive_softmax_threads_per_cta(tiles.naive());
      stages_ = 1;  // plain loads, no cp.async ring
      place(vocab::naive_softmax_grid(q1 - q0, slices), q0, 0);
      break;
    }
    case KernelId::naive_pv: {
      warps_ = tiles.gemm_warps;
      threads_ = vocab::naive_gemm_threads_per_cta(tiles.naive());
      stages_ = tiles.gemm_stages;
      window_range(window.kv_tile_begin, window.kv_tile_end, all.kv, "kv_tile");
      place(vocab::naive_pv_grid(q1 - q0, slices), q0, 0);
      break;
    }
    default:
      break;  // the backward kernels: backward_grid()
  }
  cta_count_ = (grid_.x1 - grid_.x0) * (grid_.y1 - grid_.y0) * (grid_.z1 - grid_.z0);
}

int KernelDataflow::kv_step_begin() const {
  return window_.kv_tile_begin;
}
int KernelDataflow::kv_step_end(int available) const {
  return window_.kv_tile_end < 0 ? available : std::min(window_.kv_tile_end, available);
}

void KernelDataflow::grid_coords(std::int64_t cta, std::int64_t& x, std::int64_t& y, std::int64_t& z) const {
  const std::int64_t nx = grid_.x1 - grid_.x0, ny = grid_.y1 - grid_.y0;
  x = grid_.x0 + cta % nx;
  y = grid_.y0 + (cta / nx) % ny;
  z = grid_.z0 + cta / (nx * ny);
}

void KernelDataflow::program(std::int64_t cta, CtaProgram& out, int first_step, int max_steps) const {
  std::int64_t x = 0, y = 0, z = 0;
  grid_coords(cta, x, y, z);
  out.cta = cta;
  out.steps.clear();
  out.records.clear();
  out.first_step = std::max(0, first_step);
  out.step_count = 0;
  const StepRange range{out.first_step, max_steps < 0 ? std::numeric_limits<int>::max() : max_steps};
  switch (id_) {
    case KernelId::tiled:
      if (t_.order == LaunchOrder::q_tile_fastest)
        tiled_program(x, y, z, range, out);
      else
        tiled_program(y, x, z, range, out);
      break;
    case KernelId::naive_qk:
      qk_program(x, y, z, range, out);
      break;
    case KernelId::naive_softmax:
      softmax_program(x, y, range, out);
      break;
    case KernelId::naive_pv:
      pv_program(x, y, range, out);
      break;
    case KernelId::tiled_bwd_pre:
    case KernelId::tiled_bwd_post:
      bwd_row_program(x, y, range, out);
      break;
    case KernelId::tiled_bwd:
      tiled_bwd_program(x, y, z, range, out);
      break;
    case KernelId::naive_bwd_dv:
    case KernelId::naive_bwd_dp:
    case KernelId::naive_bwd_dq:
    case KernelId::naive_bwd_dk:
      bwd_gemm_program(x, y, z, range, out);
      break;
    case KernelId::naive_bwd_ds:
      bwd_ds_program(x, y, range, out);
      break;
    case KernelId::hopper:
      hopper_program(x, y, z, range, out);
      break;
  }
  if (out.first_step > 0) out.records.clear();  // see the header: records come with step 0's range
}

// FlashAttention-2 forward, one CTA per (q-tile, head, batch): Q once, then K_j and V_j per kv step through
// the cp.async ring, S and P in registers, O and LSE stored once after the last step.
void KernelDataflow::tiled_program(std::int64_t q, std::int64_t h, std::int64_t b, StepRange range,
                                   CtaProgram& out) const {
  const std::int64_t e = bytes_of(w_.dtype), d = w_.head_dim;
  const std::int64_t r0 = q * t_.br, r1 = std::min(r0 + t_.br, w_.seq_q), rows = r1 - r0;
  const TileRange visible = tiled_kv_tile_range(w_, t_, static_cast<int>(q));
  const int j0 = std::max(kv_step_begin(), visible.first);
  const int j1 = kv_step_end(visible.end);
  const BlockAccess q_block =
      block(Tensor::q, map_.address(Tensor::q, b, h, r0, 0), rows, d * e, map_.row_pitch(Tensor::q));
  const BlockAccess o_block =
      block(Tensor::o, map_.address(Tensor::o, b, h, r0, 0), rows, d * e, map_.row_pitch(Tensor::o));
  const BlockAccess lse_block = block(Tensor::lse, map_.address(Tensor::lse, b, h, r0, 0), 1, rows * 4,
                                      static_cast<std::uint64_t>(rows * 4));
  const auto key = [&](int kv) {
    return RecordKey{static_cast<int>(b), static_cast<int>(h), static_cast<int>(q), kv};
  };
  if (j1 <= j0) {
    // No visible key tile in the window: the CTA only writes its (zero) output rows and LSE = -inf.
    out.records.push_back(key(j0));
    out.step_count = 1;
    if (range.begin(1) == range.end(1)) return;
    CtaStep& s = out.steps.emplace_back();
    s.stores[0] = o_block;
    s.stores[1] = lse_block;
    s.store_count = 2;
    return;
  }
  out.step_count = j1 - j0;
  if (range.first == 0) {  // the records only with the program's start (one per step here)
    out.records.reserve(static_cast<std::size_t>(j1 - j0));  // one allocation per reused program
    for (int j = j0; j < j1; ++j) out.records.push_back(key(j));
  }
  const int first = j0 + range.begin(j1 - j0), last = j0 + range.end(j1 - j0);
  out.steps.reserve(static_cast<std::size_t>(last - first));
  for (int j = first; j < last; ++j) {
    const std::int64_t c0 = std::int64_t{j} * t_.bc, c1 = std::min(c0 + t_.bc, w_.seq_kv), cols = c1 - c0;
    CtaStep& s = out.steps.emplace_back();
    s.record = j - j0;
    if (j == j0) s.loads[s.load_count++] = q_block;
    s.loads[s.load_count++] =
        block(Tensor::k, map_.address(Tensor::k, b, h, c0, 0), cols, d * e, map_.row_pitch(Tensor::k));
    s.loads[s.load_count++] =
        block(Tensor::v, map_.address(Tensor::v, b, h, c0, 0), cols, d * e, map_.row_pitch(Tensor::v));
    const auto kv_bytes = static_cast<std::uint64_t>(2 * cols * d * e);
    const auto q_bytes = static_cast<std::uint64_t>(rows * d * e);
    s.smem_write = kv_bytes + (j == j0 ? q_bytes : 0);
    // Every warp reads all of K_j and V_j (its 16 rows need every key). Q fragments stay in registers
    // for d = 64 (read once); for d = 128 they are re-read from shared memory every step.
    s.smem_read = static_cast<std::uint64_t>(warps_) * kv_bytes + (j == j0 || d != 64 ? q_bytes : 0);
    s.flops = 4.0 * static_cast<double>(rows * cols * d);  // S = Q K^T and O += P V
    // Issued: the whole Br x Bc tile (the last q tile's rows past Nq and the last kv tile's keys past Nkv
    // are computed, then masked).
    const auto rc = static_cast<double>(t_.br * t_.bc);
    s.tensor_flops = 4.0 * rc * static_cast<double>(d);
    s.exps = rc;
    s.fp32_ops = 4.0 * rc + 2.0 * static_cast<double>(t_.br * d);  // scale/max/sum per score, rescale O
    // The general-mask variant tests every score against the key band and adds the bias (two more).
    if (w_.general_mask()) s.fp32_ops += 2.0 * rc;
    if (j == j1 - 1) {
      s.stores[0] = o_block;
      s.stores[1] = lse_block;
      s.store_count = 2;
      s.smem_write += q_bytes;  // O is staged in the Q tile's shared memory for 16-byte stores
      s.smem_read += q_bytes;
    }
  }
}

// naive.qk: gemm_qk_tiles_per_cta consecutive S tiles [gemm_bm x gemm_bn] of one row block of one (b,h), one
// after another. The steps are the tiles' reductions over d in gemm_bk slices, in one sequence: the K ring
// runs across the tiles, so the loads of the next tile's first slices are issued during this tile's math.
// The first step also loads the whole Q row block [gemm_bm x d], which stays in shared memory for all the
// CTA's tiles. A tile's last step stages S in shared memory and stores it; the stores drain during the next
// tile's steps (the CTA does not wait for them).
void KernelDataflow::qk_program(std::int64_t group, std::int64_t m_block, std::int64_t slice, StepRange range,
                                CtaProgram& out) const {
  const std::int64_t e = bytes_of(w_.dtype), d = w_.head_dim;
  const std::int64_t b = slice / w_.heads, h = slice % w_.heads;
  const std::int64_t m0 = m_block * t_.gemm_bm, m1 = std::min(m0 + t_.gemm_bm, w_.seq_q), m = m1 - m0;
  const std::int64_t first_block = window_.kv_tile_begin + group * t_.gemm_qk_tiles_per_cta;
  const std::int64_t tiles = std::min<std::int64_t>(t_.gemm_qk_tiles_per_cta, qk_column_end_ - first_block);
  const std::int64_t k_steps = vocab::ceil_div(d, t_.gemm_bk);
  out.step_count = static_cast<int>(tiles * k_steps);
  if (range.first == 0)
    for (std::int64_t t = 0; t < tiles; ++t)
      out.records.push_back({static_cast<int>(b), static_cast<int>(h), static_cast<int>(m_block),
                             static_cast<int>(first_block + t)});
  const int warp_rows = gemm_warp_rows(t_), warp_cols = t_.gemm_warps / warp_rows;
  for (int j = range.begin(out.step_count); j < range.end(out.step_count); ++j) {
    const std::int64_t tile = j / k_steps, k = j % k_steps;
    const std::int64_t n0 = (first_block + tile) * t_.gemm_bn, n1 = std::min(n0 + t_.gemm_bn, w_.seq_kv),
                       n = n1 - n0;
    const std::int64_t k0 = k * t_.gemm_bk, kc = std::min(k0 + t_.gemm_bk, d) - k0;
    CtaStep& s = out.steps.emplace_back();
    s.record = static_cast<int>(tile);
    if (j == 0) {
      s.loads[s.load_count++] =
          block(Tensor::q, map_.address(Tensor::q, b, h, m0, 0), m, d * e, map_.row_pitch(Tensor::q));
      s.smem_write += static_cast<std::uint64_t>(m * d * e);
    }
    s.loads[s.load_count++] =
        block(Tensor::k, map_.address(Tensor::k, b, h, n0, k0), n, kc * e, map_.row_pitch(Tensor::k));
    const auto a_bytes = static_cast<std::uint64_t>(m * kc * e),
               b_bytes = static_cast<std::uint64_t>(n * kc * e);
    s.smem_write += b_bytes;
    // Each warp row reads its A rows once per warp column, and vice versa.
    s.smem_read =
        static_cast<std::uint64_t>(warp_cols) * a_bytes + static_cast<std::uint64_t>(warp_rows) * b_bytes;
    s.flops = 2.0 * static_cast<double>(m * n * kc);
    s.tensor_flops = 2.0 * static_cast<double>(t_.gemm_bm * t_.gemm_bn * t_.gemm_bk);  // whole tiles
    if (k == k_steps - 1) {
      s.fp32_ops = static_cast<double>(m * n);  // the scale
      const auto s_bytes = static_cast<std::uint64_t>(m * n * e);
      s.smem_write += s_bytes;  // staged for 16-byte coalesced stores
      s.smem_read += s_bytes;
      s.stores[0] =
          block(Tensor::s, map_.address(Tensor::s, b, h, m0, n0), m, n * e, map_.row_pitch(Tensor::s));
      // Rows that are not 16-byte aligned are stored 2 bytes a lane, 64 contiguous bytes per warp store.
      if (!vocab::naive_rows_aligned(w_.seq_kv)) s.stores[0].piece_bytes = vocab::kWarpThreads * 2;
      s.store_count = 1;
    }
  }
}

std::string KernelDataflow::not_modeled() const {
  if (id_ == KernelId::naive_qk && !vocab::naive_rows_aligned(w_.seq_kv))
    return "rows of S are not 16-byte aligned (Nkv % 8 != 0), so the kernel stores them 2 bytes a lane: the "
           "extra instructions of those stores, and the DRAM reads and writes of the sectors two tiles each "
           "write in part, are not modeled; on the H200's fresh shapes of 2026-12-05 this path read 1.1-2.7x "
           "the modeled DRAM bytes and took 1.7-2.3x the modeled time (docs/accuracy.md)";
  if (!vocab::naive_rows_aligned(w_.seq_kv)) {
    // Rows of P and dS off 16-byte boundaries (Nkv % 8 != 0): the kernels' 2-byte paths.
    if (id_ == KernelId::naive_bwd_ds)
      return "rows of P and dS are not 16-byte aligned (Nkv % 8 != 0), so each warp writes its row's ends "
             "(fewer than 8 elements each) 2 bytes a lane around the 16-byte vectors: their L2 requests are "
             "modeled. The kernel's time is not modeled to this precision on aligned or unaligned rows: at "
             "B 20, H 9, 1472 x 1707, d 128, bf16, causal the H100 took 1.60 ms (0.94 ms modeled), and "
             "1.56 ms at Nkv 1704 under Nsight Compute, its DRAM at 53 % of peak, its warps waiting on "
             "memory (2026-12-07)";
    if (id_ == KernelId::naive_bwd_dp)
      return "rows of dP are not 16-byte aligned (Nkv % 8 != 0), so the epilogue stores them 2 bytes a lane, "
             "64 bytes per warp store: their L2 requests are modeled, the time of those 8x more store "
             "instructions is not (on the H100 at B 20, H 9, 1472 x 1707, d 128, bf16, causal: 1.24 ms "
             "measured, 0.58 ms modeled; under Nsight Compute 1.54 ms, and 0.98 ms at Nkv 1704; 2026-12-07)";
    if (id_ == KernelId::naive_bwd_dv || id_ == KernelId::naive_bwd_dq || id_ == KernelId::naive_bwd_dk)
      return "rows of P and dS are not 16-byte aligned (Nkv % 8 != 0), so the kernel copies their slices "
             "with 2-byte loads, modeled as the warps' round trips (two per warp and step, from the kernel's "
             "code); on the H200's fresh backward shapes of 2026-12-07 the model is still 18-32 % fast there";
  }
  return {};
}

// naive.softmax: rows_per_cta rows of S, one warp per row, P written in place. A row that fits in shared
// memory (Nkv <= vocab::kSoftmaxSharedRowLimit) is read from HBM once; a longer one twice (max and sum,
// then normalise). Causal rows read only their visible keys but write the whole row (zeros past the
// diagonal). A sliding window or ALiBi runs the two-pass kernel whatever the row length, over each row's
// visible keys [first, end).
void KernelDataflow::softmax_program(std::int64_t row_block, std::int64_t slice, StepRange range,
                                     CtaProgram& out) const {
  const std::int64_t e = bytes_of(w_.dtype), nkv = w_.seq_kv;
  const std::int64_t b = slice / w_.heads, h = slice % w_.heads;
  const std::int64_t r0 = row_block * t_.softmax_rows_per_cta;
  const std::int64_t r1 = std::min(r0 + t_.softmax_rows_per_cta, w_.seq_q), rows = r1 - r0;
  out.records.push_back({static_cast<int>(b), static_cast<int>(h), static_cast<int>(row_block), 0});
  const BlockAccess s_rows =
      block(Tensor::s, map_.address(Tensor::s, b, h, r0, 0), rows, nkv * e, map_.row_pitch(Tensor::s));
  CtaStep read;
  if (!w_.causal) {
    read.loads[0] = s_rows;
    read.load_count = 1;
  } else {
    for (std::int64_t i = r0; i < r1; ++i) {
      const std::int64_t visible = vocab::visible_keys(i, w_.seq_q, nkv, vocab::Mask::causal);
      const std::int64_t first = vocab::first_visible_key(i, w_.seq_q, nkv, w_.window);
      if (visible > first)
        read.loads[static_cast<std::size_t>(read.load_count++)] =
            block(Tensor::s, map_.address(Tensor::s, b, h, i, first), 1, (visible - first) * e,
                  map_.row_pitch(Tensor::s));
    }
  }
  const double elements = static_cast<double>(rows * nkv);
  // How the warps read their rows (BlockAccess::synchronous), one warp per row, as
  // kernels/src/naive_softmax.cu is written (its PTX shows the loads of each loop iteration issued together,
  // the next iteration's after the branches or the global store of this one): the shared-memory kernel copies
  // aligned rows with cp.async (all in flight) and unaligned ones four 2-byte loads per lane at a time (256
  // bytes per warp); the two-pass kernel's loops take one load per lane per iteration (16 bytes aligned, 2
  // unaligned), in both passes; the general-mask kernel's first pass four 2-byte loads per lane, its second
  // one.
  const int lane_bytes = vocab::naive_rows_aligned(w_.seq_kv) ? 16 : 2;
  const auto with_trips = [&](CtaStep& step, int trip_bytes) {
    for (int i = 0; i < step.load_count; ++i) {
      step.loads[static_cast<std::size_t>(i)].trip_bytes = static_cast<std::uint16_t>(trip_bytes);
      step.loads[static_cast<std::size_t>(i)].warp_rows = 1;
    }
  };
  // Exponentials: once for the sum and once for the output, over every element (masked ones are -inf).
  if (nkv <= vocab::kSoftmaxSharedRowLimit && !w_.general_mask()) {
    if (lane_bytes == 2) with_trips(read, 4 * vocab::kWarpThreads * 2);
    // The row is copied once into shared memory (cp.async, visible keys only) and read from there three
    // times: the max pass and the sum pass over the visible keys, the output pass over the whole row.
    std::uint64_t loaded = 0;
    for (int i = 0; i < read.load_count; ++i) loaded += read.loads[static_cast<std::size_t>(i)].bytes();
    read.smem_write = loaded;
    read.smem_read = 2 * loaded + static_cast<std::uint64_t>(rows * nkv * e);
    read.exps = 2.0 * elements;
    read.fp32_ops = 4.0 * elements;
    // P's stores are modeled as whole rows, also when unaligned rows are stored 2 bytes a lane (64 bytes per
    // warp store, as naive.qk's): the slices count 1.18x the bytes for causal rows and 1.86x for a
    // non-causal row set on the H200, where 64-byte pieces would give 1.47x; not understood yet.
    read.stores[0] = s_rows;
    read.store_count = 1;
    out.step_count = 1;
    if (range.begin(1) < range.end(1)) out.steps.push_back(read);
    return;
  }
  read.exps = elements;
  read.fp32_ops = (w_.general_mask() ? 4.0 : 2.0) * elements;  // the bias and band test per element
  CtaStep second = read;
  second.stores[0] = s_rows;
  second.store_count = 1;
  with_trips(read, vocab::kWarpThreads * (w_.general_mask() ? 4 * 2 : lane_bytes));
  with_trips(second, vocab::kWarpThreads * (w_.general_mask() ? 2 : lane_bytes));
  out.step_count = 2;
  for (int i = range.begin(2); i < range.end(2); ++i) out.steps.push_back(i == 0 ? read : second);
}

// naive.pv: O tile [gemm_bm x d] of one (b,h); reduction over Nkv in gemm_bk steps (P slice and V rows).
void KernelDataflow::pv_program(std::int64_t m_block, std::int64_t slice, StepRange range,
                                CtaProgram& out) const {
  const std::int64_t e = bytes_of(w_.dtype), d = w_.head_dim;
  const std::int64_t b = slice / w_.heads, h = slice % w_.heads;
  const std::int64_t m0 = m_block * t_.gemm_bm, m1 = std::min(m0 + t_.gemm_bm, w_.seq_q), m = m1 - m0;
  out.records.push_back({static_cast<int>(b), static_cast<int>(h), static_cast<int>(m_block), 0});
  const BlockAccess o_block =
      block(Tensor::o, map_.address(Tensor::o, b, h, m0, 0), m, d * e, map_.row_pitch(Tensor::o));
  const int k0_step = kv_step_begin();
  const int k1_step = kv_step_end(static_cast<int>(vocab::naive_pv_steps(t_.naive(), w_.seq_kv)));
  if (k1_step <= k0_step) {
    out.step_count = 1;
    if (range.begin(1) == range.end(1)) return;
    CtaStep& s = out.steps.emplace_back();
    s.stores[0] = o_block;
    s.store_count = 1;
    return;
  }
  out.step_count = k1_step - k0_step;
  // P's rows take 16-byte copies with the L2 prefetch-size hint when they are 16-byte aligned; otherwise
  // 2-byte loads without it.
  const auto p_fetch = static_cast<std::uint16_t>((w_.seq_kv * e) % 16 == 0 ? t_.gemm_pv_l2_fetch_bytes : 0);
  const int first = k0_step + range.begin(out.step_count), last = k0_step + range.end(out.step_count);
  out.steps.reserve(static_cast<std::size_t>(last - first));
  for (int k = first; k < last; ++k) {
    const std::int64_t k0 = std::int64_t{k} * t_.gemm_bk, kc = std::min(k0 + t_.gemm_bk, w_.seq_kv) - k0;
    CtaStep& s = out.steps.emplace_back();
    s.loads[0] =
        block(Tensor::s, map_.address(Tensor::s, b, h, m0, k0), m, kc * e, map_.row_pitch(Tensor::s));
    s.loads[0].l2_fetch_bytes = p_fetch;
    if (!vocab::naive_rows_aligned(w_.seq_kv)) {
      // Unaligned rows: each warp loads its 16 rows of the slice one row at a time, 2 bytes per lane, and
      // stores each into shared memory before the next (kernels/src/naive_pv.cu, `#pragma unroll 1`).
      s.loads[0].trip_bytes = static_cast<std::uint16_t>(t_.gemm_bk * e);
      s.loads[0].warp_rows = static_cast<std::uint8_t>(t_.gemm_bm / t_.gemm_warps);
      // Plain loads fill L1: the sector this slice shares with the previous one (rows off a sector boundary)
      // came with the previous step's loads of the same rows (the H200's fresh unaligned points: L2 reads
      // 0.78-0.84 of a model that asked for it again).
      s.loads[0].l1_has_head = k > k0_step;
    }
    s.loads[1] = block(Tensor::v, map_.address(Tensor::v, b, h, k0, 0), kc, d * e, map_.row_pitch(Tensor::v));
    s.load_count = 2;
    const auto a_bytes = static_cast<std::uint64_t>(m * kc * e),
               b_bytes = static_cast<std::uint64_t>(kc * d * e);
    s.smem_write = a_bytes + b_bytes;
    // Warps split the rows (16 each), so P is read once and every warp reads all of the V slice.
    s.smem_read = a_bytes + static_cast<std::uint64_t>(warps_) * b_bytes;
    s.flops = 2.0 * static_cast<double>(m * kc * d);
    // Issued: the CTA's whole row block and a whole slice of keys (the last slice's tail is zero-filled).
    s.tensor_flops = 2.0 * static_cast<double>(t_.gemm_bm * t_.gemm_bk * d);
    if (k == k1_step - 1) {
      s.stores[0] = o_block;
      s.store_count = 1;
    }
  }
}

std::int64_t KernelDataflow::max_records() const {
  const vocab::WindowTiles all =
      vocab::window_tiles(id_, t_.tiled(), t_.naive(), w_.seq_q, w_.seq_kv, bwd_, w_.head_dim);
  const auto span = [](int begin, int end, std::int64_t count) {
    return (end < 0 ? count : std::int64_t{end}) - begin;
  };
  if (id_ == KernelId::hopper)  // the whole grid (no windows): one record per (q tile, kv tile)
    return vocab::records_per_window(id_, vocab::hopper_q_tiles(t_.hopper(), w_.seq_q),
                                     vocab::hopper_kv_tiles(t_.hopper(), w_.seq_kv),
                                     std::int64_t{w_.batch} * w_.heads);
  if (pass_of(id_) == Pass::bwd)  // the whole grid (no windows)
    return vocab::records_per_window(id_, all.q, all.kv, std::int64_t{w_.batch} * w_.heads);
  const std::int64_t kv =
      id_ == KernelId::naive_softmax ? 1 : span(window_.kv_tile_begin, window_.kv_tile_end, all.kv);
  return vocab::records_per_window(id_, span(window_.q_tile_begin, window_.q_tile_end, all.q), kv,
                                   std::int64_t{w_.batch} * w_.heads);
}

int KernelDataflow::estimated_registers_per_thread() const {
  return estimate_registers_per_thread(id_, w_, t_);
}

LevelBytes expected_bytes(KernelId k, const Workload& w, const TileConfig& tiles, const TileWindow& window,
                          std::uint32_t sector_bytes) {
  const KernelDataflow flow(k, w, tiles, window);
  LevelBytes total;
  std::uint64_t reduced = 0;
  CtaProgram p;
  for (std::int64_t c = 0; c < flow.cta_count(); ++c) {
    flow.program(c, p);
    for (const CtaStep& s : p.steps) {
      for (int i = 0; i < s.load_count; ++i) total.l2_read += s.loads[i].sectors(sector_bytes) * sector_bytes;
      for (int i = 0; i < s.store_count; ++i) {
        const std::uint64_t bytes = s.stores[i].sectors(sector_bytes) * sector_bytes;
        if (s.stores[i].reduce)
          reduced +=
              bytes;  // not an L2 write (op_red); its old value is read from HBM, and it is written back
        else
          total.l2_write += bytes;
      }
      total.smem_read += s.smem_read;
      total.smem_write += s.smem_write;
    }
  }
  total.hbm_read = total.l2_read + reduced;
  total.hbm_write = total.l2_write + reduced;
  return total;
}

}  // namespace attnscope::sim
