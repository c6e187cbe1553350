// SPDX-License-Identifier: Apache-2.0
// A window of tiles: the kernels launch only the CTAs (and run only the kv steps) inside it, and the model
// predicts the same window. Same fields and meaning as kernels::TileWindow (see the dataflow contract):
// tiled: q-tile = Br query rows, kv-tile = Bc key rows; naive.qk: row block / column block of S;
// naive.softmax: row block of 8 rows (kv window ignored); naive.pv: row block / reduction steps of 32
// columns.
#pragma once

namespace attnscope::sim {

struct TileWindow {
  int q_tile_begin = 0;
  int q_tile_end = -1;  // exclusive; -1 = all
  int kv_tile_begin = 0;
  int kv_tile_end = -1;  // exclusive; -1 = all

  bool is_all() const { return q_tile_begin == 0 && q_tile_end < 0 && kv_tile_begin == 0 && kv_tile_end < 0; }
};

}  // namespace attnscope::sim
