// SPDX-License-Identifier: Apache-2.0
// The GPU session: CUPTI set up once, then each measurement runs the workload's kernels inside named ranges
// from a known L2 state, replays until CUPTI has every pass, decodes, and adds the per-tile windows and the
// instrumented timeline.
#include "attnscope/profiler/gpu_session.hpp"

#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "attnscope/profiler/error.hpp"
#include "checked_call.hpp"
#include "cupti_device.hpp"
#include "device_info.hpp"
#include "device_kernels.hpp"
#include "device_workload.hpp"
#include "metric_config.hpp"
#include "nvtx_range.hpp"
#include "pm_sampler.hpp"
#include "range_profiler.hpp"

namespace attnscope::profiler {

bool built_with_cuda() {
  return true;
}

namespace {

// Flush buffer = this many times the L2 size: reading it replaces every line even with L2's hashing and
// its two partitions.
constexpr std::size_t kFlushL2Multiple = 4;
constexpr int kMaxPasses = 64;

// What one recorded range is.
struct PlannedRange {
  enum class What { kernel, writeback, window, ignored } what = What::ignored;
  std::string name;
  std::size_t index = 0;  // kernel or window index
};

// Whether the kernel at `index` of a launch sequence starts from a flushed L2: every kernel with
// CacheMode::flush, the first one with CacheMode::sequence, none with CacheMode::warm.
bool flushes_before(CacheMode cache, std::size_t index) {
  return cache == CacheMode::flush || (cache == CacheMode::sequence && index == 0);
}

}  // namespace

struct GpuSession::Impl {
  SessionOptions options;
  CUcontext context = nullptr;
  DeviceInfo device;
  cudaStream_t stream = nullptr;
  void* flush_buffer = nullptr;
  std::size_t flush_bytes = 0;
  std::unique_ptr<cuda::MetricConfig> config;
  std::unique_ptr<cuda::RangeProfiler> profiler;
  // The most ranges the profiler has been configured for since it was enabled. CUPTI keeps the room of the
  // first configuration: configured again for more ranges per pass, it returned only 4 of 6 (H100, a naive
  // point after a tiled one in `profile --matrix fresh:202612051826`), so a measurement that needs more
  // ranges than any before it gets a new profiler.
  std::size_t profiler_ranges = 0;
  std::vector<std::string> unavailable;
  std::vector<std::string> not_collected;

  ~Impl() {
    profiler.reset();
    config.reset();
    if (flush_buffer) cudaFree(flush_buffer);
    if (stream) cudaStreamDestroy(stream);
  }

  // Write back every dirty line (read pass), then, by default, invalidate what the read left (discard
  // pass): L2 ends empty and clean. With FlushMethod::read it ends full of clean lines instead.
  void flush() {
    cuda::NvtxRange range("l2_flush");
    cuda::l2_flush_read(flush_buffer, flush_bytes, stream);
    if (options.flush == FlushMethod::read_discard) cuda::l2_discard(flush_buffer, flush_bytes, stream);
  }

  CounterValues counters_of(const std::vector<double>& values) const {
    CounterValues c;
    const auto& names = config->metrics();
    for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) c[names[i]] = values[i];
    for (const auto& u : unavailable) c[u] = std::nullopt;
    for (const auto& u : not_collected) c[u] = std::nullopt;
    return c;
  }

  std::vector<MeasuredTileTime> timeline_of(cuda::DeviceWorkload& work, const std::string& kernel,
                                            std::vector<std::string>& notes);

  // PM sampling: one more launch of each kernel from the same L2 state, sampled every
  // request.pm_sampling_ns. The range profiler and the PM sampler both own the performance monitor, so the
  // range profiler is switched off meanwhile. Optional: a failure becomes a note, not an error.
  void sample_throughput(cuda::DeviceWorkload& work, const MeasureRequest& request, Measurement& m) {
    cuda::NvtxRange range("pm sampling");
    profiler.reset();
    try {
      cuda::PmSampler sampler(0, device.chip, pm_sampling_metrics(), request.pm_sampling_ns, 100000);
      for (auto& k : m.kernels) {
        if (request.cache != CacheMode::warm) flush();
        ATTNSCOPE_CUDA(cudaStreamSynchronize(stream));
        sampler.start();
        work.launch(k.name, nullptr);
        ATTNSCOPE_CUDA(cudaStreamSynchronize(stream));
        sampler.stop();
        bool overflow = false;
        const auto samples = sampler.decode(overflow);
        const std::uint64_t t0 = samples.empty() ? 0 : samples.front().start_ns;
        for (const auto& smp : samples) {
          MeasuredSample out;
          out.start_s = static_cast<double>(smp.start_ns - t0) * 1e-9;
          out.end_s = static_cast<double>(smp.end_ns - t0) * 1e-9;
          for (std::size_t i = 0; i < sampler.metrics().size() && i < smp.values.size(); ++i)
            out.counters[sampler.metrics()[i]] = smp.values[i];
          k.samples.push_back(std::move(out));
        }
        if (overflow) m.notes.push_back("PM sampling of " + k.name + ": the hardware buffer overflowed");
      }
      std::string names;
      for (const auto& n : sampler.metrics()) names += (names.empty() ? "" : ", ") + n;
      m.notes.push_back(fmt::format("PM sampling: one more launch per kernel{}, sampled every {} ns ({})",
                                    request.cache == CacheMode::warm ? "" : " after a flush",
                                    request.pm_sampling_ns, names));
    } catch (const ProfilerError& e) {
      m.notes.push_back(std::string("PM sampling unavailable: ") + e.what());
    }
    profiler = std::make_unique<cuda::RangeProfiler>(context);
    profiler_ranges = 0;  // a new profiler: its first configuration sets its room
  }

  // Each kernel's duration from CUDA events, from the same L2 state as its counters, median of 3 runs.
  void time_with_events(cuda::DeviceWorkload& work, const std::vector<std::string>& names, CacheMode cache,
                        Measurement& m) {
    constexpr int kRuns = 3;
    cudaEvent_t begin = nullptr, end = nullptr;
    ATTNSCOPE_CUDA(cudaEventCreate(&begin));
    ATTNSCOPE_CUDA(cudaEventCreate(&end));
    std::vector<std::vector<double>> seconds(names.size());
    try {
      for (int run = 0; run < kRuns; ++run) {
        for (std::size_t i = 0; i < names.size(); ++i) {
          if (flushes_before(cache, i)) flush();
          if (cache == CacheMode::warm) work.launch(names[i], nullptr);
          ATTNSCOPE_CUDA(cudaEventRecord(begin, stream));
          work.launch(names[i], nullptr);
          ATTNSCOPE_CUDA(cudaEventRecord(end, stream));
          ATTNSCOPE_CUDA(cudaEventSynchronize(end));
          float ms = 0;
          ATTNSCOPE_CUDA(cudaEventElapsedTime(&ms, begin, end));
          seconds[i].push_back(static_cast<double>(ms) * 1e-3);
        }
      }
    } catch (...) {
      cudaEventDestroy(begin);
      cudaEventDestroy(end);
      throw;
    }
    cudaEventDestroy(begin);
    cudaEventDestroy(end);
    for (std::size_t i = 0; i < names.size(); ++i) {
      std::sort(seconds[i].begin(), seconds[i].end());
      m.kernels[i].event_time_s = seconds[i][seconds[i].size() / 2];
    }
  }
};

GpuSession::GpuSession(const SessionOptions& options) : impl_(std::make_unique<Impl>()) {
  if (options.use_cupti && !options.standard_metrics && options.extra_metrics.empty())
    throw ProfilerError(ErrorCode::metric_unsupported,
                        "--only-metrics needs at least one --metric NAME to collect");
  Impl& s = *impl_;
  s.options = options;
  s.context = cuda::open_device();
  s.device = cuda::describe_device();
  ATTNSCOPE_CUDA(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
  // The flush buffer is allocated in launch-only runs too, so that a run under ncu places the workload's
  // buffers at the same device addresses as our own measurement (which L2 sets and partitions the output
  // lands in decides how much of it is written back while the kernel runs); only its memset, one more
  // launch ncu would see, is skipped there.
  s.flush_bytes =
      kFlushL2Multiple * static_cast<std::size_t>(std::max<std::int64_t>(s.device.l2_bytes, 1 << 20));
  ATTNSCOPE_CUDA(cudaMalloc(&s.flush_buffer, s.flush_bytes));
  if (!options.use_cupti) return;
  ATTNSCOPE_CUDA(cudaCtxResetPersistingL2Cache());
  ATTNSCOPE_CUDA(cudaMemset(s.flush_buffer, 0, s.flush_bytes));
  ATTNSCOPE_CUDA(cudaDeviceSynchronize());

  auto init =
      detail::cupti_params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  ATTNSCOPE_CUPTI(cuptiProfilerInitialize(&init));
  cuda::check_device_supported(0);
  s.device.chip = cuda::chip_name(0);
  s.config = std::make_unique<cuda::MetricConfig>(s.device.chip, cuda::counter_availability(s.context));
  std::vector<std::string> metrics;
  for (const auto& m : standard_counters()) {
    const bool asked = std::find(options.extra_metrics.begin(), options.extra_metrics.end(), m) !=
                       options.extra_metrics.end();
    if (!options.standard_metrics && !asked)
      s.not_collected.push_back(m);
    else if (s.config->supported(m))
      metrics.push_back(m);
    else
      s.unavailable.push_back(m);
  }
  for (const auto& m : options.extra_metrics) {
    if (!s.config->supported(m))
      throw ProfilerError(ErrorCode::metric_unsupported,
                          fmt::format("metric '{}' is not supported on {} ({}): check the name with `ncu "
                                      "--query-metrics --chip {}`",
                                      m, s.device.name, s.device.chip, s.device.chip));
    if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
  }
  s.config->set_metrics(metrics);
  s.profiler = std::make_unique<cuda::RangeProfiler>(s.context);
}

GpuSession::~GpuSession() = default;

const DeviceInfo& GpuSession::device() const {
  return impl_->device;
}
std::vector<std::string> GpuSession::metrics() const {
  return impl_->config ? impl_->config->metrics() : std::vector<std::string>{};
}
int GpuSession::passes() const {
  return impl_->config ? static_cast<int>(impl_->config->passes()) : 0;
}

std::vector<MeasuredTileTime> GpuSession::Impl::timeline_of(cuda::DeviceWorkload& work,
                                                            const std::string& kernel,
                                                            std::vector<std::string>& notes) {
  std::vector<MeasuredTileTime> out;
  if (!work.timeline_compiled(kernel)) {
    notes.push_back(kernel + ": no instrumented build of this configuration, so no per-tile timeline");
    return out;
  }
  const std::size_t capacity = work.timeline_capacity(kernel);
  if (capacity == 0) return out;
  void* device_memory = nullptr;
  ATTNSCOPE_CUDA(cudaMalloc(&device_memory, capacity * sizeof(kernels::TileTiming)));
  auto* device_records = static_cast<kernels::TileTiming*>(device_memory);
  std::vector<kernels::TileTiming> records(capacity);
  try {
    ATTNSCOPE_CUDA(cudaMemsetAsync(device_records, 0, capacity * sizeof(kernels::TileTiming), stream));
    flush();
    {
      cuda::NvtxRange range("timeline");
      work.launch(kernel, device_records);
    }
    ATTNSCOPE_CUDA(cudaStreamSynchronize(stream));
    ATTNSCOPE_CUDA(cudaMemcpy(records.data(), device_records, capacity * sizeof(kernels::TileTiming),
                              cudaMemcpyDeviceToHost));
  } catch (const ProfilerError& e) {
    cudaFree(device_records);
    if (e.code() != ErrorCode::config_not_compiled) throw;
    notes.push_back(kernel + ": no per-tile timeline: " + e.what());
    return out;
  }
  cudaFree(device_records);
  std::uint64_t first = UINT64_MAX;
  for (const auto& r : records)
    if (r.start_ns != 0 || r.end_ns != 0) first = std::min(first, r.start_ns);
  for (const auto& r : records) {
    if (r.start_ns == 0 && r.end_ns == 0) continue;  // a record this launch did not produce
    MeasuredTileTime t;
    t.batch = static_cast<int>(r.batch);
    t.head = static_cast<int>(r.head);
    t.q_tile = static_cast<int>(r.q_tile);
    t.kv_tile = static_cast<int>(r.kv_tile);
    t.sm = static_cast<int>(r.sm);
    t.start_s = static_cast<double>(r.start_ns - first) * 1e-9;
    t.end_s = static_cast<double>(r.end_ns - first) * 1e-9;
    out.push_back(t);
  }
  return out;
}

Measurement GpuSession::measure(const MeasureRequest& request) {
  Impl& s = *impl_;
  Measurement m;
  m.device = s.device;
  m.cache_mode = std::string(to_string(request.cache));
  m.replay_mode = std::string(to_string(s.options.replay));
  m.passes = passes();
  m.unavailable_metrics = s.unavailable;
  m.not_collected_metrics = s.not_collected;
  const auto names = kernel_names(request.kind, request.workload.pass);
  if (request.workload.pass != sim::Pass::fwd && !request.windows.empty())
    throw ProfilerError(
        ErrorCode::bad_input,
        "tile windows are measured for the forward pass only (--tiles none with --pass bwd|both)");
  cuda::DeviceWorkload work(request.workload, request.kind, request.tiles, request.seed, !s.options.use_cupti,
                            s.stream);
  for (const auto& n : names) {
    MeasuredKernel k;
    k.name = n;
    m.kernels.push_back(std::move(k));
  }

  if (!s.options.use_cupti) {  // --launch-only: each kernel once, for an outside profiler (ncu)
    // With the default cache mode each kernel starts from our flushed L2, as in a measured run, and a last
    // flush follows the last kernel, so that an outside profiler sees the same start state as the in-process
    // profiler (`ncu --cache-control none`) and each kernel's dirty leftover as the next flush kernel's DRAM
    // writes (the in-process `l2_dirty_end`). The flush kernels are named attnscope_l2_*: ncu's
    // --kernel-name filters them in or out.
    const bool flushed = request.cache == CacheMode::flush;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (flushes_before(request.cache, i)) s.flush();
      work.launch(names[i], nullptr);
    }
    if (flushed) s.flush();
    ATTNSCOPE_CUDA(cudaStreamSynchronize(s.stream));
    m.notes.push_back(flushed
                          ? "launch only: each kernel ran once with no counters (for ncu), between L2 flushes"
                          : "launch only: each kernel ran once with no counters (for ncu)");
    cuda::read_clocks(m.device);
    return m;
  }

  const bool user = s.options.replay == ReplayMode::user;
  using What = PlannedRange::What;
  // What one pass runs, in order. A step with a role other than `ignored` is a measured range.
  struct Step {
    enum class Op { flush, kernel, window } op;
    std::size_t index;
    What role;
    std::string name;
  };
  std::vector<Step> steps;
  auto add_flush = [&](What role, const std::string& name, std::size_t index) {
    steps.push_back({Step::Op::flush, index, role, name});
  };
  switch (request.cache) {
    case CacheMode::flush:  // every kernel from a flushed L2, as ncu --cache-control all
      add_flush(What::ignored, "l2_flush", 0);
      for (std::size_t i = 0; i < names.size(); ++i) {
        steps.push_back({Step::Op::kernel, i, What::kernel, names[i]});
        add_flush(What::writeback, names[i] + ".writeback", i);
      }
      break;
    case CacheMode::sequence:  // one flush, then the kernels back to back, as the model chains them
      add_flush(What::ignored, "l2_flush", 0);
      for (std::size_t i = 0; i < names.size(); ++i)
        steps.push_back({Step::Op::kernel, i, What::kernel, names[i]});
      add_flush(What::writeback, names.back() + ".writeback", names.size() - 1);
      break;
    case CacheMode::warm:  // the same sequence once, unmeasured, right before
      for (std::size_t i = 0; i < names.size(); ++i)
        steps.push_back({Step::Op::kernel, i, What::ignored, "warmup"});
      for (std::size_t i = 0; i < names.size(); ++i)
        steps.push_back({Step::Op::kernel, i, What::kernel, names[i]});
      break;
  }
  for (std::size_t i = 0; i < request.windows.size(); ++i) {
    const auto& w = request.windows[i];
    if (request.cache == CacheMode::warm)
      steps.push_back({Step::Op::window, i, What::ignored, "warmup"});
    else
      add_flush(What::ignored, "l2_flush", 0);
    steps.push_back({Step::Op::window, i, What::window,
                     fmt::format("{}@b{}h{}q{}kv{}", w.kernel, w.batch, w.head, w.q_tile, w.kv_tile)});
  }
  // The ranges CUPTI will return, in order: user replay records the pushed ranges; kernel replay records one
  // auto range per launch (a flush is two launches: the read, whose range holds the write-back, and the
  // discard).
  std::vector<PlannedRange> plan;
  for (const auto& st : steps) {
    if (user) {
      if (st.role != What::ignored) plan.push_back({st.role, st.name, st.index});
      continue;
    }
    plan.push_back({st.role, st.name, st.index});
    if (st.op == Step::Op::flush && s.options.flush == FlushMethod::read_discard)
      plan.push_back({What::ignored, "l2_discard", 0});
  }

  // Load every kernel's module before counting (CUDA loads modules lazily at the first launch, which would
  // otherwise land inside the first measured range and inflate its duration).
  for (const auto& n : names) work.launch(n, nullptr);
  if (!request.windows.empty()) work.launch_window(request.windows.front());
  ATTNSCOPE_CUDA(cudaStreamSynchronize(s.stream));

  const auto t0 = std::chrono::steady_clock::now();
  if (plan.size() > s.profiler_ranges) {
    if (s.profiler_ranges > 0) {
      s.profiler.reset();  // disable before enabling another in the same context
      s.profiler = std::make_unique<cuda::RangeProfiler>(s.context);
    }
    s.profiler_ranges = plan.size();
  }
  s.profiler->configure(*s.config, user ? CUPTI_UserRange : CUPTI_AutoRange,
                        user ? CUPTI_UserReplay : CUPTI_KernelReplay, plan.size());
  int pass = 0;
  bool done = false;
  while (!done) {
    if (++pass > kMaxPasses)
      throw ProfilerError(ErrorCode::cupti_error,
                          fmt::format("CUPTI still wanted passes after {}", kMaxPasses));
    cuda::NvtxRange phase(fmt::format("measure pass {}", pass));
    s.profiler->start();
    for (const auto& st : steps) {
      const bool measured = user && st.role != What::ignored;
      if (measured) s.profiler->push(st.name);
      switch (st.op) {
        case Step::Op::flush:
          s.flush();
          break;
        case Step::Op::kernel:
          work.launch(names[st.index], nullptr);
          break;
        case Step::Op::window:
          work.launch_window(request.windows[st.index]);
          break;
      }
      if (measured) s.profiler->pop();
    }
    ATTNSCOPE_CUDA(cudaStreamSynchronize(s.stream));
    done = s.profiler->stop();
    if (!user) done = true;  // kernel replay: CUPTI replays each kernel inside the one pass
  }
  const auto ranges = s.profiler->decode(*s.config);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (ranges.size() != plan.size()) {
    // Which ones: a range CUPTI leaves out held no work it counted (its kernel did not run, or ran empty).
    std::string recorded, returned;
    for (const auto& p : plan) recorded += (recorded.empty() ? "" : ", ") + p.name;
    for (const auto& r : ranges) returned += (returned.empty() ? "" : ", ") + r.name;
    throw ProfilerError(
        ErrorCode::cupti_error,
        fmt::format("CUPTI returned {} ranges where {} were recorded (recorded: {}; returned: "
                    "{}; {} pass{})",
                    ranges.size(), plan.size(), recorded, returned, pass, pass == 1 ? "" : "es"));
  }
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const auto& p = plan[i];
    if (user && ranges[i].name != p.name)  // matched by order; a renamed range is worth a note, not a failure
      m.notes.push_back(
          fmt::format("range {} came back as '{}', recorded as '{}'", i, ranges[i].name, p.name));
    CounterValues c = s.counters_of(ranges[i].values);
    switch (p.what) {
      case What::kernel:
        m.kernels[p.index].counters = std::move(c);
        break;
      case What::writeback:
        m.kernels[p.index].writeback_after = std::move(c);
        break;
      case What::window: {
        const auto& w = request.windows[p.index];
        for (auto& k : m.kernels)
          if (k.name == w.kernel)
            k.windows.push_back(MeasuredWindow{w.batch, w.head, w.q_tile, w.kv_tile, std::move(c)});
        break;
      }
      case What::ignored:
        break;
    }
  }
  m.notes.push_back(fmt::format("counters: {} ranges, {} pass{} ({} replay), {:.3f} s wall", plan.size(),
                                pass, pass == 1 ? "" : "es", m.replay_mode, seconds));
  if (request.cache != CacheMode::warm)
    m.notes.push_back(fmt::format(
        "L2 flush ({}, method {}): a kernel reads a {:.0f} MB buffer ({}x the {:.0f} MB L2) with ordinary "
        "loads and stores nothing, so every dirty line is written back during the flush; {}; persisting L2 "
        "lines were reset (cudaCtxResetPersistingL2Cache)",
        request.cache == CacheMode::flush ? "before every measured kernel, as ncu --cache-control all"
                                          : "once before the kernel sequence, which then runs back to back",
        to_string(s.options.flush), static_cast<double>(s.flush_bytes) / 1e6, kFlushL2Multiple,
        static_cast<double>(s.device.l2_bytes) / 1e6,
        s.options.flush == FlushMethod::read_discard ? "then a second kernel discards the buffer's lines "
                                                       "(discard.global.L2), leaving L2 empty and clean"
                                                     : "L2 is left full of the buffer's clean lines"));
  if (request.cache == CacheMode::flush && names.size() > 1)
    m.notes.push_back(
        "the model chains the naive kernels (each inherits the L2 the previous one left); this "
        "measurement flushed L2 before each, so softmax and pv DRAM traffic differ from the chain by "
        "design: --cache sequence measures the chain");
  if (!user)
    m.notes.push_back(
        "kernel replay: CUPTI re-runs each kernel once per pass and restores memory between passes; "
        "passes after the first start from the L2 state CUPTI's restore left, not a flushed one");

  s.time_with_events(work, names, request.cache, m);
  if (request.timeline)
    for (auto& k : m.kernels) k.timeline = s.timeline_of(work, k.name, m.notes);
  if (request.pm_sampling_ns > 0) s.sample_throughput(work, request, m);
  cuda::read_clocks(m.device);
  return m;
}

}  // namespace attnscope::profiler
