// SPDX-License-Identifier: Apache-2.0
// CUPTI on the real kernels (GPU only): logical byte counts the kernels must produce exactly, DRAM reads of a
// workload that fits in L2, the write-back range, windows and the timeline.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "attnscope/profiler/error.hpp"
#include "attnscope/profiler/gpu_session.hpp"
#include "attnscope/profiler/metric_set.hpp"
#include "attnscope/profiler/windows.hpp"
#include "attnscope/vocab/backward.hpp"
#include "attnscope/vocab/geometry.hpp"

using namespace attnscope;
using namespace attnscope::profiler;

namespace {

// The tiled kernel at d = 64 on a square problem: the workload every test here measures.
MeasureRequest tiled_request(std::int64_t batch, std::int64_t heads, std::int64_t seq) {
  MeasureRequest req;
  req.workload.batch = batch;
  req.workload.heads = heads;
  req.workload.seq_q = req.workload.seq_kv = seq;
  req.workload.head_dim = 64;
  req.kind = sim::KernelKind::tiled;
  return req;
}

}  // namespace

TEST(GpuSession, TiledKernelCountersMatchItsLogicalTraffic) {
  GpuSession session(SessionOptions{});
  MeasureRequest req = tiled_request(1, 8, 1024);
  req.windows = plan_windows(req.workload, req.kind, req.tiles, TileMode::sample);
  const Measurement m = session.measure(req);
  ASSERT_EQ(m.kernels.size(), 1u);
  const reports::Metrics dm = derive_report_metrics(m.kernels[0].counters);
  // Every metric the test reads must have been measured.
  const auto d = [&dm](vocab::Metric metric) {
    const auto v = reports::measured_of(dm, metric);
    EXPECT_TRUE(v.has_value()) << vocab::key(metric) << " was not measured";
    return v.value_or(0.0);
  };
  const double qkv = 3.0 * 8 * 1024 * 64 * 2, o = 8 * 1024 * 64 * 2, lse = 8 * 1024 * 4;
  std::printf(
      "tiled: dram_read %.0f (Q+K+V %.0f), dram_write %.0f, l2_write %.0f (O+LSE %.0f), time %.3g s\n",
      d(vocab::Metric::dram_read), qkv, d(vocab::Metric::dram_write), d(vocab::Metric::l2_write), o + lse,
      d(vocab::Metric::time));
  // Every output byte is stored at least once (partial-sector stores count each request's sectors).
  EXPECT_GE(d(vocab::Metric::l2_write), 0.99 * (o + lse));
  EXPECT_NEAR(d(vocab::Metric::dram_read), qkv, 0.05 * qkv);  // 4 MB fits in L2: each input read once
  ASSERT_TRUE(m.kernels[0].writeback_after.has_value());
  const auto after_dram_write =
      reports::measured_of(derive_report_metrics(*m.kernels[0].writeback_after), vocab::Metric::dram_write);
  ASSERT_TRUE(after_dram_write.has_value());
  // What the kernel wrote reaches DRAM either during it or in the flush after it.
  EXPECT_GE(d(vocab::Metric::dram_write) + *after_dram_write, 0.99 * (o + lse));
  // Shared memory receives at least Q once and K, V for every q-tile (cp.async fills included).
  const double q_tiles = 1024 / 128, kv_loads = q_tiles * 2.0 * 8 * 1024 * 64 * 2;
  EXPECT_GE(d(vocab::Metric::smem_write), 0.99 * (o + kv_loads));
  EXPECT_EQ(m.kernels[0].windows.size(), req.windows.size());
  EXPECT_FALSE(m.kernels[0].timeline.empty());
}

// --only-metrics: a session that collects just the DRAM counters takes fewer passes and leaves the rest of
// the standard set as not collected (null), still with the same bytes for the same kernel.
TEST(GpuSession, OnlyTheAskedMetricsWhenTheStandardSetIsOff) {
  SessionOptions only;
  only.standard_metrics = false;
  only.extra_metrics = {"dram__bytes_read.sum", "dram__bytes_write.sum"};
  GpuSession session(only);
  EXPECT_EQ(session.metrics().size(), 2u);
  const MeasureRequest req = tiled_request(1, 8, 1024);
  const Measurement m = session.measure(req);
  ASSERT_EQ(m.kernels.size(), 1u);
  const auto& c = m.kernels[0].counters;
  ASSERT_TRUE(c.at("dram__bytes_read.sum").has_value());
  const double qkv = 3.0 * 8 * 1024 * 64 * 2;
  EXPECT_NEAR(*c.at("dram__bytes_read.sum"), qkv, 0.05 * qkv);
  ASSERT_TRUE(c.count("lts__t_sectors_op_read.sum"));
  EXPECT_FALSE(c.at("lts__t_sectors_op_read.sum").has_value());
  EXPECT_FALSE(m.not_collected_metrics.empty());
}

TEST(GpuSession, OnlyMetricsWithoutAMetricIsAnError) {
  SessionOptions none;
  none.standard_metrics = false;
  EXPECT_THROW(GpuSession{none}, ProfilerError);  // before any CUDA call: also without a device
}

// PM sampling: the samples of one launch cover the kernel, so their DRAM reads add up to about what the
// range profiler counted for the whole kernel (same L2 state: flushed).
TEST(GpuSession, PmSamplesAddUpToTheKernelsDramReads) {
  GpuSession session(SessionOptions{});
  MeasureRequest req = tiled_request(4, 16, 2048);
  req.timeline = false;
  req.pm_sampling_ns = 2000;
  const Measurement m = session.measure(req);
  ASSERT_EQ(m.kernels.size(), 1u);
  for (const auto& n : m.notes) std::printf("note: %s\n", n.c_str());
  const auto& k = m.kernels[0];
  ASSERT_FALSE(k.samples.empty());
  double sampled = 0;
  for (const auto& s : k.samples) {
    EXPECT_LT(s.start_s, s.end_s);
    if (auto it = s.counters.find("dram__bytes_read.sum"); it != s.counters.end() && it->second)
      sampled += *it->second;
  }
  const double counted = *k.counters.at("dram__bytes_read.sum");
  std::printf("PM samples: %zu, DRAM read %.4g B sampled vs %.4g B counted\n", k.samples.size(), sampled,
              counted);
  EXPECT_NEAR(sampled, counted, 0.10 * counted);
}

// The backward pass, each kernel measured on its own (flushed L2 before each): the launches in the
// vocabulary's order, DRAM reads no smaller than the bytes each must read and L2 writes no smaller than
// what each must store.
TEST(GpuSession, BackwardKernelsAreMeasuredOneByOne) {
  GpuSession session(SessionOptions{});
  const double rows = 8.0 * 1024, tensor = rows * 64 * 2, accumulator = rows * 64 * 4;
  for (const auto kind : {sim::KernelKind::tiled, sim::KernelKind::naive}) {
    MeasureRequest req = tiled_request(1, 8, 1024);
    req.kind = kind;
    req.workload.pass = sim::Pass::bwd;
    req.timeline = false;
    const Measurement m = session.measure(req);
    const std::vector<std::string> names = kernel_names(kind, sim::Pass::bwd);
    ASSERT_EQ(m.kernels.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
      EXPECT_EQ(m.kernels[i].name, names[i]);
      const reports::Metrics dm = derive_report_metrics(m.kernels[i].counters);
      const double read = reports::measured_of(dm, vocab::Metric::dram_read).value_or(-1.0);
      const double l2_write = reports::measured_of(dm, vocab::Metric::l2_write).value_or(-1.0);
      std::printf("%-16s dram_read %.4g l2_write %.4g\n", names[i].c_str(), read, l2_write);
      double must_read = 0.0, must_write = 0.0;
      if (names[i] == "tiled_bwd.pre")
        must_read = 2 * tensor, must_write = accumulator;   // O, dO; zeroed dQ acc.
      if (names[i] == "tiled_bwd") must_read = 4 * tensor;  // Q, K, V, dO
      if (names[i] == "tiled_bwd.post") must_read = accumulator, must_write = tensor;        // dQ
      if (names[i] == "naive_bwd.dp") must_read = 2 * tensor, must_write = rows * 1024 * 2;  // dO, V; dP
      if (names[i] == "naive_bwd.ds") must_read = 2 * rows * 1024 * 2, must_write = rows * 1024 * 2;  // P, dP
      EXPECT_GE(read, 0.99 * must_read) << names[i];
      EXPECT_GE(l2_write, 0.99 * must_write) << names[i];
    }
  }
}

// The Hopper kernel like the tiled one: its tile windows (one CTA, one kv step of the batch 0 / head 0 slice)
// each under their own range, and the timeline of its instrumented build with one record per kv step of every
// CTA. O is written once per sector by the bulk tensor stores: l2_write stays within a few percent of O +
// LSE.
TEST(GpuSession, HopperKernelHasTileWindowsAndATimeline) {
  GpuSession session(SessionOptions{});
  for (const bool causal : {false, true}) {
    MeasureRequest req = tiled_request(1, 8, 1024);
    req.kind = sim::KernelKind::hopper;
    req.workload.causal = causal;
    req.tiles.hopper_bc = 128;
    req.tiles.hopper_stages = 3;
    req.tiles.hopper_schedule = sim::HopperSchedule::pingpong;  // the default tile at d 64
    req.windows = plan_windows(req.workload, req.kind, req.tiles, TileMode::sample);
    ASSERT_FALSE(req.windows.empty());
    const Measurement m = session.measure(req);
    for (const auto& n : m.notes) std::printf("note: %s\n", n.c_str());
    ASSERT_EQ(m.kernels.size(), 1u);
    const auto& k = m.kernels[0];
    EXPECT_EQ(k.name, "hopper");
    ASSERT_EQ(k.windows.size(), req.windows.size());
    // A lone window stores its tile's O (128 rows x 64, fp16) and LSE: at least that reaches L2.
    const double tile_out = 128.0 * 64 * 2 + 128 * 4;
    for (const auto& w : k.windows) {
      const reports::Metrics wm = derive_report_metrics(w.counters);
      const double l2_write = reports::measured_of(wm, vocab::Metric::l2_write).value_or(-1.0);
      std::printf("hopper window (q %d, kv %d): l2_write %.0f (O+LSE tile %.0f)\n", w.q_tile, w.kv_tile,
                  l2_write, tile_out);
      EXPECT_GE(l2_write, 0.99 * tile_out);
      EXPECT_LE(l2_write, 1.10 * tile_out);
    }
    // 8 heads x 8 q tiles; non-causal 8 kv steps each, causal q tile i has i + 1.
    const std::size_t steps = causal ? 8u * 36u : 8u * 64u;
    EXPECT_EQ(k.timeline.size(), steps);
    for (const auto& r : k.timeline) {
      EXPECT_LE(r.start_s, r.end_s);
      EXPECT_LE(r.kv_tile, r.q_tile + (causal ? 0 : 7));
    }
    const reports::Metrics dm = derive_report_metrics(k.counters);
    const double o = 8.0 * 1024 * 64 * 2, lse = 8.0 * 1024 * 4;
    const double l2_write = reports::measured_of(dm, vocab::Metric::l2_write).value_or(-1.0);
    std::printf("hopper%s: l2_write %.0f (O+LSE %.0f)\n", causal ? " causal" : "", l2_write, o + lse);
    EXPECT_GE(l2_write, 0.99 * (o + lse));
    EXPECT_LE(l2_write, 1.05 * (o + lse));
  }
}

// A sliding window with ALiBi, forward and backward, both kinds: measured like the plain masks with the
// general-mask kernels at their compiled tiles; no tile windows are planned and no timeline is taken (those
// kernels have no instrumented build), and every output is stored.
TEST(GpuSession, SlidingWindowAndAlibiAreMeasured) {
  GpuSession session(SessionOptions{});
  const double rows = 8.0 * 1024, tensor = rows * 64 * 2, lse = rows * 4;
  for (const auto kind : {sim::KernelKind::tiled, sim::KernelKind::naive}) {
    MeasureRequest req = tiled_request(1, 8, 1024);
    req.kind = kind;
    req.workload.causal = true;
    req.workload.window = 256;
    req.workload.alibi = true;
    req.workload.pass = sim::Pass::both;
    req.tiles.set_tiled(vocab::general_mask_tiled_config(64));
    req.tiles.set_tiled_bwd(vocab::general_mask_tiled_bwd_config());
    req.windows = plan_windows(req.workload, req.kind, req.tiles, TileMode::sample);
    EXPECT_TRUE(req.windows.empty());
    const Measurement m = session.measure(req);
    const std::vector<std::string> names = kernel_names(kind, sim::Pass::both);
    ASSERT_EQ(m.kernels.size(), names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
      const auto& k = m.kernels[i];
      EXPECT_EQ(k.name, names[i]);
      EXPECT_TRUE(k.timeline.empty()) << k.name;
      const reports::Metrics dm = derive_report_metrics(k.counters);
      const double l2_write = reports::measured_of(dm, vocab::Metric::l2_write).value_or(-1.0);
      std::printf("window 256 + alibi %-16s l2_write %.4g\n", k.name.c_str(), l2_write);
      double must_write = 0.0;                           // what the kernel stores at least once
      if (k.name == "tiled") must_write = tensor + lse;  // O, LSE
      if (k.name == "naive.pv" || k.name == "tiled_bwd.post" || k.name == "naive_bwd.dq") must_write = tensor;
      if (k.name == "tiled_bwd") must_write = 2 * tensor;  // dK, dV
      if (k.name == "naive_bwd.dk" || k.name == "naive_bwd.dv") must_write = tensor;
      EXPECT_GE(l2_write, 0.99 * must_write) << k.name;
    }
  }
}

// The tiled backward's timeline: its main kernel's instrumented build writes one record per (kv tile CTA,
// q tile) step, the model's records of tiled_bwd; pre and post have no timeline build and say so.
TEST(GpuSession, TiledBackwardMainKernelHasATimeline) {
  GpuSession session(SessionOptions{});
  for (const bool causal : {false, true}) {
    MeasureRequest req = tiled_request(1, 8, 1024);
    req.workload.pass = sim::Pass::bwd;
    req.workload.causal = causal;
    req.timeline = true;
    const Measurement m = session.measure(req);
    ASSERT_EQ(m.kernels.size(), 3u);
    const vocab::TiledBwdConfig c = vocab::default_tiled_bwd_config(64);  // Bc 128, Br 64
    const int kv_tiles = 1024 / c.bc, q_tiles = 1024 / c.br;
    std::size_t steps = 0;  // per head: every (kv tile, q tile) pair, or those on or below the diagonal
    for (int j = 0; j < kv_tiles; ++j)
      for (int i = 0; i < q_tiles; ++i)
        if (!causal || (i + 1) * c.br - 1 >= j * c.bc) ++steps;
    for (const auto& k : m.kernels) {
      if (k.name != "tiled_bwd") {
        EXPECT_TRUE(k.timeline.empty()) << k.name;
        continue;
      }
      EXPECT_EQ(k.timeline.size(), 8 * steps) << (causal ? "causal" : "non-causal");
      for (const auto& r : k.timeline) {
        EXPECT_LE(r.start_s, r.end_s);
        EXPECT_LT(r.kv_tile, kv_tiles);
        EXPECT_LT(r.q_tile, q_tiles);
        if (causal) {
          EXPECT_GE((r.q_tile + 1) * c.br - 1, r.kv_tile * c.bc);
        }
      }
    }
    bool noted = false;
    for (const auto& n : m.notes) noted = noted || n.find("tiled_bwd.pre: no instrumented build") == 0;
    EXPECT_TRUE(noted);
  }
}
