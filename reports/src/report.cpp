// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/report.hpp"

#include <algorithm>

namespace attnscope::reports {

std::optional<double> Value::relative_error() const {
  if (!measured || !modeled || *measured == 0.0) return std::nullopt;
  return (*modeled - *measured) / *measured;
}

const KernelEntry* find_kernel(const Report& report, std::string_view name) {
  for (const auto& k : report.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

std::string_view default_unit(std::string_view metric) {
  if (metric == "time") return "s";
  if (metric == "cycles") return "cycles";
  if (metric == "flops") return "FLOP";
  if (metric == "dram_read" || metric == "dram_write" || metric == "l2_read" || metric == "l2_write" ||
      metric == "l2_hit" || metric == "smem_read" || metric == "smem_write" || metric == "smem_per_cta")
    return "B";
  return "";
}

bool lower_is_better(std::string_view metric) {
  static const std::vector<std::string_view> keys{"dram_read", "dram_write", "l2_read", "l2_write",
                                                  "smem_read", "smem_write", "time",    "cycles"};
  return std::find(keys.begin(), keys.end(), metric) != keys.end();
}

const std::vector<std::string>& known_metric_keys() {
  static const std::vector<std::string> keys{"dram_read", "dram_write", "l2_read", "l2_write", "l2_hit",
                                             "smem_read", "smem_write", "time",    "cycles",   "flops"};
  return keys;
}

std::vector<std::string> ordered_metric_keys(const Metrics& metrics) {
  std::vector<std::string> keys;
  for (const auto& k : known_metric_keys())
    if (metrics.count(k)) keys.push_back(k);
  for (const auto& [k, v] : metrics)
    if (std::find(known_metric_keys().begin(), known_metric_keys().end(), k) == known_metric_keys().end())
      keys.push_back(k);
  return keys;
}

}  // namespace attnscope::reports
