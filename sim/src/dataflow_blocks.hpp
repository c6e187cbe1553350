// SPDX-License-Identifier: Apache-2.0
// The rectangles the CTA programs are made of (dataflow.cpp, dataflow_backward.cpp).
#pragma once
#include <cstdint>

#include "attnscope/sim/dataflow.hpp"

namespace attnscope::sim::detail {

// A rectangle of `rows` rows starting at `address`; rows that touch end to end become one long row, which
// the cache model walks faster.
inline BlockAccess block(Tensor t, std::uint64_t address, std::int64_t rows, std::int64_t row_bytes,
                         std::uint64_t pitch) {
  BlockAccess a;
  a.tensor = t;
  a.address = address;
  a.pitch = pitch;
  if (static_cast<std::uint64_t>(row_bytes) == pitch && rows * row_bytes < (std::int64_t{1} << 31)) {
    a.rows = 1;
    a.row_bytes = static_cast<std::uint32_t>(rows * row_bytes);
  } else {
    a.rows = static_cast<std::uint32_t>(rows);
    a.row_bytes = static_cast<std::uint32_t>(row_bytes);
  }
  return a;
}

}  // namespace attnscope::sim::detail
