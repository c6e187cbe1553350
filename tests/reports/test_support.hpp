// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the reports tests: fixture paths and a small report built in code.
#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "attnscope/reports/report.hpp"

namespace attnscope::reports::testing {

inline std::filesystem::path fixture(const std::string& name) {
  return std::filesystem::path(ATTNSCOPE_DATA_DIR) / "reports" / name;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A profile-like report with two kernels, measured and modeled values, and tiles: every JSON field in use
// (format 2: raw counters of a kernel and of a lone window, a lone window among the tiles, the tile total and
// the subset kept, the cache protocol, replay mode and the recordings joined).
inline Report small_report() {
  Report r;
  r.kind = "profile";
  r.provenance.tool_version = "0.1.0";
  r.provenance.git_revision = "abc123";
  r.provenance.date = "2026-01-02T03:04:05Z";
  r.provenance.command = "attnscope profile --seq 384";
  r.provenance.host = "testhost";
  r.provenance.gpu_name = "NVIDIA H200";
  r.provenance.driver = "580.1";
  r.provenance.cuda_runtime = "12.8";
  r.provenance.sm_clock_mhz = 1980.0;
  r.provenance.cache = vocab::CacheProtocol::flush;
  r.provenance.replay = vocab::ReplayMode::user;
  r.provenance.gpu_spec = "h200";
  r.provenance.recordings.push_back(
      Recording{"h200/run/unit-naive.json", "2026-01-01T00:00:00Z", "def456", {"naive.qk"}});
  r.provenance.recordings.push_back(Recording{"h200/run/unit-tiled.json", "2026-01-02T00:00:00Z", "abc123", {"tiled"}});
  r.workload.name = "unit";
  r.workload.heads = 2;
  // 384 tokens: every tile below lies inside both kernels' grids (naive.qk: 3 x 3 blocks of 128).
  r.workload.seq_q = r.workload.seq_kv = 384;
  r.workload.causal = true;
  r.workload.scale = 0.125;
  r.tiles.br = 64;
  r.tiles.bc = 32;
  r.tiles.warps = 4;
  for (const char* name : {"naive.qk", "tiled"}) {
    KernelEntry k;
    k.name = name;
    k.metrics[Metric::dram_read] = Value{1.0e6, 1.05e6};
    k.metrics[Metric::time] = Value{1.0e-4, 0.9e-4};
    k.metrics[Metric::flops] = Value{std::nullopt, 2.0e9};
    k.counters["dram__bytes_read.sum"] = 1.0e6;
    k.counters["l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum"] = 3.5e6;
    k.notes["l2_writeback"] = "dirty lines written after the kernel";
    k.tiles_total = 12;
    k.tiles_kept = TileSubset::head0;
    for (int q = 0; q < 2; ++q)
      for (int kv = 0; kv < 3; ++kv) {
        TileEntry t;
        t.head = 1;
        t.q_tile = q;
        t.kv_tile = kv;
        t.sm_modeled = q;
        t.sm_measured = q + 1;
        t.start_modeled_s = kv * 1e-6;
        t.end_modeled_s = (kv + 1) * 1e-6;
        t.start_measured_s = kv * 1.1e-6;
        t.end_measured_s = (kv + 1) * 1.1e-6;
        if (q == 0 && kv == 0) {  // a tile without a timeline record: nulls in its columns
          t.sm_measured.reset();
          t.start_measured_s.reset();
          t.end_measured_s.reset();
        }
        t.metrics[Metric::dram_read] = Value{1000.0 + q, 1024.0 + kv};
        if (q == 1 && kv == 2) {  // one lone window, with its raw counters
          t.lone_window = true;
          t.counters["dram__bytes_read.sum"] = 1001.0;
        }
        k.tiles.push_back(t);
      }
    r.kernels.push_back(k);
  }
  return r;
}

}  // namespace attnscope::reports::testing
