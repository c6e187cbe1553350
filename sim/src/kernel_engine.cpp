// SPDX-License-Identifier: Apache-2.0
// Event-driven timing of one kernel. Each SM holds up to `ctas_per_sm` CTAs (occupancy); CTAs start in
// launch order on the first free slot, breadth-first over SMs. A CTA runs its program step by step:
//
//   loads of step j   issued when the math of step j-stages+1 starts (a `stages`-deep cp.async ring; with one
//                     stage, after the previous step), walking the L2 line by line at that moment;
//   math of step j    starts when its loads have landed and step j-1's math is done; it occupies the SM's
//                     tensor cores, SFUs and FP32 pipes, which the SM's resident CTAs share;
//   stores of step j  issued when its math ends; the CTA does not wait for them to reach HBM.
//
// Memory time of a request = the latest of the SM's L2 port, the L2 partitions and (for misses) the HBM
// channels it occupies, each a first-come-first-served BandwidthServer, plus the L2 or HBM latency. Events
// are processed in time order, so the cache sees accesses in the order a real GPU would (at step
// granularity).
//
// The last wave's tail needs no term of its own: a CTA starts on a slot as soon as the slot's previous CTA
// finishes, so when the CTAs do not fill the last wave (or finish unevenly) the kernel ends with the last
// CTA's own end, and the slots that ran out of CTAs sit idle meanwhile. Dispatching a CTA takes no time
// here. The H200 starts at most one empty CTA every 79 ns per SM (microbenchmark `cta_dispatch`), while
// other CTAs run; it binds only where a CTA lasts less than (resident CTAs per SM) x 79 ns. In the
// naive softmax at vit-b16 (73 CTAs per SM: 5.8 us of dispatch against 11.8 us of CTAs) and tiled_bwd.pre
// and .post at llm-4k (31 per SM: 2.5 against 13 us) the dispatcher keeps ahead, and what this leaves out is
// about the first wave's staggered start, 8 resident CTAs x 79 ns = 0.6 us (docs/microbenchmarks.md).
//
// The kernel's time is the CTAs' (first start to last end) plus the GPU spec's launch cost, once per
// launch: CUDA events around a launch see it before the first CTA starts (GpuSpec::launch_overhead_ns).
#include "kernel_engine.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <string>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/occupancy.hpp"
#include "attnscope/vocab/geometry.hpp"
#include "bandwidth_server.hpp"
#include "popcount.hpp"

namespace attnscope::sim::detail {
namespace {

enum class EventKind : std::uint8_t { load, compute, sync_load, store, finish };

struct Event {
  double time;
  std::uint64_t seq;  // ties broken by creation order: deterministic runs
  std::uint32_t slot;
  EventKind kind;
  std::int32_t step;
};

struct Later {
  bool operator()(const Event& a, const Event& b) const {
    return a.time > b.time || (a.time == b.time && a.seq > b.seq);
  }
};

// Steps of a CTA's program held at once. Only the steps between the one computing and the last one whose
// loads are issued are in use (at most `stages` + 1 <= 9), so a slot holds a window of its program and
// regenerates the next one when it runs out: whole programs of thousands of resident CTAs (up to 100 KB
// each for small tiles) made the model wait on host memory.
constexpr int kStepsHeld = 16;
constexpr int kLoadRing = 16;
// The Hopper kernel's wgmma rounds per kv step: S = Q K_j^T, then O += P V_j.
constexpr double kWgmmaRoundsPerStep = 2.0;
// Events between two looks at SimOptions::cancel (a few hundred microseconds of model time).
constexpr std::uint32_t kEventsPerCancelCheck =
    4096;  // load_done entries kept: a power of two above the steps in use

struct Slot {
  int sm = 0;
  CtaProgram program;  // steps [program.first_step, program.first_step + program.steps.size())
  int current = 0;     // step in compute or store; no earlier step is needed again
  int next_load = 0;   // first step whose loads are not issued yet
  std::array<double, kLoadRing> load_done{};  // per step j at j % kLoadRing: when its loads have landed
  // This CTA's records while it runs. When records are kept they are written in place in the kernel's tile
  // list (record_base = index of its first one there) with their start and end; when not, only what the
  // totals need: the bytes (summed over the CTA) and each record's FLOPs (summed per record, in order, so
  // the total is the same double).
  std::size_t record_base = 0;
  std::vector<double> record_start, record_end;
  LevelBytes bytes;
  std::vector<double> record_flops;
  double start = 0;
  double end = 0;  // latest completion of anything the CTA issued
};

// What an engine reuses from one kernel launch to the next on the same thread: the CTA slots, whose
// program windows and records keep their storage (500+ slots for llm-4k, thousands for small tiles), and
// the event heap.
// Allocating and first-touching these afresh for every kernel cost a quarter of a simulation, mostly in
// page faults; sweeps and the GUI's what-if run thousands of kernels per thread.
struct EngineScratch {
  std::vector<Slot> slots;
  std::vector<Event> events;  // a binary heap ordered by Later
};

EngineScratch& thread_scratch() {
  thread_local EngineScratch scratch;
  return scratch;
}

std::uint32_t hbm_channel(std::uint64_t line, std::uint32_t channels) {
  const std::uint64_t h = (line ^ 0x2545F4914F6CDD1Dull) * 0xBF58476D1CE4E5B9ull;
  return static_cast<std::uint32_t>(
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(h >> 29)) * channels) >> 32);
}

class Engine {
 public:
  Engine(const GpuSpec& gpu, const KernelDataflow& flow, L2Cache& l2, const EngineOptions& opt,
         EngineScratch& scratch)
      : gpu_(gpu), flow_(flow), l2_(l2), opt_(opt), slots_(scratch.slots), events_(scratch.events) {}

  KernelResult run();

 private:
  void start_cta(std::uint32_t slot, std::int64_t cta, double now);
  void issue_loads(std::uint32_t slot, int step, double now);
  void on_compute(std::uint32_t slot, int step, double now);
  void on_sync_load(std::uint32_t slot, int step, double now);
  void after_math(std::uint32_t slot, int step, double end);
  // The loads of `block` made by the warps' own instructions (BlockAccess::synchronous): walks them piece by
  // piece and returns the longest warp's chain of round trips, in seconds.
  double walk_synchronous(const BlockAccess& block, LevelBytes& bytes);
  bool has_synchronous_loads(Slot& s, int j) {
    const CtaStep& st = step_of(s, j);
    for (int i = 0; i < st.load_count; ++i)
      if (st.loads[static_cast<std::size_t>(i)].synchronous()) return true;
    return false;
  }
  void on_store(std::uint32_t slot, int step, double now);
  void after_step(std::uint32_t slot, int step, double now);
  void finish_cta(std::uint32_t slot, double now);
  void schedule(double time, std::uint32_t slot, EventKind kind, int step) {
    events_.push_back(Event{time, seq_++, slot, kind, step});
    std::push_heap(events_.begin(), events_.end(), Later{});
  }
  // Where the bytes and FLOPs of record r of the CTA in `s` add up (see Slot).
  LevelBytes& record_bytes(Slot& s, std::size_t r) {
    return opt_.record_tiles ? result_.tiles[s.record_base + r].bytes : s.bytes;
  }
  double& record_flops(Slot& s, std::size_t r) {
    return opt_.record_tiles ? result_.tiles[s.record_base + r].flops : s.record_flops[r];
  }
  // Step j of the CTA in `s`, generating the next window of its program when j is past the one held.
  const CtaStep& step_of(Slot& s, int j) {
    if (j >= s.program.first_step + static_cast<int>(s.program.steps.size()))
      program_of(s.program.cta, s.program, s.current, kStepsHeld);
    return s.program.steps[static_cast<std::size_t>(j - s.program.first_step)];
  }
  static double& load_done(Slot& s, int j) { return s.load_done[static_cast<std::size_t>(j) % kLoadRing]; }
  // Walks the lines of one block through the L2, counting into `bytes` and the per-resource demand.
  void walk(const BlockAccess& a, bool write, LevelBytes& bytes);
  template <bool kFetch>
  void walk_lines(const BlockAccess& a, bool write, LevelBytes& bytes);
  void walk_pieces(const BlockAccess& a, LevelBytes& bytes);
  void flush(bool write, LevelBytes& bytes);
  void flush_with_fetch(LevelBytes& bytes);  // the lines gathered by walk_lines<true>
  void flush_through(bool write, LevelBytes& bytes);
  template <bool kNearCopies, bool kWrite, bool kFetch>
  void flush_cached(LevelBytes& bytes);
  // SMs alternate between the partitions (the GPCs are split between the two halves of the chip; which SM id
  // sits where is not published, and CTAs go breadth-first over SMs, so neighbouring CTAs use both halves).
  std::uint32_t near_partition(int sm) const {
    return static_cast<std::uint32_t>(sm % std::max(1, gpu_.l2_partitions));
  }
  // The L2 partition a set belongs to (set % partitions; a mask for the usual power of two).
  std::uint32_t home_partition(std::uint32_t set) const {
    return partition_pow2_ ? set & (partition_count_ - 1) : set % partition_count_;
  }
  // Turns the demand gathered by walk() into a completion time for a request issued by `sm` at `now`.
  double serve_request(int sm, double now, bool wait_for_hbm);

  const GpuSpec& gpu_;
  const KernelDataflow& flow_;
  L2Cache& l2_;
  EngineOptions opt_;
  int stages_ = 1;
  KernelDataflow::MathModel math_ = KernelDataflow::MathModel::warp_chain;
  int line_shift_ = 7, sector_shift_ = 5;
  std::uint32_t full_mask_ = 0xF;

  std::vector<Slot>& slots_;    // the first `resident` are this kernel's (the scratch may hold more)
  std::vector<Event>& events_;  // binary heap, earliest on top
  std::uint64_t seq_ = 0;
  std::int64_t next_cta_ = 0;
  // CTAs launched: one per tile, or for the persistent Hopper kernel one per SM, each running its tiles as
  // one program (KernelDataflow::persistent_program).
  std::int64_t launched_ = 0;
  KernelResult result_;
  void program_of(std::int64_t cta, CtaProgram& out, int first_step, int max_steps) const {
    if (flow_.persistent())
      flow_.persistent_program(launched_, cta, out, first_step, max_steps);
    else
      flow_.program(cta, out, first_step, max_steps);
  }

  // Resources
  std::vector<BandwidthServer> hbm_, l2_partition_, sm_port_, tensor_, sfu_, fp32_, smem_;
  double tensor_seconds_ = 0, sfu_seconds_ = 0, fp32_seconds_ = 0, smem_seconds_ = 0;  // per unit on one SM
  double clock_hz_ = 0;  // the SM clock the kernel runs at (cycles of the result)
  // Per warp on its sub-partition (SMSP): a warp's instructions run on one SMSP, at 1/smsp of the SM's rates.
  double warp_tensor_seconds_ = 0, warp_sfu_seconds_ = 0, warp_fp32_seconds_ = 0;
  double warp_overhead_s_ = 0;  // per warp per step (GpuSpec::warp_step_overhead_cycles)
  double warps_ = 1;            // warps per CTA
  double warp_overhead_flops_ = 0;
  double wgmma_round_s_ = 0;  // GpuSpec::wgmma_round_latency_cycles at the tensor-load clock
  // Demand of the request being walked
  std::vector<std::uint64_t> partition_sectors_;             // sectors per L2 partition
  std::vector<std::uint64_t> channel_read_, channel_write_;  // sectors per HBM channel
  std::uint32_t channel_count_ = 1;
  std::uint32_t partition_count_ = 1;
  bool partition_pow2_ = true;
  bool request_hbm_ = false;  // the request touched HBM (a miss, a write-back, or no L2 reuse)
  // The requesting SM's own L2 partition (GpuSpec::l2_near_copies: reads of lines homed in the other
  // partition go through a copy there first).
  std::uint32_t near_partition_ = 0;
  bool near_copies_ = false;
  std::uint64_t request_sectors_ = 0;
  bool request_missed_ = false;
  L2Cache::Cursor cursor_;
  bool cursor_valid_ = false;
  bool reduce_ =
      false;  // the walk in progress is an atomic reduction: missed sectors are read from HBM first
  struct Pending {
    std::uint64_t line;
    std::uint64_t block;
    std::uint32_t set;
    std::uint8_t sectors;
    std::uint8_t count;  // of sectors
    std::uint8_t fetch;  // walk_lines<true>: the line's sectors of its fetch block that were not requested
  };
  std::array<Pending, 256> pending_{};  // lines gathered by walk(), run through the cache by flush()
  std::size_t pending_count_ = 0;
  std::uint64_t fetch_block_lines_ = 1;  // lines per prefetch block of the hinted walk in flight
};

KernelResult Engine::run() {
  const int regs =
      opt_.registers_per_thread > 0 ? opt_.registers_per_thread : flow_.estimated_registers_per_thread();
  const Occupancy occ = occupancy(gpu_, flow_.smem_per_cta(), flow_.threads_per_cta(), regs);
  result_.name = std::string(to_string(flow_.id()));
  result_.not_modeled = flow_.not_modeled();

  result_.ctas_per_sm = occ.ctas_per_sm;
  result_.occupancy_limiter = std::string(occ.limiter);
  result_.registers_per_thread = regs;
  result_.smem_per_cta = flow_.smem_per_cta();
  const std::int64_t slots_total = std::int64_t{gpu_.sm_count} * occ.ctas_per_sm;
  launched_ =
      flow_.persistent() ? vocab::hopper_persistent_ctas(flow_.cta_count(), slots_total) : flow_.cta_count();
  result_.waves = static_cast<int>((launched_ + slots_total - 1) / slots_total);
  result_.ctas = static_cast<int>(launched_);
  stages_ = flow_.pipeline_stages();
  line_shift_ = l2_.line_shift();
  sector_shift_ = l2_.sector_shift();
  full_mask_ = (1u << l2_.sectors_per_line()) - 1;

  const auto channels = static_cast<std::size_t>(gpu_.hbm_channels);
  const auto partitions = static_cast<std::size_t>(gpu_.l2_partitions);
  const auto sms = static_cast<std::size_t>(gpu_.sm_count);
  const double per_sm = 1.0 / gpu_.sm_count;
  hbm_.assign(channels, BandwidthServer(gpu_.hbm_bandwidth * gpu_.hbm_efficiency / gpu_.hbm_channels));
  l2_partition_.assign(partitions, BandwidthServer(gpu_.l2_bandwidth / gpu_.l2_partitions));
  sm_port_.assign(sms, BandwidthServer(gpu_.sm_l2_bytes_per_cycle * gpu_.sm_clock_hz));
  // The Hopper kernel's GEMMs are wgmma (a warpgroup drives the SM's four tensor cores at once), the others'
  // warp-level mma.sync: each at its own fraction of the datasheet peak.
  math_ = flow_.math_model();
  using MathModel = KernelDataflow::MathModel;
  // Phases need the measured per-cycle rates; a GPU spec without them times the kernel as per-warp chains.
  // So does a kernel of another program mapped onto the dataflow (EngineOptions::cta_phases).
  if (math_ == MathModel::cta_phases &&
      (!opt_.cta_phases || !(gpu_.mma_sync_flops_per_sm_cycle > 0.0 && gpu_.sm_clock_tensor_hz > 0.0)))
    math_ = MathModel::warp_chain;
  const bool warpgroups = math_ == MathModel::warpgroup_serial || math_ == MathModel::warpgroup_overlap;
  const bool phases = math_ == MathModel::cta_phases;
  if (warpgroups && !gpu_.has_wgmma())
    throw InvalidInput(std::string(to_string(flow_.id())) + ": the GPU spec '" + gpu_.short_name +
                       "' has no wgmma_flops_per_sm_cycle (a GPU without wgmma cannot run this kernel)");
  // Phases and warpgroups run every pipe at its measured rate per cycle, at the clock the SMs keep under
  // tensor load; the per-warp chains at the datasheet clock, with the tensor rate's efficiency absorbing the
  // difference.
  const bool measured_rates = phases || warpgroups;
  const double clock = measured_rates ? gpu_.sm_clock_tensor_hz : gpu_.sm_clock_hz;
  clock_hz_ = clock;
  const double per_cycle =
      clock / gpu_.sm_clock_hz;  // the datasheet rates below are per second at sm_clock_hz
  const double tensor_rate =
      phases       ? gpu_.mma_sync_flops_per_sm_cycle * clock
      : warpgroups ? gpu_.wgmma_flops_per_sm_cycle * clock
                   : gpu_.tensor_flops(flow_.workload().dtype) * gpu_.mma_sync_efficiency * per_sm;
  wgmma_round_s_ = warpgroups ? gpu_.wgmma_round_latency_cycles / clock : 0.0;
  const double sfu_rate = gpu_.sfu_exp_per_s * per_sm * per_cycle;
  const double fp32_rate =
      gpu_.fp32_flops / 2.0 * per_sm * per_cycle;  // one op per lane; the datasheet counts an FMA as 2
  const double smem_rate = gpu_.smem_bytes_per_cycle * clock;
  tensor_.assign(sms, BandwidthServer(tensor_rate));
  sfu_.assign(sms, BandwidthServer(sfu_rate));
  fp32_.assign(sms, BandwidthServer(fp32_rate));
  smem_.assign(sms, BandwidthServer(smem_rate));
  smem_seconds_ = 1.0 / smem_rate;
  tensor_seconds_ = 1.0 / tensor_rate;
  sfu_seconds_ = 1.0 / sfu_rate;
  fp32_seconds_ = 1.0 / fp32_rate;
  const double smsp = std::max(1, gpu_.smsp_per_sm);
  warps_ = std::max(1, flow_.threads_per_cta() / 32);
  // A warp's share of a step runs on one SMSP: its chain is (work / warps) at (SM rate / smsp).
  warp_tensor_seconds_ = tensor_seconds_ * smsp / warps_;
  warp_sfu_seconds_ = sfu_seconds_ * smsp / warps_;
  warp_fp32_seconds_ = fp32_seconds_ * smsp / warps_;
  // warp_step_overhead_cycles was measured on mma.sync warps (barrier, cp.async wait, fragment shuffles); the
  // Hopper kernel's consumers wait on mbarriers and run a few wgmma per step instead: no such charge.
  // Phases: the step's non-product work is in its phases (shared-memory reads, exponentials, FP32).
  warp_overhead_s_ = warpgroups || phases ? 0.0 : gpu_.warp_step_overhead_cycles / gpu_.sm_clock_hz;
  // The per-warp overhead occupies the SMSP's issue port: W warps on smsp ports cost W/smsp of it per step,
  // expressed in tensor-server units so the tensor pipe and the overhead serialize on the sub-partition.
  warp_overhead_flops_ = warps_ / smsp * warp_overhead_s_ * tensor_rate;
  partition_sectors_.assign(partitions, 0);
  channel_read_.assign(channels, 0);
  channel_write_.assign(channels, 0);
  channel_count_ = static_cast<std::uint32_t>(channels);
  partition_count_ = static_cast<std::uint32_t>(partitions);
  partition_pow2_ = std::has_single_bit(partition_count_);
  near_copies_ = gpu_.l2_near_copies > 0 && gpu_.l2_partitions > 1;

  if (opt_.record_tiles) result_.tiles.reserve(static_cast<std::size_t>(flow_.max_records()));
  // Breadth-first over SMs: the first wave puts one CTA on every SM before a second on any.
  const std::int64_t resident = std::min<std::int64_t>(slots_total, launched_);
  if (slots_.size() < static_cast<std::size_t>(resident)) slots_.resize(static_cast<std::size_t>(resident));
  events_.clear();
  for (std::int64_t i = 0; i < resident; ++i) {
    slots_[static_cast<std::size_t>(i)].sm = static_cast<int>(i % gpu_.sm_count);
    start_cta(static_cast<std::uint32_t>(i), next_cta_++, 0.0);
  }
  double last = 0;
  std::uint32_t until_cancel_check = kEventsPerCancelCheck;
  while (!events_.empty()) {
    if (opt_.cancel != nullptr && --until_cancel_check == 0) {
      until_cancel_check = kEventsPerCancelCheck;
      if (opt_.cancel->load(std::memory_order_relaxed)) throw Cancelled();
    }
    std::pop_heap(events_.begin(), events_.end(), Later{});
    const Event e = events_.back();
    events_.pop_back();
    last = std::max(last, e.time);
    switch (e.kind) {
      case EventKind::load:
        slots_[e.slot].current = e.step;  // the previous step is done (one stage: loads wait for it)
        issue_loads(e.slot, e.step, e.time);
        schedule(std::max(e.time, load_done(slots_[e.slot], e.step)), e.slot, EventKind::compute, e.step);
        break;
      case EventKind::compute:
        on_compute(e.slot, e.step, e.time);
        break;
      case EventKind::sync_load:
        on_sync_load(e.slot, e.step, e.time);
        break;
      case EventKind::store:
        on_store(e.slot, e.step, e.time);
        break;
      case EventKind::finish:
        finish_cta(e.slot, e.time);
        break;
    }
  }
  result_.launch_s = gpu_.launch_overhead_ns * 1e-9;
  result_.time_s = result_.launch_s + last;
  result_.cycles = static_cast<std::uint64_t>(std::llround(last * clock_hz_));
  if (opt_.l2_reuse) {
    result_.l2_resident_end = l2_.resident_bytes();
    result_.l2_dirty_end = l2_.dirty_bytes();
  }
  return std::move(result_);
}

void Engine::start_cta(std::uint32_t slot_index, std::int64_t cta, double now) {
  Slot& s = slots_[slot_index];
  program_of(cta, s.program, 0, kStepsHeld);
  const int steps = s.program.step_count;
  const std::size_t records = s.program.records.size();
  s.current = 0;
  s.next_load = 0;
  s.load_done.fill(now);
  if (opt_.record_tiles) {
    s.record_start.assign(records, -1.0);
    s.record_end.assign(records, now);
    s.record_base = result_.tiles.size();
    result_.tiles.resize(result_.tiles.size() + records);
    for (std::size_t r = 0; r < records; ++r) {
      const RecordKey& k = s.program.records[r];
      TileRecord& rec = result_.tiles[s.record_base + r];
      rec.batch = k.batch;
      rec.head = k.head;
      rec.q_tile = k.q_tile;
      rec.kv_tile = k.kv_tile;
      rec.sm = s.sm;
    }
  } else {
    s.bytes = LevelBytes{};
    s.record_flops.assign(records, 0.0);
  }
  s.start = now;
  s.end = now;
  const int prologue = std::max(1, stages_ - 1);
  // A warp making its own loads makes those of the prologue's steps one after the other.
  double issue = now;
  for (int j = 0; j < prologue && j < steps; ++j) {
    issue_loads(slot_index, j, issue);
    if (has_synchronous_loads(s, j)) issue = load_done(s, j);
  }
  schedule(std::max(now, load_done(s, 0)), slot_index, EventKind::compute, 0);
}

void Engine::issue_loads(std::uint32_t slot_index, int step, double now) {
  Slot& s = slots_[slot_index];
  const CtaStep& st = step_of(s, step);
  s.next_load = step + 1;
  if (st.load_count == 0) {
    load_done(s, step) = now;
    return;
  }
  LevelBytes& bytes = record_bytes(s, static_cast<std::size_t>(st.record));
  near_partition_ = near_partition(s.sm);
  double chain = 0;  // the warps' own loads: their longest chain of round trips
  for (int i = 0; i < st.load_count; ++i) {
    const BlockAccess& a = st.loads[static_cast<std::size_t>(i)];
    if (a.synchronous())
      chain = std::max(chain, walk_synchronous(a, bytes));
    else
      walk(a, false, bytes);
  }
  const double done = std::max(serve_request(s.sm, now, true), now + chain);
  load_done(s, step) = done;
  s.end = std::max(s.end, done);
}

void Engine::on_compute(std::uint32_t slot_index, int step, double now) {
  Slot& s = slots_[slot_index];
  s.current = step;
  const int steps = s.program.step_count;
  // The ring slot of step j-1 is free now: issue the loads that run ahead by stages-1. Loads the warps make
  // themselves wait until this step's math is done (the warps are busy with it until then).
  bool sync_ahead = false;
  if (stages_ >= 2)
    while (s.next_load < steps && s.next_load <= step + stages_ - 1) {
      if (has_synchronous_loads(s, s.next_load)) {
        sync_ahead = true;
        break;
      }
      issue_loads(slot_index, s.next_load, now);
    }
  const CtaStep& st = step_of(s, step);
  const auto r = static_cast<std::size_t>(st.record);
  if (opt_.record_tiles && s.record_start[r] < 0) s.record_start[r] = step == 0 ? s.start : now;
  record_flops(s, r) += st.flops;
  LevelBytes& bytes = record_bytes(s, r);
  bytes.smem_read += st.smem_read;
  bytes.smem_write += st.smem_write;
  const auto sm = static_cast<std::size_t>(s.sm);
  // The step's critical path is one warp's serial chain (its matrix products, then its softmax, then the next
  // product, plus its per-step overhead) on its own SMSP; co-resident warps overlap only through the SM's
  // shared servers: tensor pipe + warp issue overhead (one per SMSP, summed over the SM), SFU, FP32 and
  // shared-memory (ldmatrix) bandwidth.
  double serial = st.tensor_flops * warp_tensor_seconds_ +
                  std::max(st.exps * warp_sfu_seconds_, st.fp32_ops * warp_fp32_seconds_) + warp_overhead_s_;
  if (math_ == KernelDataflow::MathModel::cta_phases) {
    // The CTA's warps read the step's operands from shared memory, run its products and recompute its
    // probabilities phase after phase (each product waits for its operands, each phase for the barrier
    // before it), so the step is the sum of its pipes' times. On the H200 at llm-4k d 64 the counters of the
    // tiled backward read per step 1920 cycles of tensor pipe per sub-partition and 3081 of shared-memory
    // wavefronts, and the SMs that run 8 CTAs (512 steps) take 5508 cycles per step
    // (tests/data/h200/profile-bwd-20261203T154445Z): tensor + shared memory + the exponentials (512) is
    // 5513.
    serial = st.tensor_flops * tensor_seconds_ + static_cast<double>(st.smem_read) * smem_seconds_ +
             st.exps * sfu_seconds_ + st.fp32_ops * fp32_seconds_;
  } else if (math_ != KernelDataflow::MathModel::warp_chain) {
    // Warpgroups: each consumer's wgmma runs on all four sub-partitions' tensor cores, its softmax on all
    // four SFUs and FP32 pipes. The consumers wait on the same K_j and V_j barriers, so in the serial
    // schedule they run in step: the GEMMs of the CTA's rows share the tensor cores, then the softmax shares
    // the SFUs, one after the other. The overlapped schedules run the softmax while the GEMMs are in flight:
    // the step takes the longer of the two.
    // Each GEMM is a round (fence, wgmma, commit, wait) whose result the next phase needs: its latency
    // beyond the MMAs (wgmma_round_latency_cycles) is exposed once per round, as both consumers wait.
    const double gemm = st.tensor_flops * tensor_seconds_ + kWgmmaRoundsPerStep * wgmma_round_s_;
    const double softmax = std::max(st.exps * sfu_seconds_, st.fp32_ops * fp32_seconds_);
    serial = gemm + softmax;
    // The overlapped schedule (without ping-pong: dataflow_hopper.cpp) runs the softmax of S_{j+1} while P_j
    // V_j, a register-operand wgmma, is in flight; the SM runs the SFU beside such MMAs only in part
    // (GpuSpec::wgmma_exp_hidden, measured). S_{j+1} = Q K_{j+1}^T is not overlapped: the softmax needs it.
    // (Before 2026-12-06 the kernel waited for P_j V_j ahead of the softmax, and hid none of it.)
    if (math_ == KernelDataflow::MathModel::warpgroup_overlap) {
      const double pv = st.tensor_flops / kWgmmaRoundsPerStep * tensor_seconds_ + wgmma_round_s_;
      serial -= gpu_.wgmma_exp_hidden * std::min(pv, softmax);
    }
  }
  double end = now + serial;
  end = std::max(end, tensor_[sm].serve(now, st.tensor_flops + warp_overhead_flops_));
  end = std::max(end, smem_[sm].serve(now, static_cast<double>(st.smem_read)));
  end = std::max(end, sfu_[sm].serve(now, st.exps));
  end = std::max(end, fp32_[sm].serve(now, st.fp32_ops));
  s.end = std::max(s.end, end);
  if (sync_ahead)
    schedule(end, slot_index, EventKind::sync_load, step);
  else
    after_math(slot_index, step, end);
}

// The warps make the loads of the step `stages - 1` ahead after the math of `step`, and go on when they
// have landed.
void Engine::on_sync_load(std::uint32_t slot_index, int step, double now) {
  Slot& s = slots_[slot_index];
  const int steps = s.program.step_count;
  double free = now;
  while (s.next_load < steps && s.next_load <= step + stages_ - 1) {
    const int j = s.next_load;
    issue_loads(slot_index, j, free);
    free = std::max(free, load_done(s, j));
  }
  after_math(slot_index, step, free);
}

void Engine::after_math(std::uint32_t slot_index, int step, double end) {
  if (step_of(slots_[slot_index], step).store_count > 0)
    schedule(end, slot_index, EventKind::store, step);
  else
    after_step(slot_index, step, end);
}

void Engine::on_store(std::uint32_t slot_index, int step, double now) {
  Slot& s = slots_[slot_index];
  const CtaStep& st = step_of(s, step);
  const auto r = static_cast<std::size_t>(st.record);
  if (opt_.record_tiles && s.record_start[r] < 0) s.record_start[r] = step == 0 ? s.start : now;
  near_partition_ = near_partition(s.sm);
  for (int i = 0; i < st.store_count; ++i)
    walk(st.stores[static_cast<std::size_t>(i)], true, record_bytes(s, r));
  const double done = serve_request(s.sm, now, false);
  s.end = std::max(s.end, done);
  if (opt_.record_tiles) s.record_end[r] = std::max(s.record_end[r], done);
  after_step(slot_index, step, now);
}

void Engine::after_step(std::uint32_t slot_index, int step, double now) {
  Slot& s = slots_[slot_index];
  if (opt_.record_tiles) {
    const auto r = static_cast<std::size_t>(step_of(s, step).record);
    s.record_end[r] = std::max(s.record_end[r], now);
  }
  const int next = step + 1;
  if (next >= s.program.step_count) {
    schedule(std::max(now, s.end), slot_index, EventKind::finish, step);
  } else if (s.next_load <= next) {
    schedule(now, slot_index, EventKind::load, next);  // one stage: the next loads wait for this step
  } else {
    schedule(std::max(now, load_done(s, next)), slot_index, EventKind::compute, next);
  }
}

void Engine::finish_cta(std::uint32_t slot_index, double now) {
  Slot& s = slots_[slot_index];
  if (opt_.record_tiles) {
    for (std::size_t r = 0; r < s.record_start.size(); ++r) {
      TileRecord& rec = result_.tiles[s.record_base + r];
      const double start = s.record_start[r] < 0 ? s.start : s.record_start[r];
      rec.start_cycle = static_cast<std::uint64_t>(std::llround(start * gpu_.sm_clock_hz));
      rec.end_cycle = static_cast<std::uint64_t>(std::llround(s.record_end[r] * gpu_.sm_clock_hz));
      result_.totals += rec.bytes;
      result_.flops += rec.flops;
    }
  } else {
    result_.totals += s.bytes;
    for (const double f : s.record_flops) result_.flops += f;
  }
  if (next_cta_ < launched_) start_cta(slot_index, next_cta_++, now);
}

void Engine::walk(const BlockAccess& a, bool write, LevelBytes& bytes) {
  if (!write && a.l2_fetch_bytes > 0 && opt_.l2_reuse) {
    walk_lines<true>(a, false, bytes);
    return;
  }
  reduce_ = write && a.reduce;  // read by the flushes of this walk
  walk_lines<false>(a, write, bytes);
  reduce_ = false;
}

// With kFetch (a read with a prefetch-size hint), each gathered line also carries the sectors of its piece's
// aligned fetch block that lie in the line but were not requested; the block's other lines are looked up only
// when the request misses (flush_cached), which is 1 request in 4 for naive.pv's 64-byte steps through
// 256-byte blocks, so the hinted walk stays the cheap strided run.
template <bool kFetch>
void Engine::walk_lines(const BlockAccess& a, bool write, LevelBytes& bytes) {
  const std::uint64_t line_bytes = std::uint64_t{1} << line_shift_;
  const std::uint64_t granule =
      kFetch ? std::max<std::uint64_t>(a.l2_fetch_bytes, std::uint64_t{1} << sector_shift_) : 0;
  if constexpr (kFetch) fetch_block_lines_ = std::max<std::uint64_t>(1, granule >> line_shift_);
  // The fetch block's sectors in the line holding byte `at` (all of it when the block is a line or more).
  const auto block_sectors = [&](std::uint64_t at) -> std::uint8_t {
    if (granule >= line_bytes) return static_cast<std::uint8_t>(full_mask_);
    const auto s_first =
        static_cast<std::uint32_t>(((at & ~(granule - 1)) & (line_bytes - 1)) >> sector_shift_);
    const auto n = static_cast<std::uint32_t>(granule >> sector_shift_);
    return static_cast<std::uint8_t>(((1u << n) - 1u) << s_first);
  };
  const auto full = static_cast<std::uint8_t>(full_mask_);
  const auto full_count = static_cast<std::uint8_t>(L2Cache::sector_count(full_mask_));
  L2Cache::Cursor cursor = cursor_;  // locals, so they can live in registers
  std::size_t count = pending_count_;
  // Gathers one line (field by field: a struct copy here stalls store forwarding) and moves the cursor on.
  const auto gather = [&](std::uint8_t sectors, std::uint8_t sector_count, std::uint8_t fetch = 0) {
    Pending& p = pending_[count];
    p.line = cursor.line;
    p.block = cursor.block;
    p.set = cursor.set;
    p.sectors = sectors;
    p.count = sector_count;
    if constexpr (kFetch) p.fetch = static_cast<std::uint8_t>(fetch & ~sectors);
    if (++count == pending_.size()) {
      pending_count_ = count;
      kFetch ? flush_with_fetch(bytes) : flush(write, bytes);
      count = 0;
    }
  };
  if (write && a.piece_bytes > 0 && !a.pieces_whole_sectors(1u << sector_shift_)) {
    walk_pieces(a, bytes);
    return;
  }
  const std::uint64_t in_line = a.address & (line_bytes - 1);
  if (a.rows > 1 && (a.pitch & (line_bytes - 1)) == 0 && in_line + a.row_bytes <= line_bytes) {
    // Every row lies in one line, at the same sectors, a fixed number of lines after the previous row (a
    // column slice of a row-major tensor, as the naive GEMMs read): no per-row sector arithmetic.
    const std::uint64_t first = a.address >> line_shift_, stride = a.pitch >> line_shift_;
    if (cursor_valid_ && first >= cursor.line)
      l2_.advance(cursor, first);
    else
      cursor = l2_.seek(first);
    cursor_valid_ = true;
    const auto s_first = static_cast<std::uint32_t>(in_line >> sector_shift_);
    const auto s_last = static_cast<std::uint32_t>((in_line + a.row_bytes - 1) >> sector_shift_);
    const auto sectors = static_cast<std::uint8_t>(full & ~((1u << s_first) - 1u) & ((2u << s_last) - 1u));
    const auto sector_count = static_cast<std::uint8_t>(L2Cache::sector_count(sectors));
    const std::uint8_t fetch = kFetch ? block_sectors(a.address) : 0;  // rows a whole number of lines apart
    for (std::uint32_t row = 0;;) {
      gather(sectors, sector_count, fetch);
      if (++row == a.rows) break;
      l2_.advance(cursor, cursor.line + stride);
    }
    cursor_ = cursor;
    pending_count_ = count;
    kFetch ? flush_with_fetch(bytes) : flush(write, bytes);
    return;
  }
  for (std::uint32_t row = 0; row < a.rows; ++row) {
    const std::uint64_t lo = a.address + row * a.pitch;
    const std::uint64_t hi = lo + a.row_bytes;  // exclusive
    const std::uint64_t first = lo >> line_shift_, last = (hi - 1) >> line_shift_;
    if (cursor_valid_ && first >= cursor.line)
      l2_.advance(cursor, first);
    else
      cursor = l2_.seek(first);
    cursor_valid_ = true;
    const auto s_first = static_cast<std::uint32_t>((lo & (line_bytes - 1)) >> sector_shift_);
    const auto s_last = static_cast<std::uint32_t>(((hi - 1) & (line_bytes - 1)) >> sector_shift_);
    const auto head = static_cast<std::uint8_t>(full & ~((1u << s_first) - 1u));  // sectors s_first..
    const auto tail = static_cast<std::uint8_t>(full & ((2u << s_last) - 1u));    // sectors ..s_last
    if (first == last) {
      const auto only = static_cast<std::uint8_t>(head & tail);
      gather(only, static_cast<std::uint8_t>(L2Cache::sector_count(only)), kFetch ? block_sectors(lo) : 0);
      continue;
    }
    gather(head, static_cast<std::uint8_t>(L2Cache::sector_count(head)), kFetch ? block_sectors(lo) : 0);
    l2_.next(cursor);
    for (std::uint64_t middle = last - first - 1; middle > 0; --middle) {  // whole lines
      gather(full, full_count);
      l2_.next(cursor);
    }
    gather(tail, static_cast<std::uint8_t>(L2Cache::sector_count(tail)), kFetch ? block_sectors(hi - 1) : 0);
  }
  cursor_ = cursor;
  pending_count_ = count;
  kFetch ? flush_with_fetch(bytes) : flush(write, bytes);
}

// A store in pieces (BlockAccess::piece_bytes): one walk per column of pieces, over all rows, so a sector
// two pieces share is requested by each. Their order within the step does not matter to L2: nothing is
// written back between the pieces of one step but the oldest dirty lines.
void Engine::walk_pieces(const BlockAccess& a, LevelBytes& bytes) {
  BlockAccess piece = a;
  piece.piece_bytes = 0;
  piece.piece_align = 0;
  if (a.piece_align > 0) {  // each row's pieces fall differently: row by row
    piece.rows = 1;
    a.for_each_piece([&](std::uint64_t lo, std::uint64_t hi) {
      piece.address = lo;
      piece.row_bytes = static_cast<std::uint32_t>(hi - lo);
      walk_lines<false>(piece, true, bytes);
    });
    return;
  }
  piece.rows = static_cast<std::uint32_t>(a.tensor_rows());
  const std::uint64_t row_bytes = a.tensor_row_bytes();
  for (std::uint64_t at = 0; at < row_bytes; at += a.piece_bytes) {
    piece.address = a.address + at;
    piece.row_bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(a.piece_bytes, row_bytes - at));
    walk_lines<false>(piece, true, bytes);
  }
}

void Engine::flush_with_fetch(LevelBytes& bytes) {
  if (pending_count_ == 0) return;
  near_copies_ ? flush_cached<true, false, true>(bytes) : flush_cached<false, false, true>(bytes);
  pending_count_ = 0;
}

// Runs the gathered lines through the cache in order, prefetching the sets of the lines a few ahead.
void Engine::flush(bool write, LevelBytes& bytes) {
  if (pending_count_ == 0) return;  // the block's lines were a multiple of the batch: nothing left
  if (!opt_.l2_reuse)
    flush_through(write, bytes);
  else if (!near_copies_)
    write ? flush_cached<false, true, false>(bytes) : flush_cached<false, false, false>(bytes);
  else
    write ? flush_cached<true, true, false>(bytes) : flush_cached<true, false, false>(bytes);
  pending_count_ = 0;
}

// Without L2 reuse: every request goes through to HBM and nothing stays in L2.
void Engine::flush_through(bool write, LevelBytes& bytes) {
  std::uint64_t requested = 0;
  for (std::size_t i = 0; i < pending_count_; ++i) {
    const Pending& p = pending_[i];
    requested += p.count;
    partition_sectors_[home_partition(p.set)] += p.count;
    (write ? channel_write_ : channel_read_)[hbm_channel(p.line, channel_count_)] += p.count;
    if (reduce_) channel_read_[hbm_channel(p.line, channel_count_)] += p.count;  // the old value
  }
  (write ? bytes.hbm_write : bytes.hbm_read) += requested << sector_shift_;
  if (reduce_) bytes.hbm_read += requested << sector_shift_;
  // A reduction is neither an SM read nor an SM write at L2 (the slices count it as op_red): it moves HBM
  // bytes and L2 state, not l2_read or l2_write.
  if (!reduce_) (write ? bytes.l2_write : bytes.l2_read) += requested << sector_shift_;
  request_sectors_ += requested;
  request_hbm_ = request_missed_ = true;
}

// The model's hot path, one instance per (near copies, store) so that neither is a per-line branch. Sector
// counts accumulate in locals and reach `bytes` once per batch.
template <bool kNearCopies, bool kWrite, bool kFetch>
void Engine::flush_cached(LevelBytes& bytes) {
  constexpr std::size_t kAhead = 12;  // the set is read from host memory; its prefetch goes out this early
  const std::size_t n = pending_count_;
  std::uint64_t requested = 0, hit = 0, missed = 0, written_back = 0;
  // One access through the cache: the sectors that hit. An evicted line's dirty sectors go to HBM.
  const auto cached = [&](std::uint32_t set, std::uint64_t block, std::uint8_t sectors, bool store,
                          bool copy) -> std::uint32_t {
    const int recent = l2_.access_recent(set, block, sectors, store, copy);
    if (recent >= 0) return static_cast<std::uint32_t>(recent);
    const L2Cache::Lookup o = l2_.access_rest(set, block, sectors, store, copy);
    if (o.writeback_sectors > 0) {
      written_back += o.writeback_sectors;
      channel_write_[hbm_channel(o.victim_line, channel_count_)] += o.writeback_sectors;
    }
    return o.hit_mask;
  };
  // A store over the partition's dirty budget writes back its oldest dirty lines (GpuSpec::l2_dirty_bytes).
  const auto within_dirty_limit = [&] {
    if (!l2_.over_dirty_limit()) return;
    l2_.clean_over_limit([&](std::uint64_t line, std::uint32_t sectors) {
      written_back += sectors;
      channel_write_[hbm_channel(line, channel_count_)] += sectors;
    });
  };
  // The prefetch-size hint (kFetch): after a miss, the home partitions fetch the rest of the request's
  // aligned block from HBM, the sectors they lack. They are not requests (no L2 request or hit counted, no
  // SM-port bytes), only HBM reads. (A request spanning several lines of one block fetches its later lines
  // before they are looked up: none of the kernels' hinted copies does.)
  const auto fetch_sectors = [&](std::uint32_t set, std::uint64_t block, std::uint64_t line,
                                 std::uint32_t want) {
    const std::uint32_t present = cached(set, block, static_cast<std::uint8_t>(want), false, false);
    const std::uint32_t fetched = L2Cache::sector_count(want & ~present);
    if (fetched > 0) {
      missed += fetched;
      channel_read_[hbm_channel(line, channel_count_)] += fetched;
    }
  };
  const auto fetch = [&](const Pending& p) {
    if (p.fetch != 0) fetch_sectors(p.set, p.block, p.line, p.fetch);
    const std::uint64_t first = p.line & ~(fetch_block_lines_ - 1);
    for (std::uint64_t line = first; line < first + fetch_block_lines_; ++line) {
      if (line == p.line) continue;
      const L2Cache::Cursor c = l2_.seek(line);
      fetch_sectors(c.set, c.block, line, full_mask_);
    }
  };
  const std::uint32_t near = near_partition_;
  std::uint64_t* const partition_sectors = partition_sectors_.data();
  for (std::size_t i = 0; i < std::min(kAhead, n); ++i) l2_.prefetch(pending_[i].set);
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) l2_.prefetch(pending_[i + kAhead].set);
    const Pending& p = pending_[i];
    const std::uint32_t sectors = p.count;
    requested += sectors;
    const std::uint32_t home = home_partition(p.set);
    std::uint8_t want = p.sectors;
    if (kNearCopies && home != near) {
      // A line homed in the other partition passes through the near partition's copy (see l2_cache.hpp).
      // A read: the copy serves what it holds (and keeps a clean copy of the rest); the missing sectors
      // cross to the home partition, which fetches from HBM. A store: the near partition keeps a clean
      // copy (the home partition holds it dirty), so written data, too, takes room on both sides.
      partition_sectors[near] += sectors;
      const std::uint32_t copy_hit = cached(p.set - home + near, p.block, p.sectors, false, true);
      if (!kWrite) {
        hit += L2Cache::sector_count(copy_hit);
        want = static_cast<std::uint8_t>(p.sectors & ~copy_hit);
        if (want == 0) continue;
        partition_sectors[home] += L2Cache::sector_count(want);
      } else {
        partition_sectors[home] += sectors;
      }
    } else {
      partition_sectors[home] += sectors;
    }
    const std::uint32_t home_hit = cached(p.set, p.block, want, kWrite, false);
    if constexpr (kWrite) within_dirty_limit();
    hit += L2Cache::sector_count(home_hit);
    if (kWrite && reduce_) {  // a reduction into sectors L2 lacks reads their old value from HBM first
      const std::uint32_t miss = L2Cache::sector_count(want & ~home_hit);
      if (miss > 0) {
        missed += miss;
        channel_read_[hbm_channel(p.line, channel_count_)] += miss;
      }
    }
    if (!kWrite) {
      const std::uint32_t miss = L2Cache::sector_count(want & ~home_hit);
      if (miss > 0) {
        missed += miss;
        channel_read_[hbm_channel(p.line, channel_count_)] += miss;
        if constexpr (kFetch) fetch(p);
      }
    }
  }
  bytes.l2_hit += hit << sector_shift_;
  bytes.hbm_read += missed << sector_shift_;
  bytes.hbm_write += written_back << sector_shift_;
  if (missed > 0) request_missed_ = true;
  if (missed + written_back > 0) request_hbm_ = true;
  if (!(kWrite && reduce_))
    (kWrite ? bytes.l2_write : bytes.l2_read) += requested << sector_shift_;  // see flush_through
  request_sectors_ += requested;
}

double Engine::walk_synchronous(const BlockAccess& a, LevelBytes& bytes) {
  const double l2 = gpu_.l2_latency_ns * 1e-9, hbm = gpu_.hbm_latency_ns * 1e-9;
  bool missed = request_missed_;
  double longest = 0, chain = 0;
  // The tensor's rows (block() joins rows that touch end to end into one).
  const bool joined = a.joined();
  const std::uint64_t row_bytes = a.tensor_row_bytes();
  const std::uint64_t rows = a.tensor_rows();
  const std::uint64_t sector_mask = (std::uint64_t{1} << sector_shift_) - 1;
  // The rows a warp takes side by side (rows_per_trip): each trip costs the slowest of their pieces, so the
  // warp's chain grows by the longest of the group's row chains once the group is done.
  const std::uint64_t group_rows = std::max<std::uint64_t>(1, a.rows_per_trip);
  double group_chain = 0;
  for (std::uint64_t row = 0; row < rows; ++row) {
    if (row % a.warp_rows == 0) chain = 0;  // the next warp's rows
    const double warp_chain = chain;        // before this row's trips
    if ((row % a.warp_rows) % group_rows == 0) group_chain = 0;
    // One piece per round trip, cut at sector boundaries so that each sector is requested once, as when the
    // row is walked whole (a sector two loads share is requested by the first; the second finds it in L1).
    // Rows that touch: the sector a row shares with the previous one was requested with that row. A piece
    // that continues the previous step's (l1_has_head): the sector they share is in L1.
    const std::uint64_t start = a.address + row * a.pitch, end = start + row_bytes;
    const std::uint64_t first =
        (joined && row > 0) || a.l1_has_head ? std::min(end, (start + sector_mask) & ~sector_mask) : start;
    const std::uint64_t trips = (row_bytes + a.trip_bytes - 1) / a.trip_bytes;
    const auto cut = [&](std::uint64_t k) {
      return k == 0 ? first : k == trips ? end : std::max(first, (start + k * a.trip_bytes) & ~sector_mask);
    };
    for (std::uint64_t k = 0; k < trips; ++k) {
      const std::uint64_t lo = cut(k), hi = std::max(lo, cut(k + 1));
      if (hi == lo) {  // every sector of this load was requested by the previous one
        chain += l2;
        continue;
      }
      BlockAccess piece = a;
      piece.address = lo;
      piece.rows = 1;
      piece.row_bytes = static_cast<std::uint32_t>(hi - lo);
      piece.pitch = piece.row_bytes;
      piece.trip_bytes = 0;
      request_missed_ = false;
      walk(piece, false, bytes);
      chain += request_missed_ ? hbm : l2;
      missed = missed || request_missed_;
    }
    if (group_rows > 1) {
      // This row's trips run beside the group's other rows: the warp's chain is the chain before the group
      // plus the group's longest row.
      group_chain = std::max(group_chain, chain - warp_chain);
      const bool group_done = (row % a.warp_rows) % group_rows == group_rows - 1 ||
                              row % a.warp_rows == a.warp_rows - 1u || row + 1 == rows;
      chain = warp_chain;
      if (group_done) chain += group_chain;
    }
    longest = std::max(longest, chain);
  }
  // The bandwidth the pieces take is served with the rest of the step's request (serve_request).
  request_missed_ = missed;
  return longest;
}

double Engine::serve_request(int sm, double now, bool wait_for_hbm) {
  const auto sector = static_cast<double>(std::uint64_t{1} << sector_shift_);  // bytes
  double done =
      sm_port_[static_cast<std::size_t>(sm)].serve(now, static_cast<double>(request_sectors_) * sector);
  for (std::size_t p = 0; p < partition_sectors_.size(); ++p) {
    if (partition_sectors_[p] > 0)
      done = std::max(done, l2_partition_[p].serve(now, static_cast<double>(partition_sectors_[p]) * sector));
    partition_sectors_[p] = 0;
  }
  double hbm_done = now;
  if (request_hbm_) {
    for (std::size_t c = 0; c < channel_read_.size(); ++c) {
      // Reads first: the request waits for its own data; write-backs queue behind, delaying later requests.
      if (channel_read_[c] > 0)
        hbm_done = std::max(hbm_done, hbm_[c].serve(now, static_cast<double>(channel_read_[c]) * sector));
      if (channel_write_[c] > 0) hbm_[c].serve(now, static_cast<double>(channel_write_[c]) * sector);
      channel_read_[c] = channel_write_[c] = 0;
    }
    request_hbm_ = false;
  }
  const bool missed = request_missed_ && wait_for_hbm;
  request_sectors_ = 0;
  request_missed_ = false;
  if (missed) return std::max(done, hbm_done) + gpu_.hbm_latency_ns * 1e-9;
  return done + gpu_.l2_latency_ns * 1e-9;
}

}  // namespace

KernelResult run_kernel(const GpuSpec& gpu, const KernelDataflow& flow, L2Cache& l2,
                        const EngineOptions& options) {
  Engine engine(gpu, flow, l2, options, thread_scratch());
  return engine.run();
}

}  // namespace attnscope::sim::detail
