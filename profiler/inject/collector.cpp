// SPDX-License-Identifier: Apache-2.0
#include "collector.hpp"

#include <cupti_profiler_target.h>
#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <optional>

#include "attnscope/profiler/error.hpp"
#include "attnscope/profiler/metric_set.hpp"
#include "checked_call.hpp"
#include "cupti_device.hpp"
#include "driver_call.hpp"
#include "l2_flush.hpp"
#include "metric_config.hpp"
#include "range_profiler.hpp"
#include "record_writer.hpp"
#include "snapshot.hpp"

namespace attnscope::profiler::inject {

namespace {

// As attnscope's own measurements (gpu_session.cpp): the flush reads four times the L2 size, CUPTI gets at
// most this many passes, events time this many runs (median).
constexpr std::size_t kFlushL2Multiple = 4;
constexpr int kMaxPasses = 64;
constexpr int kEventRuns = 3;
// The two snapshots (inputs and results) may take this share of the free device memory together.
constexpr double kSnapshotShareOfFree = 0.4;

void initialize_cupti_profiler() {
  static std::once_flag once;
  static std::optional<ProfilerError> failure;
  std::call_once(once, [] {
    try {
      auto p = detail::cupti_params<CUpti_Profiler_Initialize_Params>(
          CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
      ATTNSCOPE_CUPTI(cuptiProfilerInitialize(&p));
    } catch (const ProfilerError& e) {
      failure = e;
    }
  });
  if (failure) throw *failure;
}

// Synchronizes `stream` and names the step in the error if it fails (a replay that faults shows here).
void sync(CUstream stream) {
  ATTNSCOPE_CU(cuStreamSynchronize(stream));
}

}  // namespace

DeviceInfo describe_device(CUdevice device, const std::string& chip) {
  DeviceInfo d;
  char name[256] = {};
  ATTNSCOPE_CU(cuDeviceGetName(name, sizeof name, device));
  d.name = name;
  d.chip = chip;
  int l2 = 0, sms = 0, driver = 0;
  ATTNSCOPE_CU(cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device));
  ATTNSCOPE_CU(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device));
  ATTNSCOPE_CU(cuDriverGetVersion(&driver));
  d.l2_bytes = l2;
  d.sm_count = sms;
  d.driver = fmt::format("CUDA driver API {}.{}", driver / 1000, driver % 1000 / 10);
  d.cuda_runtime = "";  // the program's own runtime, which the collector does not see
  return d;
}

struct ContextCollector::Impl {
  CUcontext context = nullptr;
  bool force_kernel_replay = false;
  CUstream stream = nullptr;
  std::unique_ptr<L2Flush> flush;
  std::unique_ptr<cuda::MetricConfig> config;
  std::vector<std::string> unavailable;
  CUevent begin_event = nullptr, end_event = nullptr;

  // State between begin() and end() of one launch.
  enum class Mode { none, user, kernel } mode = Mode::none;
  std::vector<Allocation> allocations;
  std::unique_ptr<Snapshot> inputs, results;
  // CUPTI's range profiler of this context: enabled at the first measured launch and kept for the next ones
  // (each configures it again), as attnscope's own sessions keep one for all their measurements. Enabling
  // it is most of a launch's fixed cost; an error drops it (abandon()) and the next launch enables a new one.
  std::unique_ptr<cuda::RangeProfiler> profiler;

  cuda::RangeProfiler& range_profiler(std::int64_t launch_index) {
    if (!profiler) {
      profiler = std::make_unique<cuda::RangeProfiler>(context);
      step("launch {}: range profiler enabled", launch_index);
    }
    return *profiler;
  }
  // Drops one launch's state, keeping the profiler for the next launch.
  void clear_launch() {
    inputs.reset();
    results.reset();
    allocations.clear();
    mode = Mode::none;
  }

  ~Impl() {
    profiler.reset();
    inputs.reset();
    results.reset();
    flush.reset();
    config.reset();
    // Nothing useful to do about failures while tearing down.
    if (begin_event) cuEventDestroy(begin_event);
    if (end_event) cuEventDestroy(end_event);
    if (stream) cuStreamDestroy(stream);
  }

  CounterValues counters_of(const std::vector<double>& values) const {
    CounterValues c;
    const auto& names = config->metrics();
    for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) c[names[i]] = values[i];
    for (const auto& u : unavailable) c[u] = std::nullopt;
    return c;
  }

  std::vector<double> decode_one() {
    const auto ranges = profiler->decode(*config);
    if (ranges.size() != 1)
      throw ProfilerError(ErrorCode::cupti_error,
                          fmt::format("CUPTI returned {} ranges for one launch (expected 1)", ranges.size()));
    return ranges.front().values;
  }

  void measure_user(const LaunchCall& call, ForeignLaunchRecord& record);
  double time_with_events(const LaunchCall& call);
};

ContextCollector::ContextCollector(CUcontext context, bool force_kernel_replay)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.context = context;
  s.force_kernel_replay = force_kernel_replay;
  CUdevice device = 0;
  ATTNSCOPE_CU(cuCtxGetDevice(&device));
  step("setting up context {} on device {}", static_cast<const void*>(context), static_cast<int>(device));
  initialize_cupti_profiler();
  step("cuptiProfilerInitialize done");
  cuda::check_device_supported(static_cast<int>(device));
  const std::string chip = cuda::chip_name(static_cast<int>(device));
  device_ = describe_device(device, chip);
  step("device {} ({}), L2 {} B, {} SMs, {}", device_.name, chip, device_.l2_bytes, device_.sm_count,
       device_.driver);
  s.config = std::make_unique<cuda::MetricConfig>(chip, cuda::counter_availability(context));
  std::vector<std::string> metrics;
  for (const auto& m : standard_counters()) {
    if (s.config->supported(m))
      metrics.push_back(m);
    else
      s.unavailable.push_back(m);
  }
  s.config->set_metrics(metrics);
  step("metric configuration: {} counters, {} unavailable, {} passes", metrics.size(), s.unavailable.size(),
       s.config->passes());
  ATTNSCOPE_CU(cuStreamCreate(&s.stream, CU_STREAM_NON_BLOCKING));
  ATTNSCOPE_CU(cuEventCreate(&s.begin_event, CU_EVENT_DEFAULT));
  ATTNSCOPE_CU(cuEventCreate(&s.end_event, CU_EVENT_DEFAULT));
  s.flush = std::make_unique<L2Flush>(static_cast<std::size_t>(device_.l2_bytes), kFlushL2Multiple);
  step("flush module loaded, buffer {} B", s.flush->bytes());
  // Persisting L2 lines would survive the flush (as in gpu_session.cpp).
  ATTNSCOPE_CU(cuCtxResetPersistingL2Cache());
}

ContextCollector::~ContextCollector() = default;

void ContextCollector::abandon() {
  Impl& s = *impl_;
  s.profiler.reset();  // its state after a failed launch is unknown: the next launch enables a new one
  s.clear_launch();
}

void ContextCollector::begin(const LaunchCall& call, const FunctionInfo& info, ForeignLaunchRecord& record) {
  Impl& s = *impl_;
  s.clear_launch();
  // The launch's inputs are what the program's earlier work left: wait for all of it.
  ATTNSCOPE_CU(cuCtxSynchronize());
  std::string why_kernel;
  const auto words = parameter_words(call, info);
  if (s.force_kernel_replay) {
    why_kernel = "kernel replay asked for (ATTNSCOPE_INJECT_REPLAY=kernel)";
  } else if (!words) {
    why_kernel = "the kernel's parameter layout is unknown (" +
                 (info.params_problem.empty() ? std::string("extra launch options") : info.params_problem) +
                 "), so the memory it touches cannot be found";
  } else {
    s.allocations = allocations_of(*words);
    const std::size_t bytes = total_bytes(s.allocations);
    std::size_t free_bytes = 0, total = 0;
    ATTNSCOPE_CU(cuMemGetInfo(&free_bytes, &total));
    step("launch {}: {} parameter words, {} allocations, {} B to save; {} B free", record.launch.launch_index,
         words->size(), s.allocations.size(), bytes, free_bytes);
    if (s.allocations.empty())
      // Nothing to restore would make every replay run on what the previous one wrote; a kernel without a
      // pointer among its parameters can still write module globals.
      why_kernel = "no device memory was found from its parameters, so what it writes cannot be restored";
    else if (2.0 * static_cast<double>(bytes) > kSnapshotShareOfFree * static_cast<double>(free_bytes))
      why_kernel = fmt::format(
          "saving its memory twice ({:.1f} MB) would take more than {:.0f} % of the free device memory "
          "({:.1f} MB)",
          2.0 * static_cast<double>(bytes) / 1e6, kSnapshotShareOfFree * 100,
          static_cast<double>(free_bytes) / 1e6);
    else
      record.notes.push_back(
          fmt::format("saved and restored {} allocation(s), {:.1f} MB, found from the kernel's "
                      "parameters",
                      s.allocations.size(), static_cast<double>(bytes) / 1e6));
  }

  if (why_kernel.empty()) {
    s.mode = Impl::Mode::user;
    record.launch.replay = ForeignReplay::user;
    s.inputs = std::make_unique<Snapshot>();
    s.inputs->save(s.allocations, s.stream);
    sync(s.stream);
    step("launch {}: inputs saved", record.launch.launch_index);
    return;
  }
  s.mode = Impl::Mode::kernel;
  record.launch.replay = ForeignReplay::kernel;
  record.notes.push_back("kernel replay: " + why_kernel);
  step("launch {}: kernel replay: {}", record.launch.launch_index, why_kernel);
  s.flush->run(s.stream);
  sync(s.stream);
  s.range_profiler(record.launch.launch_index).configure(*s.config, CUPTI_AutoRange, CUPTI_KernelReplay, 1);
  s.profiler->start();
  step("launch {}: CUPTI kernel replay started", record.launch.launch_index);
}

void ContextCollector::end(const LaunchCall& call, CUresult launch_result, ForeignLaunchRecord& record) {
  Impl& s = *impl_;
  if (launch_result != CUDA_SUCCESS) {
    abandon();
    throw ProfilerError(
        ErrorCode::cuda_error,
        fmt::format("the program's own launch failed ({}): not measured", driver_error_text(launch_result)));
  }
  if (s.mode == Impl::Mode::kernel) {
    // The launch callback calls abandon() (which disables the profiler) if anything here throws.
    ATTNSCOPE_CU(cuCtxSynchronize());
    s.profiler->stop();
    record.launch.counters = s.counters_of(s.decode_one());
    record.passes = static_cast<int>(s.config->passes());
    record.unavailable_metrics = s.unavailable;
    record.notes.push_back(
        "kernel replay: CUPTI re-ran the program's launch once per pass and restored memory between passes; "
        "L2 was flushed before the launch only, so passes after the first start from the L2 state CUPTI's "
        "restore left; no event time (the launch cannot be replayed safely)");
    s.clear_launch();
    step("launch {}: kernel replay done", record.launch.launch_index);
    return;
  }
  if (s.mode != Impl::Mode::user) return;
  try {
    s.measure_user(call, record);
  } catch (...) {
    // A pass cut short leaves CUPTI's profiler started: stop it (best effort) before it is disabled.
    if (s.profiler) {
      try {
        s.profiler->stop();
      } catch (const ProfilerError&) {
        // not started, or already failing: the disable below is what matters
      }
    }
    // Leave the program with its own launch's results whatever failed, when they were saved.
    if (s.results) {
      try {
        s.results->restore(s.stream);
        sync(s.stream);
      } catch (const ProfilerError& e) {
        log_line(std::string("could not restore the program's memory after a failed measurement: ") +
                 e.what());
      }
    }
    abandon();
    throw;
  }
  s.clear_launch();
}

void ContextCollector::Impl::measure_user(const LaunchCall& call, ForeignLaunchRecord& record) {
  const auto index = record.launch.launch_index;
  ATTNSCOPE_CU(cuCtxSynchronize());
  results = std::make_unique<Snapshot>();
  results->save(allocations, stream);
  sync(stream);
  step("launch {}: results saved", index);

  range_profiler(index).configure(*config, CUPTI_UserRange, CUPTI_UserReplay, 1);
  step("launch {}: range profiler configured", index);
  int pass = 0;
  bool done = false;
  while (!done) {
    if (++pass > kMaxPasses)
      throw ProfilerError(ErrorCode::cupti_error,
                          fmt::format("CUPTI still wanted passes after {}", kMaxPasses));
    inputs->restore(stream);
    flush->run(stream);
    sync(stream);
    // The first pass has cost 6-37 times the others (186 ms against 5-28 ms on the H200): its parts are
    // logged apart to find where that time goes.
    if (pass == 1) step("launch {}: pass 1 inputs restored, L2 flushed", index);
    profiler->start();
    if (pass == 1) step("launch {}: pass 1 profiler started", index);
    profiler->push("attnscope_foreign_launch");
    ATTNSCOPE_CU(call.relaunch(stream));
    profiler->pop();
    sync(stream);
    if (pass == 1) step("launch {}: pass 1 replay done", index);
    done = profiler->stop();
    step("launch {}: pass {} done{}", index, pass, done ? " (all passes)" : "");
  }
  record.launch.counters = counters_of(decode_one());
  record.passes = pass;
  record.unavailable_metrics = unavailable;
  record.launch.event_time_s = time_with_events(call);
  step("launch {}: event time {:.3f} ms", index, *record.launch.event_time_s * 1e3);
  record.notes.push_back(fmt::format(
      "user replay: {} pass(es), each restored the launch's inputs and flushed L2 first; {}; the program "
      "then continued with its own launch's results",
      pass, flush->describe()));
  results->restore(stream);
  sync(stream);
  step("launch {}: program memory restored to its own launch's results", index);
}

double ContextCollector::Impl::time_with_events(const LaunchCall& call) {
  std::vector<double> seconds;
  for (int run = 0; run < kEventRuns; ++run) {
    inputs->restore(stream);
    flush->run(stream);
    ATTNSCOPE_CU(cuEventRecord(begin_event, stream));
    ATTNSCOPE_CU(call.relaunch(stream));
    ATTNSCOPE_CU(cuEventRecord(end_event, stream));
    ATTNSCOPE_CU(cuEventSynchronize(end_event));
    float ms = 0;
    ATTNSCOPE_CU(cuEventElapsedTime(&ms, begin_event, end_event));
    seconds.push_back(static_cast<double>(ms) * 1e-3);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

}  // namespace attnscope::profiler::inject
