// SPDX-License-Identifier: Apache-2.0
// Covers the backward pass in the model: vocab/kernel.hpp's ids and passes, sim/src/dataflow_backward.cpp
// (CTA programs against docs/dataflow.md, "Backward pass"), per-pass totals (simulate.cpp) and the HBM a
// workload holds (memory_footprint.cpp). Byte counts are closed forms of the dataflow contract, checked
// through expected_bytes (every sector requested, no cache).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "attnscope/sim/address_map.hpp"
#include "attnscope/sim/dataflow.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/memory_footprint.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/sim/tiling_rules.hpp"
#include "attnscope/vocab/backward.hpp"
#include "attnscope/vocab/geometry.hpp"

namespace attnscope::sim {
namespace {

using ::testing::HasSubstr;
using u64 = std::uint64_t;

Workload shape(std::int64_t b, std::int64_t h, std::int64_t nq, std::int64_t nkv, std::int64_t d,
               bool causal = false, Pass pass = Pass::bwd) {
  Workload w;
  w.batch = b;
  w.heads = h;
  w.seq_q = nq;
  w.seq_kv = nkv;
  w.head_dim = d;
  w.dtype = DType::fp16;
  w.causal = causal;
  w.pass = pass;
  return w;
}

u64 count(std::int64_t v) {
  return static_cast<u64>(v);
}

TEST(Backward, KernelNamesPassesAndLaunchOrder) {
  const std::vector<std::pair<KernelId, std::string_view>> names = {
      {KernelId::tiled_bwd_pre, "tiled_bwd.pre"},   {KernelId::tiled_bwd, "tiled_bwd"},
      {KernelId::tiled_bwd_post, "tiled_bwd.post"}, {KernelId::naive_bwd_dv, "naive_bwd.dv"},
      {KernelId::naive_bwd_dp, "naive_bwd.dp"},     {KernelId::naive_bwd_ds, "naive_bwd.ds"},
      {KernelId::naive_bwd_dq, "naive_bwd.dq"},     {KernelId::naive_bwd_dk, "naive_bwd.dk"}};
  for (const auto& [id, name] : names) {
    EXPECT_EQ(to_string(id), name);
    EXPECT_EQ(parse_kernel_id(name), id);
    EXPECT_EQ(pass_of(id), Pass::bwd) << name;
    EXPECT_EQ(vocab::kind_of(id), name.substr(0, 5) == "tiled" ? KernelKind::tiled : KernelKind::naive);
  }
  EXPECT_EQ(pass_of(KernelId::naive_pv), Pass::fwd);
  EXPECT_EQ(vocab::parse_pass("both"), Pass::both);
  EXPECT_FALSE(vocab::parse_pass("backward").has_value());

  using K = KernelId;
  EXPECT_EQ(kernels_of(KernelKind::tiled), (std::vector<K>{K::tiled}));
  EXPECT_EQ(kernels_of(KernelKind::tiled, Pass::bwd),
            (std::vector<K>{K::tiled_bwd_pre, K::tiled_bwd, K::tiled_bwd_post}));
  EXPECT_EQ(kernels_of(KernelKind::tiled, Pass::both),
            (std::vector<K>{K::tiled, K::tiled_bwd_pre, K::tiled_bwd, K::tiled_bwd_post}));
  EXPECT_EQ(kernels_of(KernelKind::naive, Pass::both),
            (std::vector<K>{K::naive_qk, K::naive_softmax, K::naive_pv, K::naive_bwd_dv, K::naive_bwd_dp,
                            K::naive_bwd_ds, K::naive_bwd_dq, K::naive_bwd_dk}));
}

TEST(Backward, DefaultTileIsTheCompiledOnePerHeadDim) {
  const TileConfig t;
  EXPECT_EQ(t.tiled_bwd(64).bc, 128);
  EXPECT_EQ(t.tiled_bwd(64).br, 64);
  EXPECT_EQ(t.tiled_bwd(128).br, 64);
  EXPECT_EQ(t.tiled_bwd(128).stages, 2);
  // docs/dataflow.md's worked value: 99,328 B at d 64, default tile (two dS^T slots).
  const Workload w = shape(1, 32, 4096, 4096, 64);
  EXPECT_EQ(smem_bytes_per_cta(KernelId::tiled_bwd, w, t), 99328);
  const KernelDataflow flow(KernelId::tiled_bwd, w, t);
  EXPECT_EQ(flow.cta_count(), 32 * 32);
  EXPECT_EQ(flow.threads_per_cta(), 256);
  EXPECT_EQ(KernelDataflow(KernelId::tiled_bwd_pre, w, t).cta_count(), 128 * 32);
}

// tiled_bwd without a mask: K_j and V_j once per CTA; Q_i, dO_i [Br x d] and the padded LSE_i, D_i [Br] once
// per (CTA, q tile); the dQ accumulator [Br x d] fp32 once per (CTA, q tile), a reduction (not an L2 write:
// the slices count it as op_red) whose old value HBM supplies and whose line is written back; dK, dV once.
TEST(Backward, TiledBwdReadsKvOncePerCtaAndQTilesOncePerVisit) {
  const std::int64_t b = 2, h = 3, n = 512, d = 64, e = 2;
  const Workload w = shape(b, h, n, n, d);
  const TileConfig t;  // Bc 128, Br 64
  const std::int64_t bh = b * h, kv_tiles = n / 128, q_tiles = n / 64;
  const LevelBytes x = expected_bytes(KernelId::tiled_bwd, w, t);
  EXPECT_EQ(x.l2_read, count(bh * (2 * n * d * e + kv_tiles * q_tiles * (2 * 64 * d * e + 2 * 64 * 4))));
  EXPECT_EQ(x.l2_write, count(bh * 2 * n * d * e));
  EXPECT_EQ(x.hbm_read, x.l2_read + count(bh * kv_tiles * n * d * 4));
  EXPECT_EQ(x.hbm_write, x.l2_write + count(bh * kv_tiles * n * d * 4));
}

// The dQ accumulation is an atomic reduction done in L2, which needs each line's old value: a reduction into
// sectors L2 does not hold reads them from HBM first (Nsight Compute on the H200, Figure 2 shape: tiled_bwd
// read its loads plus the whole fp32 accumulator). Without reuse the closed form counts that read; with the
// cache, an accumulator twice the L2's size (zeroed by tiled_bwd.pre, mostly written back before tiled_bwd
// reads it) is read back at least by the part that cannot have stayed resident.
TEST(Backward, AccumulatorReductionsReadTheLinesL2Lacks) {
  const std::int64_t b = 1, h = 128, n = 4096, d = 64, e = 2;
  const Workload w = shape(b, h, n, n, d);
  const TileConfig t;
  const LevelBytes x = expected_bytes(KernelId::tiled_bwd, w, t);
  const u64 accumulator_requests = count(b * h * (n / 128) * n * d * 4);  // every kv tile adds its dQ share
  EXPECT_EQ(x.hbm_read, x.l2_read + accumulator_requests);
  EXPECT_EQ(x.hbm_write, x.l2_write + accumulator_requests);

  const GpuSpec gpu = load_gpu_spec("h200");
  const SimResult r = simulate(gpu, w, KernelKind::tiled, t);
  ASSERT_EQ(r.kernels.size(), 3u);
  const KernelResult& main = r.kernels[1];
  ASSERT_EQ(main.name, "tiled_bwd");
  const u64 loads = count(b * h * 4 * n * d * e);  // K, V, Q, dO at least once from HBM (cold)
  const u64 accumulator = count(b * h * n * d * 4);
  ASSERT_GT(accumulator, count(2 * gpu.l2_bytes));
  EXPECT_GE(main.totals.hbm_read, loads + accumulator - count(gpu.l2_bytes));
  EXPECT_LE(main.totals.hbm_read, x.hbm_read);
}

// Causal: kv tile j visits q tiles from vocab::bwd_first_q_tile on; in llm-4k with Bc 128, Br 64 that is
// 64 - 2j of them (docs/dataflow.md), and only those tiles' Q, dO, LSE and D are read.
TEST(Backward, CausalStepsStartAtTheFirstQTileThatSeesTheKvTile) {
  const Workload w = shape(1, 1, 4096, 4096, 64, true);
  const TileConfig t;
  const KernelDataflow flow(KernelId::tiled_bwd, w, t);
  CtaProgram p;
  std::int64_t visits = 0;
  for (int j = 0; j < 32; ++j) {
    EXPECT_EQ(tiled_bwd_q_tiles_visited(w, t, j), 64 - 2 * j);
    flow.program(j, p);
    EXPECT_EQ(p.step_count, 64 - 2 * j);
    ASSERT_EQ(p.records.size(), static_cast<std::size_t>(64 - 2 * j));
    EXPECT_EQ(p.records.front().q_tile, 2 * j);
    EXPECT_EQ(p.records.front().kv_tile, j);
    visits += 64 - 2 * j;
  }
  const LevelBytes x = expected_bytes(KernelId::tiled_bwd, w, t);
  EXPECT_EQ(x.l2_read, count(2 * 4096 * 64 * 2 + visits * (2 * 64 * 64 * 2 + 2 * 64 * 4)));
  // Nq < Nkv, bottom-right aligned: the last query row sees every key, so every kv tile has a step.
  const Workload tall = shape(1, 1, 100, 1000, 64, true);
  for (int j = 0; j < 8; ++j) EXPECT_GE(tiled_bwd_q_tiles_visited(tall, t, j), 1);
}

// A kv tile that no query sees (a sliding window far shorter than Nkv, Nq < Nkv) has no step, but the
// kernel's prologue copies its K and V before it knows that: every kv tile's K and V are read, once.
TEST(Backward, KvTilesNoQuerySeesStillLoadTheirKeysAndValues) {
  const std::int64_t nq = 256, nkv = 4096, d = 64, e = 2;
  Workload w = shape(1, 2, nq, nkv, d, true);
  w.window = 64;
  TileConfig t;
  t.set_tiled_bwd(vocab::general_mask_tiled_bwd_config());
  const std::int64_t bc = t.tiled_bwd(d).bc, tiles = nkv / bc;
  int empty = 0;
  for (int j = 0; j < tiles; ++j) empty += tiled_bwd_q_tiles_visited(w, t, j) == 0 ? 1 : 0;
  ASSERT_GT(empty, tiles / 2);  // the band of visible keys is the last Nq + window of them
  const LevelBytes x = expected_bytes(KernelId::tiled_bwd, w, t);
  const std::int64_t kv = 2 * 2 * nkv * d * e;  // K and V of both heads
  EXPECT_GE(x.l2_read, count(kv));
  EXPECT_LT(x.l2_read, count(kv + 2 * 2 * nq * d * e * 4));  // Q and dO of the few visited tiles on top
}

// naive_bwd.ds with rows of dS off 16-byte boundaries (Nkv % 8 != 0) stores them 2 bytes a lane, 64
// contiguous bytes per warp store, each its own request (as naive.qk's S): counted here store by store.
// Rows of P and dS off 16-byte boundaries (Nkv % 8 != 0), as naive_bwd.cu writes them: naive_bwd.ds stores
// a row's elements before its first 16-byte boundary (one 2-byte store, lanes on consecutive elements), the
// middle in 512-byte warp stores of 16-byte vectors, and the elements after the last boundary; naive_bwd.dp's
// epilogue stores 64 contiguous bytes per warp store. Each store is its own L2 request, so a sector two of
// them share is counted twice. Counted here from the addresses, row by row.
TEST(Backward, UnalignedNaiveRowsAreWrittenAsTheWarpsStoreThem) {
  const std::int64_t b = 1, h = 2, nq = 200, nkv = 301, d = 64, e = 2;
  const Workload w = shape(b, h, nq, nkv, d);
  const AddressMap map(w);
  const auto sectors_of = [](u64 lo, u64 hi) { return hi > lo ? (hi - 1) / 32 - lo / 32 + 1 : 0; };
  u64 ds_sectors = 0, dp_sectors = 0;
  for (std::int64_t bh = 0; bh < b * h; ++bh)
    for (std::int64_t row = 0; row < nq; ++row) {
      const u64 start = map.address(Tensor::ds, bh / h, bh % h, row, 0), end = start + u64(nkv * e);
      const u64 body = (start + 15) / 16 * 16, body_end = end / 16 * 16;
      ds_sectors += sectors_of(start, body) + sectors_of(body_end, end);
      for (u64 a = body; a < body_end; a += 512) ds_sectors += sectors_of(a, std::min(a + 512, body_end));
      for (u64 a = start; a < end; a += 64) dp_sectors += sectors_of(a, std::min(a + 64, end));
    }
  // Two sectors of every 64-byte piece that starts off a sector boundary: the dP stores ask for ~1.5x dP.
  ASSERT_GT(dp_sectors * 32, u64(b * h * nq * nkv * e) * 5 / 4);
  ASSERT_LT(ds_sectors, dp_sectors);  // the vectors' 512-byte pieces share fewer sectors
  ASSERT_GT(ds_sectors * 32, u64(b * h * nq * nkv * e));
  const TileConfig t;
  EXPECT_EQ(expected_bytes(KernelId::naive_bwd_ds, w, t).l2_write, ds_sectors * 32);
  EXPECT_EQ(expected_bytes(KernelId::naive_bwd_dp, w, t).l2_write, dp_sectors * 32);
  // What the model leaves out there is said, with the measurement that shows it.
  EXPECT_THAT(KernelDataflow(KernelId::naive_bwd_ds, w, t).not_modeled(), HasSubstr("ends"));
  EXPECT_THAT(KernelDataflow(KernelId::naive_bwd_dp, w, t).not_modeled(),
              HasSubstr("64 bytes per warp store"));
  // Rows a whole number of sectors long: the 512-byte stores cover whole sectors, dS and dP once each, and
  // nothing is left unmodeled.
  const Workload aligned = shape(b, h, nq, 304, d);
  EXPECT_EQ(expected_bytes(KernelId::naive_bwd_ds, aligned, t).l2_write, count(b * h * nq * 304 * e));
  EXPECT_EQ(expected_bytes(KernelId::naive_bwd_dp, aligned, t).l2_write, count(b * h * nq * 304 * e));
  EXPECT_TRUE(KernelDataflow(KernelId::naive_bwd_ds, aligned, t).not_modeled().empty());
  EXPECT_TRUE(KernelDataflow(KernelId::naive_bwd_dp, aligned, t).not_modeled().empty());
}

// A measurement of naive_bwd.ds or .dp on rows off 16-byte boundaries made before those paths changed is of
// the previous kernels; on aligned rows the code ran as it runs now.
TEST(Backward, UnalignedNaiveDsAndDpMeasuredBeforeTheirChangeAreThePreviousKernels) {
  const std::string_view before = "2026-12-07T13:34:19Z", after = "2026-12-08T00:00:00Z";
  for (const KernelId id : {KernelId::naive_bwd_ds, KernelId::naive_bwd_dp}) {
    EXPECT_LT(before, vocab::current_since(id, 1707)) << vocab::to_string(id);
    EXPECT_GT(after, vocab::current_since(id, 1707)) << vocab::to_string(id);
    EXPECT_EQ(vocab::current_since(id, 1704), "") << vocab::to_string(id);
  }
  EXPECT_EQ(vocab::current_since(KernelId::naive_bwd_dq, 1707), "");
}

// The GEMMs copy unaligned slices of P and dS (Nkv % 8 != 0) with the warps' own 2-byte loads
// (naive_bwd.cu, load_block): a thread takes chunks tid and tid + 256 of the slice, so a warp covers 512
// bytes per round trip, two rows of dV's and dK's [32 x 128] slice, eight rows of dQ's [128 x 32] slice
// (whose pieces continue the previous step's: the sector they share is in L1). Aligned rows go by cp.async.
TEST(Backward, UnalignedGemmSlicesAreTheWarpsOwnRoundTrips) {
  const TileConfig t;
  const Workload unaligned = shape(1, 2, 300, 301, 64), aligned = shape(1, 2, 300, 304, 64);
  CtaProgram p;
  KernelDataflow(KernelId::naive_bwd_dv, unaligned, t).program(0, p);
  ASSERT_GE(p.steps.size(), 2u);
  const BlockAccess& dv = p.steps[0].loads[0];
  EXPECT_EQ(dv.tensor, Tensor::s);
  EXPECT_EQ(dv.trip_bytes, 128 * 2);
  EXPECT_EQ(dv.warp_rows, 4);
  EXPECT_EQ(dv.rows_per_trip, 2);
  EXPECT_FALSE(p.steps[1].loads[0].l1_has_head);
  EXPECT_FALSE(p.steps[0].loads[1].synchronous());  // dO: cp.async
  KernelDataflow(KernelId::naive_bwd_dq, unaligned, t).program(0, p);
  ASSERT_GE(p.steps.size(), 2u);
  const BlockAccess& dq = p.steps[0].loads[0];
  EXPECT_EQ(dq.tensor, Tensor::ds);
  EXPECT_EQ(dq.trip_bytes, 32 * 2);
  EXPECT_EQ(dq.warp_rows, 16);
  EXPECT_EQ(dq.rows_per_trip, 8);
  EXPECT_FALSE(dq.l1_has_head);
  EXPECT_TRUE(p.steps[1].loads[0].l1_has_head);
  for (const KernelId id : {KernelId::naive_bwd_dv, KernelId::naive_bwd_dq, KernelId::naive_bwd_dk}) {
    KernelDataflow(id, aligned, t).program(0, p);
    EXPECT_FALSE(p.steps[0].loads[0].synchronous()) << vocab::to_string(id);
  }
  // The round trips cost time: the unaligned GEMMs take longer than the aligned ones, which have 1 % more
  // keys.
  const GpuSpec gpu = load_gpu_spec("h200");
  const SimResult slow = simulate(gpu, unaligned, KernelKind::naive, t);
  const SimResult fast = simulate(gpu, aligned, KernelKind::naive, t);
  ASSERT_EQ(slow.kernels.size(), fast.kernels.size());
  for (std::size_t i = 0; i < slow.kernels.size(); ++i) {
    const std::string& n = slow.kernels[i].name;
    if (n == "naive_bwd.dv" || n == "naive_bwd.dq" || n == "naive_bwd.dk") {
      EXPECT_GT(slow.kernels[i].time_s, 1.1 * fast.kernels[i].time_s) << n;
    }
  }
}

TEST(Backward, PreAndPostTouchEachRowOnce) {
  const std::int64_t b = 1, h = 2, n = 1000, d = 128, e = 2;  // d 128: Br 64, P = 1024 padded rows
  const Workload w = shape(b, h, n, n, d);
  const TileConfig t;
  const std::int64_t padded = vocab::tiled_bwd_padded_rows(t.tiled_bwd(d), n);
  ASSERT_EQ(padded, 1024);
  const LevelBytes pre = expected_bytes(KernelId::tiled_bwd_pre, w, t);
  EXPECT_EQ(pre.l2_read, count(b * h * (2 * n * d * e + n * 4)));        // O, dO, LSE
  EXPECT_EQ(pre.l2_write, count(b * h * (n * d * 4 + 2 * padded * 4)));  // accumulator, D, LSE*log2e
  // D and LSE*log2e through shared memory, in wavefronts: each of the CTA's 8 warps stores two (4 lanes
  // or fewer active), and at d 128 (16 rows per CTA) warp 0 reads both vectors back: two wavefronts.
  const std::int64_t ctas = b * h * padded / 16;
  EXPECT_EQ(pre.smem_write, count(ctas * 8 * 2 * 128));
  EXPECT_EQ(pre.smem_read, count(ctas * 2 * 128));
  const LevelBytes post = expected_bytes(KernelId::tiled_bwd_post, w, t);
  EXPECT_EQ(post.l2_read, count(b * h * n * d * 4));
  EXPECT_EQ(post.l2_write, count(b * h * n * d * e));
}

// naive_bwd: each GEMM reads its N x N operand once and its d-wide operand once per CTA row (or column)
// block; naive_bwd.dp writes exactly B*H*Nq*Nkv*e; naive_bwd.ds reads P and dP and writes dS, one pass each.
TEST(Backward, NaiveBackwardBytesAreItsMatrixPasses) {
  const std::int64_t b = 1, h = 2, nq = 512, nkv = 384, d = 64, e = 2;
  const Workload w = shape(b, h, nq, nkv, d);
  const TileConfig t;
  const std::int64_t bh = b * h, matrix = bh * nq * nkv * e;
  const LevelBytes dv = expected_bytes(KernelId::naive_bwd_dv, w, t);
  EXPECT_EQ(dv.l2_read, count(matrix + (nkv / 128) * bh * nq * d * e));  // P once, dO per row block of dV
  EXPECT_EQ(dv.l2_write, count(bh * nkv * d * e));
  const LevelBytes dp = expected_bytes(KernelId::naive_bwd_dp, w, t);
  EXPECT_EQ(dp.l2_write, count(matrix));
  EXPECT_EQ(dp.l2_read, count((nkv / 128) * bh * nq * d * e + (nq / 128) * bh * nkv * d * e));
  const LevelBytes ds = expected_bytes(KernelId::naive_bwd_ds, w, t);
  EXPECT_EQ(ds.l2_read, count(2 * matrix + 2 * bh * nq * d * e));  // P, dP; O and dO for D
  EXPECT_EQ(ds.l2_write, count(matrix));
  const LevelBytes dq = expected_bytes(KernelId::naive_bwd_dq, w, t);
  EXPECT_EQ(dq.l2_read, count(matrix + (nq / 128) * bh * nkv * d * e));
  EXPECT_EQ(dq.l2_write, count(bh * nq * d * e));
  const LevelBytes dk = expected_bytes(KernelId::naive_bwd_dk, w, t);
  EXPECT_EQ(dk.l2_read, count(matrix + (nkv / 128) * bh * nq * d * e));
  EXPECT_EQ(dk.l2_write, count(bh * nkv * d * e));
}

// The tiled backward computes five products of 2*Nq*Nkv*d (S recomputed, dP, dV, dK, dQ): the 2.5 x forward
// the FLOPs convention counts. The naive backward computes four (P was stored by the forward).
TEST(Backward, TensorFlopsAreFiveProductsTiledAndFourNaive) {
  const Workload w = shape(1, 2, 256, 256, 64);
  const double product = 2.0 * 2 * 256 * 256 * 64;
  SimOptions o;
  o.record_tiles = false;
  const GpuSpec gpu = load_gpu_spec("h200");
  EXPECT_DOUBLE_EQ(simulate(gpu, w, KernelKind::tiled, TileConfig{}, o).flops, 5.0 * product);
  EXPECT_DOUBLE_EQ(simulate(gpu, w, KernelKind::naive, TileConfig{}, o).flops, 4.0 * product);
  EXPECT_DOUBLE_EQ(w.flops(), 2.5 * 2.0 * product);
}

// A training step is the forward, then the backward, in one L2: the forward's share equals a forward-only
// simulation (same addresses, same cold start), and the passes add up to the step.
TEST(Backward, TrainingStepIsForwardThenBackward) {
  const GpuSpec gpu = load_gpu_spec("h200");
  const TileConfig t;
  for (KernelKind kind : {KernelKind::naive, KernelKind::tiled}) {
    const SimResult fwd = simulate(gpu, shape(1, 4, 512, 512, 64, true, Pass::fwd), kind, t);
    const SimResult step = simulate(gpu, shape(1, 4, 512, 512, 64, true, Pass::both), kind, t);
    EXPECT_EQ(step.forward.bytes, fwd.totals) << to_string(kind);
    EXPECT_EQ(step.forward.kernels, static_cast<int>(fwd.kernels.size()));
    EXPECT_EQ(step.backward.kernels, kind == KernelKind::tiled ? 3 : 5);
    EXPECT_EQ(step.forward.bytes + step.backward.bytes, step.totals);
    EXPECT_DOUBLE_EQ(step.forward.time_s + step.backward.time_s, step.time_s);
    LevelBytes from_tiles;
    for (const KernelResult& k : step.kernels)
      for (const TileRecord& r : k.tiles) from_tiles += r.bytes;
    EXPECT_EQ(from_tiles, step.totals) << "per-tile records sum to the totals";
  }
}

// Without L2 reuse every request reaches HBM: the step's HBM bytes are the closed-form requests of its
// kernels, and the naive step's include 11 passes over a [B, H, Nq, Nkv] matrix: forward S written, read
// and P written (rows held in shared memory), P read; backward P read twice, dP written and read, dS
// written and read twice.
TEST(Backward, NaiveTrainingStepWithoutReuseMovesElevenMatrixPasses) {
  const Workload w = shape(1, 2, 512, 512, 64, false, Pass::both);
  const TileConfig t;
  SimOptions o;
  o.l2_reuse = false;
  o.record_tiles = false;
  const SimResult r = simulate(load_gpu_spec("h200"), w, KernelKind::naive, t, o);
  u64 requested = 0;
  for (KernelId k : kernels_of(KernelKind::naive, Pass::both)) {
    const LevelBytes x = expected_bytes(k, w, t);
    requested += x.l2_read + x.l2_write;
  }
  const u64 hbm = r.totals.hbm_read + r.totals.hbm_write;
  EXPECT_EQ(hbm, requested);
  EXPECT_GE(hbm, 11 * u64{2 * 512 * 512 * 2});
}

TEST(Backward, NaiveTrainingStepAt128kTokensIsRefusedWithWhatItNeeds) {
  const Workload w = shape(1, 8, 131072, 131072, 128, false, Pass::both);
  const GpuSpec gpu = load_gpu_spec("h200");
  ASSERT_EQ(gpu.hbm_capacity_bytes, 141'000'000'000);
  const MemoryFootprint f = memory_footprint(w, KernelKind::naive, TileConfig{});
  EXPECT_EQ(f.scratch, vocab::naive_bwd_scratch_bytes(1, 8, 131072, 131072, DType::fp16));
  EXPECT_EQ(f.tensors, std::int64_t{8} * (4 * 131072 + 4 * 131072) * 128 * 2 + 8 * 131072 * 4);
  try {
    check_config(gpu, w, KernelKind::naive, TileConfig{});
    FAIL() << "a 552 GB training step fit in 141 GB";
  } catch (const InvalidInput& e) {
    EXPECT_THAT(e.what(), HasSubstr("needs 551.9 GB"));
    EXPECT_THAT(e.what(), HasSubstr("141.0 GB"));
  }
  EXPECT_NO_THROW(check_config(gpu, w, KernelKind::tiled, TileConfig{}));  // O(N): 2.2 GB
}

TEST(Backward, BadBackwardTilesAndWindowsAreRefused) {
  const Workload w = shape(1, 1, 256, 256, 64);
  TileConfig t;
  t.bwd_br = 48;
  EXPECT_THROW(KernelDataflow(KernelId::tiled_bwd, w, t), InvalidInput);
  t.bwd_br = 0;
  t.bwd_bc = 32;
  t.bwd_br = 64;  // 2 warps cannot split over 4 row slabs of dQ
  EXPECT_THROW(KernelDataflow(KernelId::tiled_bwd, w, t), InvalidInput);
  t.bwd_bc = 128;
  t.bwd_br = 16;  // 8 warps on one slab of dQ [16 x 64] would have 8 columns each
  EXPECT_THROW(KernelDataflow(KernelId::tiled_bwd, w, t), InvalidInput);
  EXPECT_THROW(KernelDataflow(KernelId::naive_bwd_dq, shape(1, 1, 256, 256, 96), TileConfig{}), InvalidInput);
  EXPECT_THROW(KernelDataflow(KernelId::tiled_bwd, w, TileConfig{}, TileWindow{0, 1, 0, -1}), InvalidInput);
}

// dQ_i += dS K: the kernel's dQ loop and the model's shared reads both read vocab::tiled_bwd_dq_split.
TEST(Backward, TiledBwdDqSplitIsOneSlabPerWarp) {
  using vocab::tiled_bwd_dq_split;
  using vocab::TiledBwdConfig;
  constexpr auto d128 = tiled_bwd_dq_split(TiledBwdConfig{128, 64, 2}, 128);
  static_assert(d128.warps_m == 4 && d128.warps_n == 2 && d128.cols == 64);
  constexpr auto d64 = tiled_bwd_dq_split(TiledBwdConfig{128, 32, 2}, 64);
  static_assert(d64.warps_m == 2 && d64.warps_n == 4 && d64.cols == 16);
  static_assert(tiled_bwd_dq_split(TiledBwdConfig{32, 64, 2}, 64).cols == 0);   // 2 warps, 4 slabs
  static_assert(tiled_bwd_dq_split(TiledBwdConfig{128, 16, 2}, 64).cols == 0);  // 8 columns per warp

  // A middle step's shared reads at d 128, per warp in ldmatrix x4 (512 bytes): Q and dO twice (4 x 32),
  // K and V fragments (2 x 8), dQ's dS slab (8 k16 steps x 1) and K columns (8 x 4); plus LSE and D (512 B).
  const Workload w = shape(1, 1, 64 * 16, 128, 128);
  const KernelDataflow flow(KernelId::tiled_bwd, w, TileConfig{}, TileWindow{});
  CtaProgram p;
  flow.program(0, p);
  ASSERT_EQ(p.step_count, 16);
  EXPECT_EQ(p.steps[5].smem_read, u64{8 * ((128 + 16 + 8 + 32) * 512 + 2 * 64 * 4)});
}

// A tiled_bwd step is the sum of its phases at the measured per-cycle rates (MathModel::cta_phases): one CTA
// alone on the GPU, whose steps' operands stay in L2, takes per step what the sum says, within the little
// its loads add (the first step's K and V, a two-stage ring of Q, dO, LSE and D).
TEST(Backward, TiledBwdStepIsTheSumOfItsPhases) {
  const GpuSpec gpu = load_gpu_spec("h200");
  ASSERT_GT(gpu.mma_sync_flops_per_sm_cycle, 0.0);
  ASSERT_GT(gpu.sm_clock_tensor_hz, 0.0);
  const Workload w = shape(1, 1, 64 * 64, 128, 64);  // one CTA (128 keys), 64 q steps of Br 64
  const TileConfig t;                                // Bc 128, Br 64
  const KernelDataflow flow(KernelId::tiled_bwd, w, t, TileWindow{});
  ASSERT_EQ(flow.cta_count(), 1);
  CtaProgram p;
  flow.program(0, p);
  ASSERT_EQ(p.step_count, 64);
  const CtaStep& s = p.steps[10];  // a middle step: no K/V load, no dK/dV store
  const double cycles = s.tensor_flops / gpu.mma_sync_flops_per_sm_cycle +
                        static_cast<double>(s.smem_read) / gpu.smem_bytes_per_cycle +
                        s.exps / (gpu.sfu_exp_per_s / gpu.sm_count / gpu.sm_clock_hz) +
                        s.fp32_ops / (gpu.fp32_flops / 2.0 / gpu.sm_count / gpu.sm_clock_hz);
  const double step_s = cycles / gpu.sm_clock_tensor_hz;
  SimOptions o;
  o.only = KernelId::tiled_bwd;
  const SimResult phases = simulate(gpu, w, KernelKind::tiled, t, o);
  const double per_step = (phases.kernels[0].time_s - phases.kernels[0].launch_s) / 64.0;
  EXPECT_GT(per_step, step_s);
  EXPECT_LT(per_step, 1.05 * step_s);
  // Another program's kernel mapped onto the dataflow keeps the per-warp chains: another time.
  o.cta_phases = false;
  const SimResult chains = simulate(gpu, w, KernelKind::tiled, t, o);
  EXPECT_GT(std::abs(chains.kernels[0].time_s / phases.kernels[0].time_s - 1.0), 0.05);
}

}  // namespace
}  // namespace attnscope::sim
