// SPDX-License-Identifier: Apache-2.0
// libattnscope_inject.so: the collector `attnscope profile -- COMMAND` loads into another program through
// CUDA_INJECTION64_PATH. The driver calls InitializeInjection at cuInit; from then on CUPTI calls back at
// every kernel launch (driver API), NVTX push/pop (with NVTX_INJECTION64_PATH naming libcupti) and context
// teardown. Each launch is counted and matched against the selection (foreign_selection.hpp); a selected one
// is measured by its context's collector (collector.hpp) and written as one JSON line (foreign_records.hpp).
//
// Every launch callback of the program takes one lock, held from the entry to the exit of a measured launch:
// while the collector replays a kernel, no other thread of the program launches one beside it.
#include <cupti.h>
#include <dlfcn.h>
#include <generated_nvtx_meta.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "attnscope/profiler/error.hpp"
#include "attnscope/profiler/foreign_records.hpp"
#include "attnscope/profiler/foreign_selection.hpp"
#include "collector.hpp"
#include "driver_call.hpp"
#include "launch_call.hpp"
#include "nvtx_stacks.hpp"
#include "record_writer.hpp"

namespace attnscope::profiler::inject {

namespace {

constexpr std::size_t kSummaryKernelNames = 50;

struct Context {
  std::unique_ptr<ContextCollector> collector;
  std::optional<ProfilerError> setup_failure;  // reported once; the context measures nothing after it
};

// Process-wide state. Never destroyed: the program's static destructors and CUDA's own teardown run in an
// order the collector does not control, and the summary is written from an atexit handler.
struct State {
  std::mutex launch_mutex;
  std::mutex state_mutex;  // the members below
  std::optional<LaunchSelector> selector;
  bool list_kernels = false;
  bool force_kernel_replay = false;
  std::map<CUcontext, Context> contexts;
  std::map<CUfunction, FunctionInfo> functions;
  std::vector<std::pair<std::string, std::uint64_t>> kernel_counts;
  bool device_written = false;
  std::uint64_t measured = 0;
  std::atomic<std::uint64_t> launches{0};
  std::atomic<std::uint64_t> runtime_launches{0};
  CUpti_SubscriberHandle subscriber = nullptr;
};

State& state() {
  static State* s = new State;
  return *s;
}

// Set while the collector makes its own driver calls (replays, flushes, copies) on this thread: their
// callbacks are the collector's, not the program's.
thread_local bool t_busy = false;

struct Busy {
  Busy() { t_busy = true; }
  ~Busy() { t_busy = false; }
  Busy(const Busy&) = delete;
  Busy& operator=(const Busy&) = delete;
};

// The measured launch between its entry and exit callbacks on this thread.
struct Pending {
  bool active = false;
  ForeignLaunchRecord record;
  LaunchCall call;
  ContextCollector* collector = nullptr;
  std::unique_lock<std::mutex> lock;
};
thread_local Pending t_pending;

void write_error(std::optional<std::uint64_t> index, const std::string& kernel, const ProfilerError& e) {
  log_line(kernel.empty() ? std::string(e.what()) : kernel + ": " + e.what());
  ForeignError record{index, kernel, std::string(to_string(e.code())), e.what()};
  records().write(to_json_line(record));
}

// The function's description, made once per function. When the driver cannot describe it, the launch keeps
// CUPTI's name for it and an unknown parameter layout (so it can still be listed, selected and measured with
// kernel replay); the failure is reported once.
const FunctionInfo& function_info(State& s, CUfunction f, const char* symbol, std::uint64_t index) {
  std::lock_guard lock(s.state_mutex);
  auto it = s.functions.find(f);
  if (it != s.functions.end()) return it->second;
  FunctionInfo info;
  try {
    info = describe_function(f, symbol);
  } catch (const ProfilerError& e) {
    info.mangled = symbol != nullptr ? symbol : "<unnamed kernel>";
    info.demangled = demangle(info.mangled);
    info.params_problem = e.what();
    write_error(index, info.demangled, e);
  }
  return s.functions.emplace(f, std::move(info)).first->second;
}

void count_kernel(State& s, const std::string& name) {
  std::lock_guard lock(s.state_mutex);
  for (auto& [n, count] : s.kernel_counts)
    if (n == name) {
      ++count;
      return;
    }
  if (s.kernel_counts.size() < kSummaryKernelNames) s.kernel_counts.emplace_back(name, 1);
}

// The context's collector, set up at its first measured launch; nullptr after a setup failure (reported
// once, as an error record).
ContextCollector* collector_for(State& s, CUcontext context) {
  std::lock_guard lock(s.state_mutex);
  Context& c = s.contexts[context];
  if (c.collector) return c.collector.get();
  if (c.setup_failure) return nullptr;
  try {
    c.collector = std::make_unique<ContextCollector>(context, s.force_kernel_replay);
    if (!s.device_written) {
      records().write(to_json_line(c.collector->device()));
      s.device_written = true;
    }
    return c.collector.get();
  } catch (const ProfilerError& e) {
    c.setup_failure = e;
    write_error(std::nullopt, "", e);
    return nullptr;
  }
}

// List mode: the device record without setting up CUPTI's profiler (no chip name then).
void write_device_once(State& s) {
  std::lock_guard lock(s.state_mutex);
  if (s.device_written) return;
  s.device_written = true;
  try {
    CUdevice device = 0;
    ATTNSCOPE_CU(cuCtxGetDevice(&device));
    records().write(to_json_line(describe_device(device, "")));
  } catch (const ProfilerError& e) {
    write_error(std::nullopt, "", e);
  }
}

void on_launch_enter(State& s, CUpti_CallbackId cbid, const CUpti_CallbackData& data) {
  // A launch between the entry and exit of a measured one on this thread is not the program's (CUPTI's
  // kernel replay, should it go through the API); this thread already holds the launch lock.
  if (t_pending.active) return;
  const auto call = LaunchCall::from_callback(cbid, data.functionParams);
  if (!call) return;
  const std::uint64_t index = s.launches.fetch_add(1);
  std::unique_lock lock(s.launch_mutex);  // waits while another thread measures
  Busy busy;
  const FunctionInfo* info = &function_info(s, call->function, data.symbolName, index);
  count_kernel(s, info->demangled);
  if (!s.list_kernels) {
    // Past the last selected launch nothing more is recorded: only counted, for the summary.
    std::lock_guard state_lock(s.state_mutex);
    if (!s.selector || s.selector->done()) return;
  }
  const OpenRanges open = open_ranges();

  ForeignLaunchRecord record;
  ForeignLaunch& l = record.launch;
  l.mangled_name = info->mangled;
  l.demangled_name = info->demangled;
  l.grid = call->grid;
  l.block = call->block;
  l.registers_per_thread = info->registers_per_thread;
  l.static_smem_bytes = info->static_smem_bytes;
  l.local_bytes_per_thread = info->local_bytes_per_thread;
  l.dynamic_smem_bytes = static_cast<int>(call->dynamic_smem);
  l.launch_index = index;
  l.nvtx_ranges = open.ranges;
  record.nvtx_thread = open.thread;
  record.annotation = innermost_annotation(open.ranges);

  if (s.list_kernels) {
    write_device_once(s);
    records().write(to_json_line(record));
    return;
  }
  {
    std::lock_guard state_lock(s.state_mutex);
    if (!s.selector || !s.selector->select(info->demangled, open.ranges)) return;
  }
  step("launch {}: {} selected (grid {}x{}x{}, block {}x{}x{})", index, info->demangled, l.grid[0], l.grid[1],
       l.grid[2], l.block[0], l.block[1], l.block[2]);
  // A launch into a capturing stream only records a graph node: nothing runs, and synchronizing would
  // break the capture.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (const CUresult r = cuStreamIsCapturing(call->stream, &capture); r != CUDA_SUCCESS) {
    write_error(index, info->demangled,
                ProfilerError(ErrorCode::cuda_error, std::string("cuStreamIsCapturing failed: ") +
                                                         driver_error_text(r) + ": not measured"));
    return;
  }
  if (capture != CU_STREAM_CAPTURE_STATUS_NONE) {
    write_error(index, info->demangled,
                ProfilerError(ErrorCode::cuda_error,
                              "launched into a stream being captured into a CUDA graph: not measured (graph "
                              "launches are not seen; run the program without CUDA graphs to measure it)"));
    return;
  }
  ContextCollector* collector = collector_for(s, data.context);
  if (collector == nullptr) return;
  try {
    collector->begin(*call, *info, record);
  } catch (const ProfilerError& e) {
    collector->abandon();
    write_error(index, info->demangled, e);
    return;
  }
  t_pending.active = true;
  t_pending.record = std::move(record);
  t_pending.call = *call;
  t_pending.collector = collector;
  t_pending.lock = std::move(lock);  // held until the exit callback
}

void on_launch_exit(State& s, const CUpti_CallbackData& data) {
  if (!t_pending.active) return;
  Busy busy;
  Pending pending = std::move(t_pending);
  t_pending = Pending{};
  const CUresult result =
      data.functionReturnValue ? *static_cast<const CUresult*>(data.functionReturnValue) : CUDA_SUCCESS;
  try {
    pending.collector->end(pending.call, result, pending.record);
    records().write(to_json_line(pending.record));
    std::lock_guard lock(s.state_mutex);
    ++s.measured;
  } catch (const ProfilerError& e) {
    pending.collector->abandon();  // the profiler may be mid-pass: the next launch enables a new one
    write_error(pending.record.launch.launch_index, pending.record.launch.demangled_name, e);
  }
}

void on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData& data) {
  const void* p = data.functionParams;
  if (p == nullptr) return;
  const auto message_of = [](const nvtxEventAttributes_t* a) -> std::string {
    if (a == nullptr) return "";
    if (a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) return a->message.ascii;
    if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED) return "<registered string>";
    return "<non-ASCII message>";
  };
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA: {
      const char* m = static_cast<const nvtxRangePushA_params*>(p)->message;
      nvtx_push(nullptr, m ? m : "");
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushW:
      nvtx_push(nullptr, "<wide message>");
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      nvtx_push(nullptr, message_of(static_cast<const nvtxRangePushEx_params*>(p)->eventAttrib));
      break;
    case CUPTI_CBID_NVTX_nvtxRangePop:
      nvtx_pop(nullptr);
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const auto* d = static_cast<const nvtxDomainRangePushEx_params*>(p);
      nvtx_push(d->domain, message_of(d->core.eventAttrib));
      break;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      nvtx_pop(static_cast<const nvtxDomainRangePop_params*>(p)->domain);
      break;
    default:
      break;
  }
}

void on_context_destroy(State& s, const CUpti_ResourceData& data) {
  std::lock_guard lock(s.state_mutex);
  Busy busy;  // the collector frees its stream, events, flush buffer and module in the dying context
  s.contexts.erase(data.context);
}

void CUPTIAPI callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (t_busy || data == nullptr) return;
  State& s = state();
  try {
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
      const auto& d = *static_cast<const CUpti_CallbackData*>(data);
      if (d.callbackSite == CUPTI_API_ENTER)
        on_launch_enter(s, cbid, d);
      else
        on_launch_exit(s, d);
    } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
      if (static_cast<const CUpti_CallbackData*>(data)->callbackSite == CUPTI_API_ENTER) ++s.runtime_launches;
    } else if (domain == CUPTI_CB_DOMAIN_NVTX) {
      on_nvtx(cbid, *static_cast<const CUpti_NvtxData*>(data));
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
      on_context_destroy(s, *static_cast<const CUpti_ResourceData*>(data));
    }
  } catch (const std::exception& e) {
    // Nothing may escape into the driver: say it and let the program go on.
    log_line(std::string("unexpected failure in a callback: ") + e.what());
    records().write(to_json_line(ForeignError{std::nullopt, "", "cuda_error", e.what()}));
  }
}

void write_summary() {
  State& s = state();
  ForeignSummary summary;
  {
    std::lock_guard lock(s.state_mutex);
    summary.launches_seen = s.launches.load();
    summary.runtime_launches = s.runtime_launches.load();
    summary.matched = s.selector ? s.selector->matched() : 0;
    summary.selected = s.selector ? s.selector->selected() : 0;
    summary.measured = s.measured;
    summary.kernels = s.kernel_counts;
  }
  records().write(to_json_line(summary));
  step("program exits: {} launches, {} selected, {} measured", summary.launches_seen, summary.selected,
       summary.measured);
}

// NVTX loads the library NVTX_INJECTION64_PATH names at the program's first NVTX call, by path. When the
// program already had another file of the same soname loaded (a PyTorch built with the same CUDA major ships
// its own libcupti) and the collector was linked against that copy, a different path would load a second
// CUPTI that has no subscriber: NVTX is pointed at the CUPTI this collector actually uses. A value naming
// another tool's library (not a libcupti) is left alone.
void point_nvtx_at_loaded_cupti() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &info) == 0 || info.dli_fname == nullptr) return;
  const char* current = std::getenv("NVTX_INJECTION64_PATH");
  if (current != nullptr && std::string_view(current) == info.dli_fname) return;
  if (current != nullptr && std::string_view(current).find("libcupti") == std::string_view::npos) {
    step("NVTX_INJECTION64_PATH names {}, not a CUPTI: NVTX ranges reach it, not the collector", current);
    return;
  }
  ::setenv("NVTX_INJECTION64_PATH", info.dli_fname, 1);
  step("NVTX_INJECTION64_PATH -> {} (the CUPTI this collector uses; was {})", info.dli_fname,
       current != nullptr ? current : "unset");
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == "1";
}

// Subscribes and enables the callbacks; false (with an error record) when CUPTI refuses.
bool subscribe(State& s) {
  const auto fail = [](CUptiResult r, const char* what) {
    const char* text = nullptr;
    if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown CUPTI error";
    std::string message = std::string(what) + " failed: " + text;
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
      message += " (another CUPTI client, e.g. the PyTorch profiler or Nsight, is attached to the program)";
    write_error(std::nullopt, "", ProfilerError(ErrorCode::cupti_error, message));
    return false;
  };
  if (const auto r = cuptiSubscribe(&s.subscriber, callback, nullptr); r != CUPTI_SUCCESS)
    return fail(r, "cuptiSubscribe");
  for (const CUpti_CallbackId id : launch_callback_ids())
    if (const auto r = cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
        r != CUPTI_SUCCESS)
      return fail(r, "cuptiEnableCallback (driver launch)");
  for (const CUpti_CallbackId id :
       {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060})
    if (const auto r = cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id);
        r != CUPTI_SUCCESS)
      return fail(r, "cuptiEnableCallback (runtime launch)");
  if (const auto r = cuptiEnableCallback(1, s.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                         CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
      r != CUPTI_SUCCESS)
    return fail(r, "cuptiEnableCallback (context destroy)");
  if (const auto r = cuptiEnableDomain(1, s.subscriber, CUPTI_CB_DOMAIN_NVTX); r != CUPTI_SUCCESS)
    return fail(r, "cuptiEnableDomain (NVTX)");
  return true;
}

}  // namespace

}  // namespace attnscope::profiler::inject

// The entry point the CUDA driver calls when it loads a library named by CUDA_INJECTION64_PATH.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  using namespace attnscope::profiler;
  using namespace attnscope::profiler::inject;
  static std::once_flag once;
  static int result = 0;
  std::call_once(once, [] {
    set_verbose(env_flag(kEnvInjectLog));
    const char* out = std::getenv(kEnvInjectOut);
    if (out == nullptr || *out == '\0') {
      log_line(std::string(kEnvInjectOut) +
               " is not set: nothing to record into (run the program through "
               "`attnscope profile -- COMMAND`)");
      return;
    }
    if (!records().open(out)) return;
    State& s = state();
    s.list_kernels = env_flag(kEnvInjectList);
    const char* replay = std::getenv(kEnvInjectReplay);
    s.force_kernel_replay = replay != nullptr && std::string(replay) == "kernel";
    ForeignStart start;
    start.list_kernels = s.list_kernels;
    start.replay = s.force_kernel_replay ? "kernel" : "user";
    start.pid = ::getpid();
    try {
      const LaunchSelection selection = selection_from_env([](const char* n) { return std::getenv(n); });
      start.kernel_regex = selection.kernel_regex;
      start.nvtx_regex = selection.nvtx_regex;
      start.skip = selection.skip;
      start.count = selection.count;
      s.selector.emplace(selection);
    } catch (const std::invalid_argument& e) {
      records().write(to_json_line(start));
      write_error(std::nullopt, "", ProfilerError(ErrorCode::bad_input, e.what()));
      return;
    }
    records().write(to_json_line(start));
    step("loaded in process {}: {} mode, kernel regex '{}', NVTX regex '{}', skip {}, count {}", start.pid,
         s.list_kernels ? "list" : "measure", start.kernel_regex, start.nvtx_regex, start.skip,
         start.count ? std::to_string(*start.count) : "all");
    point_nvtx_at_loaded_cupti();
    if (!subscribe(s)) return;
    std::atexit(write_summary);
    result = 1;
  });
  return result;
}
