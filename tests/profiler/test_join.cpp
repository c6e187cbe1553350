// SPDX-License-Identifier: Apache-2.0
// The measured/modeled join on SYNTHETIC measured values built here in code (not GPU data): the numbers are
// made up to exercise the join's bookkeeping; real H200 data is checked in test_committed_reports.cpp.
#include <gtest/gtest.h>

#include "attnscope/profiler/join.hpp"
#include "attnscope/profiler/model_cache.hpp"
#include "attnscope/profiler/profile.hpp"
#include "attnscope/reports/overview.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/gpu_spec.hpp"

using namespace attnscope;
using namespace attnscope::profiler;
using reports::Metric;

namespace {

// The value of `m` in `metrics`; throws (failing the test with the metric's key) when it is absent.
const reports::Value& at(const reports::Metrics& metrics, Metric m) {
  const reports::Value* v = metrics.find(m);
  if (v == nullptr) throw std::runtime_error("no metric " + std::string(vocab::key(m)));
  return *v;
}

sim::KernelResult synthetic_model() {
  sim::KernelResult k;
  k.name = "tiled";
  k.totals.hbm_read = 1'000'000;
  k.totals.hbm_write = 200'000;
  k.totals.l2_read = 3'000'000;
  k.totals.l2_write = 400'000;
  k.time_s = 1e-3;
  k.cycles = 1'980'000;
  k.l2_dirty_end = 150'000;
  for (int q = 0; q < 2; ++q)
    for (int kv = 0; kv < 2; ++kv) {
      sim::TileRecord t;
      t.q_tile = q;
      t.kv_tile = kv;
      t.sm = q;
      t.bytes.l2_read = 750'000;
      t.end_cycle = 100;
      k.tiles.push_back(t);
    }
  return k;
}

MeasuredKernel synthetic_measurement() {
  MeasuredKernel m;
  m.name = "tiled";
  m.counters["dram__bytes_read.sum"] = 1'100'000.0;
  m.counters["dram__bytes_write.sum"] = 250'000.0;
  m.counters["l1tex__m_xbar2l1tex_read_bytes.sum"] = 3'300'000.0;
  m.counters["lts__t_sectors_srcunit_tex_op_read.sum"] = 3'000'000.0 / 32;
  m.counters["lts__t_sectors_srcunit_tex_op_write.sum"] = 400'000.0 / 32;
  m.counters["gpu__time_duration.sum"] = 1.25e6;                           // ns
  m.counters["sm__pipe_tensor_op_hmma_cycles_active.sum"] = std::nullopt;  // unavailable
  CounterValues after;
  after["dram__bytes_write.sum"] = 150'000.0;
  m.writeback_after = after;
  MeasuredWindow w;
  w.q_tile = 1;
  w.kv_tile = 0;
  w.counters["dram__bytes_read.sum"] = 40'000.0;
  m.windows.push_back(w);
  m.timeline.push_back(MeasuredTileTime{0, 0, 0, 1, 17, 1e-6, 3e-6});
  m.timeline.push_back(MeasuredTileTime{0, 0, 5, 5, 3, 0.0, 1e-6});  // a tile the model does not list
  return m;
}

}  // namespace

TEST(Join, KernelMetricsCarryBothSidesAndTheirError) {
  const auto gpu = sim::load_gpu_spec("h200");
  const auto model = synthetic_model();
  const auto e = join_kernel(synthetic_measurement(), &model, gpu, {}, CacheMode::flush);
  EXPECT_EQ(e.name, "tiled");
  const auto& dram = at(e.metrics, Metric::dram_read);
  ASSERT_TRUE(dram.measured && dram.modeled);
  EXPECT_DOUBLE_EQ(*dram.measured, 1'100'000.0);
  EXPECT_DOUBLE_EQ(*dram.modeled, 1'000'000.0);
  EXPECT_NEAR(*dram.relative_error(), (1.0e6 - 1.1e6) / 1.1e6, 1e-12);
  // The model's L2 read requests against the bytes the SMs received (l2_read: the crossbar counter); the
  // slices' count (l2_read_lts, after the L2 request coalescer) is measured and not modeled.
  EXPECT_DOUBLE_EQ(*at(e.metrics, Metric::l2_read_lts).measured, 3'000'000.0);
  EXPECT_FALSE(at(e.metrics, Metric::l2_read_lts).modeled);
  EXPECT_FALSE(at(e.metrics, Metric::l2_read_lts).relative_error());
  EXPECT_DOUBLE_EQ(*at(e.metrics, Metric::l2_read).measured, 3'300'000.0);
  EXPECT_NEAR(*at(e.metrics, Metric::l2_read).relative_error(), (3.0e6 - 3.3e6) / 3.3e6, 1e-12);
  EXPECT_DOUBLE_EQ(*at(e.metrics, Metric::time).measured, 1.25e-3);
  EXPECT_NEAR(*at(e.metrics, Metric::time).relative_error(), -0.2, 1e-12);
  // Raw counters stay under their CUPTI names, apart from the metrics; unavailable ones are absent.
  EXPECT_DOUBLE_EQ(e.counters.at("dram__bytes_read.sum"), 1'100'000.0);
  EXPECT_DOUBLE_EQ(e.counters.at("lts__t_sectors_srcunit_tex_op_read.sum"), 3'000'000.0 / 32);
  EXPECT_EQ(e.counters.count("sm__pipe_tensor_op_hmma_cycles_active.sum"), 0u);
  // Modeled-only metrics keep their modeled value with no measurement.
  EXPECT_TRUE(at(e.metrics, Metric::flops).modeled);
  EXPECT_FALSE(at(e.metrics, Metric::flops).measured);
  // The model's request hits are not measured; the slices' hits (not collected here) not modeled.
  EXPECT_FALSE(at(e.metrics, Metric::l2_hit).measured);
  EXPECT_FALSE(e.metrics.contains(Metric::l2_hit_lts));
}

TEST(Join, WriteBackIsMeasuredAndExplained) {
  const auto gpu = sim::load_gpu_spec("h200");
  const auto model = synthetic_model();
  const auto e = join_kernel(synthetic_measurement(), &model, gpu, {}, CacheMode::flush);
  const auto& dirty = at(e.metrics, Metric::l2_dirty_end);
  EXPECT_DOUBLE_EQ(*dirty.measured, 150'000.0);
  EXPECT_DOUBLE_EQ(*dirty.modeled, 150'000.0);
  const std::string note = e.notes.at("l2_writeback");
  EXPECT_NE(note.find("write-back"), std::string::npos);
  EXPECT_NE(note.find("0.40 MB"), std::string::npos);  // l2_write
  EXPECT_NE(note.find("0.25 MB"), std::string::npos);  // dram_write
  EXPECT_NE(note.find("0.15 MB"), std::string::npos);  // left dirty
  EXPECT_NE(note.find("flushed"), std::string::npos);
  EXPECT_EQ(e.notes.at("cache_mode"), "flush");
  const auto warm = join_kernel(synthetic_measurement(), &model, gpu, {}, CacheMode::warm);
  EXPECT_NE(warm.notes.at("l2_writeback").find("warm"), std::string::npos);
}

TEST(Join, TilesMatchByCoordinates) {
  const auto gpu = sim::load_gpu_spec("h200");
  const auto model = synthetic_model();
  sim::KernelResult lone;
  lone.name = "tiled";
  lone.totals.hbm_read = 36'000;
  const WindowSpec spec{"tiled", 0, 0, 1, 0};
  const auto e =
      join_kernel(synthetic_measurement(), &model, gpu, {WindowModel{spec, lone}}, CacheMode::flush);
  ASSERT_EQ(e.tiles.size(), 5u);  // 4 modeled + 1 only in the timeline
  auto find = [&](int q, int kv) -> const reports::TileEntry& {
    for (const auto& t : e.tiles)
      if (t.q_tile == q && t.kv_tile == kv) return t;
    throw std::runtime_error("tile missing");
  };
  const auto& timed = find(0, 1);
  EXPECT_EQ(*timed.sm_measured, 17);
  EXPECT_EQ(*timed.sm_modeled, 0);
  EXPECT_DOUBLE_EQ(*timed.start_measured_s, 1e-6);
  EXPECT_DOUBLE_EQ(*timed.end_measured_s, 3e-6);
  const auto& window = find(1, 0);
  // The window's modeled values are the lone launch's model, not the tile's share of the full run.
  EXPECT_DOUBLE_EQ(*at(window.metrics, Metric::dram_read).measured, 40'000.0);
  EXPECT_DOUBLE_EQ(*at(window.metrics, Metric::dram_read).modeled, 36'000.0);
  EXPECT_DOUBLE_EQ(*at(window.metrics, Metric::l2_read).modeled, 0.0);
  EXPECT_FALSE(at(find(1, 1).metrics, Metric::l2_read).measured);
  // The window is marked as one, and keeps its raw counters; the other tiles have neither.
  EXPECT_TRUE(window.lone_window);
  EXPECT_DOUBLE_EQ(window.counters.at("dram__bytes_read.sum"), 40'000.0);
  EXPECT_FALSE(find(1, 1).lone_window);
  EXPECT_TRUE(find(1, 1).counters.empty());
  EXPECT_FALSE(timed.lone_window);
  // How many tiles the kernel runs: the model's.
  EXPECT_EQ(e.tiles_total, 4);
  EXPECT_TRUE(find(5, 5).start_measured_s.has_value());
  EXPECT_NE(e.notes.at("tile_windows").find("1 of 1 modeled"), std::string::npos);
}

TEST(Join, MeasuredOnlyWithoutModel) {
  const auto gpu = sim::load_gpu_spec("h200");
  const auto e = join_kernel(synthetic_measurement(), nullptr, gpu, {}, CacheMode::flush);
  EXPECT_EQ(e.name, "tiled");
  EXPECT_TRUE(at(e.metrics, Metric::dram_read).measured);
  EXPECT_FALSE(at(e.metrics, Metric::dram_read).modeled);
  EXPECT_FALSE(at(e.metrics, Metric::l2_dirty_end).modeled);
  EXPECT_EQ(e.tiles_total, 0);  // unknown without the model
}

TEST(Join, ReportCarriesProvenance) {
  const auto gpu = sim::load_gpu_spec("h200");
  Measurement m;
  m.device.name = "NVIDIA H200";
  m.device.chip = "GH100";
  m.device.driver = "580.159.04";
  m.device.cuda_runtime = "13.0";
  m.device.sm_clock_mhz = 1980;
  m.replay_mode = "user";
  m.passes = 3;
  m.unavailable_metrics = {"sm__pipe_tensor_op_hmma_cycles_active.sum"};
  m.kernels.push_back(synthetic_measurement());
  MeasureRequest req;
  req.cache = CacheMode::flush;
  const auto r = build_profile_report(m, std::nullopt, gpu, {}, req, "attnscope profile --synthetic");
  EXPECT_EQ(r.kind, "profile");
  EXPECT_EQ(r.provenance.gpu_name, "NVIDIA H200");
  EXPECT_EQ(r.provenance.driver, "580.159.04");
  EXPECT_EQ(r.provenance.cuda_runtime, "13.0");
  EXPECT_EQ(r.provenance.cache, CacheMode::flush);
  EXPECT_EQ(r.provenance.replay, ReplayMode::user);
  EXPECT_EQ(r.provenance.gpu_spec, "");  // no model ran
  EXPECT_EQ(r.provenance.command, "attnscope profile --synthetic");
  EXPECT_FALSE(r.provenance.date.empty());
  EXPECT_FALSE(r.provenance.git_revision.empty());
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].notes.at("measure.replay"), "user replay, 3 passes");
  EXPECT_EQ(r.kernels[0].notes.at("measure.unavailable_metrics"),
            "sm__pipe_tensor_op_hmma_cycles_active.sum");
}

TEST(Join, KeepTilesDropsUnmeasuredEntries) {
  const auto gpu = sim::load_gpu_spec("h200");
  const auto model = synthetic_model();
  sim::KernelResult lone;
  lone.name = "tiled";
  const WindowSpec spec{"tiled", 0, 0, 1, 0};
  const std::vector<WindowModel> models = {WindowModel{spec, lone}};
  reports::Report r;
  r.kernels.push_back(join_kernel(synthetic_measurement(), &model, gpu, models, CacheMode::flush));
  auto measured = r;
  keep_tiles(measured, "measured");
  EXPECT_EQ(measured.kernels[0].tiles.size(), 3u);  // two timeline records + one window
  EXPECT_EQ(measured.kernels[0].tiles_kept, reports::TileSubset::measured);
  auto windows = r;
  keep_tiles(windows, "windows");
  ASSERT_EQ(windows.kernels[0].tiles.size(), 1u);
  EXPECT_EQ(windows.kernels[0].tiles[0].q_tile, 1);
  // Which tiles were kept, of how many, is typed (format 1 wrote it as a note): the kernel's total is the
  // model's 4 tiles (the synthetic timeline's extra tile is not one the kernel runs), and the first screen
  // says so.
  EXPECT_EQ(windows.kernels[0].tiles_kept, reports::TileSubset::windows);
  EXPECT_EQ(windows.kernels[0].tiles_total, 4);
  EXPECT_EQ(reports::tile_coverage(windows.kernels[0]), "1 of 4 tiles (measured windows only)");
  auto head0 = r;
  keep_tiles(head0, "head0");
  EXPECT_EQ(head0.kernels[0].tiles.size(), 5u);  // every tile here is of batch 0 / head 0
  EXPECT_EQ(head0.kernels[0].tiles_kept, reports::TileSubset::head0);
  auto all = r;
  keep_tiles(all, "all");
  EXPECT_EQ(all.kernels[0].tiles.size(), 5u);
  EXPECT_EQ(all.kernels[0].tiles_kept, reports::TileSubset::all);
  EXPECT_THROW(keep_tiles(all, "some"), sim::InvalidInput);
}

// With L2 flushed before every kernel, each kernel of a pass is modeled alone from a clean L2, as it ran:
// tiled_bwd.post, after the backward's main kernel left the dQ accumulator dirty in L2, writes back only its
// own dQ (the H200 at llm-4k: 1.2 MB during the kernel + 15.6 MB after it = the 16.8 MB of dQ), not the
// accumulator's lines the flush had already written back.
TEST(Join, UnderTheFlushProtocolEachKernelOfAPassIsModeledAlone) {
  const auto gpu = sim::load_gpu_spec("h200");
  sim::Workload w;
  w.batch = 1;
  w.heads = 8;
  w.seq_q = w.seq_kv = 2048;
  w.head_dim = 64;
  w.pass = sim::Pass::both;
  const sim::TileConfig t;
  const auto kernels = model_kernels(gpu, w, sim::KernelKind::tiled, t, vocab::CacheProtocol::flush, false);
  ASSERT_EQ(kernels.size(), 4u);
  for (const auto& k : kernels) {
    sim::Workload alone = w;
    alone.pass = vocab::pass_of(*sim::parse_kernel_id(k.name));
    sim::SimOptions o;
    o.only = *sim::parse_kernel_id(k.name);
    const auto single = sim::simulate(gpu, alone, sim::KernelKind::tiled, t, o);
    ASSERT_EQ(single.kernels.size(), 1u) << k.name;
    EXPECT_EQ(k.totals.hbm_write, single.kernels[0].totals.hbm_write) << k.name;
    EXPECT_EQ(k.l2_dirty_end, single.kernels[0].l2_dirty_end) << k.name;
  }
  const auto& post = kernels.back();
  ASSERT_EQ(post.name, "tiled_bwd.post");
  EXPECT_LE(post.totals.hbm_write + post.l2_dirty_end, post.totals.l2_write);
}
