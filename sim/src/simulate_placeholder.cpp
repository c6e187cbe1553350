// SPDX-License-Identifier: Apache-2.0
// PLACEHOLDER until the model lands (sim owner deletes this file).
#include "attnscope/sim/result.hpp"
#include "attnscope/sim/simulate.hpp"
namespace attnscope::sim {
LevelBytes& LevelBytes::operator+=(const LevelBytes& o) {
  hbm_read += o.hbm_read; hbm_write += o.hbm_write; l2_read += o.l2_read; l2_write += o.l2_write;
  l2_hit += o.l2_hit; smem_read += o.smem_read; smem_write += o.smem_write;
  return *this;
}
}
