// SPDX-License-Identifier: Apache-2.0
// The workload as the kernels' launch shape (no GPU): every size checked by name before any allocation, and
// the unmasked workload (window 0) taken as it is.
#include <gtest/gtest.h>

#include <climits>
#include <string>

#include "attnscope/profiler/error.hpp"
#include "kernel_shape.hpp"

using namespace attnscope;

TEST(KernelShape, UnmaskedAndMaskedWorkloadsConvert) {
  sim::Workload w;  // llm-4k: no window, no ALiBi
  const kernels::AttentionShape plain = profiler::cuda::kernel_shape_of(w);
  EXPECT_EQ(plain.window, 0);
  EXPECT_FALSE(plain.alibi);
  EXPECT_EQ(plain.seq_q, 4096);
  EXPECT_FLOAT_EQ(plain.scale, 0.125f);  // 1/sqrt(64)
  w.causal = true;
  w.window = 1024;
  w.alibi = true;
  w.dtype = sim::DType::bf16;
  const kernels::AttentionShape masked = profiler::cuda::kernel_shape_of(w);
  EXPECT_EQ(masked.window, 1024);
  EXPECT_TRUE(masked.alibi);
  EXPECT_TRUE(masked.causal);
  EXPECT_EQ(masked.dtype, kernels::DType::bf16);
}

TEST(KernelShape, OutOfRangeFieldsAreRefusedByName) {
  const auto refused = [](sim::Workload w, const std::string& field) {
    try {
      profiler::cuda::kernel_shape_of(w);
      ADD_FAILURE() << field << " accepted";
    } catch (const profiler::ProfilerError& e) {
      EXPECT_EQ(e.code(), profiler::ErrorCode::bad_input);
      EXPECT_NE(std::string(e.what()).find(field + " = "), std::string::npos) << e.what();
    }
  };
  sim::Workload w;
  w.seq_kv = 0;
  refused(w, "seq_kv");
  w = {};
  w.batch = std::int64_t{INT_MAX} + 1;
  refused(w, "batch");
  w = {};
  w.causal = true;
  w.window = -1;
  refused(w, "window");
}
