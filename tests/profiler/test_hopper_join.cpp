// SPDX-License-Identifier: Apache-2.0
// The Hopper kernel through the profiler without a GPU: tile windows are planned for it in its own tiles (Br
// rows, Bc keys) and the model of a lone tile is one CTA doing one kv step, a hand-built SYNTHETIC
// measurement (made-up counter values and times, not GPU data) joins with the model by name and by tile, the
// report keeps the Hopper tile through JSON, and the accuracy table picks up its rows once a report has them.
#include <gtest/gtest.h>

#include "attnscope/profiler/accuracy.hpp"
#include "attnscope/profiler/join.hpp"
#include "attnscope/profiler/model_cache.hpp"
#include "attnscope/profiler/profile.hpp"
#include "attnscope/profiler/windows.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/sim/gpu_spec.hpp"

using namespace attnscope;
using namespace attnscope::profiler;
using reports::Metric;

namespace {

sim::Workload small_workload() {
  sim::Workload w;
  w.batch = 1;
  w.heads = 4;
  w.seq_q = w.seq_kv = 1024;
  w.head_dim = 128;
  return w;
}

MeasuredKernel synthetic_hopper_measurement() {
  MeasuredKernel m;
  m.name = "hopper";
  m.counters["dram__bytes_read.sum"] = 3'300'000.0;
  m.counters["dram__bytes_write.sum"] = 100'000.0;
  m.counters["lts__t_sectors_srcunit_tex_op_read.sum"] = 1'000'000.0 / 32;
  m.counters["gpu__time_duration.sum"] = 20'000.0;  // ns
  return m;
}

}  // namespace

TEST(HopperProfile, TileWindowsArePlannedInItsOwnTiles) {
  sim::TileConfig t;
  t.hopper_bc = 64;  // Br 128 (2 consumers): 8 q tiles x 16 kv tiles of the 1024 x 1024 workload
  EXPECT_EQ(kernel_names(sim::KernelKind::hopper), std::vector<std::string>{"hopper"});
  EXPECT_EQ(tile_grid(small_workload(), t, "hopper").q_tiles, 8);
  EXPECT_EQ(tile_grid(small_workload(), t, "hopper").kv_tiles, 16);
  EXPECT_TRUE(plan_windows(small_workload(), sim::KernelKind::hopper, t, TileMode::none).empty());
  // Sample: the first, middle and last q tile, each at its first and last kv tile.
  const auto sample = plan_windows(small_workload(), sim::KernelKind::hopper, t, TileMode::sample);
  ASSERT_EQ(sample.size(), 6u);
  for (const auto& w : sample) {
    EXPECT_EQ(w.kernel, "hopper");
    EXPECT_TRUE(w.q_tile == 0 || w.q_tile == 4 || w.q_tile == 7) << w.q_tile;
    EXPECT_TRUE(w.kv_tile == 0 || w.kv_tile == 15) << w.kv_tile;
  }
  EXPECT_EQ(plan_windows(small_workload(), sim::KernelKind::hopper, t, TileMode::all).size(), 8u * 16u);
  // Causal: q tile i of 128 rows sees kv tiles 0 .. 2i + 1 of 64 keys.
  sim::Workload causal = small_workload();
  causal.causal = true;
  std::size_t visited = 0;
  for (int i = 0; i < 8; ++i) visited += 2 * static_cast<std::size_t>(i) + 2;
  EXPECT_EQ(plan_windows(causal, sim::KernelKind::hopper, t, TileMode::all).size(), visited);
}

TEST(HopperProfile, ModelOfALoneHopperTileIsOneCtaOneKvStep) {
  const auto gpu = sim::load_gpu_spec("h200");
  sim::TileConfig t;
  t.hopper_bc = 64;
  const sim::KernelResult k =
      model_window(gpu, small_workload(), sim::KernelKind::hopper, t, WindowSpec{"hopper", 0, 0, 3, 5});
  EXPECT_EQ(k.name, "hopper");
  EXPECT_EQ(k.ctas, 1);
  // Q tile [128 x 128], K and V tiles [64 x 128] in, O tile [128 x 128] and 128 LSE out, 2 bytes an element.
  const std::uint64_t q = 128 * 128 * 2, kv = 2 * 64 * 128 * 2;
  EXPECT_GE(k.totals.l2_read, q + kv);
  EXPECT_GE(k.totals.l2_write, q + 128 * 4);
}

TEST(HopperProfile, MeasuredWindowsAndTimelineJoinTheModelsTiles) {
  const auto gpu = sim::load_gpu_spec("h200");
  MeasureRequest req;
  req.workload = small_workload();
  req.kind = sim::KernelKind::hopper;
  req.tiles.hopper_bc = 64;
  req.windows = plan_windows(req.workload, req.kind, req.tiles, TileMode::sample);
  ASSERT_FALSE(req.windows.empty());
  const std::vector<sim::KernelResult> model =
      model_kernels(gpu, req.workload, req.kind, req.tiles, CacheMode::flush, true);
  ASSERT_EQ(model.size(), 1u);
  std::vector<WindowModel> window_models;
  for (const auto& w : req.windows)
    window_models.push_back({w, model_window(gpu, req.workload, req.kind, req.tiles, w)});
  Measurement m;
  m.device.name = "NVIDIA H200";
  MeasuredKernel k = synthetic_hopper_measurement();
  for (const auto& w : req.windows) {
    MeasuredWindow mw{w.batch, w.head, w.q_tile, w.kv_tile, {}};
    mw.counters["dram__bytes_read.sum"] = 65'536.0;
    k.windows.push_back(mw);
  }
  // Two kv steps of (batch 0, head 1, q tile 2), SYNTHETIC times.
  k.timeline.push_back(MeasuredTileTime{0, 1, 2, 0, 7, 1e-6, 2e-6});
  k.timeline.push_back(MeasuredTileTime{0, 1, 2, 1, 7, 2e-6, 3e-6});
  k.event_time_s = 1.6e-6;  // SYNTHETIC: the plain kernel's time, shorter than the instrumented launch's span
  m.kernels.push_back(k);
  const reports::Report r =
      build_profile_report(m, model, gpu, window_models, req, "attnscope profile --kernel hopper");
  ASSERT_EQ(r.kernels.size(), 1u);
  const reports::KernelEntry& e = r.kernels[0];
  // Every measured tile is one of the model's records: nothing is added beside them.
  EXPECT_EQ(e.tiles.size(), model[0].tiles.size());
  std::size_t lone = 0, timed = 0;
  for (const auto& t : e.tiles) {
    if (t.lone_window) {
      ++lone;
      const reports::Value* dram = t.metrics.find(Metric::dram_read);
      ASSERT_NE(dram, nullptr);
      ASSERT_TRUE(dram->measured && dram->modeled);
      EXPECT_DOUBLE_EQ(*dram->measured, 65'536.0);
    }
    if (t.start_measured_s) {
      ++timed;
      EXPECT_EQ(t.batch, 0);
      EXPECT_EQ(t.head, 1);
      EXPECT_EQ(t.q_tile, 2);
    }
  }
  EXPECT_EQ(lone, req.windows.size());
  EXPECT_EQ(timed, 2u);
  EXPECT_EQ(e.notes.count("tile_windows"), 1u);
  ASSERT_EQ(e.notes.count("tile_timeline"), 1u);
  // The instrumented launch spanned 2 us (1 to 3 us) against the kernel's 1.6 us: the note says so.
  EXPECT_NE(e.notes.at("tile_timeline").find("spanned 2.0 us"), std::string::npos)
      << e.notes.at("tile_timeline");
  EXPECT_NE(e.notes.at("tile_timeline").find("is 1.6 us (+25.0 %)"), std::string::npos);
}

TEST(HopperProfile, AHandBuiltMeasurementJoinsWithTheModelByName) {
  const auto gpu = sim::load_gpu_spec("h200");
  MeasureRequest req;
  req.workload = small_workload();
  req.kind = sim::KernelKind::hopper;
  req.tiles.hopper_bc = 64;
  req.tiles.hopper_stages = 3;
  req.tiles.hopper_schedule = sim::HopperSchedule::overlap;
  const std::vector<sim::KernelResult> model =
      model_kernels(gpu, req.workload, req.kind, req.tiles, CacheMode::flush, true);
  ASSERT_EQ(model.size(), 1u);
  EXPECT_EQ(model[0].name, "hopper");
  Measurement m;
  m.device.name = "NVIDIA H200";
  m.replay_mode = "user";
  m.passes = 2;
  m.kernels.push_back(synthetic_hopper_measurement());
  m.notes.push_back("a measurement note");
  const reports::Report r = build_profile_report(m, model, gpu, {}, req, "attnscope profile --kernel hopper");
  ASSERT_EQ(r.kernels.size(), 1u);
  const reports::KernelEntry& k = r.kernels[0];
  EXPECT_EQ(k.name, "hopper");
  const reports::Value* dram = k.metrics.find(Metric::dram_read);
  ASSERT_NE(dram, nullptr);
  ASSERT_TRUE(dram->measured && dram->modeled);
  EXPECT_DOUBLE_EQ(*dram->measured, 3'300'000.0);
  EXPECT_DOUBLE_EQ(*dram->modeled, static_cast<double>(model[0].totals.hbm_read));
  // Q, K, V of 4 heads of 1024 x 128 fp16 fit in L2: the compulsory 3 MiB.
  EXPECT_DOUBLE_EQ(*dram->modeled, 4.0 * 3 * 1024 * 128 * 2);
  const reports::Value* time = k.metrics.find(Metric::time);
  ASSERT_NE(time, nullptr);
  EXPECT_DOUBLE_EQ(*time->measured, 20e-6);
  EXPECT_DOUBLE_EQ(*time->modeled, model[0].time_s);
  EXPECT_EQ(k.notes.at("measure.note0"), "a measurement note");
  // Without windows or a timeline the model's per-tile records are kept; none is measured.
  EXPECT_EQ(k.tiles.size(), model[0].tiles.size());
  for (const auto& t : k.tiles) EXPECT_FALSE(t.start_measured_s || t.lone_window);

  // The Hopper tile survives JSON (written only for reports with the Hopper kernel).
  const reports::Report back = reports::parse_report(reports::to_json_string(r), "hopper.json");
  EXPECT_EQ(back.tiles.hopper_bc, 64);
  EXPECT_EQ(back.tiles.hopper_stages, 3);
  EXPECT_EQ(back.tiles.hopper_schedule, sim::HopperSchedule::overlap);
  EXPECT_EQ(reports::tiles_label(back), "hopper-Br128-Bc64-c2-s3-overlap");
  EXPECT_FALSE(back.tiles.hopper_persistent);
  // ... and so does the persistent flag.
  reports::Report persistent = r;
  persistent.tiles.hopper_persistent = true;
  const reports::Report back_p = reports::parse_report(reports::to_json_string(persistent), "hopper.json");
  EXPECT_TRUE(back_p.tiles.hopper_persistent);
  EXPECT_EQ(reports::tiles_label(back_p), "hopper-Br128-Bc64-c2-s3-overlap-persistent");

  // The accuracy table has hopper rows once a report measured it, and none without one.
  const auto cases = cases_from_report(r, "h200/synthetic/hopper.json");
  ASSERT_EQ(cases.size(), 1u);
  EXPECT_EQ(cases[0].kernel, "hopper");
  EXPECT_NE(cases[0].identity.find("hopper-Br128-Bc64-c2-s3-overlap"), std::string::npos);
  const auto rows = accuracy_table(points_of(cases));
  bool dram_row = false;
  for (const auto& row : rows)
    if (row.kernel == "hopper" && row.metric == AccuracyMetric(Metric::dram_read)) {
      dram_row = true;
      EXPECT_EQ(row.n, 1);
    }
  EXPECT_TRUE(dram_row);
  for (const auto& row : accuracy_table({})) EXPECT_NE(row.kernel, "hopper");
}

TEST(HopperProfile, RemodelingARecordedReportUsesTheHopperModel) {
  const auto gpu = sim::load_gpu_spec("h200");
  MeasureRequest req;
  req.workload = small_workload();
  req.kind = sim::KernelKind::hopper;
  Measurement m;
  m.kernels.push_back(synthetic_hopper_measurement());
  const reports::Report recorded = build_profile_report(m, std::nullopt, gpu, {}, req, "synthetic");
  ModelCache models(gpu);
  const auto cases = cases_from_recording(recorded, "h200/synthetic/hopper.json", models, {});
  ASSERT_EQ(cases.size(), 1u);
  const auto& dram = cases[0].points.at(Metric::dram_read);
  EXPECT_DOUBLE_EQ(dram.modeled, 4.0 * 3 * 1024 * 128 * 2);
}
