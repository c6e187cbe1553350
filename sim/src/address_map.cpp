// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/address_map.hpp"

namespace attnscope::sim {

AddressMap::AddressMap(const Workload& w) : heads_(w.heads), element_bytes_(bytes_of(w.dtype)) {
  const auto slices = static_cast<std::uint64_t>(w.batch * w.heads);
  const auto nq = static_cast<std::uint64_t>(w.seq_q);
  const auto nkv = static_cast<std::uint64_t>(w.seq_kv);
  const auto d = static_cast<std::uint64_t>(w.head_dim);
  const std::uint64_t e = element_bytes_;
  // rows per (b,h) slice and bytes per row, in the order the regions are laid out.
  const std::array<std::uint64_t, kTensorCount> rows = {nq, nkv, nkv, nq, 1, nq};
  const std::array<std::uint64_t, kTensorCount> pitch = {d * e, d * e, d * e, d * e, nq * 4, nkv * e};
  std::uint64_t next = kAlignment;  // keep address 0 unused
  for (int t = 0; t < kTensorCount; ++t) {
    rows_[t] = rows[t];
    pitch_[t] = pitch[t];
    bytes_[t] = slices * rows[t] * pitch[t];
    base_[t] = next;
    next += (bytes_[t] + kAlignment - 1) / kAlignment * kAlignment;
  }
  end_ = next;
}

std::uint64_t AddressMap::address(Tensor t, std::int64_t batch, std::int64_t head, std::int64_t row,
                                  std::int64_t column) const {
  const int i = static_cast<int>(t);
  const auto slice = static_cast<std::uint64_t>(batch * heads_ + head);
  const std::uint64_t col_bytes = t == Tensor::lse ? 4u : element_bytes_;
  if (t == Tensor::lse)  // one float per query row: the slice is a single "row" of Nq floats
    return base_[i] + slice * pitch_[i] + static_cast<std::uint64_t>(row) * col_bytes;
  return base_[i] + (slice * rows_[i] + static_cast<std::uint64_t>(row)) * pitch_[i] +
         static_cast<std::uint64_t>(column) * col_bytes;
}

}  // namespace attnscope::sim
