// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/result.hpp"

namespace attnscope::sim {

LevelBytes& LevelBytes::operator+=(const LevelBytes& o) {
  hbm_read += o.hbm_read;
  hbm_write += o.hbm_write;
  l2_read += o.l2_read;
  l2_write += o.l2_write;
  l2_hit += o.l2_hit;
  smem_read += o.smem_read;
  smem_write += o.smem_write;
  return *this;
}

double SimResult::hbm_bandwidth_achieved() const {
  if (time_s <= 0) return 0;
  return static_cast<double>(totals.hbm_read + totals.hbm_write) / time_s;
}

double SimResult::tflops_achieved() const {
  if (time_s <= 0) return 0;
  return workload.flops() / time_s / 1e12;
}

}  // namespace attnscope::sim
