// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/sweep_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include "attnscope/reports/from_sim.hpp"
#include "attnscope/reports/gpu_variants.hpp"
#include "attnscope/reports/sweep_two_fidelity.hpp"
#include "attnscope/reports/units.hpp"
#include "attnscope/sim/error.hpp"
#include "attnscope/sim/simulate.hpp"
#include "attnscope/sim/sweep.hpp"
#include "sweep_cycle_parts.hpp"
#include "sweep_metrics.hpp"

namespace attnscope::reports {

namespace {

template <typename T>
std::string join(const std::vector<T>& v) {
  std::string s;
  for (const auto& x : v) {
    if (!s.empty()) s += ',';
    s += fmt::format("{}", x);
  }
  return s.empty() ? "default" : s;
}

template <typename T>
void require_non_empty_positive(const std::vector<T>& v, const char* axis, bool may_be_empty) {
  if (v.empty() && !may_be_empty) throw sim::InvalidInput(fmt::format("sweep: the {} list is empty", axis));
  for (const auto& x : v)
    if (x <= 0) throw sim::InvalidInput(fmt::format("sweep: {} must be positive, got {}", axis, x));
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  for (char c : text + ",") {
    if (c == ',') {
      if (!item.empty()) out.push_back(item);
      item.clear();
    } else if (c != ' ') {
      item += c;
    }
  }
  return out;
}

// Whole numbers of type T only: no fraction, no trailing text, no wrap-around.
template <typename T>
std::vector<T> parse_int_list(const std::string& flag, const std::string& text) {
  std::vector<T> out;
  for (const auto& item : split_list(text)) {
    T v{};
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec == std::errc::result_out_of_range)
      throw sim::InvalidInput(
          fmt::format("{}: '{}' is out of range (at most {})", flag, item, std::numeric_limits<T>::max()));
    if (ec != std::errc() || end != item.data() + item.size())
      throw sim::InvalidInput(flag + ": '" + item + "' is not an integer");
    out.push_back(v);
  }
  if (out.empty()) throw sim::InvalidInput(flag + ": empty list");
  return out;
}

// Sizes may be written 4096 or 4K (= 4096); they must come out whole and within 64 bits.
std::vector<std::int64_t> parse_size_list(const std::string& flag, const std::string& text, bool bytes) {
  std::vector<std::int64_t> out;
  for (const auto& item : split_list(text)) {
    Quantity q;
    try {
      q = parse_quantity(item);
    } catch (const std::invalid_argument& e) {
      throw sim::InvalidInput(flag + ": " + e.what());
    }
    if (q.dimension != Dimension::none && q.dimension != Dimension::bytes)
      throw sim::InvalidInput(flag + ": '" + item + "' is not a size");
    if (!bytes && q.dimension == Dimension::bytes && item.back() == 'B')
      throw sim::InvalidInput(flag + ": '" + item + "' is a size in bytes, not a token count");
    // 2^62: far above any limit the model accepts, and the cast below is defined.
    constexpr double kMax = 4611686018427387904.0;
    if (!std::isfinite(q.value) || std::fabs(q.value) > kMax)
      throw sim::InvalidInput(fmt::format("{}: '{}' is out of range (at most {})", flag, item, kMax));
    if (q.value != std::floor(q.value))
      throw sim::InvalidInput(flag + ": '" + item + "' is not a whole number");
    out.push_back(static_cast<std::int64_t>(q.value));
  }
  if (out.empty()) throw sim::InvalidInput(flag + ": empty list");
  return out;
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
    return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}

}  // namespace

void parse_sweep_axes(const SweepAxesText& text, const sim::TileConfig& defaults, SweepSpec& spec,
                      SweepRunOptions& run) {
  spec.order = defaults.order;
  spec.brs = text.br.empty() ? std::vector<int>{defaults.br} : parse_int_list<int>("--br", text.br);
  spec.bcs = text.bc.empty() ? std::vector<int>{defaults.bc} : parse_int_list<int>("--bc", text.bc);
  spec.warps.clear();
  if (!text.warps.empty()) spec.warps = parse_int_list<int>("--warps", text.warps);
  spec.stages =
      text.stages.empty() ? std::vector<int>{defaults.stages} : parse_int_list<int>("--stages", text.stages);
  spec.seqs.clear();
  if (!text.seq.empty()) spec.seqs = parse_size_list("--seq", text.seq, false);
  spec.head_dims.clear();
  if (!text.head_dim.empty()) spec.head_dims = parse_int_list<std::int64_t>("--head-dim", text.head_dim);
  spec.smem_limits.clear();
  if (!text.smem.empty()) spec.smem_limits = parse_size_list("--smem", text.smem, true);
  spec.gpus = split_list(text.gpu);
  spec.l2_sizes.clear();
  if (!text.l2.empty()) spec.l2_sizes = parse_size_list("--l2", text.l2, true);
  spec.hbm_bandwidths.clear();
  if (!text.hbm_bw.empty())
    for (std::int64_t bw : parse_size_list("--hbm-bw", text.hbm_bw, true))
      spec.hbm_bandwidths.push_back(static_cast<double>(bw));
  spec.sm_counts.clear();
  if (!text.sms.empty()) spec.sm_counts = parse_int_list<int>("--sms", text.sms);
  spec.smem_per_sm.clear();
  if (!text.smem_sm.empty()) spec.smem_per_sm = parse_size_list("--smem-sm", text.smem_sm, true);
  spec.hopper_from_head_dim =
      static_cast<std::uint8_t>((text.hopper_bc.empty() ? SweepSpec::kHopperAxisBc : 0) |
                                (text.hopper_consumers.empty() ? SweepSpec::kHopperAxisConsumers : 0) |
                                (text.hopper_stages.empty() ? SweepSpec::kHopperAxisStages : 0) |
                                (text.hopper_schedule.empty() ? SweepSpec::kHopperAxisSchedule : 0) |
                                (text.hopper_persistent.empty() ? SweepSpec::kHopperAxisPersistent : 0));
  spec.hopper_bcs = text.hopper_bc.empty() ? std::vector<int>{defaults.hopper_bc}
                                           : parse_int_list<int>("--hopper-bc", text.hopper_bc);
  spec.hopper_consumers = text.hopper_consumers.empty()
                              ? std::vector<int>{defaults.hopper_consumers}
                              : parse_int_list<int>("--hopper-consumers", text.hopper_consumers);
  spec.hopper_stages = text.hopper_stages.empty()
                           ? std::vector<int>{defaults.hopper_stages}
                           : parse_int_list<int>("--hopper-stages", text.hopper_stages);
  spec.hopper_schedules = {defaults.hopper_schedule};
  if (!text.hopper_schedule.empty()) {
    spec.hopper_schedules.clear();
    for (const std::string& name : split_list(text.hopper_schedule)) {
      const auto h = sim::parse_hopper_schedule(name);
      if (!h)
        throw sim::InvalidInput("--hopper-schedule '" + name +
                                "' is not one of serial, overlap, pingpong, serial-pingpong");
      spec.hopper_schedules.push_back(*h);
    }
  }
  spec.hopper_persistent = {defaults.hopper_persistent};
  if (!text.hopper_persistent.empty()) {
    spec.hopper_persistent.clear();
    for (const std::string& v : split_list(text.hopper_persistent)) {
      if (v != "true" && v != "false")
        throw sim::InvalidInput("--hopper-persistent '" + v + "' is not true or false");
      spec.hopper_persistent.push_back(v == "true");
    }
  }
  const auto bwd_axis = [](const std::string& list, const char* flag, int fallback) {
    return list.empty() ? std::vector<int>{fallback} : parse_int_list<int>(flag, list);
  };
  spec.bwd_bcs = bwd_axis(text.bwd_bc, "--bwd-bc", defaults.bwd_bc);
  spec.bwd_brs = bwd_axis(text.bwd_br, "--bwd-br", defaults.bwd_br);
  spec.bwd_stages = bwd_axis(text.bwd_stages, "--bwd-stages", defaults.bwd_stages);
  if (!text.shard.empty()) {
    const auto slash = text.shard.find('/');
    const auto whole = [&](std::string_view part, int& out) {
      const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), out);
      return ec == std::errc() && end == part.data() + part.size() && !part.empty();
    };
    const std::string_view all(text.shard);
    if (slash == std::string::npos || !whole(all.substr(0, slash), run.shard_index) ||
        !whole(all.substr(slash + 1), run.shard_count))
      throw sim::InvalidInput("--shard '" + text.shard + "' is not i/n (e.g. 0/4)");
  }
}

std::uint64_t count_sweep_problems(const SweepSpec& spec) {
  std::uint64_t problems = saturating_mul(spec.gpus.size(), spec.seqs.empty() ? 1 : spec.seqs.size());
  problems = saturating_mul(problems, spec.head_dims.empty() ? 1 : spec.head_dims.size());
  problems = saturating_mul(problems, spec.l2_sizes.empty() ? 1 : spec.l2_sizes.size());
  problems = saturating_mul(problems, spec.hbm_bandwidths.empty() ? 1 : spec.hbm_bandwidths.size());
  problems = saturating_mul(problems, spec.sm_counts.empty() ? 1 : spec.sm_counts.size());
  return saturating_mul(problems, spec.smem_per_sm.empty() ? 1 : spec.smem_per_sm.size());
}

std::uint64_t count_sweep_points(const SweepSpec& spec) {
  return saturating_mul(count_sweep_problems(spec), count_points_per_problem(spec));
}

std::uint64_t count_points_per_problem(const SweepSpec& spec) {
  std::uint64_t per_problem = 0;
  if (spec.tiled) {
    std::uint64_t tiles = 0;
    for (int br : spec.brs) {
      (void)br;
      tiles += spec.warps.empty() ? 1 : spec.warps.size();
    }
    tiles = saturating_mul(tiles, spec.bcs.size());
    tiles = saturating_mul(tiles, spec.stages.size());
    if (spec.base.pass != sim::Pass::fwd) tiles = saturating_mul(tiles, count_backward_tiles(spec));
    per_problem = saturating_mul(tiles, spec.smem_limits.empty() ? 1 : spec.smem_limits.size());
  }
  if (spec.naive_baseline) per_problem += 1;
  if (spec.hopper) {
    std::uint64_t tiles = saturating_mul(spec.hopper_bcs.size(), spec.hopper_consumers.size());
    tiles = saturating_mul(tiles, spec.hopper_stages.size());
    tiles = saturating_mul(tiles, spec.hopper_schedules.size());
    tiles = saturating_mul(tiles, spec.hopper_persistent.size());
    per_problem += saturating_mul(tiles, spec.smem_limits.empty() ? 1 : spec.smem_limits.size());
  }
  return per_problem;
}

std::uint64_t count_backward_tiles(const SweepSpec& spec) {
  return saturating_mul(saturating_mul(spec.bwd_bcs.size(), spec.bwd_brs.size()), spec.bwd_stages.size());
}

int default_sweep_warps(int br) {
  // The real kernel's defaults: 16 query rows per warp up to Br 64 (Br64 -> 4 warps), 32 rows per warp
  // above (Br128 -> 4 warps, the fastest measured on the H200; docs/kernel-notes.md).
  return br <= 64 ? std::max(1, br / 16) : std::max(1, br / 32);
}

std::string SweepSpec::definition_text() const {
  const auto& w = base;
  std::string text = fmt::format(
      "workload B={} H={} Nq={} Nkv={} d={} {} causal={} scale={}; gpus={}; seq={}; head_dim={}; br={}; "
      "bc={}; "
      "warps={}; stages={}; smem={}; order={}; tiled={}; naive_baseline={}",
      w.batch, w.heads, w.seq_q, w.seq_kv, w.head_dim, sim::to_string(w.dtype), w.causal ? 1 : 0, w.scale,
      join(gpus), join(seqs), join(head_dims), join(brs), join(bcs),
      warps.empty() ? "kernel-default" : join(warps), join(stages), join(smem_limits), sim::to_string(order),
      tiled ? 1 : 0, naive_baseline ? 1 : 0);
  // Axes added later are written only when used, so the definitions of older sweeps read as before.
  if (!l2_sizes.empty() || !hbm_bandwidths.empty() || !sm_counts.empty())
    text += fmt::format("; l2={}; hbm_bw={}; sms={}", join(l2_sizes), join(hbm_bandwidths), join(sm_counts));
  if (!smem_per_sm.empty()) text += fmt::format("; smem_sm={}", join(smem_per_sm));
  if (fidelity != vocab::SweepFidelity::cycle)
    text += fmt::format("; fidelity={}; top_k={}", vocab::to_string(fidelity), top_k);
  // A backward pass or a general mask is written only when present, like the later axes.
  if (w.pass != sim::Pass::fwd)
    text += fmt::format("; pass={}; bwd_bc={}; bwd_br={}; bwd_stages={}", sim::to_string(w.pass),
                        join(bwd_bcs), join(bwd_brs), join(bwd_stages));
  if (w.general_mask()) text += fmt::format("; window={}; alibi={}", w.window, w.alibi ? 1 : 0);
  if (hopper) {
    std::string schedules;
    for (const auto h : hopper_schedules)
      schedules += (schedules.empty() ? "" : ",") + std::string(sim::to_string(h));
    text += fmt::format("; hopper_bc={}; hopper_consumers={}; hopper_stages={}; hopper_schedule={}",
                        join(hopper_bcs), join(hopper_consumers), join(hopper_stages), schedules);
    // Written only when a persistent point is swept, so that the text of every earlier sweep is unchanged.
    if (std::find(hopper_persistent.begin(), hopper_persistent.end(), true) != hopper_persistent.end()) {
      std::string persistent;
      for (const bool p : hopper_persistent)
        persistent += (persistent.empty() ? "" : ",") + std::string(p ? "true" : "false");
      text += "; hopper_persistent=" + persistent;
    }
  }
  return text;
}

void check_sweep_spec(const SweepSpec& spec) {
  require_non_empty_positive(spec.seqs, "--seq", true);
  require_non_empty_positive(spec.l2_sizes, "--l2", true);
  require_non_empty_positive(spec.hbm_bandwidths, "--hbm-bw", true);
  require_non_empty_positive(spec.sm_counts, "--sms", true);
  require_non_empty_positive(spec.smem_per_sm, "--smem-sm", true);
  if (spec.top_k < 1)
    throw sim::InvalidInput(fmt::format("sweep: --top-k must be positive, got {}", spec.top_k));
  require_non_empty_positive(spec.head_dims, "--head-dim", true);
  require_non_empty_positive(spec.brs, "--br", false);
  require_non_empty_positive(spec.bcs, "--bc", false);
  require_non_empty_positive(spec.warps, "--warps", true);
  require_non_empty_positive(spec.stages, "--stages", false);
  require_non_empty_positive(spec.smem_limits, "--smem", true);
  if (spec.gpus.empty()) throw sim::InvalidInput("sweep: the --gpu list is empty");
  if (!spec.tiled && !spec.naive_baseline && !spec.hopper)
    throw sim::InvalidInput("sweep: neither tiled nor Hopper points nor a naive baseline");
  if (spec.base.pass != sim::Pass::fwd) {
    // 0 stands for the head dim's default, so these may hold 0 (never negative).
    for (const auto& [values, flag] :
         {std::pair{&spec.bwd_bcs, "--bwd-bc"}, std::pair{&spec.bwd_brs, "--bwd-br"},
          std::pair{&spec.bwd_stages, "--bwd-stages"}}) {
      if (values->empty()) throw sim::InvalidInput(fmt::format("sweep: the {} list is empty", flag));
      for (int v : *values)
        if (v < 0) throw sim::InvalidInput(fmt::format("sweep: {} values must be positive, got {}", flag, v));
    }
    if (spec.hopper)
      throw sim::InvalidInput(
          fmt::format("sweep: the Hopper kernel has a forward pass only; --pass {} sweeps "
                      "the tiled (and naive) kernels",
                      sim::to_string(spec.base.pass)));
    if (spec.fidelity != vocab::SweepFidelity::cycle)
      throw sim::InvalidInput(
          "sweep: --fidelity two bounds the forward pass only; sweep backward tiles with --fidelity cycle");
    if (spec.base.pass == sim::Pass::bwd && spec.tiled &&
        (spec.brs.size() > 1 || spec.bcs.size() > 1 || spec.warps.size() > 1 || spec.stages.size() > 1))
      throw sim::InvalidInput(
          "sweep: --pass bwd runs no forward kernel, so --br/--bc/--warps/--stages would only repeat points; "
          "sweep the backward tile with --bwd-bc/--bwd-br/--bwd-stages, or use --pass both");
  } else if (spec.bwd_bcs.size() > 1 || spec.bwd_brs.size() > 1 || spec.bwd_stages.size() > 1) {
    throw sim::InvalidInput("sweep: --bwd-bc/--bwd-br/--bwd-stages need --pass bwd or both");
  }
  if (spec.base.general_mask() && spec.fidelity != vocab::SweepFidelity::cycle)
    throw sim::InvalidInput(
        "sweep: --fidelity two bounds unmasked and causal workloads; sweep --window/--alibi with --fidelity "
        "cycle");
  if (spec.hopper) {
    require_non_empty_positive(spec.hopper_bcs, "--hopper-bc", false);
    require_non_empty_positive(spec.hopper_consumers, "--hopper-consumers", false);
    require_non_empty_positive(spec.hopper_stages, "--hopper-stages", false);
    if (spec.hopper_schedules.empty()) throw sim::InvalidInput("sweep: the --hopper-schedule list is empty");
    if (spec.hopper_persistent.empty())
      throw sim::InvalidInput("sweep: the --hopper-persistent list is empty");
    if (spec.fidelity != vocab::SweepFidelity::cycle)
      throw sim::InvalidInput(
          "sweep: --fidelity two prices the tiled kernel only; sweep the Hopper kernel's "
          "tiles with --fidelity cycle");
  }
  sim::validate(spec.base);
  if (const std::uint64_t n = count_sweep_points(spec); spec.max_points != 0 && n > spec.max_points)
    throw sim::InvalidInput(
        fmt::format("{} points are more than the limit of {} (--max-points raises it)", n, spec.max_points));
}

std::vector<SweepPoint> enumerate_sweep(const SweepSpec& spec) {
  check_sweep_spec(spec);
  const std::vector<std::int64_t> seqs = spec.seqs.empty() ? std::vector<std::int64_t>{-1} : spec.seqs;
  const std::vector<std::int64_t> dims =
      spec.head_dims.empty() ? std::vector<std::int64_t>{spec.base.head_dim} : spec.head_dims;
  const std::vector<std::int64_t> limits =
      spec.smem_limits.empty() ? std::vector<std::int64_t>{0} : spec.smem_limits;
  const bool backward = spec.base.pass != sim::Pass::fwd;
  std::vector<SweepPoint> points;
  auto add = [&points](SweepPoint p) {
    p.index = static_cast<std::int64_t>(points.size());
    points.push_back(std::move(p));
  };
  for (const auto& gpu : gpu_variant_labels(spec))
    for (std::int64_t seq : seqs)
      for (std::int64_t d : dims) {
        sim::Workload w = spec.base;
        if (seq > 0) w.seq_q = w.seq_kv = seq;
        w.head_dim = d;
        sim::validate(w);
        SweepPoint base;
        base.workload = w;
        base.gpu_spec = gpu;
        if (spec.naive_baseline) {
          SweepPoint p = base;
          p.kind = sim::KernelKind::naive;
          p.tiles.order = spec.order;
          p.smem_limit = 0;  // the GPU's own limit
          add(p);
        }
        std::vector<SweepPoint> hopper_points;  // after the tiled ones
        // The axes not given take this head dim's (and mask's) default (one value each, as the lists they
        // replace).
        sim::TileConfig head_dim_default;
        head_dim_default.set_hopper(vocab::default_hopper_config(static_cast<int>(d), w.causal));
        const auto from_head_dim = [&](std::uint8_t axis) { return (spec.hopper_from_head_dim & axis) != 0; };
        const std::vector<int> hopper_bcs = from_head_dim(SweepSpec::kHopperAxisBc)
                                                ? std::vector<int>{head_dim_default.hopper_bc}
                                                : spec.hopper_bcs;
        const std::vector<int> hopper_consumers = from_head_dim(SweepSpec::kHopperAxisConsumers)
                                                      ? std::vector<int>{head_dim_default.hopper_consumers}
                                                      : spec.hopper_consumers;
        const std::vector<int> hopper_stages = from_head_dim(SweepSpec::kHopperAxisStages)
                                                   ? std::vector<int>{head_dim_default.hopper_stages}
                                                   : spec.hopper_stages;
        const std::vector<sim::HopperSchedule> hopper_schedules =
            from_head_dim(SweepSpec::kHopperAxisSchedule)
                ? std::vector<sim::HopperSchedule>{head_dim_default.hopper_schedule}
                : spec.hopper_schedules;
        const std::vector<bool> hopper_persistent =
            from_head_dim(SweepSpec::kHopperAxisPersistent)
                ? std::vector<bool>{head_dim_default.hopper_persistent}
                : spec.hopper_persistent;
        if (spec.hopper)
          for (std::int64_t limit : limits)
            for (int bc : hopper_bcs)
              for (int consumers : hopper_consumers)
                for (int stages : hopper_stages)
                  for (const sim::HopperSchedule schedule : hopper_schedules)
                    for (const bool persistent : hopper_persistent) {
                      SweepPoint p = base;
                      p.kind = sim::KernelKind::hopper;
                      p.tiles.hopper_bc = bc;
                      p.tiles.hopper_consumers = consumers;
                      p.tiles.hopper_stages = stages;
                      p.tiles.hopper_schedule = schedule;
                      p.tiles.hopper_persistent = persistent;
                      p.smem_limit = limit;
                      hopper_points.push_back(std::move(p));
                    }
        if (spec.tiled)
          for (std::int64_t limit : limits)
            for (int br : spec.brs)
              for (int bc : spec.bcs)
                for (int warps : spec.warps.empty() ? std::vector<int>{default_sweep_warps(br)} : spec.warps)
                  for (int stages : spec.stages)
                    for (int bwd_bc : backward ? spec.bwd_bcs : std::vector<int>{0})
                      for (int bwd_br : backward ? spec.bwd_brs : std::vector<int>{0})
                        for (int bwd_stages : backward ? spec.bwd_stages : std::vector<int>{0}) {
                          SweepPoint p = base;
                          p.kind = sim::KernelKind::tiled;
                          p.tiles.br = br;
                          p.tiles.bc = bc;
                          p.tiles.warps = warps;
                          p.tiles.stages = stages;
                          p.tiles.order = spec.order;
                          p.tiles.bwd_bc = bwd_bc;
                          p.tiles.bwd_br = bwd_br;
                          p.tiles.bwd_stages = bwd_stages;
                          p.smem_limit = limit;
                          add(p);
                        }
        for (SweepPoint& p : hopper_points) add(std::move(p));
      }
  return points;
}

void check_shard(const SweepRunOptions& options) {
  if (options.shard_count < 1 || options.shard_index < 0 || options.shard_index >= options.shard_count)
    throw sim::InvalidInput(fmt::format("sweep: shard {}/{} is not valid (want 0 <= i < n)",
                                        options.shard_index, options.shard_count));
}

Report cycle_sweep_report(const SweepSpec& spec, const SweepRunOptions& options,
                          const std::string& command_line, const std::vector<GpuVariant>& variants,
                          std::int64_t total_points) {
  Report report;
  report.kind = "sweep";
  report.provenance = basic_provenance(command_line);
  report.provenance.gpu_name = variants.front().spec.name;
  std::string spec_names;
  for (const auto& n : spec.gpus) {
    if (!spec_names.empty()) spec_names += ',';
    spec_names += n;
  }
  report.provenance.gpu_spec = spec_names;
  report.workload = spec.base;
  report.tiles.order = spec.order;
  report.sweep_definition.text = spec.definition_text();
  report.sweep_definition.total_points = total_points;
  report.sweep_definition.shard_index = options.shard_index;
  report.sweep_definition.shard_count = options.shard_count;
  return report;
}

std::optional<sim::GpuSpec> settle_sweep_point(SweepPoint& p, sim::GpuSpec gpu) {
  if (p.smem_limit <= 0) {
    p.smem_limit = gpu.smem_per_block;
  } else {
    // A what-if chip: the per-CTA limit is the swept value (above the real one models a bigger SRAM).
    gpu.smem_per_block = p.smem_limit;
    gpu.smem_per_sm = std::max(gpu.smem_per_sm, p.smem_limit + gpu.smem_reserved_per_cta);
  }
  if (p.kind != sim::KernelKind::naive) {
    std::int64_t smem = 0;
    try {
      smem = sim::smem_bytes_per_cta(p.workload, p.kind, p.tiles);
    } catch (const sim::InvalidInput& e) {
      p.feasible = false;
      p.infeasible_reason = e.what();
      return std::nullopt;
    }
    p.metrics[Metric::smem_per_cta].modeled = static_cast<double>(smem);
    if (smem > p.smem_limit) {
      p.feasible = false;
      p.infeasible_reason = fmt::format("needs {} of shared memory per CTA, limit {}",
                                        format_bytes_binary(static_cast<double>(smem)),
                                        format_bytes_binary(static_cast<double>(p.smem_limit)));
      return std::nullopt;
    }
  }
  return gpu;
}

void evaluate_sweep_point(SweepPoint& p, const sim::GpuSpec& variant) {
  const std::optional<sim::GpuSpec> gpu = settle_sweep_point(p, variant);
  if (!gpu) return;
  // One job through the pool that run_sweep uses: the same error handling, point for point.
  sim::SimOptions so;
  so.record_tiles = false;
  const auto outcomes = sim::run_sweep({{p.workload, p.kind, p.tiles, *gpu}}, so, 1);
  if (!outcomes.front().result) {
    p.feasible = false;
    p.infeasible_reason = outcomes.front().error;
    return;
  }
  detail::set_modeled_metrics(p, *outcomes.front().result);
}

Report run_sweep(const SweepSpec& spec, const SweepRunOptions& options, const std::string& command_line) {
  check_shard(options);
  if (spec.fidelity == vocab::SweepFidelity::two) return run_two_fidelity_sweep(spec, options, command_line);
  std::vector<SweepPoint> all = enumerate_sweep(spec);
  std::map<std::string, sim::GpuSpec> gpus;
  const std::vector<GpuVariant> variants = expand_gpu_variants(spec);
  for (const auto& v : variants) gpus.emplace(v.label, v.spec);
  Report report =
      cycle_sweep_report(spec, options, command_line, variants, static_cast<std::int64_t>(all.size()));
  for (auto& p : all)
    if (p.index % options.shard_count == options.shard_index) report.sweep.push_back(std::move(p));

  // Points that cannot fit their shared-memory limit are settled here; the rest become jobs for the model's
  // thread pool (sim::run_sweep), which returns outcomes in job order.
  std::vector<sim::SweepJob> jobs;
  std::vector<std::size_t> job_point;  // jobs[i] evaluates report.sweep[job_point[i]]
  for (std::size_t i = 0; i < report.sweep.size(); ++i) {
    SweepPoint& p = report.sweep[i];
    if (const std::optional<sim::GpuSpec> gpu = settle_sweep_point(p, gpus.at(p.gpu_spec))) {
      jobs.push_back({p.workload, p.kind, p.tiles, *gpu});
      job_point.push_back(i);
    }
  }
  const std::size_t settled = report.sweep.size() - jobs.size();
  sim::SimOptions so;
  so.record_tiles = false;
  const auto outcomes = sim::run_sweep(jobs, so, options.threads, [&](std::size_t done, std::size_t) {
    if (options.progress) options.progress(settled + done, report.sweep.size());
  });
  if (jobs.empty() && options.progress) options.progress(report.sweep.size(), report.sweep.size());
  for (std::size_t j = 0; j < outcomes.size(); ++j) {
    SweepPoint& p = report.sweep[job_point[j]];
    if (!outcomes[j].result) {
      p.feasible = false;
      p.infeasible_reason = outcomes[j].error;
      continue;
    }
    detail::set_modeled_metrics(p, *outcomes[j].result);
  }
  return report;
}

}  // namespace attnscope::reports
