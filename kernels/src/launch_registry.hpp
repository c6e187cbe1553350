// SPDX-License-Identifier: Apache-2.0
// Internal (not installed): the launch parameters the kernels receive and the table of compiled tiled
// instantiations the host launcher dispatches through. Pure C++ so launchers.cpp needs no CUDA headers
// beyond the runtime API.
#pragma once

#include <cstddef>
#include <vector>

#include "attnscope/kernels/attention.hpp"
#include "attnscope/kernels/backward.hpp"

namespace attnscope::kernels::detail {

// Invariant launch state of the tiled kernel (passed by value as the kernel parameter).
// Grid = (q tiles in the window, heads, batch); the CTA's q tile is q_tile_begin + blockIdx.x.
struct TiledParams {
  const void* q;  // [B, H, Nq, d]
  const void* k;  // [B, H, Nkv, d]
  const void* v;  // [B, H, Nkv, d]
  void* o;        // [B, H, Nq, d]
  float* lse;     // [B, H, Nq]
  int heads;
  int seq_q;
  int seq_kv;
  int causal;        // 0 / 1
  float scale;       // multiplies Q K^T
  float scale_log2;  // scale * log2(e): the softmax runs in base 2
  int q_tile_begin;
  int kv_tile_begin;  // kv window [begin, end), already clipped to [0, ceil(Nkv / Bc)]
  int kv_tile_end;
  TileTiming* timeline;  // instrumented builds only: [B][H][q tiles in window][kv_tile_end - kv_tile_begin]
};

// The general-mask kernels' extra argument (sliding window, ALiBi). A separate kernel argument rather than
// fields of the Params structs: two more fields there changed ptxas's register allocation of the plain
// tiled backward kernels at d = 64 enough to spill 8-24 bytes (same code otherwise).
struct MaskParams {
  int window;                 // sliding window in keys (0: none)
  const float* alibi_slopes;  // [H] or nullptr
};

// One compiled tiled instantiation. `launch` returns a cudaError_t as int (0 = success).
struct TiledEntry {
  DType dtype;
  int head_dim;
  int br;
  int bc;
  int stages;
  int warps;  // Br / 16 (16 query rows per warp) or Br / 32 (32 rows per warp)
  bool instrumented;
  bool general_mask;       // the sliding-window / ALiBi variant (attention.hpp)
  std::size_t smem_bytes;  // sizeof(SharedStorage)
  int threads;
  int (*launch)(const TiledParams& params, const MaskParams& mask, int grid_x, int grid_y, int grid_z,
                Stream stream);
};

// Each tiled_*.cu file appends its instantiations (one function per file, so -j2 compiles them in parallel).
void append_tiled_fp16_d64(std::vector<TiledEntry>& out);
void append_tiled_fp16_d128(std::vector<TiledEntry>& out);
void append_tiled_bf16_d64(std::vector<TiledEntry>& out);
void append_tiled_bf16_d128(std::vector<TiledEntry>& out);
void append_tiled_fp16_d64_instrumented(std::vector<TiledEntry>& out);
void append_tiled_fp16_d128_instrumented(std::vector<TiledEntry>& out);
void append_tiled_general_mask(std::vector<TiledEntry>& out);

// The whole table, built once.
const std::vector<TiledEntry>& tiled_registry();

// Naive kernels' parameters. S/P [B, H, Nq, Nkv] in the input dtype.
struct NaiveParams {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  void* s;
  int heads;
  int seq_q;
  int seq_kv;
  int head_dim;
  int causal;
  float scale;
  int row_block_begin;  // first row block of the window (qk/pv: 128 rows, softmax: 8 rows)
  int col_block_begin;  // qk: first column block (128 columns); pv: first reduction step (32 columns)
  int col_block_end;    // exclusive, clipped to the total
  TileTiming* timeline;
};

// Launch one naive kernel (dtype and head_dim picked inside); returns a cudaError_t as int.
int launch_naive_qk_kernel(DType dtype, const NaiveParams& params, int grid_x, int grid_y, int grid_z,
                           Stream stream);
int launch_naive_softmax_kernel(DType dtype, const NaiveParams& params, const MaskParams& mask, int grid_x,
                                int grid_y, Stream stream);
int launch_naive_pv_kernel(DType dtype, const NaiveParams& params, int grid_x, int grid_y, Stream stream);

// ---- backward
// ---------------------------------------------------------------------------------------------- Invariant
// launch state of the three backward kernels (passed by value).
struct TiledBwdParams {
  const void* q;  // [B, H, Nq, d]
  const void* k;  // [B, H, Nkv, d]
  const void* v;
  const void* o;     // [B, H, Nq, d]
  const void* d_o;   // [B, H, Nq, d]
  const float* lse;  // [B, H, Nq]
  void* dq;          // [B, H, Nq, d]
  void* dk;          // [B, H, Nkv, d]
  void* dv;
  float* lse_log2;  // [B, H, padded_rows]
  float* delta;     // [B, H, padded_rows]
  float* dq_accum;  // [B, H, Nq, d]
  int heads;
  int seq_q;
  int seq_kv;
  int padded_rows;
  int causal;
  float scale;
  float scale_log2;
  // No timeline pointer here: the instrumented main kernel takes it as its own argument. One more field in
  // these parameters changed ptxas's allocation of the plain d 64 kernel (255 registers) into 24 bytes of
  // spills per thread, which cost 10 % of its time and put 6.3 MB of local stores into its L2 writes.
};

// One compiled backward instantiation. `launch` runs pre, main and post; returns a cudaError_t as int.
struct TiledBwdEntry {
  DType dtype;
  int head_dim;
  vocab::TiledBwdConfig config;
  bool general_mask;  // the sliding-window / ALiBi variant
  bool instrumented;  // the main kernel writes the timeline its launch is given
  std::size_t smem_bytes;
  // `parts`: bit 0 pre, bit 1 main, bit 2 post (kAllBwdParts: all three, in order).
  // `timeline` (instrumented entries only): one record per (kv tile, q tile) step of the main kernel, at
  // ((batch * heads + head) * kv tiles + kv tile) * q tiles + q tile (tiled_bwd_timeline_capacity records).
  int (*launch)(const TiledBwdParams& params, const MaskParams& mask, TileTiming* timeline, int batch,
                int parts, Stream stream);
};

// Each tiled_bwd_*.cu file appends its instantiations.
void append_tiled_bwd_fp16(std::vector<TiledBwdEntry>& out);
void append_tiled_bwd_bf16(std::vector<TiledBwdEntry>& out);
void append_tiled_bwd_general_mask(std::vector<TiledBwdEntry>& out);
void append_tiled_bwd_instrumented(std::vector<TiledBwdEntry>& out);
const std::vector<TiledBwdEntry>& tiled_bwd_registry();

// The naive backward's five launches (naive_bwd.cu); returns a cudaError_t as int.
// `parts`: bit i the i-th of the five launches (dv, dp, ds, dq, dk); kAllBwdParts: all of them, in order.
int launch_naive_backward_kernels(const AttentionShape& shape, const BackwardTensors& tensors, int parts,
                                  Stream stream);
inline constexpr int kAllBwdParts = 0x1f;

}  // namespace attnscope::kernels::detail
