// SPDX-License-Identifier: Apache-2.0
// Element types of attention inputs and outputs.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace attnscope::sim {

enum class DType : std::uint8_t { fp16, bf16, fp32 };

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
std::optional<DType> parse_dtype(std::string_view s);  // "fp16" | "bf16" | "fp32"

}  // namespace attnscope::sim
