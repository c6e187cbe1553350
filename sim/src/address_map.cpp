// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/address_map.hpp"

namespace attnscope::sim {

namespace {
// One float per query row: LSE and the backward's LSE*log2e and D. A slice of one is a single "row".
bool is_row_vector(int t) {
  return t == static_cast<int>(Tensor::lse) || t == static_cast<int>(Tensor::lse_log2) ||
         t == static_cast<int>(Tensor::delta);
}
}  // namespace

AddressMap::AddressMap(const Workload& w, std::int64_t padded_rows)
    : heads_(w.heads), element_bytes_(bytes_of(w.dtype)) {
  const auto slices = static_cast<std::uint64_t>(w.batch * w.heads);
  const auto nq = static_cast<std::uint64_t>(w.seq_q);
  const auto nkv = static_cast<std::uint64_t>(w.seq_kv);
  const auto d = static_cast<std::uint64_t>(w.head_dim);
  const auto p = static_cast<std::uint64_t>(padded_rows > 0 ? padded_rows : w.seq_q);
  const std::uint64_t e = element_bytes_;
  // rows per (b,h) slice, bytes per row and bytes per element, in the order the regions are laid out.
  const std::array<std::uint64_t, kTensorCount> rows = {nq, nkv, nkv, nq, 1, nq, nq,
                                                        nq, nkv, nkv, 1,  1, nq, nq};
  const std::array<std::uint64_t, kTensorCount> pitch = {
      d * e, d * e, d * e, d * e, nq * 4, nkv * e, d * e, d * e, d * e, d * e, p * 4, p * 4, d * 4, nkv * e};
  const std::array<std::uint64_t, kTensorCount> element = {e, e, e, e, 4, e, e, e, e, e, 4, 4, 4, e};
  const int regions = w.pass == Pass::fwd ? kForwardTensorCount : kTensorCount;
  std::uint64_t next = kAlignment;  // keep address 0 unused
  for (int t = 0; t < regions; ++t) {
    rows_[t] = rows[t];
    pitch_[t] = pitch[t];
    element_[t] = element[t];
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
  if (is_row_vector(i))  // the slice is a single "row" of floats, one per query row
    return base_[i] + slice * pitch_[i] + static_cast<std::uint64_t>(row) * element_[i];
  return base_[i] + (slice * rows_[i] + static_cast<std::uint64_t>(row)) * pitch_[i] +
         static_cast<std::uint64_t>(column) * element_[i];
}

}  // namespace attnscope::sim
