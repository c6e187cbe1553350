// SPDX-License-Identifier: Apache-2.0
// The metric table: every quantity attnscope measures or models, written once. A metric has a key (what
// reports, gates and the GUI call it), a unit, the memory level it belongs to, the hardware counters that
// measure it, whether the model predicts it (and why not, where it does not), which direction is better and
// the accuracy target the project holds the model to. Everything else reads this table; a key spelled as a
// string anywhere else is a bug (the file boundary, where keys become text, is the one exception).
//
// Two quantities that look alike are two rows: `l2_read` is what the SMs receive from L2 (the crossbar's
// byte count, through the load pipe and bulk copies alike; the model's L2 read requests) and `l2_read_lts` is
// the same reads as the L2 slices count them, after GH100's L2 request coalescer has merged simultaneous
// reads of a sector by different SMs. The model predicts the first and not the second (docs/accuracy.md).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "attnscope/vocab/kernel.hpp"

namespace attnscope::vocab {

enum class Metric : std::uint8_t {
  dram_read,
  dram_write,
  l2_dirty_end,
  l2_read,
  l2_read_lts,
  l2_write,
  l2_hit,
  l2_hit_lts,
  smem_read,
  smem_write,
  time,
  cycles,
  flops,
  smem_per_cta,
};
inline constexpr std::size_t kMetricCount = 14;

enum class Unit : std::uint8_t { bytes, seconds, cycles, flop };
enum class Level : std::uint8_t { hbm, l2, smem, compute };
enum class Better : std::uint8_t { lower, higher, neither };

// One term of a counter formula: `scale` x the CUPTI counter `counter`.
struct CounterTerm {
  std::string_view counter;
  double scale = 1.0;
};

// The project's accuracy target for a metric: |modeled - measured| / measured, median and worst over the
// committed measurements (docs/accuracy.md).
struct Target {
  double median = 0;
  double worst = 0;
};

struct MetricInfo {
  Metric id;
  std::string_view key;    // report key (JSON, CSV, gates: 'tiled.dram_read.error < 5%')
  std::string_view label;  // what a person reads
  Unit unit;
  Level level;
  Better better;
  // How it is measured: the sum of these terms (empty: not measured by counters; `time` is measured by CUDA
  // events as well, see profiler/), and the formula as a person reads it.
  std::array<CounterTerm, 2> terms;
  std::string_view formula;
  std::string_view not_measured;  // why no counter measures it (empty: measured by `terms`)
  bool modeled;                   // the model predicts it
  std::string_view not_modeled;   // why not, when !modeled
  std::optional<Target> target;   // absent: no accuracy target
  bool tile_level;                // held to the tile-window accuracy target (bytes of one lone tile)
};

inline constexpr double kL2SectorBytes = 32.0;
inline constexpr double kSharedWavefrontBytes = 128.0;  // one wavefront moves at most 32 banks x 4 B
// One cp.async warp instruction of the kernels copies 16 B per lane.
inline constexpr double kLdgstsBytesPerInst = 32 * 16;

// Counters a metric's formula uses beyond its terms.
inline constexpr std::string_view kCounterLdgstsInst = "smsp__inst_executed_op_ldgsts.sum";
inline constexpr std::string_view kCounterL2ToL1Loads = "l1tex__m_xbar2l1tex_read_bytes_mem_lg_op_ld.sum";
// Everything the SM's L1TEX receives from L2 over the crossbar (loads, cp.async, bulk tensor copies).
inline constexpr std::string_view kCounterL2ToSm = "l1tex__m_xbar2l1tex_read_bytes.sum";
// What bulk tensor copies (TMA loads) bring from L2 into shared memory; rows a copy zero-fills past the end
// of a tensor are not read, so not counted.
inline constexpr std::string_view kCounterBulkCopyLoads =
    "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum";
// Recordings made before the two counters above were collected hold the load pipe's share instead: the same
// quantity for kernels that issue no bulk copies, a fraction of it for those that do. (It also took CUPTI
// four replay passes of its own on GH100; the two above fit in fewer.)
inline constexpr std::string_view kCounterL2ToSmLsuPipe = "l1tex__m_xbar2l1tex_read_bytes_pipe_lsu.sum";

// Whether the measured kernel issues bulk (TMA) copies: decides whether a recording without the bulk-copy
// counters still measures l2_read and smem_write (see measure()).
enum class BulkCopies : std::uint8_t { none, some, unknown };

// Of attnscope's kernels, the Hopper kind's copy Q, K, V (and store O) by bulk tensor copies; the naive and
// tiled kinds' load through the LSU pipe (cp.async, ld.global).
constexpr bool issues_bulk_copies(KernelKind k) {
  return k == KernelKind::hopper;
}

// Ours by their report name; unknown for other programs' kernels.
constexpr BulkCopies bulk_copies_of(std::string_view kernel_name) {
  const std::optional<KernelId> id = parse_kernel_id(kernel_name);
  if (!id) return BulkCopies::unknown;
  return issues_bulk_copies(kind_of(*id)) ? BulkCopies::some : BulkCopies::none;
}

// clang-format off
inline constexpr std::array<MetricInfo, kMetricCount> kMetrics{{
    {Metric::dram_read, "dram_read", "HBM read", Unit::bytes, Level::hbm, Better::lower,
     {{{"dram__bytes_read.sum", 1.0}, {}}}, "dram__bytes_read.sum", "", true, "", Target{0.03, 0.08}, true},
    {Metric::dram_write, "dram_write", "HBM write", Unit::bytes, Level::hbm, Better::lower,
     {{{"dram__bytes_write.sum", 1.0}, {}}}, "dram__bytes_write.sum (while the kernel ran)", "", true, "",
     Target{0.03, 0.08}, true},
    {Metric::l2_dirty_end, "l2_dirty_end", "L2 dirty at end", Unit::bytes, Level::hbm, Better::neither, {{}},
     "dram__bytes_write.sum of the flush that follows the kernel", "", true, "", std::nullopt, false},
    {Metric::l2_read, "l2_read", "L2 -> SM read", Unit::bytes, Level::l2, Better::lower,
     {{{kCounterL2ToSm, 1.0}, {}}},
     "l1tex__m_xbar2l1tex_read_bytes.sum (bytes the SMs receive from L2: loads, cp.async and bulk copies)", "",
     true, "", Target{0.05, 0.10}, true},
    {Metric::l2_read_lts, "l2_read_lts", "L2 slice reads", Unit::bytes, Level::l2, Better::lower,
     {{{"lts__t_sectors_srcunit_tex_op_read.sum", kL2SectorBytes}, {}}},
     "32 B x lts__t_sectors_srcunit_tex_op_read.sum (the slices' count of SM reads, after the L2 request "
     "coalescer)",
     "", false,
     "the L2 request coalescer merges reads of a sector that different SMs issue at nearly the same time "
     "before the slices count them (its lrc__* counters show it); how many coincide depends on timing the "
     "model does not resolve. l2_read is the same reads as the SMs receive them, and is modeled",
     std::nullopt, false},
    {Metric::l2_write, "l2_write", "L2 write", Unit::bytes, Level::l2, Better::lower,
     {{{"lts__t_sectors_srcunit_tex_op_write.sum", kL2SectorBytes}, {}}},
     "32 B x lts__t_sectors_srcunit_tex_op_write.sum (stores; atomic reductions are op_red, counted in "
     "neither l2_write nor l2_read, by the counters or the model)",
     "", true, "", Target{0.05, 0.10}, true},
    {Metric::l2_hit, "l2_hit", "L2 hit (model)", Unit::bytes, Level::l2, Better::neither, {{}},
     "the model's SM requests (reads and writes) that hit in L2",
     "no counter counts hits per SM request; l2_hit_lts is the slices' count", true, "", std::nullopt,
     false},
    {Metric::l2_hit_lts, "l2_hit_lts", "L2 slice hits", Unit::bytes, Level::l2, Better::neither,
     {{{"lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum", kL2SectorBytes},
       {"lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum", kL2SectorBytes}}},
     "32 B x (lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum + ..._op_write_lookup_hit.sum)", "", false,
     "the slices merge simultaneous reads of a sector and count every write lookup as a hit; the model "
     "counts hits per SM request (l2_hit)",
     std::nullopt, false},
    {Metric::smem_read, "smem_read", "Shared read", Unit::bytes, Level::smem, Better::lower,
     {{{"l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum", kSharedWavefrontBytes}, {}}},
     "128 B x l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_read.sum (an upper bound: a wavefront moves "
     "at most 128 B)",
     "", true, "", std::nullopt, false},
    {Metric::smem_write, "smem_write", "Shared write", Unit::bytes, Level::smem, Better::lower,
     {{{"l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum", kSharedWavefrontBytes},
       {kCounterBulkCopyLoads, 1.0}}},
     "128 B x l1tex__data_pipe_lsu_wavefronts_mem_shared_cmd_write.sum + bulk-copy fills "
     "(l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum) + cp.async fills: min(512 B x "
     "smsp__inst_executed_op_ldgsts.sum, l1tex__m_xbar2l1tex_read_bytes_mem_lg_op_ld.sum)",
     "", true, "", std::nullopt, false},
    {Metric::time, "time", "Time", Unit::seconds, Level::compute, Better::lower,
     {{{"gpu__time_duration.sum", 1e-9}, {}}},
     "CUDA events around separate launches (median), else gpu__time_duration.sum", "", true, "",
     Target{0.10, 0.20}, false},
    {Metric::cycles, "cycles", "SM cycles", Unit::cycles, Level::compute, Better::lower,
     {{{"sm__cycles_elapsed.max", 1.0}, {}}}, "sm__cycles_elapsed.max", "", true, "", std::nullopt, false},
    {Metric::flops, "flops", "FLOPs", Unit::flop, Level::compute, Better::neither, {{}},
     "4 x B x H x Nq x Nkv x d (halved when causal), counted by the model",
     "FLOPs are counted from the shape, not measured", true, "", std::nullopt, false},
    {Metric::smem_per_cta, "smem_per_cta", "Shared memory per CTA", Unit::bytes, Level::smem,
     Better::neither, {{}}, "the kernel's shared-memory footprint per CTA (a launch parameter)",
     "a launch parameter, not a counter", true, "", std::nullopt, false},
}};
// clang-format on

constexpr const MetricInfo& info(Metric m) {
  return kMetrics[static_cast<std::size_t>(m)];
}
constexpr std::string_view key(Metric m) {
  return info(m).key;
}
// Measured by counters and modeled: a report shows its error, and the accuracy table has its rows (with or
// without a target).
constexpr bool comparable(Metric m) {
  return info(m).modeled && info(m).not_measured.empty();
}
constexpr std::optional<Metric> metric_from_key(std::string_view key) {
  for (const auto& i : kMetrics)
    if (i.key == key) return i.id;
  return std::nullopt;
}
constexpr std::string_view to_string(Unit u) {
  switch (u) {
    case Unit::bytes:
      return "B";
    case Unit::seconds:
      return "s";
    case Unit::cycles:
      return "cycles";
    case Unit::flop:
      return "FLOP";
  }
  return "";
}
constexpr std::string_view to_string(Level l) {
  switch (l) {
    case Level::hbm:
      return "HBM";
    case Level::l2:
      return "L2";
    case Level::smem:
      return "shared memory";
    case Level::compute:
      return "time";
  }
  return "";
}
constexpr bool lower_is_better(Metric m) {
  return info(m).better == Better::lower;
}

// Every metric, in display order (the enum's order).
constexpr std::array<Metric, kMetricCount> all_metrics() {
  std::array<Metric, kMetricCount> out{};
  for (std::size_t i = 0; i < kMetricCount; ++i) out[i] = kMetrics[i].id;
  return out;
}

namespace detail {
constexpr bool table_is_in_enum_order() {
  for (std::size_t i = 0; i < kMetricCount; ++i)
    if (static_cast<std::size_t>(kMetrics[i].id) != i) return false;
  return true;
}
}  // namespace detail
static_assert(detail::table_is_in_enum_order(), "kMetrics must list the metrics in enum order");
static_assert(static_cast<std::size_t>(Metric::smem_per_cta) + 1 == kMetricCount);

// The measured value of `m` from raw counters, by the table's formula: `counter(name)` returns the counter's
// value or nullopt when it was not collected. Nullopt when a term's counter is missing or the metric has no
// counter formula. (`time` from events, and `l2_dirty_end` from the following flush, are the profiler's.)
// A recording without the bulk-copy counters (made before they were collected) still measures l2_read and
// smem_write of a kernel known to issue no bulk copies: there the load pipe's share is all of it and the
// bulk-copy fills are zero. For any other kernel they are not measured rather than measured short.
template <typename CounterLookup>
std::optional<double> measure(Metric m, const CounterLookup& counter, BulkCopies bulk = BulkCopies::unknown) {
  const MetricInfo& i = info(m);
  if (i.terms[0].counter.empty()) return std::nullopt;
  double sum = 0;
  for (const CounterTerm& t : i.terms) {
    if (t.counter.empty()) continue;
    std::optional<double> v = counter(t.counter);
    if (!v && bulk == BulkCopies::none) {
      if (t.counter == kCounterL2ToSm) v = counter(kCounterL2ToSmLsuPipe);
      if (t.counter == kCounterBulkCopyLoads) v = 0.0;
    }
    if (!v) return std::nullopt;
    sum += t.scale * *v;
  }
  if (m == Metric::smem_write) {
    // cp.async (LDGSTS) fills of shared memory are not shared-memory wavefronts on the H200: its
    // 16-B-per-lane copies arrive from L2 as global-load bytes (mem_lg_op_ld).
    const std::optional<double> inst = counter(kCounterLdgstsInst);
    const std::optional<double> loads = counter(kCounterL2ToL1Loads);
    if (inst && loads) sum += *inst * kLdgstsBytesPerInst < *loads ? *inst * kLdgstsBytesPerInst : *loads;
  }
  return sum;
}

}  // namespace attnscope::vocab
