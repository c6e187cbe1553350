// SPDX-License-Identifier: Apache-2.0
// Element types of attention inputs and outputs, and their names. The kernels compile fp16 and bf16 (fp32
// accumulation inside); fp32 exists for the model, which can price a kernel nobody compiled.
//
// C++17 and constexpr only: the CUDA translation units of kernels/ include this header.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace attnscope::vocab {

enum class DType : std::uint8_t { fp16, bf16, fp32 };

// Bytes per element.
constexpr std::uint32_t bytes_of(DType t) {
  return t == DType::fp32 ? 4u : 2u;
}

constexpr std::string_view to_string(DType t) {
  switch (t) {
    case DType::fp16:
      return "fp16";
    case DType::bf16:
      return "bf16";
    case DType::fp32:
      return "fp32";
  }
  return "?";
}

// "fp16" | "bf16" | "fp32", and the framework spellings of each ("half", "bfloat16", "float", ...).
constexpr std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "fp16" || s == "half" || s == "float16") return DType::fp16;
  if (s == "bf16" || s == "bfloat16") return DType::bf16;
  if (s == "fp32" || s == "float" || s == "float32") return DType::fp32;
  return std::nullopt;
}

}  // namespace attnscope::vocab
