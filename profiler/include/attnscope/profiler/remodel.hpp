// SPDX-License-Identifier: Apache-2.0
// Re-running the model on a recorded profile: the measured values stay exactly as the GPU recorded them, the
// modeled values come from this build's model, run under the recording's cache protocol. This is how a
// machine without a GPU (CI, the quick start) checks the model against real counters committed under
// tests/data/h200/, and the one join the accuracy table is computed from.
#pragma once
#include <string>
#include <string_view>

#include "attnscope/profiler/model_cache.hpp"
#include "attnscope/reports/report.hpp"
#include "attnscope/sim/gpu_spec.hpp"

namespace attnscope::profiler {

struct RemodelOptions {
  // Re-model the full run's per-tile attribution and timing (the heatmaps): true. False re-models kernel
  // totals and lone tile windows only and drops the other tiles' modeled values, which is all the accuracy
  // table reads.
  bool full_run_tiles = true;
};

// For every kernel of `recorded` (kind "profile"), replaces each metric's modeled value (kernel totals,
// per-tile attribution, tile timing and SM) by a fresh simulation of the same workload and tiles on the
// cache's GPU, under the recording's cache protocol (flush: each kernel alone from a flushed L2; sequence:
// the kernels back to back; warm). Tiles measured as lone windows get the model of that lone launch, as in
// the original join. Provenance is kept (it describes the measurement); each kernel gains a "remodeled" note
// naming this build. Throws sim::InvalidInput if the recorded workload is not simulable.
reports::Report remodel_report(const reports::Report& recorded, ModelCache& models,
                               const RemodelOptions& options = {});
reports::Report remodel_report(const reports::Report& recorded, const sim::GpuSpec& gpu);

// Whether a measurement of `kernel` dated `date` (ISO 8601 UTC) on a problem with `seq_kv` keys ran an
// earlier version of that kernel than the one the model describes (vocab::current_since). remodel_report
// gives such a kernel no modeled values, only a kKernelChangedNote note: its errors would compare two
// different kernels.
bool measured_before_kernel_change(std::string_view kernel, std::string_view date, std::int64_t seq_kv);
inline constexpr std::string_view kKernelChangedNote = "kernel_changed";

// The cache protocol a recording was measured under (flush when a profile did not say: the default).
vocab::CacheProtocol protocol_of(const reports::Report& recorded);

}  // namespace attnscope::profiler
