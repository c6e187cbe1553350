// SPDX-License-Identifier: Apache-2.0
// CTA programs of the backward pass's kernels, written from the dataflow contract (docs/dataflow.md,
// "Backward pass") and the kernels themselves (kernels/src/tiled_bwd_kernel.cuh, naive_bwd.cu); grids,
// shared memory and tile counts are the shared vocabulary's (attnscope/vocab/backward.hpp).
//
// Backward kernels launch their whole grid: tile windows are not modeled for them.
#include <algorithm>

#include "attnscope/sim/dataflow.hpp"
#include "attnscope/vocab/backward.hpp"
#include "attnscope/vocab/metric.hpp"
#include "dataflow_blocks.hpp"

namespace attnscope::sim {

using detail::block;

namespace {

constexpr vocab::NaiveBwdTiling kNaiveBwd{};

// One of naive_bwd's four GEMM launches: C [M x N] = alpha * op(A) op(B), reduction over K. A is given as
// [M x K] or, transposed, stored [K x M]; B as [K x N] or, transposed, stored [N x K] (row-major, as the
// address map lays the tensors out).
struct BwdGemm {
  Tensor a, b, c;
  bool a_transposed, b_transposed;
  std::int64_t m, n, k;
  std::int64_t bn;  // columns of the CTA tile: d, or NaiveBwdTiling::bn for dP
  bool scaled;      // alpha = softmax scale (dQ, dK): one multiply per output element
};

BwdGemm bwd_gemm(KernelId id, const Workload& w) {
  const std::int64_t nq = w.seq_q, nkv = w.seq_kv, d = w.head_dim;
  switch (id) {
    case KernelId::naive_bwd_dv:  // dV = P^T dO
      return {Tensor::s, Tensor::d_o, Tensor::dv, true, false, nkv, d, nq, d, false};
    case KernelId::naive_bwd_dp:  // dP = dO V^T, into the dS matrix
      return {Tensor::d_o, Tensor::v, Tensor::ds, false, true, nq, nkv, d, kNaiveBwd.bn, false};
    case KernelId::naive_bwd_dq:  // dQ = scale dS K
      return {Tensor::ds, Tensor::k, Tensor::dq, false, false, nq, d, nkv, d, true};
    default:  // naive_bwd_dk: dK = scale dS^T Q
      return {Tensor::ds, Tensor::q, Tensor::dk, true, false, nkv, d, nq, d, true};
  }
}

}  // namespace

TileRange tiled_bwd_q_tile_range(const Workload& w, const TileConfig& tiles, int kv_tile) {
  const vocab::TiledBwdConfig c = tiles.tiled_bwd(w.head_dim);
  const auto first = static_cast<int>(vocab::bwd_first_q_tile<std::int64_t>(
      c.br, c.bc, w.seq_q, w.seq_kv, vocab::mask_of(w.causal), kv_tile));
  const auto end =
      static_cast<int>(vocab::bwd_end_q_tile<std::int64_t>(c.br, c.bc, w.seq_q, w.seq_kv, w.window, kv_tile));
  return {std::min(first, end), end};
}

int tiled_bwd_q_tiles_visited(const Workload& w, const TileConfig& tiles, int kv_tile) {
  return tiled_bwd_q_tile_range(w, tiles, kv_tile).count();
}

void KernelDataflow::backward_grid() {
  const std::int64_t slices = w_.batch * w_.heads;
  vocab::Dim3 g;
  switch (id_) {
    case KernelId::tiled_bwd_pre:
    case KernelId::tiled_bwd_post:
      g = vocab::tiled_bwd_row_grid(bwd_, w_.seq_q, w_.head_dim, slices, t_.bwd_row_block);
      threads_ = vocab::kBwdRowThreads;
      stages_ = 1;  // plain loads
      break;
    case KernelId::tiled_bwd:
      g = vocab::tiled_bwd_grid(bwd_, w_.seq_kv, w_.heads, w_.batch);
      threads_ = vocab::tiled_bwd_threads_per_cta(bwd_);
      stages_ = bwd_.stages;
      math_ = MathModel::cta_phases;
      break;
    case KernelId::naive_bwd_ds:
      g = vocab::naive_bwd_ds_grid(kNaiveBwd, w_.seq_q, slices);
      threads_ = vocab::kWarpThreads * kNaiveBwd.ds_rows_per_cta;  // one warp per row
      stages_ = 1;
      break;
    default: {
      const BwdGemm m = bwd_gemm(id_, w_);
      g = vocab::naive_bwd_gemm_grid(kNaiveBwd, m.m, m.n, m.bn, slices);
      threads_ = vocab::naive_bwd_gemm_threads(kNaiveBwd);
      stages_ = kNaiveBwd.stages;
      break;
    }
  }
  warps_ = threads_ / vocab::kWarpThreads;
  grid_ = {0, g.x, 0, g.y, 0, g.z};
}

// tiled_bwd.pre and tiled_bwd.post: 256 / (d / 8) rows of the padded query rows per CTA, one 16-byte piece
// of a row per thread (TileConfig::bwd_row_block rows for another program's kernels: one step that loads and
// stores all of them, as their threads issue every piece's load before using any). pre reads O, dO and LSE of
// the rows < Nq, zeroes their dQ accumulator rows and writes D and LSE * log2 e of every padded row; post
// reads the accumulator rows < Nq and writes dQ.
void KernelDataflow::bwd_row_program(std::int64_t row_block, std::int64_t slice, StepRange range,
                                     CtaProgram& out) const {
  const std::int64_t e = bytes_of(w_.dtype), d = w_.head_dim;
  const std::int64_t b = slice / w_.heads, h = slice % w_.heads;
  const std::int64_t per_cta = vocab::bwd_row_block_rows(d, t_.bwd_row_block);
  const std::int64_t padded = vocab::tiled_bwd_padded_rows(bwd_, w_.seq_q);
  const std::int64_t r0 = row_block * per_cta, r1 = std::min(r0 + per_cta, padded);
  const std::int64_t rows = std::max<std::int64_t>(0, std::min(r1, w_.seq_q) - r0);  // rows < Nq
  out.records.push_back({static_cast<int>(b), static_cast<int>(h), static_cast<int>(row_block), 0});
  out.step_count = 1;
  if (range.begin(1) == range.end(1)) return;
  CtaStep& s = out.steps.emplace_back();
  const auto rows_of = [&](Tensor t, std::int64_t row_bytes) {
    return block(t, map_.address(t, b, h, r0, 0), rows, row_bytes, map_.row_pitch(t));
  };
  if (id_ == KernelId::tiled_bwd_pre) {
    if (rows > 0) {
      s.loads[s.load_count++] = rows_of(Tensor::o, d * e);
      s.loads[s.load_count++] = rows_of(Tensor::d_o, d * e);
      s.loads[s.load_count++] = block(Tensor::lse, map_.address(Tensor::lse, b, h, r0, 0), 1, rows * 4,
                                      static_cast<std::uint64_t>(rows * 4));
      s.stores[s.store_count++] = rows_of(Tensor::dq_accum, d * 4);
    }
    const std::int64_t vec = (r1 - r0) * 4;  // one float per padded row
    for (Tensor t : {Tensor::delta, Tensor::lse_log2})
      s.stores[s.store_count++] =
          block(t, map_.address(t, b, h, r0, 0), 1, vec, static_cast<std::uint64_t>(vec));
    s.fp32_ops = 2.0 * static_cast<double>(rows * d);  // the dot product dO . O, one FMA per element pair
    // D and LSE * log2 e pass through shared memory so that consecutive threads store them: every warp
    // stores its rows' two floats (two store instructions, one wavefront each, whatever few lanes are
    // active), then the threads [0, padded rows) read D and [per_cta, per_cta + padded rows) read LSE,
    // one wavefront per warp that holds such threads. Counted in wavefronts, as the counters count them.
    const auto warps_over = [](std::int64_t first, std::int64_t count) {
      return count <= 0 ? 0 : (first + count - 1) / vocab::kWarpThreads - first / vocab::kWarpThreads + 1;
    };
    const std::int64_t out_rows = r1 - r0;
    const auto wavefront = static_cast<std::uint64_t>(vocab::kSharedWavefrontBytes);
    s.smem_write = static_cast<std::uint64_t>(2 * (vocab::kBwdRowThreads / vocab::kWarpThreads)) * wavefront;
    s.smem_read =
        static_cast<std::uint64_t>(warps_over(0, out_rows) + warps_over(per_cta, out_rows)) * wavefront;
    return;
  }
  if (rows == 0) return;  // padding rows only: nothing to convert
  s.loads[s.load_count++] = rows_of(Tensor::dq_accum, d * 4);
  s.stores[s.store_count++] = rows_of(Tensor::dq, d * e);
  s.fp32_ops = static_cast<double>(rows * d);  // the scale
}

// tiled_bwd: one CTA per (kv tile j, head, batch). K_j and V_j are copied once with the first step's tiles;
// each step i (a visible q tile) brings Q_i, dO_i [Br x d] and LSE_i, D_i [Br] (padded: always Br floats)
// through the ring, computes S^T, dP^T, P^T, dS^T and the dV, dK updates in registers, stages dS^T in shared
// memory (two slots) and adds the previous step's dQ_{i-1} = dS K_j [Br x d] into the fp32 accumulator
// (atomics, reduced in L2): the barrier at the top of step i completes dS^T of step i - 1, so dQ has no
// barrier of its own. The last step adds its own dQ too and stores dK_j and dV_j, staged through the K and V
// tiles. A kv tile that no q tile sees stores zeros.
void KernelDataflow::tiled_bwd_program(std::int64_t kv_tile, std::int64_t h, std::int64_t b, StepRange range,
                                       CtaProgram& out) const {
  const std::int64_t e = bytes_of(w_.dtype), d = w_.head_dim;
  const std::int64_t c0 = kv_tile * bwd_.bc, cols = std::min<std::int64_t>(bwd_.bc, w_.seq_kv - c0);
  const auto q_tiles = static_cast<int>(vocab::tiled_bwd_q_tiles(bwd_, w_.seq_q));
  const TileRange visited = tiled_bwd_q_tile_range(w_, t_, static_cast<int>(kv_tile));
  const int first = visited.first;
  const auto key = [&](int q_tile) {
    return RecordKey{static_cast<int>(b), static_cast<int>(h), q_tile, static_cast<int>(kv_tile)};
  };
  const auto kv_rows = [&](Tensor t) {
    return block(t, map_.address(t, b, h, c0, 0), cols, d * e, map_.row_pitch(t));
  };
  const auto kv_bytes = static_cast<std::uint64_t>(cols * d * e);
  const int steps = std::max(1, visited.count());
  out.step_count = steps;
  if (range.first == 0) {
    out.records.reserve(static_cast<std::size_t>(steps));
    for (int i = 0; i < steps; ++i) out.records.push_back(key(std::min(first + i, q_tiles - 1)));
  }
  if (visited.count() == 0) {  // no visible q tile: dK_j = dV_j = 0, stored
    if (range.begin(1) == range.end(1)) return;
    CtaStep& s = out.steps.emplace_back();
    // The kernel's prologue copies K_j and V_j before it knows that no step follows (tiled_bwd_kernel.cuh):
    // under a sliding window or a causal mask with Nq < Nkv most kv tiles can be such tiles.
    s.loads[s.load_count++] = kv_rows(Tensor::k);
    s.loads[s.load_count++] = kv_rows(Tensor::v);
    s.smem_write += 2 * kv_bytes;
    s.stores[0] = kv_rows(Tensor::dk);
    s.stores[1] = kv_rows(Tensor::dv);
    s.store_count = 2;
    return;
  }
  // Shared-memory reads per warp and step (ldmatrix): Q_i and dO_i twice each (B operands of S^T and dP^T,
  // then transposed of dV and dK); at d = 128 the warp's 16 keys of K_j and V_j (at d = 64 they stay in
  // registers after the first step); LSE_i and D_i; for dQ_i its dS^T slab [16 x Bc] and its columns of K_j
  // (vocab::tiled_bwd_dq_split).
  const std::int64_t warps = warps_, br = bwd_.br;
  const vocab::TiledBwdDqSplit dq_split = vocab::tiled_bwd_dq_split(bwd_, d);
  const std::int64_t kv_fragment = 2 * vocab::kMmaTile * d * e;  // the warp's 16 keys of K and V
  const int begin = first + range.begin(steps), end = first + range.end(steps);
  out.steps.reserve(static_cast<std::size_t>(end - begin));
  for (int i = begin; i < end; ++i) {
    const std::int64_t r0 = std::int64_t{i} * br, rows = std::min(br, w_.seq_q - r0);
    CtaStep& s = out.steps.emplace_back();
    s.record = i - first;
    const auto q_rows = [&](Tensor t, std::int64_t row_bytes) {
      return block(t, map_.address(t, b, h, r0, 0), rows, row_bytes, map_.row_pitch(t));
    };
    const auto vec = [&](Tensor t) {  // the padded fp32 vectors: all Br floats of the q tile
      return block(t, map_.address(t, b, h, r0, 0), 1, br * 4, static_cast<std::uint64_t>(br * 4));
    };
    if (i == first) {
      s.loads[s.load_count++] = kv_rows(Tensor::k);
      s.loads[s.load_count++] = kv_rows(Tensor::v);
      s.smem_write += 2 * kv_bytes;
    }
    s.loads[s.load_count++] = q_rows(Tensor::q, d * e);
    s.loads[s.load_count++] = q_rows(Tensor::d_o, d * e);
    s.loads[s.load_count++] = vec(Tensor::lse_log2);
    s.loads[s.load_count++] = vec(Tensor::delta);
    const auto tile = static_cast<std::uint64_t>(rows * d * e);
    const auto ds = static_cast<std::uint64_t>(cols * br * e);
    s.smem_write += 2 * tile + static_cast<std::uint64_t>(2 * br * 4) + ds;
    // dQ's reads: one q tile's at every step but the first (the previous tile's), two at the last.
    const std::int64_t dq_tiles = (i > first ? 1 : 0) + (i == visited.end - 1 ? 1 : 0);
    const std::int64_t per_warp = 4 * rows * d * e + (d == 64 && i != first ? 0 : kv_fragment) + 2 * br * 4 +
                                  dq_tiles * (vocab::kMmaTile * cols * e + cols * dq_split.cols * e);
    s.smem_read = static_cast<std::uint64_t>(warps * per_warp);
    // Five products of 2 * rows * cols * d FLOPs: S^T, dP^T, dV, dK, dQ; issued on the whole Br x Bc tile.
    s.flops = 10.0 * static_cast<double>(rows * cols * d);
    const auto rc = static_cast<double>(br * bwd_.bc);
    s.tensor_flops = 10.0 * rc * static_cast<double>(d);
    s.exps = rc;                                    // P^T = 2^(S^T scale log2e - LSE log2e)
    s.fp32_ops = 3.0 * rc;                          // the exponent's FMA, dP - D, times P
    if (w_.general_mask()) s.fp32_ops += 2.0 * rc;  // band test and bias per score
    // red.global.add.v2.f32, reduced in L2: dQ of the previous q tile, and at the last step this one's.
    const auto dq_rows = [&](std::int64_t q_tile) {
      const std::int64_t q0 = q_tile * br, n = std::min(br, w_.seq_q - q0);
      BlockAccess a = block(Tensor::dq_accum, map_.address(Tensor::dq_accum, b, h, q0, 0), n, d * 4,
                            map_.row_pitch(Tensor::dq_accum));
      a.reduce = true;
      return a;
    };
    if (i > first) s.stores[s.store_count++] = dq_rows(i - 1);
    if (i == visited.end - 1) {
      s.stores[s.store_count++] = dq_rows(i);
      s.stores[s.store_count++] = kv_rows(Tensor::dk);
      s.stores[s.store_count++] = kv_rows(Tensor::dv);
      s.smem_write += 2 * kv_bytes;  // dK and dV staged in the K and V tiles for 16-byte stores
      s.smem_read += 2 * kv_bytes;
      s.fp32_ops += static_cast<double>(cols * d);  // dK's scale
    }
  }
}

// naive_bwd.dv, .dp, .dq, .dk: one GEMM kernel, CTA tile bm rows x bn columns of C, reduction steps of bk
// through a 2-slot cp.async ring of A and B slices; the warps split the rows (16 each), so each reads its
// rows of the A slice and all of the B slice. The last step stages C in shared memory for 16-byte stores.
void KernelDataflow::bwd_gemm_program(std::int64_t column_block, std::int64_t row_block, std::int64_t slice,
                                      StepRange range, CtaProgram& out) const {
  const std::int64_t e = bytes_of(w_.dtype);
  const std::int64_t b = slice / w_.heads, h = slice % w_.heads;
  const BwdGemm g = bwd_gemm(id_, w_);
  const std::int64_t m0 = row_block * kNaiveBwd.bm, m = std::min<std::int64_t>(kNaiveBwd.bm, g.m - m0);
  const std::int64_t n0 = column_block * g.bn, n = std::min(g.bn, g.n - n0);
  const auto k_steps = static_cast<int>(vocab::ceil_div(g.k, kNaiveBwd.bk));
  out.records.push_back({static_cast<int>(b), static_cast<int>(h), static_cast<int>(row_block),
                         static_cast<int>(column_block)});
  out.step_count = k_steps;
  const int first = range.begin(k_steps), last = range.end(k_steps);
  out.steps.reserve(static_cast<std::size_t>(last - first));
  for (int step = first; step < last; ++step) {
    const std::int64_t k0 = std::int64_t{step} * kNaiveBwd.bk,
                       kc = std::min<std::int64_t>(kNaiveBwd.bk, g.k - k0);
    CtaStep& s = out.steps.emplace_back();
    s.loads[0] = g.a_transposed ? block(g.a, map_.address(g.a, b, h, k0, m0), kc, m * e, map_.row_pitch(g.a))
                                : block(g.a, map_.address(g.a, b, h, m0, k0), m, kc * e, map_.row_pitch(g.a));
    s.loads[1] = g.b_transposed ? block(g.b, map_.address(g.b, b, h, n0, k0), n, kc * e, map_.row_pitch(g.b))
                                : block(g.b, map_.address(g.b, b, h, k0, n0), kc, n * e, map_.row_pitch(g.b));
    s.load_count = 2;
    if ((g.a == Tensor::s || g.a == Tensor::ds) && !vocab::naive_rows_aligned(w_.seq_kv)) {
      // P or dS with rows off 16-byte boundaries: the warps load the slice themselves (naive_bwd.cu,
      // load_block's 2-byte path: per 16-byte chunk eight 2-byte loads, then its shared-memory store; the
      // PTX issues a thread's two chunks of a slice one after the other), the next step's slice before this
      // step's MMAs. A thread takes chunks tid and tid + 256 of the slice, so a warp's 32 lanes cover 512
      // bytes per trip: two rows of 256 bytes of dV's and dK's [32 x 128] slice (rows = queries), eight rows
      // of 64 bytes of dQ's [128 x 32] slice (rows = queries, continuing the previous step's pieces: the
      // sector they share is in L1, as for naive.pv's P). Two trips per warp and step either way.
      BlockAccess& a = s.loads[0];
      const std::int64_t slice_cols = g.a_transposed ? kNaiveBwd.bm : kNaiveBwd.bk;  // elements per row
      const std::int64_t slice_rows = g.a_transposed ? kNaiveBwd.bk : kNaiveBwd.bm;
      const std::int64_t chunks_per_row = slice_cols / 8;
      const std::int64_t rows_per_trip = vocab::kWarpThreads / chunks_per_row;
      a.trip_bytes = static_cast<std::uint16_t>(slice_cols * e);
      a.warp_rows = static_cast<std::uint8_t>(slice_rows / kNaiveBwd.warps);
      a.rows_per_trip = static_cast<std::uint8_t>(rows_per_trip);
      a.l1_has_head = !g.a_transposed && step > 0;
    }
    const auto a_bytes = static_cast<std::uint64_t>(m * kc * e),
               b_bytes = static_cast<std::uint64_t>(kc * n * e);
    s.smem_write = a_bytes + b_bytes;
    s.smem_read = a_bytes + static_cast<std::uint64_t>(warps_) * b_bytes;
    s.flops = 2.0 * static_cast<double>(m * n * kc);
    s.tensor_flops = 2.0 * static_cast<double>(kNaiveBwd.bm * g.bn * kNaiveBwd.bk);  // whole tiles
    if (step == k_steps - 1) {
      const auto c_bytes = static_cast<std::uint64_t>(m * n * e);
      s.smem_write += c_bytes;
      s.smem_read += c_bytes;
      if (g.scaled) s.fp32_ops = static_cast<double>(m * n);
      s.stores[0] = block(g.c, map_.address(g.c, b, h, m0, n0), m, n * e, map_.row_pitch(g.c));
      // dP with rows off 16-byte boundaries: the warp's lanes store 32 consecutive elements of a row, 2
      // bytes each, one 64-byte piece per store instruction (naive_bwd.cu), as naive.qk stores S.
      if (g.c == Tensor::ds && !vocab::naive_rows_aligned(w_.seq_kv))
        s.stores[0].piece_bytes = static_cast<std::uint16_t>(vocab::kWarpThreads * 2);
      s.store_count = 1;
    }
  }
}

// naive_bwd.ds: one warp per query row, ds_rows_per_cta rows per CTA: D = rowsum(dO o O) from the O and dO
// rows, then dS = P o (dP - D) over the whole row (P and dP read, dS written in place of dP). No shared
// memory; the causal mask needs nothing (P is 0 past the diagonal).
void KernelDataflow::bwd_ds_program(std::int64_t row_block, std::int64_t slice, StepRange range,
                                    CtaProgram& out) const {
  const std::int64_t e = bytes_of(w_.dtype), d = w_.head_dim, nkv = w_.seq_kv;
  const std::int64_t b = slice / w_.heads, h = slice % w_.heads;
  const std::int64_t r0 = row_block * kNaiveBwd.ds_rows_per_cta;
  const std::int64_t rows = std::min<std::int64_t>(kNaiveBwd.ds_rows_per_cta, w_.seq_q - r0);
  out.records.push_back({static_cast<int>(b), static_cast<int>(h), static_cast<int>(row_block), 0});
  out.step_count = 1;
  if (range.begin(1) == range.end(1)) return;
  const auto rows_of = [&](Tensor t, std::int64_t row_bytes) {
    return block(t, map_.address(t, b, h, r0, 0), rows, row_bytes, map_.row_pitch(t));
  };
  CtaStep& s = out.steps.emplace_back();
  s.loads[0] = rows_of(Tensor::o, d * e);
  s.loads[1] = rows_of(Tensor::d_o, d * e);
  s.loads[2] = rows_of(Tensor::s, nkv * e);
  s.loads[3] = rows_of(Tensor::ds, nkv * e);
  s.load_count = 4;
  s.stores[0] = rows_of(Tensor::ds, nkv * e);
  // A warp writes its row from the row's first 16-byte boundary in 16-byte vectors, 512 contiguous bytes per
  // store instruction, and the elements before that boundary and after the last one 2 bytes a lane
  // (naive_bwd.cu): each store its own L2 request, so a sector that a row's head or tail shares with the
  // row before or after it, or that two vector stores share, is requested twice (on rows a whole number of
  // sectors long every piece is whole sectors: BlockAccess::pieces_whole_sectors).
  s.stores[0].piece_bytes = static_cast<std::uint16_t>(vocab::kWarpThreads * 16);
  s.stores[0].piece_align = 16;
  s.store_count = 1;
  s.fp32_ops = 2.0 * static_cast<double>(rows * d) + 2.0 * static_cast<double>(rows * nkv);
}

}  // namespace attnscope::sim
