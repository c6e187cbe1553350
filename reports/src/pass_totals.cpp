// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/pass_totals.hpp"

#include <fmt/format.h>

#include <array>
#include <optional>

#include "attnscope/reports/units.hpp"
#include "attnscope/vocab/kernel.hpp"

namespace attnscope::reports {

namespace {

constexpr std::array kSummed = {Metric::dram_read, Metric::dram_write, Metric::l2_read,
                                Metric::l2_write,  Metric::flops,      Metric::time};

// Adds `k`'s values into `into`; a side (measured, modeled) missing from any kernel stays missing.
void add(PassTotal& into, const KernelEntry& k) {
  const bool first = into.kernels++ == 0;
  for (const Metric m : kSummed) {
    const Value* v = k.metrics.find(m);
    Value& sum = into.metrics[m];
    const auto side = [&](MaybeDouble& total, const MaybeDouble& x) {
      if (!x)
        total.reset();
      else if (first)
        total = *x;
      else if (total)
        total = *total + *x;
    };
    side(sum.measured, v ? v->measured : MaybeDouble{});
    side(sum.modeled, v ? v->modeled : MaybeDouble{});
  }
}

std::string side_text(const PassTotal& p, bool modeled) {
  const auto get = [&](Metric m) -> std::optional<double> {
    const Value* v = p.metrics.find(m);
    if (!v) return std::nullopt;
    return modeled ? v->modeled : v->measured;
  };
  const auto r = get(Metric::dram_read), w = get(Metric::dram_write), t = get(Metric::time);
  if (!r && !w && !t) return {};
  std::string s = modeled ? "modeled" : "measured";
  if (r && w)
    s += fmt::format(" HBM {} read + {} write = {}", format_bytes(*r), format_bytes(*w),
                     format_bytes(*r + *w));
  if (t) s += fmt::format(", time {}", format_seconds(*t));
  return s;
}

}  // namespace

std::vector<PassTotal> pass_totals(const Report& report) {
  std::vector<PassTotal> out;
  for (const vocab::KernelKind kind :
       {vocab::KernelKind::naive, vocab::KernelKind::tiled}) {  // hopper: fwd only
    const std::string name(vocab::to_string(kind));
    PassTotal fwd{name + " forward", 0, {}}, bwd{name + " backward", 0, {}},
        step{name + " training step", 0, {}};
    for (const KernelEntry& k : report.kernels) {
      const auto id = vocab::parse_kernel_id(k.name);
      if (!id || vocab::kind_of(*id) != kind) continue;  // measured only, or the other kind
      add(vocab::pass_of(*id) == vocab::Pass::fwd ? fwd : bwd, k);
      add(step, k);
    }
    if (bwd.kernels == 0) continue;  // a forward-only kind needs no per-pass lines
    if (fwd.kernels > 0) out.push_back(fwd);
    out.push_back(bwd);
    if (fwd.kernels > 0) out.push_back(step);
  }
  return out;
}

std::string pass_totals_text(const Report& report) {
  std::string out;
  for (const PassTotal& p : pass_totals(report)) {
    std::string line = fmt::format("{} ({} kernel{}):", p.label, p.kernels, p.kernels == 1 ? "" : "s");
    for (const bool modeled : {true, false})
      if (const std::string s = side_text(p, modeled); !s.empty()) line += " " + s + ";";
    if (line.back() == ';') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace attnscope::reports
