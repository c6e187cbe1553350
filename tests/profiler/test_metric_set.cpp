// SPDX-License-Identifier: Apache-2.0
// Raw counters -> report metric keys (synthetic counter values, built here).
#include <gtest/gtest.h>

#include "attnscope/profiler/metric_set.hpp"

using namespace attnscope::profiler;

TEST(MetricSet, DerivesReportKeysFromRawCounters) {
  CounterValues c;
  c["dram__bytes_read.sum"] = 1000.0;
  c["dram__bytes_write.sum"] = 500.0;
  c["lts__t_sectors_srcunit_tex_op_read.sum"] = 100.0;
  c["lts__t_sectors_srcunit_tex_op_write.sum"] = 10.0;
  c["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] = 60.0;
  c["lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum"] = 4.0;
  c["l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum"] = 7.0;
  c["l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum"] = 3.0;
  c["gpu__time_duration.sum"] = 2500.0;
  c["sm__cycles_elapsed.max"] = 4000.0;
  const auto m = derive_report_metrics(c);
  EXPECT_DOUBLE_EQ(m.at("dram_read"), 1000.0);
  EXPECT_DOUBLE_EQ(m.at("dram_write"), 500.0);
  EXPECT_DOUBLE_EQ(m.at("l2_read"), 3200.0);  // 100 sectors x 32 B
  EXPECT_DOUBLE_EQ(m.at("l2_write"), 320.0);
  EXPECT_DOUBLE_EQ(m.at("l2_hit"), 64.0 * 32.0);
  EXPECT_DOUBLE_EQ(m.at("smem_read"), 7.0 * 128.0);
  EXPECT_DOUBLE_EQ(m.at("smem_write"), 3.0 * 128.0);
  // cp.async fills: 512 B per ldgsts warp instruction, at most the L2 -> L1 global-load bytes.
  c["smsp__inst_executed_op_ldgsts.sum"] = 10.0;
  c["l1tex__m_xbar2l1tex_read_bytes_mem_lg_op_ld.sum"] = 100'000.0;
  EXPECT_DOUBLE_EQ(derive_report_metrics(c).at("smem_write"), 3.0 * 128.0 + 5'120.0);
  c["l1tex__m_xbar2l1tex_read_bytes_mem_lg_op_ld.sum"] = 1'000.0;  // predicated-off lanes copy nothing
  EXPECT_DOUBLE_EQ(derive_report_metrics(c).at("smem_write"), 3.0 * 128.0 + 1'000.0);
  EXPECT_DOUBLE_EQ(m.at("time"), 2.5e-6);  // ns -> s
  EXPECT_DOUBLE_EQ(m.at("cycles"), 4000.0);
}

TEST(MetricSet, UnavailableCountersLeaveTheirKeysOut) {
  CounterValues c;
  c["dram__bytes_read.sum"] = 1.0;
  c["dram__bytes_write.sum"] = std::nullopt;                     // recorded as unavailable on the chip
  c["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] = 5.0;  // hit needs both read and write hits
  const auto m = derive_report_metrics(c);
  EXPECT_EQ(m.count("dram_read"), 1u);
  EXPECT_EQ(m.count("dram_write"), 0u);
  EXPECT_EQ(m.count("l2_hit"), 0u);
  EXPECT_EQ(m.count("time"), 0u);
}

TEST(MetricSet, StandardSetHasEveryInputOfTheReportKeysAndNoDuplicates) {
  const auto& names = standard_counters();
  CounterValues c;
  for (const auto& n : names) {
    EXPECT_EQ(c.count(n), 0u) << n << " listed twice";
    c[n] = 1.0;
  }
  const auto m = derive_report_metrics(c);
  for (const char* key : {"dram_read", "dram_write", "l2_read", "l2_write", "l2_hit", "smem_read",
                          "smem_write", "time", "cycles"})
    EXPECT_EQ(m.count(key), 1u) << key;
}

TEST(MetricSet, UnitsFollowTheCounterName) {
  EXPECT_EQ(counter_unit("dram__bytes_read.sum"), "B");
  EXPECT_EQ(counter_unit("lts__t_sectors_srcunit_tex_op_read.sum"), "sectors");
  EXPECT_EQ(counter_unit("gpu__time_duration.sum"), "ns");
  EXPECT_EQ(counter_unit("sm__cycles_elapsed.max"), "cycles");
  EXPECT_EQ(counter_unit("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), "wavefronts");
}
