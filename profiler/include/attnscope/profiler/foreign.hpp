// SPDX-License-Identifier: Apache-2.0
// Kernels launched by another program (PyTorch, Triton, any CUDA program) and measured there by the injected
// collector (`attnscope profile -- COMMAND`): what was recorded about each selected launch, and what the
// model can say about it once the launch is recognised as a known attention kernel.
//
// Plain data, no CUDA: the collector (a library loaded into the target program through
// CUDA_INJECTION64_PATH) writes these records as JSON lines, and the `attnscope` process that started the
// program reads them back, recognises each kernel from the kernel table and joins it with the model.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnscope/profiler/metric_set.hpp"

namespace attnscope::profiler {

// The attention shape a program announces for the launches that follow: the message of an NVTX range
// pushed by the Python helper `attnscope.annotate(q, k, v, causal=...)`, e.g.
//   "attnscope: B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=1"
// (parse_annotation, recognize.hpp, is the one reader of that text).
struct AnnotatedShape {
  std::int64_t batch = 0, heads = 0, seq_q = 0, seq_kv = 0, head_dim = 0;
  std::string dtype;  // "fp16" | "bf16"
  bool causal = false;
};

// How the counters of a launch were obtained. user: attnscope saved the program's device memory, and before
// every replay pass restored it and flushed L2 (the same protocol as attnscope's own kernels). kernel:
// CUPTI's kernel replay (CUPTI saves and restores memory itself; attnscope flushes L2 before the launch
// only).
enum class ForeignReplay : std::uint8_t { user, kernel };

// One selected launch in the other program, as recorded by the collector.
struct ForeignLaunch {
  std::string mangled_name;    // as the driver reports it (cuFuncGetName / CUPTI's symbolName)
  std::string demangled_name;  // abi::__cxa_demangle of mangled_name, or mangled_name when that fails
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
  int registers_per_thread = 0;
  int static_smem_bytes = 0;
  int dynamic_smem_bytes = 0;
  // Local memory per thread (register spills, local arrays); -1 when the recording predates the field.
  int local_bytes_per_thread = -1;
  std::uint64_t launch_index = 0;        // among all kernel launches of the program, from 0
  std::vector<std::string> nvtx_ranges;  // the NVTX range stack at launch, outermost first
  std::optional<AnnotatedShape> shape;   // from the innermost "attnscope:" range, when there is one
  ForeignReplay replay = ForeignReplay::user;
  CounterValues counters;              // the standard metric set, as for attnscope's own kernels
  std::optional<double> event_time_s;  // CUDA events around one more replay from a flushed L2
};

}  // namespace attnscope::profiler
