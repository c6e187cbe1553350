// SPDX-License-Identifier: Apache-2.0
// Covers sim/src/dataflow_hopper.cpp and the warpgroup timing of kernel_engine.cpp: the Hopper kernel's
// compulsory traffic, causal visits against the vocabulary's count, per-tile records, launch order,
// occupancy, the ring depth and the schedules, and what the model refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "attnscope/sim/dataflow.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/vocab/geometry.hpp"

namespace attnscope::sim {
namespace {

using ::testing::HasSubstr;
using u64 = std::uint64_t;

Workload shape(std::int64_t b, std::int64_t h, std::int64_t nq, std::int64_t nkv, std::int64_t d,
               bool causal = false) {
  Workload w;
  w.batch = b;
  w.heads = h;
  w.seq_q = nq;
  w.seq_kv = nkv;
  w.head_dim = d;
  w.causal = causal;
  return w;
}

SimOptions quiet() {
  SimOptions o;
  o.record_tiles = false;
  return o;
}

class Hopper : public ::testing::Test {
 protected:
  GpuSpec gpu = load_gpu_spec("h200");
};

TEST_F(Hopper, IsAForwardKernelOfItsOwnKind) {
  EXPECT_EQ(vocab::kind_of(KernelId::hopper), KernelKind::hopper);
  EXPECT_EQ(pass_of(KernelId::hopper), Pass::fwd);
  EXPECT_EQ(to_string(KernelId::hopper), "hopper");
  EXPECT_EQ(parse_kernel_id("hopper"), KernelId::hopper);
  EXPECT_EQ(parse_kernel_kind("hopper"), KernelKind::hopper);
  EXPECT_EQ(kernels_of(KernelKind::hopper), std::vector<KernelId>{KernelId::hopper});
  EXPECT_TRUE(kernels_of(KernelKind::hopper, Pass::bwd).empty());
  // Appended: the older ids keep their values (indices of per-kernel arrays).
  EXPECT_EQ(static_cast<int>(KernelId::hopper), kKernelIdCount - 1);
  EXPECT_EQ(static_cast<int>(KernelId::naive_bwd_dk), 11);
}

TEST_F(Hopper, CompulsoryTrafficOfAShapeThatFitsInL2IsTheFormula) {
  // Q, K and V come from HBM once however many q tiles read K and V; O and LSE are written once and stay
  // dirty in L2 at the kernel's end (as the tiled kernel's, test_simulate.cpp).
  for (std::int64_t d : {64, 128}) {
    const std::int64_t b = 1, h = 8, n = 2048, e = 2;
    const Workload w = shape(b, h, n, n, d);
    const SimResult r = simulate(gpu, w, KernelKind::hopper, TileConfig{});
    ASSERT_EQ(r.kernels.size(), 1u);
    const KernelResult& k = r.kernels[0];
    EXPECT_EQ(k.name, "hopper");
    EXPECT_EQ(k.totals.hbm_read, u64(b * h * 3 * n * d * e));
    EXPECT_EQ(k.totals.hbm_write, 0u);
    EXPECT_EQ(k.l2_dirty_end, u64(b * h * (n * d * e + n * 4)));
    // L2 sees every whole-tile copy: Q once per CTA, K and V once per (CTA, kv tile).
    const std::int64_t q_tiles = n / 128;
    EXPECT_EQ(k.totals.l2_read, u64(b * h * (n * d * e + q_tiles * 2 * n * d * e)));
    EXPECT_EQ(k.totals.l2_write, u64(b * h * (n * d * e + n * 4)));
    EXPECT_EQ(k.totals.l2_read, expected_bytes(KernelId::hopper, w, TileConfig{}).l2_read);
  }
}

TEST_F(Hopper, RowsPastTheEndOfAHeadAreNotRead) {
  // Nq = Nkv = 200: the last q tile has 72 rows, the last kv tile 72 keys; the copy engine zero-fills the
  // rest of the box in shared memory without reading it.
  const std::int64_t n = 200, d = 64, e = 2;
  const Workload w = shape(1, 2, n, n, d);
  const LevelBytes x = expected_bytes(KernelId::hopper, w, TileConfig{});
  const std::int64_t q_tiles = 2;
  EXPECT_EQ(x.l2_read, u64(2 * (n * d * e + q_tiles * 2 * n * d * e)));
  // Shared-memory writes as the counters count them: the bytes the copies bring from L2 (the zero-filled
  // rows are not read, so not counted), then O staged through the Q buffer, a whole [128 x d] box per CTA.
  const u64 box = 128 * d * e;
  EXPECT_EQ(x.smem_write, x.l2_read + u64(2 * q_tiles) * box);
}

TEST_F(Hopper, CausalVisitsEqualTheVocabularysCount) {
  for (const auto& [nq, nkv] :
       {std::pair<std::int64_t, std::int64_t>{4096, 4096}, {1000, 3000}, {3000, 1000}}) {
    const Workload w = shape(1, 1, nq, nkv, 64, true);
    const TileConfig t;
    const KernelDataflow flow(KernelId::hopper, w, t);
    std::int64_t steps = 0, expected = 0, records = 0;
    CtaProgram p;
    for (std::int64_t c = 0; c < flow.cta_count(); ++c) {
      flow.program(c, p);
      const std::int64_t visible =
          vocab::hopper_visible_kv_tiles(t.hopper(), nq, nkv, vocab::Mask::causal, p.records.front().q_tile);
      expected += visible;
      steps += visible > 0 ? p.step_count : 0;
      records += static_cast<std::int64_t>(p.records.size());
    }
    EXPECT_EQ(steps, expected) << nq << " x " << nkv;
    EXPECT_GE(records, expected);  // a CTA that sees no key keeps one record
  }
}

TEST_F(Hopper, TheLastQTileIsLaunchedFirst) {
  const Workload w = shape(1, 2, 1024, 1024, 64, true);
  const KernelDataflow flow(KernelId::hopper, w, TileConfig{});
  ASSERT_EQ(flow.cta_count(), 16);
  CtaProgram p;
  flow.program(0, p);
  EXPECT_EQ(p.records.front().q_tile, 7);
  EXPECT_EQ(p.step_count, 8);  // the longest causal CTA
  flow.program(7, p);
  EXPECT_EQ(p.records.front().q_tile, 0);
  EXPECT_EQ(p.step_count, 1);
  flow.program(8, p);  // the next head, again from its last q tile
  EXPECT_EQ(p.records.front().head, 1);
  EXPECT_EQ(p.records.front().q_tile, 7);
}

TEST_F(Hopper, PerTileRecordsExistAndSumToTheTotals) {
  const Workload w = shape(1, 4, 1024, 1024, 128, true);
  const SimResult r = simulate(gpu, w, KernelKind::hopper, TileConfig{});
  const KernelResult& k = r.kernels[0];
  std::int64_t visible = 0;
  for (int q = 0; q < 8; ++q) visible += hopper_kv_tiles_visited(w, TileConfig{}, q);
  EXPECT_EQ(static_cast<std::int64_t>(k.tiles.size()), 4 * visible);
  LevelBytes sum;
  double flops = 0;
  std::set<std::tuple<int, int, int>> keys;
  for (const TileRecord& t : k.tiles) {
    sum += t.bytes;
    flops += t.flops;
    EXPECT_LE(t.start_cycle, t.end_cycle);
    EXPECT_TRUE(keys.insert({t.head, t.q_tile, t.kv_tile}).second);
  }
  EXPECT_EQ(sum.l2_read, k.totals.l2_read);
  EXPECT_EQ(sum.smem_read, k.totals.smem_read);
  EXPECT_DOUBLE_EQ(flops, k.flops);
}

TEST_F(Hopper, OneCtaPerSmAtTheLaunchBound) {
  for (std::int64_t d : {64, 128}) {
    const SimResult r = simulate(gpu, shape(1, 32, 4096, 4096, d), KernelKind::hopper, TileConfig{}, quiet());
    const KernelResult& k = r.kernels[0];
    EXPECT_EQ(k.ctas_per_sm, 1) << d;
    EXPECT_EQ(k.registers_per_thread, 168);  // 65536 / 384 threads, rounded down to 8
    EXPECT_EQ(k.smem_per_cta, vocab::hopper_smem_bytes(vocab::HopperConfig{}, d, DType::fp16));
    EXPECT_EQ(k.ctas, 32 * 32);
  }
}

// The persistent kernel: one CTA per SM whose program is its tiles' programs in order. Every tile's steps
// and records appear once over all CTAs, windows of a program are the same steps as the whole, and the model
// moves the same bytes as for one CTA per tile.
TEST_F(Hopper, PersistentCtasRunEveryTileOnceAsOneProgram) {
  TileConfig t;
  t.set_hopper(vocab::HopperConfig{128, 128, 2, 2, true, true, true});
  for (const bool causal : {false, true}) {
    const Workload w = shape(2, 5, 1000, 700, 128, causal);  // 8 q tiles x 10 = 80 tiles
    const KernelDataflow flow(KernelId::hopper, w, t);
    ASSERT_TRUE(flow.persistent());
    EXPECT_EQ(flow.pipeline_stages(), 2);  // K released apart from V: the whole ring runs ahead
    const std::int64_t ctas = vocab::hopper_persistent_ctas(flow.cta_count(), 7);
    std::multiset<std::tuple<int, int, int, int>> seen, want;
    std::int64_t steps = 0, want_steps = 0;
    CtaProgram p, window;
    for (std::int64_t c = 0; c < flow.cta_count(); ++c) {
      flow.program(c, p);
      want_steps += p.step_count;
      for (const RecordKey& k : p.records) want.insert({k.batch, k.head, k.q_tile, k.kv_tile});
    }
    for (std::int64_t c = 0; c < ctas; ++c) {
      flow.persistent_program(ctas, c, p);
      ASSERT_EQ(static_cast<int>(p.steps.size()), p.step_count);
      ASSERT_EQ(p.records.size(), static_cast<std::size_t>(p.step_count));  // one record per step here
      steps += p.step_count;
      for (const RecordKey& k : p.records) seen.insert({k.batch, k.head, k.q_tile, k.kv_tile});
      for (int i = 0; i < p.step_count; ++i) EXPECT_EQ(p.steps[static_cast<std::size_t>(i)].record, i);
      // Windows of 5 steps, as the engine asks for them: the same loads and records as the whole.
      for (int first = 0; first < p.step_count; first += 5) {
        flow.persistent_program(ctas, c, window, first, 5);
        EXPECT_EQ(window.first_step, first);
        EXPECT_EQ(window.step_count, p.step_count);
        EXPECT_EQ(window.records.empty(), first > 0);
        ASSERT_EQ(static_cast<int>(window.steps.size()), std::min(5, p.step_count - first));
        for (std::size_t i = 0; i < window.steps.size(); ++i) {
          const CtaStep& a = window.steps[i];
          const CtaStep& b = p.steps[static_cast<std::size_t>(first) + i];
          EXPECT_EQ(a.record, b.record);
          EXPECT_EQ(a.load_count, b.load_count);
          EXPECT_EQ(a.store_count, b.store_count);
          EXPECT_EQ(a.smem_read, b.smem_read);
        }
      }
    }
    EXPECT_EQ(steps, want_steps);
    EXPECT_EQ(seen, want);
    // The engine: 132 CTAs at most, the same bytes as one CTA per tile.
    const Workload big = shape(1, 32, 4096, 4096, 128, causal);
    TileConfig plain = t;
    plain.hopper_persistent = false;
    const KernelResult a = simulate(gpu, big, KernelKind::hopper, t, quiet()).kernels[0];
    const KernelResult b = simulate(gpu, big, KernelKind::hopper, plain, quiet()).kernels[0];
    EXPECT_EQ(a.ctas, gpu.sm_count);
    EXPECT_EQ(b.ctas, 32 * 32);
    EXPECT_EQ(a.totals.l2_read, b.totals.l2_read);
    EXPECT_EQ(a.totals.l2_write, b.totals.l2_write);
    EXPECT_DOUBLE_EQ(a.flops, b.flops);
  }
}

TEST_F(Hopper, EachKvStepWaitsForItsTwoWgmmaRounds) {
  // One CTA (one q tile of one head) over many kv steps: with the loads hidden by the ring, each step is its
  // GEMMs at the wgmma rate, its softmax, and two round latencies (S, then P V). Without the latency the
  // kernel is shorter by exactly steps x 2 x wgmma_round_latency_cycles at the tensor-load clock.
  const Workload w = shape(1, 1, 128, 32768, 128);
  const TileConfig t;  // Br 128 (two consumers), Bc 128: 256 kv steps
  const int steps = static_cast<int>(w.seq_kv / vocab::HopperConfig{}.bc);
  const double with = simulate(gpu, w, KernelKind::hopper, t, quiet()).time_s;
  GpuSpec no_wait = gpu;
  no_wait.wgmma_round_latency_cycles = 0.0;
  const double without = simulate(no_wait, w, KernelKind::hopper, t, quiet()).time_s;
  const double expected = steps * 2.0 * gpu.wgmma_round_latency_cycles / gpu.sm_clock_tensor_hz;
  EXPECT_GT(gpu.wgmma_round_latency_cycles, 0.0);
  EXPECT_NEAR(with - without, expected, 0.02 * expected);
  // The GEMMs run at the microbenchmarked per-cycle rate: a spec at half of it takes longer.
  GpuSpec half = gpu;
  half.wgmma_flops_per_sm_cycle /= 2.0;
  EXPECT_GT(simulate(half, w, KernelKind::hopper, t, quiet()).time_s, 1.2 * with);
}

TEST(HopperSpec, TheWgmmaRateNeedsTheClockItRunsAt) {
  std::ifstream in(gpu_spec_dir() / "h200.json");
  std::ostringstream read;
  read << in.rdbuf();
  std::string text = read.str();
  const auto at = text.find("\"sm_clock_tensor_hz\"");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"sm_clock_tensor_hz\"").size(), "\"unused_clock\"");
  EXPECT_THAT([&] { parse_gpu_spec(text, "no clock"); },
              ::testing::ThrowsMessage<InvalidInput>(HasSubstr("sm_clock_tensor_hz")));
}

TEST_F(Hopper, ASecondStageHidesAnExposedCopy) {
  // The overlapped schedule keeps V_j's slot during S_{j+1}: with 2 slots nothing is prefetched and every
  // copy is exposed; 3 slots prefetch one tile ahead. (The serial schedule's ring is 2 deep at least.)
  const Workload w = shape(1, 32, 4096, 4096, 128);
  TileConfig t;
  t.hopper_bc = 64;
  t.hopper_schedule = HopperSchedule::overlap;
  t.hopper_stages = 2;
  const double exposed = simulate(gpu, w, KernelKind::hopper, t, quiet()).time_s;
  EXPECT_EQ(KernelDataflow(KernelId::hopper, w, t).pipeline_stages(), 1);
  t.hopper_stages = 3;
  const double hidden = simulate(gpu, w, KernelKind::hopper, t, quiet()).time_s;
  EXPECT_EQ(KernelDataflow(KernelId::hopper, w, t).pipeline_stages(), 2);
  EXPECT_LT(hidden, 0.95 * exposed);
}

TEST_F(Hopper, TheOverlappedSchedulesHideTheMeasuredShareOfTheSoftmaxBehindPV) {
  // The overlapped schedule runs the softmax beside P V, of which the SM hides the fraction
  // GpuSpec::wgmma_exp_hidden (the wgmma_overlap microbenchmark). At the same prefetch distance it costs
  // what the serial schedule does when nothing is hidden, and the time it saves grows in proportion to it.
  const Workload w = shape(1, 32, 4096, 4096, 64);
  TileConfig t;
  t.set_hopper(vocab::HopperConfig{128, 128, 2, 3, false, false});  // serial, 2 consumers, 3 slots
  TileConfig pp = t;
  pp.hopper_schedule = HopperSchedule::overlap;
  pp.hopper_stages = 4;  // the same prefetch distance as serial at 3 stages
  const auto ratio = [&](double hidden) {
    GpuSpec g = gpu;
    g.wgmma_exp_hidden = hidden;
    return simulate(g, w, KernelKind::hopper, pp, quiet()).time_s /
           simulate(g, w, KernelKind::hopper, t, quiet()).time_s;
  };
  EXPECT_NEAR(ratio(0.0), 1.0, 0.01);
  ASSERT_GT(gpu.wgmma_exp_hidden, 0.0);
  const double saved = 1.0 - ratio(gpu.wgmma_exp_hidden), saved_all = 1.0 - ratio(1.0);
  EXPECT_GT(saved_all, 0.1);  // at d 64 the softmax is as long as the GEMMs: P V is a quarter of the step
  EXPECT_NEAR(saved / saved_all, gpu.wgmma_exp_hidden, 0.02);
  // With ping-pong the consumers take turns and the kernel measured nothing hidden: timed as serial.
  pp.hopper_schedule = HopperSchedule::pingpong;
  EXPECT_NEAR(simulate(gpu, w, KernelKind::hopper, pp, quiet()).time_s /
                  simulate(gpu, w, KernelKind::hopper, t, quiet()).time_s,
              1.0, 0.01);
  // Ping-pong in the serial schedule: the ring as deep as the serial schedule's, nothing hidden.
  const double serial = simulate(gpu, w, KernelKind::hopper, t, quiet()).time_s;
  t.hopper_schedule = HopperSchedule::serial_pingpong;
  EXPECT_FALSE(t.hopper().overlap);
  EXPECT_TRUE(t.hopper().pingpong);
  // (The vocabulary accepts it once the kernel compiles ping-pong in the serial schedule too.)
  if (vocab::hopper_config_valid(t.hopper(), 64, DType::fp16)) {
    EXPECT_EQ(KernelDataflow(KernelId::hopper, w, t).pipeline_stages(), 3);
    EXPECT_NEAR(simulate(gpu, w, KernelKind::hopper, t, quiet()).time_s / serial, 1.0, 0.01);
  }
  EXPECT_EQ(parse_hopper_schedule("serial-pingpong"), HopperSchedule::serial_pingpong);
  EXPECT_EQ(to_string(HopperSchedule::serial_pingpong), "serial-pingpong");
  // The causal mask skips about half of the kv tiles.
  const double plain = simulate(gpu, w, KernelKind::hopper, TileConfig{}, quiet()).time_s;
  const double causal =
      simulate(gpu, shape(1, 32, 4096, 4096, 64, true), KernelKind::hopper, TileConfig{}, quiet()).time_s;
  EXPECT_LT(causal, 0.6 * plain);
  EXPECT_GT(causal, 0.4 * plain);
}

TEST_F(Hopper, RefusesWhatTheKernelCannotBe) {
  const Workload w = shape(1, 2, 512, 512, 64);
  TileConfig t;
  t.hopper_consumers = 4;
  EXPECT_THAT([&] { check_config(gpu, w, KernelKind::hopper, t); },
              ::testing::ThrowsMessage<InvalidInput>(HasSubstr("consumers")));
  t = TileConfig{};
  t.hopper_stages = 1;
  EXPECT_THAT([&] { check_config(gpu, w, KernelKind::hopper, t); },
              ::testing::ThrowsMessage<InvalidInput>(HasSubstr("stages")));
  t = TileConfig{};
  t.hopper_bc = 256;
  t.hopper_stages = 4;
  EXPECT_THAT([&] { check_config(gpu, shape(1, 2, 512, 512, 128), KernelKind::hopper, t); },
              ::testing::ThrowsMessage<InvalidInput>(HasSubstr("shared memory")));
  Workload fp32 = w;
  fp32.dtype = DType::fp32;
  EXPECT_THROW(check_config(gpu, fp32, KernelKind::hopper, TileConfig{}), InvalidInput);
  Workload backward = w;
  backward.pass = Pass::bwd;
  EXPECT_THAT([&] { check_config(gpu, backward, KernelKind::hopper, TileConfig{}); },
              ::testing::ThrowsMessage<InvalidInput>(HasSubstr("forward pass only")));
  TileWindow window;
  window.q_tile_begin = 1;
  window.q_tile_end = 2;
  EXPECT_THAT([&] { KernelDataflow(KernelId::hopper, w, TileConfig{}, window); },
              ::testing::ThrowsMessage<InvalidInput>(
                  HasSubstr("a tile window inside the full grid is not modeled for this kernel")));
  // A GPU without wgmma cannot run it.
  EXPECT_THAT([&] { simulate(load_gpu_spec("a100"), w, KernelKind::hopper, TileConfig{}); },
              ::testing::ThrowsMessage<InvalidInput>(HasSubstr("wgmma")));
}

}  // namespace
}  // namespace attnscope::sim
