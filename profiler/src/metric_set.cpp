// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/metric_set.hpp"

#include <algorithm>

namespace attnscope::profiler {

namespace {

constexpr const char* kDramRead = "dram__bytes_read.sum";
constexpr const char* kDramWrite = "dram__bytes_write.sum";
constexpr const char* kL2Read = "lts__t_sectors_srcunit_tex_op_read.sum";
constexpr const char* kL2Write = "lts__t_sectors_srcunit_tex_op_write.sum";
constexpr const char* kL2ReadHit = "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum";
constexpr const char* kL2WriteHit = "lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum";
constexpr const char* kSmemRead = "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum";
constexpr const char* kSmemWrite = "l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum";
constexpr const char* kL2ToL1Lsu = "l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum";
constexpr const char* kL2ToL1Loads = "l1tex__m_xbar2l1tex_read_bytes_mem_lg_op_ld.sum";
constexpr const char* kLdgstsInst = "smsp__inst_executed_op_ldgsts.sum";
// One cp.async warp instruction of the kernels copies 16 B per lane.
constexpr double kLdgstsBytesPerInst = 32 * 16;
constexpr const char* kTime = "gpu__time_duration.sum";
constexpr const char* kCycles = "sm__cycles_elapsed.max";

std::optional<double> get(const CounterValues& c, const char* name) {
  auto it = c.find(name);
  if (it == c.end()) return std::nullopt;
  return it->second;
}

}  // namespace

const std::vector<std::string>& pm_sampling_metrics() {
  static const std::vector<std::string> names = {
      kDramRead,
      kDramWrite,
      "lts__t_sectors_srcunit_tex_op_read.sum",
      "lts__t_sectors_srcunit_tex_op_write.sum",
      "sm__pipe_tensor_op_hmma_cycles_active.sum",
  };
  return names;
}

const std::vector<std::string>& standard_counters() {
  static const std::vector<std::string> names = {
      kDramRead,
      kDramWrite,
      kL2Read,
      kL2Write,
      kL2ReadHit,
      kL2WriteHit,
      kSmemRead,
      kSmemWrite,
      // The same shared-memory traffic split by instruction: plain loads (ld.shared, ldmatrix) and stores.
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
      "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
      // cp.async (LDGSTS) fills of shared memory are not shared-memory wavefronts on the H200. Measured
      // there: its 16-B-per-lane copies arrive from L2 as ordinary global-load bytes (mem_lg_op_ld, = 512 B x
      // ldgsts instructions for the tiled kernel), so fills = min(512 B x instructions, L2 -> L1 load bytes).
      kLdgstsInst,
      kL2ToL1Loads,
      kL2ToL1Lsu,
      "l1tex__t_bytes_pipe_lsu_mem_global_op_ldgsts_cache_access.sum",  // cp.async.ca only (through L1)
      // L2 traffic from every source (SMs, the fabric between the two L2 partitions, copies), for comparison
      // with the SM-only sectors above.
      "lts__t_sectors_op_read.sum",
      "lts__t_sectors_op_write.sum",
      "lts__t_sectors_srcunit_ltcfabric.sum",
      kTime,
      kCycles,
      "sm__pipe_tensor_op_hmma_cycles_active.sum",
      "sm__inst_executed_pipe_tensor_op_hmma.sum",
  };
  return names;
}

std::map<std::string, double> derive_report_metrics(const CounterValues& c) {
  std::map<std::string, double> out;
  if (auto v = get(c, kDramRead)) out["dram_read"] = *v;
  if (auto v = get(c, kDramWrite)) out["dram_write"] = *v;
  if (auto v = get(c, kL2Read)) out["l2_read"] = *v * kL2SectorBytes;
  if (auto v = get(c, kL2Write)) out["l2_write"] = *v * kL2SectorBytes;
  const auto read_hit = get(c, kL2ReadHit);
  const auto write_hit = get(c, kL2WriteHit);
  if (read_hit && write_hit) out["l2_hit"] = (*read_hit + *write_hit) * kL2SectorBytes;
  if (auto v = get(c, kSmemRead)) out["smem_read"] = *v * kSharedWavefrontBytes;
  if (auto v = get(c, kSmemWrite)) {
    double bytes = *v * kSharedWavefrontBytes;
    const auto inst = get(c, kLdgstsInst);
    const auto loads = get(c, kL2ToL1Loads);
    if (inst && loads) bytes += std::min(*inst * kLdgstsBytesPerInst, *loads);  // cp.async fills
    out["smem_write"] = bytes;
  }
  if (auto v = get(c, kTime)) out["time"] = *v * 1e-9;
  if (auto v = get(c, kCycles)) out["cycles"] = *v;
  return out;
}

std::string counter_unit(const std::string& name) {
  auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  if (has("__time_")) return "ns";
  if (has("bytes")) return "B";
  if (has("sectors")) return "sectors";
  if (has("wavefronts")) return "wavefronts";
  if (has("cycles")) return "cycles";
  if (has("inst_executed")) return "inst";
  if (has(".pct")) return "%";
  return "";
}

}  // namespace attnscope::profiler
