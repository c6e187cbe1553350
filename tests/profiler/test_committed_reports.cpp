// SPDX-License-Identifier: Apache-2.0
// Real H200 reports committed under tests/data/h200/ (written by `attnscope profile` on the GPU, never by
// hand): each reads back, and re-joining its measured side with a fresh run of the model gives the same
// measured values and relative errors = (modeled - measured) / measured, per kernel and per tile.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "attnscope/profiler/join.hpp"
#include "attnscope/profiler/profile.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/sim/simulate.hpp"

using namespace attnscope;
using namespace attnscope::profiler;
namespace fs = std::filesystem;

namespace {

// The measurement folders also hold the ncu comparison tables (JSON arrays): reports are the files that
// carry a format version.
bool is_report(const fs::path& p) {
  std::ifstream in(p);
  std::string head(256, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  return head.find("\"format_version\"") != std::string::npos;
}

std::vector<fs::path> committed_reports() {
  std::vector<fs::path> out;
  const fs::path dir = fs::path(ATTNSCOPE_DATA_DIR) / "h200";
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".json" && is_report(e.path())) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// The measured side of a report entry back into raw counters (the report keeps them under CUPTI names).
CounterValues counters_of(const reports::Metrics& m) {
  CounterValues c;
  for (const auto& [key, v] : m)
    if (key.find("__") != std::string::npos && v.measured) c[key] = *v.measured;
  return c;
}

}  // namespace

TEST(CommittedReports, ReadBackAndRejoinWithAFreshModel) {
  const auto files = committed_reports();
  if (files.empty()) GTEST_SKIP() << "no H200 measurements committed under tests/data/h200 yet";
  const auto gpu = sim::load_gpu_spec("h200");
  int checked_kernels = 0, checked_tiles = 0, remodeled = 0;
  constexpr int kMaxRemodeled = 16;
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    const reports::Report r = reports::read_report(file);
    if (r.kind != "profile") continue;
    EXPECT_FALSE(r.provenance.date.empty());
    EXPECT_FALSE(r.provenance.driver.empty());
    EXPECT_FALSE(r.provenance.command.empty());
    EXPECT_FALSE(r.provenance.git_revision.empty());
    for (const auto& k : r.kernels) {
      auto it = k.metrics.find("dram_read");
      EXPECT_TRUE(it != k.metrics.end() && it->second.measured) << k.name << " has no measured DRAM bytes";
    }
    // Re-running the model costs seconds per report: the top-level reports (llm-4k, vit-b16) all, the
    // measurement matrix (matrix/) only read back, to keep CI fast.
    if (file.parent_path().filename() == "matrix" || ++remodeled > kMaxRemodeled) continue;
    const auto cache = parse_cache_mode(r.provenance.cache_mode).value_or(CacheMode::flush);
    for (auto kind : {sim::KernelKind::naive, sim::KernelKind::tiled}) {
      bool present = false;
      for (const auto& name : kernel_names(kind)) present |= reports::find_kernel(r, name) != nullptr;
      if (!present) continue;
      const auto model = sim::simulate(gpu, r.workload, kind, r.tiles, sim_options_for(cache, false));
      for (const auto& k : model.kernels) {
        const reports::KernelEntry* stored = reports::find_kernel(r, k.name);
        ASSERT_NE(stored, nullptr) << k.name;
        MeasuredKernel m;
        m.name = k.name;
        m.counters = counters_of(stored->metrics);
        // The report's time comes from CUDA events, not a counter (notes["time"] says so).
        if (auto t = stored->metrics.find("time");
            stored->notes.count("time") && t != stored->metrics.end() && t->second.measured)
          m.event_time_s = *t->second.measured;
        const auto joined = join_kernel(m, &k, gpu, {}, cache);
        for (const char* key : {"dram_read", "dram_write", "l2_read", "l2_write", "time"}) {
          auto it = stored->metrics.find(key);
          if (it == stored->metrics.end() || !it->second.measured) continue;
          const auto& v = joined.metrics.at(key);
          ASSERT_TRUE(v.measured && v.modeled) << k.name << " " << key;
          EXPECT_NEAR(*v.measured, *it->second.measured, 1e-9 * std::abs(*it->second.measured)) << key;
          if (*v.measured != 0) {
            EXPECT_NEAR(*v.relative_error(), (*v.modeled - *v.measured) / *v.measured, 1e-12) << key;
          }
          ++checked_kernels;
        }
        for (const auto& t : stored->tiles) {
          for (const auto& [key, v] : t.metrics) {
            if (!v.measured || !v.modeled || *v.measured == 0) continue;
            EXPECT_NEAR(*v.relative_error(), (*v.modeled - *v.measured) / *v.measured, 1e-12);
            ++checked_tiles;
          }
        }
      }
    }
  }
  std::printf("checked %d kernel metrics and %d tile metrics in %zu committed reports\n", checked_kernels,
              checked_tiles, files.size());
  EXPECT_GT(checked_kernels, 0);
}
