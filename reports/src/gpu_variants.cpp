// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/gpu_variants.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "attnscope/reports/units.hpp"

namespace attnscope::reports {

namespace {

// Calls fn(gpu, l2, bandwidth, sms, smem per SM) for every combination; an empty axis is one pass with 0
// (= the spec's).
template <typename Fn>
void for_each_variant(const SweepSpec& spec, Fn fn) {
  const std::vector<std::int64_t> l2s = spec.l2_sizes.empty() ? std::vector<std::int64_t>{0} : spec.l2_sizes;
  const std::vector<double> bws = spec.hbm_bandwidths.empty() ? std::vector<double>{0} : spec.hbm_bandwidths;
  const std::vector<int> sms = spec.sm_counts.empty() ? std::vector<int>{0} : spec.sm_counts;
  const std::vector<std::int64_t> smems =
      spec.smem_per_sm.empty() ? std::vector<std::int64_t>{0} : spec.smem_per_sm;
  for (const auto& gpu : spec.gpus)
    for (std::int64_t l2 : l2s)
      for (double bw : bws)
        for (int sm : sms)
          for (std::int64_t smem : smems) fn(gpu, l2, bw, sm, smem);
}

std::string variant_label(const std::string& gpu, std::int64_t l2, double bw, int sms, std::int64_t smem) {
  std::string label = gpu;
  // Exact values (fmt's shortest round-trip form): two variants must never share a label.
  if (l2 > 0) label += fmt::format(" l2={}", l2);
  if (bw > 0) label += fmt::format(" hbm={}", bw);
  if (sms > 0) label += fmt::format(" sms={}", sms);
  if (smem > 0) label += fmt::format(" smem_sm={}", smem);
  return label;
}

}  // namespace

std::vector<std::string> gpu_variant_labels(const SweepSpec& spec) {
  std::vector<std::string> out;
  for_each_variant(spec, [&](const std::string& gpu, std::int64_t l2, double bw, int sms, std::int64_t smem) {
    out.push_back(variant_label(gpu, l2, bw, sms, smem));
  });
  return out;
}

std::vector<GpuVariant> expand_gpu_variants(const SweepSpec& spec) {
  std::vector<GpuVariant> out;
  std::string loaded_name;
  sim::GpuSpec loaded;
  for_each_variant(spec, [&](const std::string& gpu, std::int64_t l2, double bw, int sms, std::int64_t smem) {
    if (out.empty() || loaded_name != gpu) {
      loaded = sim::load_gpu_spec(gpu);
      loaded_name = gpu;
    }
    GpuVariant v{variant_label(gpu, l2, bw, sms, smem), loaded};
    if (l2 > 0) v.spec.l2_bytes = l2;
    if (bw > 0) v.spec.hbm_bandwidth = bw;
    if (sms > 0) v.spec.sm_count = sms;
    if (smem > 0) {
      // The SM's capacity; one CTA can still use at most what is left after the driver's reserve.
      v.spec.smem_per_sm = smem;
      v.spec.smem_per_block =
          std::clamp<std::int64_t>(smem - v.spec.smem_reserved_per_cta, 0, v.spec.smem_per_block);
    }
    out.push_back(std::move(v));
  });
  return out;
}

}  // namespace attnscope::reports
