// SPDX-License-Identifier: Apache-2.0
// The collector's reading of a launch's parameters (profiler/inject/kernel_params.hpp), on the CPU: the
// words it takes for device pointers from kernelParams with a layout, from a struct passed by value, from
// the `extra` packed buffer, and when it refuses (no layout, an unknown launch option).
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstring>

#include "kernel_params.hpp"

namespace attnscope::profiler::inject {
namespace {

using Words = std::vector<std::uint64_t>;

TEST(KernelParams, PointerAndScalarParameters) {
  // kernel(const half* q, int n, float* out): offsets 0, 8, 16 in the device layout.
  std::uint64_t q = 0x7f0000001000, out = 0x7f0000200000;
  int n = 4096;
  void* params[] = {&q, &n, &out};
  const auto words = parameter_words(params, nullptr, std::vector<KernelParam>{{0, 8}, {8, 4}, {16, 8}});
  ASSERT_TRUE(words);
  EXPECT_EQ(*words, (Words{q, out}));  // the 4-byte int is no 8-byte word
}

TEST(KernelParams, PointerFieldsOfAStructPassedByValue) {
  struct Params {
    std::uint64_t q, k, v;
    int heads, seq;
    std::uint64_t o;
    float scale;
    int causal;
  } p{0x1000, 0x2000, 0x3000, 32, 4096, 0x4000, 0.125f, 1};
  void* params[] = {&p};
  const auto words = parameter_words(params, nullptr, std::vector<KernelParam>{{0, sizeof p}});
  ASSERT_TRUE(words);
  // Every aligned word: the pointers, and the packed ints beside them (harmless: not device addresses).
  std::uint64_t packed_ints = 0, packed_tail = 0;
  std::memcpy(&packed_ints, &p.heads, 8);
  std::memcpy(&packed_tail, &p.scale, 8);
  EXPECT_EQ(*words, (Words{0x1000, 0x2000, 0x3000, packed_ints, 0x4000, packed_tail}));
}

TEST(KernelParams, UnalignedParameterStartsAtTheNextAlignedWord) {
  // A 16-byte parameter at device offset 4: only its bytes 4..11 form an aligned word.
  unsigned char bytes[16] = {};
  const std::uint64_t w = 0xabcdef;
  std::memcpy(bytes + 4, &w, 8);
  void* params[] = {bytes};
  const auto words = parameter_words(params, nullptr, std::vector<KernelParam>{{4, 16}});
  ASSERT_TRUE(words);
  EXPECT_EQ(*words, (Words{w}));
}

TEST(KernelParams, PackedBufferOfTheExtraOption) {
  std::uint64_t buffer[3] = {0x1000, 0, 0x2000};
  std::size_t size = sizeof buffer;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   CU_LAUNCH_PARAM_END};
  const auto words = parameter_words(nullptr, extra, std::nullopt);
  ASSERT_TRUE(words);
  EXPECT_EQ(*words, (Words{0x1000, 0x2000}));
}

TEST(KernelParams, WhatCannotBeReadIsAbsent) {
  std::uint64_t q = 0x1000;
  void* params[] = {&q};
  EXPECT_FALSE(parameter_words(params, nullptr, std::nullopt));  // no layout
  void* null_params[] = {nullptr};
  EXPECT_FALSE(parameter_words(null_params, nullptr, std::vector<KernelParam>{{0, 8}}));
  void* unknown[] = {reinterpret_cast<void*>(0x77), &q, CU_LAUNCH_PARAM_END};
  EXPECT_FALSE(parameter_words(nullptr, unknown, std::nullopt));
  std::uint64_t buffer[1] = {0x1000};
  void* no_size[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buffer, CU_LAUNCH_PARAM_END};
  EXPECT_FALSE(parameter_words(nullptr, no_size, std::nullopt));
  // No parameters at all: nothing to read, which is not a failure.
  const auto none = parameter_words(nullptr, nullptr, std::nullopt);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace attnscope::profiler::inject
