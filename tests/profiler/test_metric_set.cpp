// SPDX-License-Identifier: Apache-2.0
// Raw counters -> the metric table's measured values (synthetic counter values, built here).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "attnscope/profiler/metric_set.hpp"

using namespace attnscope::profiler;
using attnscope::vocab::Metric;

namespace {
// The measured side of `m`, NaN (failing every comparison) when absent.
double measured(const attnscope::reports::Metrics& metrics, Metric m) {
  return attnscope::reports::measured_of(metrics, m).value_or(std::numeric_limits<double>::quiet_NaN());
}
}  // namespace

TEST(MetricSet, DerivesReportKeysFromRawCounters) {
  CounterValues c;
  c["dram__bytes_read.sum"] = 1000.0;
  c["dram__bytes_write.sum"] = 500.0;
  c["l1tex__m_xbar2l1tex_read_bytes.sum"] = 4000.0;
  c["l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"] = 0.0;
  c["lts__t_sectors_srcunit_tex_op_read.sum"] = 100.0;
  c["lts__t_sectors_srcunit_tex_op_write.sum"] = 10.0;
  c["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] = 60.0;
  c["lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum"] = 4.0;
  c["l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum"] = 7.0;
  c["l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum"] = 3.0;
  c["gpu__time_duration.sum"] = 2500.0;
  c["sm__cycles_elapsed.max"] = 4000.0;
  const auto m = derive_report_metrics(c);
  EXPECT_DOUBLE_EQ(measured(m, Metric::dram_read), 1000.0);
  EXPECT_DOUBLE_EQ(measured(m, Metric::dram_write), 500.0);
  // l2_read is the bytes the SMs receive from L2 (the crossbar's count); the slices' count of the same reads,
  // 100 sectors x 32 B, is l2_read_lts (format 1 called the slices' count l2_read).
  EXPECT_DOUBLE_EQ(measured(m, Metric::l2_read), 4000.0);
  EXPECT_DOUBLE_EQ(measured(m, Metric::l2_read_lts), 3200.0);
  EXPECT_DOUBLE_EQ(measured(m, Metric::l2_write), 320.0);
  // Measured hits are the slices' lookups (l2_hit_lts); l2_hit is the model's request hits, never measured.
  EXPECT_DOUBLE_EQ(measured(m, Metric::l2_hit_lts), 64.0 * 32.0);
  EXPECT_FALSE(m.contains(Metric::l2_hit));
  EXPECT_DOUBLE_EQ(measured(m, Metric::smem_read), 7.0 * 128.0);
  EXPECT_DOUBLE_EQ(measured(m, Metric::smem_write), 3.0 * 128.0);
  // cp.async fills: 512 B per ldgsts warp instruction, at most the L2 -> L1 global-load bytes.
  c["smsp__inst_executed_op_ldgsts.sum"] = 10.0;
  c["l1tex__m_xbar2l1tex_read_bytes_mem_lg_op_ld.sum"] = 100'000.0;
  EXPECT_DOUBLE_EQ(measured(derive_report_metrics(c), Metric::smem_write), 3.0 * 128.0 + 5'120.0);
  c["l1tex__m_xbar2l1tex_read_bytes_mem_lg_op_ld.sum"] = 1'000.0;  // predicated-off lanes copy nothing
  EXPECT_DOUBLE_EQ(measured(derive_report_metrics(c), Metric::smem_write), 3.0 * 128.0 + 1'000.0);
  EXPECT_DOUBLE_EQ(measured(m, Metric::time), 2.5e-6);  // ns -> s
  EXPECT_DOUBLE_EQ(measured(m, Metric::cycles), 4000.0);
  // Only measured values: the modeled side is the join's.
  for (const auto& [metric, v] : m) EXPECT_FALSE(v.modeled.has_value()) << attnscope::vocab::key(metric);
}

// Bulk tensor copies (TMA) bypass the load pipe: what they bring from L2 counts in l2_read (the crossbar's
// total) and in smem_write (their fills of shared memory), beside the LSU's own stores.
TEST(MetricSet, BulkCopiesCountInL2ReadAndSharedWrites) {
  CounterValues c;
  c["l1tex__m_xbar2l1tex_read_bytes.sum"] = 2'000'000.0;
  c["l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum"] = 0.0;  // a kernel that loads only by bulk copies
  c["l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"] = 2'000'000.0;
  c["l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum"] = 100.0;  // O staged by st.shared
  const auto m = derive_report_metrics(c, attnscope::vocab::BulkCopies::some);
  EXPECT_DOUBLE_EQ(measured(m, Metric::l2_read), 2'000'000.0);
  EXPECT_DOUBLE_EQ(measured(m, Metric::smem_write), 100.0 * 128.0 + 2'000'000.0);
}

// A recording made before the bulk-copy counters were collected has the load pipe's share only: still the
// whole of l2_read for a kernel that issues no bulk copies, not for one that does or may.
TEST(MetricSet, RecordingsWithoutBulkCopyCountersMeasureOnlyKernelsWithoutBulkCopies) {
  using attnscope::vocab::BulkCopies;
  CounterValues c;
  c["l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum"] = 4000.0;
  c["l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum"] = 3.0;
  const auto none = derive_report_metrics(c, BulkCopies::none);
  EXPECT_DOUBLE_EQ(measured(none, Metric::l2_read), 4000.0);
  EXPECT_DOUBLE_EQ(measured(none, Metric::smem_write), 3.0 * 128.0);
  for (const BulkCopies b : {BulkCopies::some, BulkCopies::unknown}) {
    const auto m = derive_report_metrics(c, b);
    EXPECT_FALSE(m.contains(Metric::l2_read));
    EXPECT_FALSE(m.contains(Metric::smem_write));
  }
  EXPECT_EQ(attnscope::vocab::bulk_copies_of("hopper"), BulkCopies::some);
  EXPECT_EQ(attnscope::vocab::bulk_copies_of("tiled_bwd"), BulkCopies::none);
  EXPECT_EQ(attnscope::vocab::bulk_copies_of("naive.qk"), BulkCopies::none);
  EXPECT_EQ(attnscope::vocab::bulk_copies_of("flash_fwd_kernel"), BulkCopies::unknown);
}

TEST(MetricSet, UnavailableCountersLeaveTheirKeysOut) {
  CounterValues c;
  c["dram__bytes_read.sum"] = 1.0;
  c["dram__bytes_write.sum"] = std::nullopt;                     // recorded as unavailable on the chip
  c["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] = 5.0;  // hits need both read and write hits
  const auto m = derive_report_metrics(c);
  EXPECT_TRUE(m.contains(Metric::dram_read));
  EXPECT_FALSE(m.contains(Metric::dram_write));
  EXPECT_FALSE(m.contains(Metric::l2_hit_lts));
  EXPECT_FALSE(m.contains(Metric::l2_hit));
  EXPECT_FALSE(m.contains(Metric::time));
  EXPECT_EQ(m.size(), 1u);
}

TEST(MetricSet, StandardSetHasEveryInputOfTheReportKeysAndNoDuplicates) {
  const auto& names = standard_counters();
  CounterValues c;
  for (const auto& n : names) {
    EXPECT_EQ(c.count(n), 0u) << n << " listed twice";
    c[n] = 1.0;
  }
  const auto m = derive_report_metrics(c);
  for (const Metric key :
       {Metric::dram_read, Metric::dram_write, Metric::l2_read, Metric::l2_read_lts, Metric::l2_write,
        Metric::l2_hit_lts, Metric::smem_read, Metric::smem_write, Metric::time, Metric::cycles})
    EXPECT_TRUE(m.contains(key)) << attnscope::vocab::key(key);
  // Every metric the table measures by counters is measured from the standard set.
  for (const auto& info : attnscope::vocab::kMetrics) {
    if (!info.terms[0].counter.empty()) {
      EXPECT_TRUE(m.contains(info.id)) << info.key;
    }
  }
}

TEST(MetricSet, UnitsFollowTheCounterName) {
  EXPECT_EQ(counter_unit("dram__bytes_read.sum"), "B");
  EXPECT_EQ(counter_unit("lts__t_sectors_srcunit_tex_op_read.sum"), "sectors");
  EXPECT_EQ(counter_unit("gpu__time_duration.sum"), "ns");
  EXPECT_EQ(counter_unit("sm__cycles_elapsed.max"), "cycles");
  EXPECT_EQ(counter_unit("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), "wavefronts");
}
