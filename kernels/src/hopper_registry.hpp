// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): the Hopper kernel's launch parameters and the table of its compiled
// instantiations. The parameters hold the three tensor maps of the bulk tensor copies, so this header needs
// the driver API's types (cuda.h; no driver library is linked: launch_hopper encodes the maps through the
// runtime's driver entry point).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <vector>

#include "attnscope/kernels/hopper.hpp"

namespace attnscope::kernels::detail {

// Invariant launch state, passed as one __grid_constant__ kernel parameter (the copy engine reads the
// tensor maps from parameter memory). Q, K, V and O are seen as 3-d tensors [B * H][rows][d] (d fastest), so
// that a box reaching past the last row of one head is zero-filled by the copy engine instead of reading
// the next head (and, for O, not written); boxes are [1][tile rows][64 columns] (128 bytes, the swizzle
// width).
struct HopperParams {
  CUtensorMap q_map;  // boxes of Br rows
  CUtensorMap k_map;  // boxes of Bc rows
  CUtensorMap v_map;  // boxes of Bc rows
  CUtensorMap o_map;  // boxes of 64 rows (one consumer warpgroup's), stores
  float* lse;         // [B, H, Nq]
  int seq_q;
  int seq_kv;
  int causal;        // 0 / 1
  float scale;       // multiplies Q K^T
  float scale_log2;  // scale * log2(e): the softmax runs in base 2
  // The window: q tiles q_tile_begin .. q_tile_begin + gridDim.x - 1, kv tiles [kv_tile_begin, kv_tile_end)
  // (the whole kernel: 0, 0, the kv tile count).
  int q_tile_begin;
  int kv_tile_begin;
  int kv_tile_end;
  // The launch's tiles: q tiles of the window, and batch * heads (the persistent kernel walks q_tiles * bh
  // tiles; the non-persistent one reads its tile from its CTA index).
  int q_tiles;
  int bh;
  int heads;             // H (a tile's bh = batch * H + head)
  TileTiming* timeline;  // the Instrumented build's records; unused otherwise
};

// One compiled instantiation. `launch` returns a cudaError_t as int (0 = success).
struct HopperEntry {
  DType dtype;
  int head_dim;
  HopperConfig config;
  std::size_t smem_bytes;  // sizeof(SharedStorage)
  int threads;
  bool instrumented;  // the timeline build
  int (*launch)(const HopperParams& params, int grid_x, int grid_y, int grid_z, Stream stream);
};

// Each hopper_*.cu file appends its instantiations.
void append_hopper_fp16(std::vector<HopperEntry>& out);
void append_hopper_bf16(std::vector<HopperEntry>& out);

}  // namespace attnscope::kernels::detail
