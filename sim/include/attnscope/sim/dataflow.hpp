// SPDX-License-Identifier: Apache-2.0
// The kernels' dataflow as CTA programs: for each kernel (tiled, hopper, naive.qk, naive.softmax, naive.pv,
// the backward pass's tiled_bwd.pre, tiled_bwd, tiled_bwd.post, naive_bwd.dv .. naive_bwd.dk) the CTAs it
// launches, in launch order, and what each CTA does step by step: which rectangles of which tensor it loads
// and stores, and how much math it does. This mirrors the real kernels (the dataflow contract,
// docs/dataflow.md; grids, shared memory and tile counts come from attnscope/vocab/geometry.hpp) and is
// public so that the profiler can compute the bytes a tile window requests without running the timing model:
//
//   sim::KernelDataflow flow(sim::KernelId::tiled, workload, tiles, window);
//   sim::CtaProgram p;
//   for (std::int64_t c = 0; c < flow.cta_count(); ++c) { flow.program(c, p); ... }
//   sim::LevelBytes b = sim::expected_bytes(sim::KernelId::tiled, workload, tiles, window);
//
// A step is: issue its loads (cp.async, or the Hopper kernel's bulk tensor copies, into shared memory,
// pipelined `stages` deep, so the loads of step j+stages-1 are issued when the math of step j starts), then
// its math once its loads have landed, then its stores (from registers to global memory).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "attnscope/sim/address_map.hpp"
#include "attnscope/sim/result.hpp"
#include "attnscope/sim/tile_config.hpp"
#include "attnscope/sim/tile_window.hpp"
#include "attnscope/sim/workload.hpp"
#include "attnscope/vocab/kernel.hpp"

namespace attnscope::sim {

// One launched kernel (attnscope/vocab/kernel.hpp). The naive kind launches three forward and five
// backward, the tiled kind one forward and three backward.
using vocab::KernelId;
using vocab::kKernelIdCount;
using vocab::parse_kernel_id;  // inverse of to_string
using vocab::pass_of;          // fwd or bwd
using vocab::to_string;        // "tiled", "naive.qk", "tiled_bwd", ...
// The kernels `kind` launches for `pass`, in launch order (both: the forward's, then the backward's).
std::vector<KernelId> kernels_of(KernelKind kind, Pass pass = Pass::fwd);

// A rectangle of one tensor: `rows` rows of `row_bytes` contiguous bytes, `pitch` bytes apart.
struct BlockAccess {
  std::uint64_t address = 0;  // first byte
  std::uint32_t rows = 0;
  std::uint32_t row_bytes = 0;
  std::uint64_t pitch = 0;  // bytes from one row's start to the next
  Tensor tensor = Tensor::q;
  // L2 prefetch-size hint of the copies (cp.async ... .L2::256B): L2 fetches the aligned block of this many
  // bytes around each requested piece from HBM. Only the requested sectors count as L2 requests; 0 = none.
  std::uint16_t l2_fetch_bytes = 0;
  // A store that is an atomic reduction (red.global.add: the tiled backward's dQ accumulator). L2 performs
  // it, and needs the line's old value for that: the sectors it misses are read from HBM before the write
  // (Nsight Compute on the H200: tiled_bwd read 2T more than its loads, T the accumulator's bytes).
  bool reduce = false;
  // Loads made by the warps' own instructions (ld.global into registers, then st.shared), where a warp waits
  // for one group of loads before it issues the next, instead of asynchronous copies (cp.async, bulk copies:
  // all in flight at once). The block's rows go `warp_rows` consecutive rows to a warp, the warps in
  // parallel, and a warp takes each row in pieces of `trip_bytes`, one dependent round trip per piece: to
  // L2, or to HBM when a sector of the piece misses. The warps do nothing else meanwhile. 0: a copy.
  std::uint16_t trip_bytes = 0;
  std::uint8_t warp_rows = 1;
  // Synchronous loads only: a warp takes this many of its rows side by side in each round trip (its lanes
  // spread over them), so a trip costs the slowest of their pieces; 1: one row at a time.
  std::uint8_t rows_per_trip = 1;
  // Synchronous loads only: each row's piece continues the piece the same warp loaded from that row in the
  // previous step, so the sector the two share (a row off a sector boundary) is already in L1 and is not
  // requested again.
  bool l1_has_head = false;
  // Stores only: each row is written by warp store instructions of this many contiguous bytes from the
  // row's start (2-byte stores, lane = column: 64), each its own L2 request, so a sector two pieces share is
  // requested by both (the slices count it twice), each covering it in part. 0: the row in whole sectors.
  std::uint16_t piece_bytes = 0;
  // Stores in pieces only: the pieces start at the row's first multiple of `piece_align` bytes, and the bytes
  // before it (the head) and after the last whole multiple of it in the row (the tail) are pieces of their
  // own, as a kernel that writes a row's aligned middle in vectors and its ends element by element does.
  // 0: pieces from the row's start.
  std::uint16_t piece_align = 0;

  bool synchronous() const { return trip_bytes > 0; }
  // block() joins rows that touch end to end into one (rows 1, row_bytes a multiple of pitch): the rows as
  // the tensor has them, count and length.
  bool joined() const { return rows == 1 && row_bytes > pitch; }
  std::uint64_t tensor_rows() const { return joined() ? row_bytes / pitch : rows; }
  std::uint64_t tensor_row_bytes() const { return joined() ? pitch : row_bytes; }
  std::uint64_t bytes() const { return std::uint64_t{rows} * row_bytes; }
  // 32-byte (or `sector_bytes`) sectors touched, per piece when the rows are stored in pieces: what L2
  // counts for this request.
  std::uint64_t sectors(std::uint32_t sector_bytes) const;
  // Whether every piece starts and ends on a boundary of `sector_bytes` sectors, so that the pieces request
  // exactly the sectors of the whole rows (sector-aligned rows, pieces a whole number of sectors).
  bool pieces_whole_sectors(std::uint32_t sector_bytes) const {
    const std::uint64_t s = sector_bytes;
    return address % s == 0 && tensor_row_bytes() % s == 0 && (tensor_rows() == 1 || pitch % s == 0) &&
           piece_bytes % s == 0 && (piece_align == 0 || s % piece_align == 0);
  }
  // Calls piece(first byte, end byte) for each piece of each row (piece_bytes > 0), rows in order.
  template <typename F>
  void for_each_piece(F&& piece) const {
    const std::uint64_t n_rows = tensor_rows(), bytes = tensor_row_bytes();
    for (std::uint64_t r = 0; r < n_rows; ++r) {
      const std::uint64_t lo = address + r * pitch, end = lo + bytes;
      std::uint64_t body = lo, body_end = end;
      if (piece_align > 0) {
        body = std::min(end, (lo + piece_align - 1) / piece_align * piece_align);
        body_end = std::max(body, end / piece_align * piece_align);
        if (body > lo) piece(lo, body);
      }
      for (std::uint64_t a = body; a < body_end; a += piece_bytes)
        piece(a, std::min<std::uint64_t>(a + piece_bytes, body_end));
      if (body_end < end) piece(body_end, end);
    }
  }
};

inline constexpr int kMaxLoadsPerStep = 8;   // the causal softmax loads each of its 8 rows up to its diagonal
inline constexpr int kMaxStoresPerStep = 4;  // tiled_bwd's last step: two dQ accumulator tiles, dK, dV

struct CtaStep {
  int record = 0;  // index into CtaProgram::records that this step's bytes and time belong to
  std::array<BlockAccess, kMaxLoadsPerStep> loads{};
  int load_count = 0;
  // Stores, from registers (or staged in shared memory) to global memory. The tiled backward's dQ
  // accumulation (red.global.add.f32) is a store too (BlockAccess::reduce): the reduction is done in L2; it
  // is not counted as an L2 write (the slices count reductions as op_red, apart from writes), it reads HBM
  // when the line is missing and writes HBM when the dirty line is evicted.
  std::array<BlockAccess, kMaxStoresPerStep> stores{};
  int store_count = 0;
  // The step's matrix-product FLOPs over its valid rows, keys and columns: what its record counts (the
  // attention FLOPs of a report).
  double flops = 0;
  // The work the warps issue, which sets the step's time. An MMA instruction computes a whole fragment, so
  // the kernels compute whole tiles: rows past Nq, keys past Nkv and the zero-filled tail of a reduction
  // slice cost as much as valid ones (the kernels mask the scores; they skip no MMA and no exponential).
  double tensor_flops = 0;       // matrix-product FLOPs issued on tensor cores
  double exps = 0;               // exponentials on the special-function units
  double fp32_ops = 0;           // other element-wise FP32 work (scale, max, sums, rescale)
  std::uint64_t smem_read = 0;   // bytes read from shared memory (ldmatrix)
  std::uint64_t smem_write = 0;  // bytes written to shared memory (cp.async fills)
};

// Identity of a per-tile record (see TileRecord).
struct RecordKey {
  int batch = 0;
  int head = 0;
  int q_tile = 0;
  int kv_tile = 0;
};

struct CtaProgram {
  std::int64_t cta = 0;        // launch index among the launched CTAs
  std::vector<CtaStep> steps;  // steps first_step, first_step+1, ... (all of them unless a range was asked)
  std::vector<RecordKey> records;  // all of the CTA's records; left empty when first_step > 0
  int first_step = 0;              // index of steps[0] in the CTA's program
  int step_count = 0;              // steps in the whole program
};

class KernelDataflow {
 public:
  // Throws InvalidInput on a bad workload or tiling (same rules as check_config, without a GPU).
  KernelDataflow(KernelId id, const Workload& w, const TileConfig& tiles, const TileWindow& window = {});

  KernelId id() const { return id_; }
  const Workload& workload() const { return w_; }
  const TileConfig& tiles() const { return t_; }
  const AddressMap& addresses() const { return map_; }
  std::int64_t cta_count() const { return cta_count_; }  // CTAs launched (inside the window)
  int threads_per_cta() const { return threads_; }
  int pipeline_stages() const { return stages_; }  // 1 = no overlap of loads with math
  // How the step's math runs: the mma.sync kernels as per-warp chains sharing the SM's pipes; the Hopper
  // kernel as warpgroups issuing wgmma, its softmax after (serial) or beside (overlap) the GEMMs; the tiled
  // backward as phases of the whole CTA (cta_phases): its warps, in step through the step's barriers, read
  // their operands from shared memory, run the products, recompute P: each phase on its SM pipe, one after
  // the other.
  enum class MathModel : std::uint8_t { warp_chain, warpgroup_serial, warpgroup_overlap, cta_phases };
  // What this kernel does for this workload that the model leaves out and that the counters show moves its
  // numbers (naive.qk's rows stored 2 bytes a lane); empty when nothing is known.
  std::string not_modeled() const;
  MathModel math_model() const { return math_; }
  std::int64_t smem_per_cta() const { return smem_; }  // bytes of the CTA's SharedStorage
  int estimated_registers_per_thread() const;          // for occupancy, when not told the real number
  std::int64_t max_records() const;  // upper bound of records over all CTAs (to reserve storage)

  // Fills `out` with CTA `cta` (0 <= cta < cta_count(), launch order); reuses out's storage. With a range,
  // only steps [first_step, first_step + max_steps) are generated (step_count is always the whole program's;
  // records come only with a range from step 0):
  // the timing model holds a few steps of each of thousands of CTAs in flight, not whole programs.
  void program(std::int64_t cta, CtaProgram& out, int first_step = 0, int max_steps = -1) const;
  // The persistent Hopper kernel (vocab::HopperConfig::persistent): `ctas` CTAs, one per SM, each walking
  // tiles of the grid above (the CTAs of program()) in vocab::hopper_persistent_tile's order. Its program is
  // its tiles' programs one after the other: the K/V ring runs on from one tile into the next, so the next
  // tile's Q, K and V are copied while the current one finishes. Records: each tile's, in that order.
  bool persistent() const { return id_ == KernelId::hopper && t_.hopper_persistent; }
  void persistent_program(std::int64_t ctas, std::int64_t cta, CtaProgram& out, int first_step = 0,
                          int max_steps = -1) const;

 private:
  struct Grid {  // the launched part of the grid: [begin, end) per dimension, x fastest
    std::int64_t x0, x1, y0, y1, z0, z1;
  };
  // The steps of a program that program() was asked for: [first, first + limit) of its `count` steps.
  struct StepRange {
    int first = 0;
    int limit = 0;
    int begin(int count) const { return std::min(first, count); }
    int end(int count) const { return count - begin(count) <= limit ? count : begin(count) + limit; }
  };
  void tiled_program(std::int64_t x, std::int64_t y, std::int64_t z, StepRange range, CtaProgram& out) const;
  void qk_program(std::int64_t group, std::int64_t m_block, std::int64_t slice, StepRange range,
                  CtaProgram& out) const;
  void softmax_program(std::int64_t x, std::int64_t y, StepRange range, CtaProgram& out) const;
  void pv_program(std::int64_t x, std::int64_t y, StepRange range, CtaProgram& out) const;
  void bwd_row_program(std::int64_t row_block, std::int64_t slice, StepRange range, CtaProgram& out) const;
  void tiled_bwd_program(std::int64_t kv_tile, std::int64_t h, std::int64_t b, StepRange range,
                         CtaProgram& out) const;
  void bwd_gemm_program(std::int64_t column_block, std::int64_t row_block, std::int64_t slice,
                        StepRange range, CtaProgram& out) const;
  void bwd_ds_program(std::int64_t row_block, std::int64_t slice, StepRange range, CtaProgram& out) const;
  void backward_grid();  // grid_, warps_, threads_ and stages_ of a backward kernel (dataflow_backward.cpp)
  // The Hopper kernel (dataflow_hopper.cpp): its grid, threads and ring, and the program of q tile `q_tile`.
  void hopper_grid();
  void hopper_program(std::int64_t q_tile, std::int64_t h, std::int64_t b, StepRange range,
                      CtaProgram& out) const;
  BlockAccess hopper_o_block(std::int64_t cta) const;  // the O tile that CTA `cta` of the grid stores
  int hopper_step_count(std::int64_t cta) const;  // steps of CTA `cta`'s program (program(cta).step_count)
  // CTA `cta`'s place in the launched grid (x fastest).
  void grid_coords(std::int64_t cta, std::int64_t& x, std::int64_t& y, std::int64_t& z) const;
  int kv_step_begin() const;
  int kv_step_end(int available) const;

  KernelId id_;
  Workload w_;
  TileConfig t_;
  TileWindow window_;
  AddressMap map_;
  Grid grid_{};
  std::int64_t cta_count_ = 0;
  int warps_ = 0;
  int threads_ = 0;
  int stages_ = 1;
  std::int64_t smem_ = 0;
  MathModel math_ = MathModel::warp_chain;
  std::int64_t qk_column_end_ = 0;  // naive.qk: end of the window's column blocks
  vocab::TiledBwdConfig bwd_{};     // the tiled backward's tile (TileConfig::tiled_bwd at the head dim)
};

// A range of tiles [first, end).
struct TileRange {
  int first = 0;
  int end = 0;
  int count() const { return end > first ? end - first : 0; }
};

// The q tiles (steps) kv tile `kv_tile` of tiled_bwd visits: from vocab::bwd_first_q_tile to
// vocab::bwd_end_q_tile (the last q tile under a sliding window, else all).
TileRange tiled_bwd_q_tile_range(const Workload& w, const TileConfig& tiles, int kv_tile);
int tiled_bwd_q_tiles_visited(const Workload& w, const TileConfig& tiles, int kv_tile);

// The kv tiles [0, n) q tile `q_tile` of the Hopper kernel visits (vocab::hopper_visible_kv_tiles).
int hopper_kv_tiles_visited(const Workload& w, const TileConfig& tiles, int q_tile);

// The kv tiles q-tile `q_tile` of the tiled kernel visits: all of them without a mask; causal stops at the
// diagonal (none when no row of the tile sees a key); a sliding window also starts at the tile holding the
// first row's first key.
TileRange tiled_kv_tile_range(const Workload& w, const TileConfig& tiles, int q_tile);
int tiled_kv_tiles_visited(const Workload& w, const TileConfig& tiles, int q_tile);

// The bytes a kernel requests in a tile window, summed over its CTA programs, without a cache: l2_read and
// l2_write count every sector requested (what lts__t_sectors_srcunit_tex_op_{read,write} count), hbm_* equal
// them (what HBM would see with no reuse in L2), smem_* the shared-memory bytes; l2_hit = 0.
LevelBytes expected_bytes(KernelId k, const Workload& w, const TileConfig& tiles,
                          const TileWindow& window = {}, std::uint32_t sector_bytes = 32);

}  // namespace attnscope::sim
