// SPDX-License-Identifier: Apache-2.0
// Real H200 reports committed under tests/data/h200/ (written by `attnscope profile` on the GPU, never by
// hand, in format 1): each reads back, and re-joining its raw counters with a fresh run of the model under
// the recording's cache protocol gives the same measured values and relative errors = (modeled - measured) /
// measured, per kernel and per tile.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "attnscope/profiler/accuracy.hpp"
#include "attnscope/profiler/join.hpp"
#include "attnscope/profiler/model_cache.hpp"
#include "attnscope/profiler/profile.hpp"
#include "attnscope/profiler/remodel.hpp"
#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/writers.hpp"
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
    if (e.is_regular_file() && ((e.path().extension() == ".json" && is_report(e.path())) ||
                                e.path().filename().string().ends_with(".json.gz")))  // large reports, gzip'd
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// A report entry's raw counters back into what the GPU session hands the join (the report keeps them under
// their CUPTI names, apart from the metrics).
CounterValues counters_of(const reports::Counters& counters) {
  CounterValues c;
  for (const auto& [name, value] : counters) c[name] = value;
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
    for (const auto& k : r.kernels)
      EXPECT_TRUE(reports::measured_of(k.metrics, reports::Metric::dram_read).has_value())
          << k.name << " has no measured DRAM bytes";
    // Re-running the model costs seconds per report: the top-level reports (llm-4k, vit-b16) all, the
    // measurement matrix (matrix/) only read back, to keep CI fast.
    // Only reports with a naive or tiled forward kernel count (backward and Hopper reports are rejoined by
    // the accuracy tests), so that a folder of other reports sorted first does not use up the allowance.
    bool forward = false;
    for (auto kind : {sim::KernelKind::naive, sim::KernelKind::tiled})
      for (const auto& name : kernel_names(kind)) forward |= reports::find_kernel(r, name) != nullptr;
    if (!forward || file.parent_path().filename() == "matrix" || ++remodeled > kMaxRemodeled) continue;
    const CacheMode cache = protocol_of(r);
    for (auto kind : {sim::KernelKind::naive, sim::KernelKind::tiled}) {
      bool present = false;
      for (const auto& name : kernel_names(kind)) present |= reports::find_kernel(r, name) != nullptr;
      if (!present) continue;
      const auto model = model_kernels(gpu, r.workload, kind, r.tiles, cache, false);
      for (const auto& k : model) {
        const reports::KernelEntry* stored = reports::find_kernel(r, k.name);
        ASSERT_NE(stored, nullptr) << k.name;
        MeasuredKernel m;
        m.name = k.name;
        m.counters = counters_of(stored->counters);
        // The report's time comes from CUDA events, not a counter (notes["time"] says so).
        if (const auto t = reports::measured_of(stored->metrics, reports::Metric::time);
            stored->notes.count("time") && t)
          m.event_time_s = *t;
        const auto joined = join_kernel(m, &k, gpu, {}, cache);
        // l2_read_lts is what format 1 called l2_read (the slices' count); l2_read is now the crossbar's
        // count, derived on reading from the same raw counter the join reads.
        for (const reports::Metric key :
             {reports::Metric::dram_read, reports::Metric::dram_write, reports::Metric::l2_read,
              reports::Metric::l2_read_lts, reports::Metric::l2_write, reports::Metric::time}) {
          const auto recorded = reports::measured_of(stored->metrics, key);
          if (!recorded) continue;
          const reports::Value* v = joined.metrics.find(key);
          ASSERT_TRUE(v && v->measured) << k.name << " " << vocab::key(key);
          // Every metric the model predicts is modeled (l2_read_lts is measured only: vocab/metric.hpp).
          ASSERT_EQ(v->modeled.has_value(), vocab::info(key).modeled) << k.name << " " << vocab::key(key);
          if (!v->modeled) continue;
          EXPECT_NEAR(*v->measured, *recorded, 1e-9 * std::abs(*recorded)) << vocab::key(key);
          if (*v->measured != 0) {
            EXPECT_NEAR(*v->relative_error(), (*v->modeled - *v->measured) / *v->measured, 1e-12)
                << vocab::key(key);
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

// A fresh point whose rows of S are not 16-byte aligned (Nkv 2931): the report the user reads says, beside
// naive.qk's rows, what the model leaves out there; the aligned kernels of the same report say nothing.
TEST(CommittedReports, TheReportSaysWhatTheModelLeavesOutForThisWorkload) {
  const fs::path file = fs::path(ATTNSCOPE_DATA_DIR) / "h200" / "validate-20261205T133223Z" /
                        "fresh-20261205T133223Z" / "fresh05-b22-h4-q2931-k2931-d64-bf16-naive.json";
  const reports::Report seen = remodel_report(reports::read_report(file), sim::load_gpu_spec("h200"));
  ASSERT_EQ(seen.kernels.size(), 3u);
  for (const reports::KernelEntry& k : seen.kernels) {
    const auto note = k.notes.find("model.not_modeled");
    if (k.name == "naive.qk") {
      ASSERT_NE(note, k.notes.end());
      EXPECT_NE(note->second.find("2 bytes a lane"), std::string::npos) << note->second;
    } else {
      EXPECT_EQ(note, k.notes.end()) << k.name;
    }
  }
  const std::string text = reports::to_text_table(seen);
  EXPECT_NE(text.find("naive.qk model: rows of S are not 16-byte aligned"), std::string::npos);
  EXPECT_NE(reports::to_markdown(seen).find("> **naive.qk model**: rows of S are not 16-byte aligned"),
            std::string::npos);
}

// A tiled backward measured before the kernel last changed (an H200 report of 2026-12-05: two barriers per
// step) is shown measured only, with a note, and is not a point of the accuracy table; the same shape
// measured after the change (an H100 report of 2026-12-06 10:09 UTC) is joined with the model as usual.
TEST(CommittedReports, AKernelMeasuredBeforeItChangedIsShownMeasuredOnly) {
  const fs::path data(ATTNSCOPE_DATA_DIR);
  const fs::path before =
      data / "h200/backward-20261205T133325Z/backward-20261205T133325Z/n4096-d128-bf16-bwd-tiled.json";
  const fs::path after = data / "h100/bwd-20261206T100912Z/backward/n512-d64-fp16-bwd-tiled.json";
  ASSERT_TRUE(fs::exists(before)) << before;
  ASSERT_TRUE(fs::exists(after)) << after;
  const std::string bwd(sim::to_string(sim::KernelId::tiled_bwd));

  const reports::Report old_recording = reports::read_report(before);
  ASSERT_TRUE(
      measured_before_kernel_change(bwd, old_recording.provenance.date, old_recording.workload.seq_kv));
  ModelCache h200(sim::load_gpu_spec("h200"));
  const reports::Report old_seen = remodel_report(old_recording, h200);
  const reports::KernelEntry* k = reports::find_kernel(old_seen, bwd);
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(reports::measured_of(k->metrics, reports::Metric::dram_read).has_value());
  for (const auto& [metric, v] : k->metrics) EXPECT_FALSE(v.modeled.has_value()) << vocab::key(metric);
  EXPECT_TRUE(k->notes.contains("kernel_changed"));
  // The kernels that did not change keep their model.
  const reports::KernelEntry* pre =
      reports::find_kernel(old_seen, std::string(sim::to_string(sim::KernelId::tiled_bwd_pre)));
  ASSERT_NE(pre, nullptr);
  EXPECT_TRUE(reports::modeled_of(pre->metrics, reports::Metric::dram_read).has_value());
  std::size_t superseded = 0;
  const auto old_cases = cases_from_recording(old_recording, "before.json", h200, {}, &superseded);
  EXPECT_EQ(superseded, 1u);
  for (const auto& c : old_cases) EXPECT_NE(c.kernel, bwd);

  const reports::Report new_recording = reports::read_report(after);
  EXPECT_FALSE(
      measured_before_kernel_change(bwd, new_recording.provenance.date, new_recording.workload.seq_kv));
  ModelCache h100(sim::load_gpu_spec("h100"));
  const auto new_cases = cases_from_recording(new_recording, "after.json", h100, {}, &superseded);
  EXPECT_EQ(superseded, 0u);
  const auto c =
      std::find_if(new_cases.begin(), new_cases.end(), [&](const auto& x) { return x.kernel == bwd; });
  ASSERT_NE(c, new_cases.end());
  EXPECT_TRUE(c->points.contains(reports::Metric::time));
}
