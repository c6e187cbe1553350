// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/gpu_variants.hpp"

#include <fmt/format.h>

#include "attnscope/reports/units.hpp"

namespace attnscope::reports {

namespace {

// Calls fn(gpu, l2, bandwidth, sms) for every combination; an empty axis is one pass with 0 (= the spec's).
template <typename Fn>
void for_each_variant(const SweepSpec& spec, Fn fn) {
  const std::vector<std::int64_t> l2s = spec.l2_sizes.empty() ? std::vector<std::int64_t>{0} : spec.l2_sizes;
  const std::vector<double> bws = spec.hbm_bandwidths.empty() ? std::vector<double>{0} : spec.hbm_bandwidths;
  const std::vector<int> sms = spec.sm_counts.empty() ? std::vector<int>{0} : spec.sm_counts;
  for (const auto& gpu : spec.gpus)
    for (std::int64_t l2 : l2s)
      for (double bw : bws)
        for (int sm : sms) fn(gpu, l2, bw, sm);
}

std::string variant_label(const std::string& gpu, std::int64_t l2, double bw, int sms) {
  std::string label = gpu;
  // Exact values (fmt's shortest round-trip form): two variants must never share a label.
  if (l2 > 0) label += fmt::format(" l2={}", l2);
  if (bw > 0) label += fmt::format(" hbm={}", bw);
  if (sms > 0) label += fmt::format(" sms={}", sms);
  return label;
}

}  // namespace

std::vector<std::string> gpu_variant_labels(const SweepSpec& spec) {
  std::vector<std::string> out;
  for_each_variant(spec, [&](const std::string& gpu, std::int64_t l2, double bw, int sms) {
    out.push_back(variant_label(gpu, l2, bw, sms));
  });
  return out;
}

std::vector<GpuVariant> expand_gpu_variants(const SweepSpec& spec) {
  std::vector<GpuVariant> out;
  std::string loaded_name;
  sim::GpuSpec loaded;
  for_each_variant(spec, [&](const std::string& gpu, std::int64_t l2, double bw, int sms) {
    if (out.empty() || loaded_name != gpu) {
      loaded = sim::load_gpu_spec(gpu);
      loaded_name = gpu;
    }
    GpuVariant v{variant_label(gpu, l2, bw, sms), loaded};
    if (l2 > 0) v.spec.l2_bytes = l2;
    if (bw > 0) v.spec.hbm_bandwidth = bw;
    if (sms > 0) v.spec.sm_count = sms;
    out.push_back(std::move(v));
  });
  return out;
}

}  // namespace attnscope::reports
