// SPDX-License-Identifier: Apache-2.0
// The measurement of one selected launch in one CUDA context, with the protocol of attnscope's own kernels:
//
//   user replay (default)  at the launch's API entry: wait for the program's earlier work, save the memory
//                          the launch can touch (snapshot.hpp). The program's launch runs. At its exit: save
//                          that memory again (the launch's results), then for every pass CUPTI needs:
//                          restore the inputs, flush L2, replay the launch on the collector's stream inside
//                          one CUPTI user range. Then three more replays from a flushed L2, timed with CUDA
//                          events (median), and finally restore the launch's own results, so the program goes
//                          on with exactly what its launch produced.
//   kernel replay          when the snapshot cannot be taken (it would need more than 40 % of the free device
//                          memory, twice: inputs and results; the parameter layout is unknown; no device
//                          memory is found from the parameters): flush L2 at entry and let CUPTI's kernel
//                          replay run the program's own launch as often as it needs, restoring memory itself.
//                          Passes after the first start from the L2 state CUPTI's restore left; no event time
//                          (nothing can be replayed safely).
//
// Replays run on the collector's own stream, not the program's: the context is idle around them, so the
// order is the same, and the flush, the replay and the events share one stream whatever the program's stream
// is (the legacy default stream, a per-thread stream, one with another priority).
#pragma once
#include <cuda.h>

#include <memory>
#include <string>
#include <vector>

#include "attnscope/profiler/foreign_records.hpp"
#include "launch_call.hpp"

namespace attnscope::profiler::inject {

// Name, L2 size, SM count and driver version of `device`; `chip` is CUPTI's chip name ("" when unknown).
DeviceInfo describe_device(CUdevice device, const std::string& chip);

class ContextCollector {
 public:
  // Sets up CUPTI's profiler, the metric configuration, a stream and the flush buffer in `context`'s
  // device. Throws ProfilerError (no counter permission, unsupported device, ...).
  ContextCollector(CUcontext context, bool force_kernel_replay);
  ~ContextCollector();
  ContextCollector(const ContextCollector&) = delete;
  ContextCollector& operator=(const ContextCollector&) = delete;

  const DeviceInfo& device() const { return device_; }

  // At the launch's API entry: prepares the replay mode (record.launch.replay says which) and its state.
  void begin(const LaunchCall& call, const FunctionInfo& info, ForeignLaunchRecord& record);
  // At its API exit, with the program's launch result: collects the counters and the event time into
  // `record`, leaving the program's memory as its own launch left it.
  void end(const LaunchCall& call, CUresult launch_result, ForeignLaunchRecord& record);
  // Drops the state of a begin() whose launch will not be measured (an error between begin and end).
  void abandon();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  DeviceInfo device_;
};

}  // namespace attnscope::profiler::inject
