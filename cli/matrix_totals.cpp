// SPDX-License-Identifier: Apache-2.0
#include "matrix_totals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <vector>

#include "attnscope/profiler/matrix.hpp"
#include "attnscope/profiler/model_cache.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/vocab/kernel.hpp"
#include "exit_codes.hpp"

namespace attnscope::cli {
namespace {

struct Measured {
  double dram_read_mb = 0;
  double time_ms = 0;
};

// The per-point totals of a `profile --matrix` log, by label.
std::map<std::string, Measured> read_log_totals(const std::string& path) {
  std::map<std::string, Measured> out;
  for (const auto& p : profiler::read_matrix_log(path).points)
    out[p.label] = {p.dram_read_bytes / 1e6, p.time_s * 1e3};
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string pct(double e) {
  return fmt::format("{:+.1f} %", 100.0 * e);
}

}  // namespace

int run_matrix_totals(const std::string& matrix, const std::string& log, const std::string& gpu_spec) {
  std::vector<profiler::MatrixPoint> points;
  std::map<std::string, Measured> measured;
  sim::GpuSpec gpu;
  try {
    points = profiler::measurement_matrix(matrix);
    gpu = sim::load_gpu_spec(gpu_spec);
    if (!log.empty()) measured = read_log_totals(log);
  } catch (const sim::InvalidInput& e) {
    std::fprintf(stderr, "attnscope simulate: %s\n", e.what());
    return kBadInput;
  }
  struct Row {
    std::string label;
    sim::KernelKind kind;
    double model_mb = 0, model_ms = 0;
    std::optional<Measured> chip;
  };
  std::vector<Row> rows;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    const auto it = measured.find(p.label);
    if (!log.empty() && it == measured.end()) continue;  // not in that run (a deadline stopped it)
    std::fprintf(stderr, "\r[%zu/%zu] %-60s", i + 1, points.size(), p.label.c_str());
    Row r{p.label, p.kind, 0, 0, std::nullopt};
    try {
      for (const auto& k :
           profiler::model_kernels(gpu, p.workload, p.kind, p.tiles, vocab::CacheProtocol::flush, false)) {
        r.model_mb += static_cast<double>(k.totals.hbm_read) / 1e6;
        r.model_ms += k.time_s * 1e3;
      }
    } catch (const sim::InvalidInput& e) {
      std::fprintf(stderr, "\nattnscope simulate: %s: %s\n", p.label.c_str(), e.what());
      return kBadInput;
    }
    if (it != measured.end()) r.chip = it->second;
    rows.push_back(r);
  }
  std::fprintf(stderr, "\n");
  if (!log.empty() && rows.size() < measured.size()) {
    // Labels of another matrix (or another seed of `fresh`): the log was not measured from these points.
    const std::size_t unknown = measured.size() - rows.size();
    if (rows.empty()) {
      std::fprintf(stderr, "attnscope simulate: none of the %zu points in '%s' is a point of matrix %s\n",
                   unknown, log.c_str(), matrix.c_str());
      return kBadInput;
    }
    std::fprintf(stderr, "attnscope simulate: %zu point(s) in '%s' are not in matrix %s: left out\n", unknown,
                 log.c_str(), matrix.c_str());
  }
  if (log.empty()) {
    std::printf("matrix %s: the model's totals per point (each kernel from a flushed L2), %s\n\n",
                matrix.c_str(), gpu.name.c_str());
    std::printf("%-60s %14s %12s\n", "point", "DRAM read MB", "time ms");
    for (const auto& r : rows) std::printf("%-60s %14.2f %12.3f\n", r.label.c_str(), r.model_mb, r.model_ms);
    return kOk;
  }
  // The answer first: median and worst per kernel kind, then every point.
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> by_kind;
  for (const auto& r : rows) {
    const std::string kind(vocab::to_string(r.kind));
    by_kind[kind].first.push_back(std::abs(r.model_mb / r.chip->dram_read_mb - 1.0));
    by_kind[kind].second.push_back(std::abs(r.model_ms / r.chip->time_ms - 1.0));
  }
  std::printf("matrix %s: model vs the totals in %s (%zu points; each kernel from a flushed L2)\n\n",
              matrix.c_str(), log.c_str(), rows.size());
  std::printf("%-8s %6s %22s %22s\n", "kind", "points", "DRAM read |err| med/max", "time |err| med/max");
  for (const auto& [kind, errs] : by_kind)
    std::printf("%-8s %6zu %10.1f %% / %6.1f %% %10.1f %% / %6.1f %%\n", kind.c_str(), errs.first.size(),
                100 * median(errs.first), 100 * *std::max_element(errs.first.begin(), errs.first.end()),
                100 * median(errs.second), 100 * *std::max_element(errs.second.begin(), errs.second.end()));
  std::printf("\n%-60s %12s %12s %9s %10s %10s %9s\n", "point", "DRAM MB chip", "model", "error",
              "time ms chip", "model", "error");
  for (const auto& r : rows)
    std::printf("%-60s %12.2f %12.2f %9s %10.3f %10.3f %9s\n", r.label.c_str(), r.chip->dram_read_mb,
                r.model_mb, pct(r.model_mb / r.chip->dram_read_mb - 1.0).c_str(), r.chip->time_ms, r.model_ms,
                pct(r.model_ms / r.chip->time_ms - 1.0).c_str());
  return kOk;
}

}  // namespace attnscope::cli
