// SPDX-License-Identifier: Apache-2.0
#include "kernel_shape.hpp"

#include <fmt/format.h>

#include <climits>
#include <cstdint>

#include "attnscope/profiler/error.hpp"

namespace attnscope::profiler::cuda {

namespace {

int to_int(std::int64_t v, const char* what, std::int64_t least = 1) {
  if (v < least || v > INT_MAX)
    throw ProfilerError(ErrorCode::bad_input, fmt::format("{} = {} is out of the kernels' range ({} .. {})",
                                                          what, v, least, INT_MAX));
  return static_cast<int>(v);
}

}  // namespace

kernels::DType to_kernel_dtype(sim::DType t) {
  switch (t) {
    case sim::DType::fp16:
      return kernels::DType::fp16;
    case sim::DType::bf16:
      return kernels::DType::bf16;
    case sim::DType::fp32:
      return kernels::DType::fp32;
  }
  return kernels::DType::fp16;
}

kernels::AttentionShape kernel_shape_of(const sim::Workload& w) {
  kernels::AttentionShape s;
  s.batch = to_int(w.batch, "batch");
  s.heads = to_int(w.heads, "heads");
  s.seq_q = to_int(w.seq_q, "seq_q");
  s.seq_kv = to_int(w.seq_kv, "seq_kv");
  s.head_dim = to_int(w.head_dim, "head_dim");
  s.dtype = to_kernel_dtype(w.dtype);
  s.causal = w.causal;
  s.window = to_int(w.window, "window", 0);  // 0: no window
  s.alibi = w.alibi;
  s.scale = static_cast<float>(w.effective_scale());
  return s;
}

}  // namespace attnscope::profiler::cuda
