// SPDX-License-Identifier: Apache-2.0
// The Hopper forward's CTA program (kernels/src/hopper_kernel.cuh, docs/hopper-kernel.md, docs/dataflow.md):
// one CTA per (q tile, head, batch), the last q tile launched first. Its producer warpgroup copies the Q tile
// once and K_j, V_j of every visible kv tile into a `stages`-slot ring, each a whole-tile bulk tensor copy
// from L2 straight into shared memory (no L1); its consumer warpgroups run S = Q K_j^T and O += P V_j as
// wgmma with Q, K_j and V_j read from shared memory and P from registers, the online softmax between them,
// and store O and LSE once at the end. Grid, shared memory and tile counts are the vocabulary's
// (vocab::hopper_*).
#include <algorithm>
#include <limits>
#include <string>

#include "attnscope/sim/dataflow.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/vocab/geometry.hpp"
#include "attnscope/vocab/metric.hpp"
#include "dataflow_blocks.hpp"

namespace attnscope::sim {

using detail::block;

int hopper_kv_tiles_visited(const Workload& w, const TileConfig& t, int q_tile) {
  return static_cast<int>(
      vocab::hopper_visible_kv_tiles(t.hopper(), w.seq_q, w.seq_kv, vocab::mask_of(w.causal), q_tile));
}

void KernelDataflow::hopper_grid() {
  const vocab::HopperConfig c = t_.hopper();
  const vocab::Dim3 g = vocab::hopper_grid(c, w_.seq_q, w_.heads, w_.batch);
  grid_ = {0, g.x, 0, g.y, 0, g.z};
  threads_ = vocab::hopper_threads_per_cta(c);
  warps_ = threads_ / vocab::kWarpThreads;
  // The overlapped schedule keeps V_j's slot while it computes S_{j+1} (the P V GEMM of tile j is still in
  // flight), so the producer runs one tile less ahead than the ring is deep: with 2 slots nothing is
  // prefetched (docs/hopper-kernel.md: overlap at stages 2 was slower than serial, stages 3 fixed it).
  // The persistent kernel releases a slot's K once the S GEMM that read it is done, apart from its V, so the
  // next K is copied while V_j is still read: the whole ring runs ahead.
  stages_ = std::max(1, c.stages - (c.overlap && !c.persistent ? 1 : 0));
  // The overlapped schedule runs a consumer's softmax beside its own P V, as the wgmma_overlap microbenchmark
  // does (GpuSpec::wgmma_exp_hidden). With ping-pong, in either schedule, the consumers take turns on the
  // tensor cores and the measured kernel hides about none of it: serial ping-pong gained nothing over serial
  // (H200, 2026-12-03, d 64: 376.7 against 387.0 TFLOP/s), and the overlapped ping-pong kernel ran as the
  // serial model times it (H100, 2026-12-07: 18 fresh shapes,
  // docs/lab-notebook/2026-12-07-fresh-backward-and-device-requests.md): timed as serial, with the overlapped
  // ring depth above.
  math_ = c.overlap && !c.pingpong ? MathModel::warpgroup_overlap : MathModel::warpgroup_serial;
}

// Launch index x runs q tiles from the last one down (the kernel's q_tile = gridDim.x - 1 - blockIdx.x):
// under the causal mask the longest CTAs start first. The caller passes the launch index; the L2 sees the
// loads in this order.
void KernelDataflow::hopper_program(std::int64_t x, std::int64_t h, std::int64_t b, StepRange range,
                                    CtaProgram& out) const {
  const vocab::HopperConfig c = t_.hopper();
  const std::int64_t q = vocab::hopper_q_tiles(c, w_.seq_q) - 1 - x;
  const std::int64_t e = bytes_of(w_.dtype), d = w_.head_dim;
  const std::int64_t r0 = q * c.br, rows = std::min(r0 + c.br, w_.seq_q) - r0;
  const int steps = hopper_kv_tiles_visited(w_, t_, static_cast<int>(q));
  // A bulk tensor copy zero-fills the box rows past the end of a head instead of reading them: only the
  // head's own rows are requested from L2, but the whole box lands in shared memory.
  const BlockAccess q_block =
      block(Tensor::q, map_.address(Tensor::q, b, h, r0, 0), rows, d * e, map_.row_pitch(Tensor::q));
  const BlockAccess o_block =
      block(Tensor::o, map_.address(Tensor::o, b, h, r0, 0), rows, d * e, map_.row_pitch(Tensor::o));
  const BlockAccess lse_block = block(Tensor::lse, map_.address(Tensor::lse, b, h, r0, 0), 1, rows * 4,
                                      static_cast<std::uint64_t>(rows * 4));
  const auto q_box = static_cast<std::uint64_t>(vocab::hopper_tile_bytes(c.br, d, w_.dtype));
  const auto kv_box = static_cast<std::uint64_t>(vocab::hopper_tile_bytes(c.bc, d, w_.dtype));
  const auto key = [&](int kv) {
    return RecordKey{static_cast<int>(b), static_cast<int>(h), static_cast<int>(q), kv};
  };
  if (steps == 0) {
    // No row of the tile sees a key (causal, Nq > Nkv): the consumers store O = 0 and LSE = -inf.
    out.records.push_back(key(0));
    out.step_count = 1;
    if (range.begin(1) == range.end(1)) return;
    CtaStep& s = out.steps.emplace_back();
    s.smem_write = q_box;  // O = 0 staged through the Q buffer, as after a kv loop
    s.stores[0] = o_block;
    s.stores[1] = lse_block;
    s.store_count = 2;
    return;
  }
  out.step_count = steps;
  if (range.first == 0) {
    out.records.reserve(static_cast<std::size_t>(steps));
    for (int j = 0; j < steps; ++j) out.records.push_back(key(j));
  }
  const int first = range.begin(steps), last = range.end(steps);
  out.steps.reserve(static_cast<std::size_t>(last - first));
  for (int j = first; j < last; ++j) {
    const std::int64_t c0 = std::int64_t{j} * c.bc, cols = std::min(c0 + c.bc, w_.seq_kv) - c0;
    CtaStep& s = out.steps.emplace_back();
    s.record = j;
    if (j == 0) s.loads[s.load_count++] = q_block;
    s.loads[s.load_count++] =
        block(Tensor::k, map_.address(Tensor::k, b, h, c0, 0), cols, d * e, map_.row_pitch(Tensor::k));
    s.loads[s.load_count++] =
        block(Tensor::v, map_.address(Tensor::v, b, h, c0, 0), cols, d * e, map_.row_pitch(Tensor::v));
    // Shared-memory writes as the counters define them (vocab smem_write): the bytes the bulk copies bring
    // from L2 (the box rows past the end of a head are zero-filled, not read, and not counted), and at the
    // end the consumers' stores of O into the Q buffer, whole tiles, before the bulk copies store it.
    s.smem_write = s.loads[s.load_count - 2].bytes() + s.loads[s.load_count - 1].bytes() +
                   (j == 0 ? q_block.bytes() : 0);
    // The overlapped schedule's ordering store (hopper::store_before_wait): lane 0 of every consumer warp
    // stores one word after the softmax of tile j >= 1, one wavefront each as the counter counts them.
    if (c.overlap && j >= 1)
      s.smem_write += static_cast<std::uint64_t>(4 * c.consumers * vocab::kSharedWavefrontBytes);
    // wgmma reads its shared-memory operands once per warpgroup: each consumer its own 64 rows of Q and all
    // of K_j for S, all of V_j for P V (P is the register operand). Q is re-read every step (it is never
    // held in registers).
    s.smem_read = q_box + 2 * static_cast<std::uint64_t>(c.consumers) * kv_box;
    s.flops = 4.0 * static_cast<double>(rows * cols * d);  // S = Q K^T and O += P V
    // Issued: every consumer runs its wgmma on its 64 rows and all Bc keys, whatever lies past Nq or Nkv
    // (the rows are zero-filled, the keys masked); a consumer whose rows all lie past Nq computes too.
    const auto rc = static_cast<double>(c.br * c.bc);
    s.tensor_flops = 4.0 * rc * static_cast<double>(d);
    s.exps = rc;
    s.fp32_ops = 4.0 * rc + 2.0 * static_cast<double>(c.br * d);  // scale/max/sum per score, rescale O
    if (j == steps - 1) {
      s.smem_write += q_box;  // O staged through the Q buffer
      s.stores[0] = o_block;  // by bulk tensor copies; rows past Nq clipped by the tensor map
      s.stores[1] = lse_block;
      s.store_count = 2;
    }
  }
}

BlockAccess KernelDataflow::hopper_o_block(std::int64_t cta) const {
  const vocab::HopperConfig c = t_.hopper();
  std::int64_t x = 0, h = 0, b = 0;
  grid_coords(cta, x, h, b);
  const std::int64_t q = vocab::hopper_q_tiles(c, w_.seq_q) - 1 - x;
  const std::int64_t r0 = q * c.br, rows = std::min(r0 + c.br, w_.seq_q) - r0;
  return block(Tensor::o, map_.address(Tensor::o, b, h, r0, 0), rows, w_.head_dim * bytes_of(w_.dtype),
               map_.row_pitch(Tensor::o));
}

int KernelDataflow::hopper_step_count(std::int64_t cta) const {
  std::int64_t x = 0, h = 0, b = 0;
  grid_coords(cta, x, h, b);
  // hopper_program's count: one step per visible kv tile, one (O = 0 stored) when none is visible.
  return std::max(1, hopper_kv_tiles_visited(
                         w_, t_, static_cast<int>(vocab::hopper_q_tiles(t_.hopper(), w_.seq_q) - 1 - x)));
}

void KernelDataflow::persistent_program(std::int64_t ctas, std::int64_t cta, CtaProgram& out, int first_step,
                                        int max_steps) const {
  constexpr int kAll = std::numeric_limits<int>::max();
  const std::int64_t tiles = cta_count_;
  const int first = std::max(0, first_step);
  const int limit = max_steps < 0 ? kAll : max_steps;
  out.cta = cta;
  out.steps.clear();
  out.records.clear();
  out.first_step = first;
  out.step_count = 0;
  CtaProgram tile;
  int offset = 0;  // the tile's first step (= its first record) in the CTA's program
  // The producer stores a tile's O (left by the consumers in the tile's Q buffer) when it comes to copy the Q
  // of the tile after next into that buffer: about when the next tile's last loads are issued. Here: at the
  // next tile's last step; the CTA's last tile stores its own there too (the producer stores the last two at
  // the end). LSE leaves from the consumers' registers at the tile's end, as before.
  std::int64_t previous = -1;  // the CTA's tile before this one
  std::int64_t last = -1;      // and its last one
  for (std::int64_t round = 0; round * ctas < tiles; ++round)
    if (const std::int64_t t = vocab::hopper_persistent_tile(cta, round, ctas); t < tiles) last = t;
  for (std::int64_t round = 0; round * ctas < tiles; ++round) {
    const std::int64_t t = vocab::hopper_persistent_tile(cta, round, ctas);
    if (t >= tiles) continue;
    // The next step wanted (global index) and how many more fit in the window.
    const int next = first + static_cast<int>(out.steps.size());
    const int room = limit == kAll ? kAll : first + limit - next;
    const int local = std::max(0, next - offset);
    // A tile with none of the wanted steps and no records wanted: only its step count (the engine asks for
    // windows of a few steps, the CTA of a long sequence runs thousands).
    if (first > 0) {
      const int steps = hopper_step_count(t);
      if (room <= 0 || offset + steps <= next) {
        offset += steps;
        previous = t;
        continue;
      }
    }
    // Records come with a tile's step 0 only: ask from step 0 (with no room: records alone) when the CTA's
    // records are wanted.
    if (first == 0 && (local == 0 || room <= 0))
      program(t, tile, 0, local == 0 ? std::max(room, 0) : 0);
    else
      program(t, tile, room > 0 ? local : kAll, std::max(room, 0));
    if (first == 0)
      for (const RecordKey& k : tile.records) out.records.push_back(k);
    for (CtaStep& st : tile.steps) {
      if (st.record == tile.step_count - 1) {  // the tile's last step: its O store moves (see above)
        int kept = 0;
        for (int i = 0; i < st.store_count; ++i)
          if (st.stores[static_cast<std::size_t>(i)].tensor != Tensor::o)
            st.stores[static_cast<std::size_t>(kept++)] = st.stores[static_cast<std::size_t>(i)];
        st.store_count = kept;
        if (previous >= 0) st.stores[static_cast<std::size_t>(st.store_count++)] = hopper_o_block(previous);
        if (t == last) st.stores[static_cast<std::size_t>(st.store_count++)] = hopper_o_block(t);
      }
      st.record += offset;
      out.steps.push_back(st);
    }
    offset += tile.step_count;
    previous = t;
  }
  out.step_count = offset;
}

}  // namespace attnscope::sim
