// SPDX-License-Identifier: Apache-2.0
// Which hardware counters the profiler collects and how they become the report's metric keys.
//
// Raw counters are preferred over ratios (ratios such as lts__t_sector_hit_rate.pct have read above 100% on
// the H200); the report keys are derived here, in one place:
//   dram_read  = dram__bytes_read.sum                    dram_write = dram__bytes_write.sum
//   l2_read    = 32 B x lts__t_sectors_srcunit_tex_op_read.sum   (SM -> L2 read requests, sectors)
//   l2_write   = 32 B x lts__t_sectors_srcunit_tex_op_write.sum
//   l2_hit     = 32 B x (op_read_lookup_hit + op_write_lookup_hit)
//   smem_read  = 128 B x l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum  (one wavefront moves at
//   smem_write = 128 B x l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum  most 32 banks x 4 B)
//                + cp.async fills: min(512 B x smsp__inst_executed_op_ldgsts.sum,
//                                      l1tex__m_xbar2l1tex_read_bytes_mem_lg_op_ld.sum)
//                (on the H200, cp.async.cg fills of shared memory are not shared-memory wavefronts; the
//                kernels copy 16 B per lane, and the fills arrive from L2 as global-load bytes)
//   time       = gpu__time_duration.sum (ns -> s)        cycles = sm__cycles_elapsed.max
// Every raw counter is also kept in the report under its own CUPTI name (measured only).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attnscope::profiler {

// CUPTI metric name -> value; nullopt = not available on this chip (recorded, not fatal).
using CounterValues = std::map<std::string, std::optional<double>>;

inline constexpr double kL2SectorBytes = 32.0;
inline constexpr double kSharedWavefrontBytes = 128.0;

// The standard set, in collection order.
const std::vector<std::string>& standard_counters();

// What PM sampling asks for, most wanted first (DRAM bytes, L2 sectors from the SMs, tensor-pipe cycles):
// the ones the chip can sample together in one pass are kept.
const std::vector<std::string>& pm_sampling_metrics();

// Report metric keys (dram_read, ..., cycles) computable from `counters`, in report units (bytes, seconds,
// cycles). A key whose inputs are unavailable is left out.
std::map<std::string, double> derive_report_metrics(const CounterValues& counters);

// Unit string for a raw CUPTI counter name, judged from its name ("B", "sectors", "wavefronts", "ns",
// "cycles", "" when unknown).
std::string counter_unit(const std::string& cupti_name);

}  // namespace attnscope::profiler
