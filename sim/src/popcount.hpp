// SPDX-License-Identifier: Apache-2.0
// Set bits of a sector mask. A table, because std::popcount compiles to a libgcc call on baseline x86-64,
// and the cache model counts sectors for every line it touches.
#pragma once
#include <array>
#include <cstdint>

namespace attnscope::sim {

inline constexpr std::array<std::uint8_t, 256> kPopcount8 = [] {
  std::array<std::uint8_t, 256> t{};
  for (int i = 0; i < 256; ++i) {
    int n = 0;
    for (int b = i; b != 0; b >>= 1) n += b & 1;
    t[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n);
  }
  return t;
}();

inline std::uint32_t popcount8(std::uint8_t x) {
  return kPopcount8[x];
}

}  // namespace attnscope::sim
