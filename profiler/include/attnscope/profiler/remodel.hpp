// SPDX-License-Identifier: Apache-2.0
// Re-running the model on a recorded profile: the measured values stay exactly as the GPU recorded them, the
// modeled values come from this build's model. This is how a machine without a GPU (CI, the quick start)
// checks the model against real counters committed under tests/data/h200/.
#pragma once
#include <string>

#include "attnscope/reports/report.hpp"
#include "attnscope/sim/gpu_spec.hpp"

namespace attnscope::profiler {

// For every kernel of `recorded` (kind "profile"), replaces each metric's modeled value (kernel totals,
// per-tile attribution, tile timing and SM) by a fresh simulation of the same workload and tiles on `gpu`,
// with the L2 start state the recording used. Tiles measured as lone windows get the model of that lone
// launch, as in the original join. Provenance is kept (it describes the measurement); each kernel gains a
// "remodeled" note naming this build. Throws sim::InvalidInput if the recorded workload is not simulable.
reports::Report remodel_report(const reports::Report& recorded, const sim::GpuSpec& gpu);

}  // namespace attnscope::profiler
