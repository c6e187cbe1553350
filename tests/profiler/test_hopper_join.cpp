// SPDX-License-Identifier: Apache-2.0
// The Hopper kernel through the profiler without a GPU: no tile windows are planned for it, a hand-built
// SYNTHETIC measurement (made-up counter values, not GPU data) joins with the model by name, the report keeps
// the Hopper tile through JSON, and the accuracy table picks up its rows once a report has them.
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

TEST(HopperProfile, NoTileWindowsArePlanned) {
  const sim::TileConfig t;
  for (const TileMode mode : {TileMode::sample, TileMode::row, TileMode::all})
    EXPECT_TRUE(plan_windows(small_workload(), sim::KernelKind::hopper, t, mode).empty());
  EXPECT_EQ(kernel_names(sim::KernelKind::hopper), std::vector<std::string>{"hopper"});
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
  m.notes.push_back("hopper: no tile windows for this kernel (the whole kernel is measured)");
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
  EXPECT_EQ(k.notes.at("measure.note0"),
            "hopper: no tile windows for this kernel (the whole kernel is measured)");
  // The model's per-tile records are kept; none is measured.
  EXPECT_EQ(k.tiles.size(), model[0].tiles.size());
  for (const auto& t : k.tiles) EXPECT_FALSE(t.start_measured_s || t.lone_window);

  // The Hopper tile survives JSON (written only for reports with the Hopper kernel).
  const reports::Report back = reports::parse_report(reports::to_json_string(r), "hopper.json");
  EXPECT_EQ(back.tiles.hopper_bc, 64);
  EXPECT_EQ(back.tiles.hopper_stages, 3);
  EXPECT_EQ(back.tiles.hopper_schedule, sim::HopperSchedule::overlap);
  EXPECT_EQ(reports::tiles_label(back), "hopper-Br128-Bc64-c2-s3-overlap");

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
