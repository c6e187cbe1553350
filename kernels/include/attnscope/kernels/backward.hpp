// SPDX-License-Identifier: Apache-2.0
// Host API of the backward pass: gradients dQ, dK, dV of O = softmax(scale * Q K^T) V given dO.
//
// Two implementations, as for the forward pass (attnscope/vocab/backward.hpp has the geometry, written once;
// docs/dataflow.md the dataflow):
//  - tiled (FlashAttention-2 style, recomputation): needs Q, K, V, O, LSE of the tiled forward and dO; P is
//    recomputed per tile from LSE, nothing of size N x N reaches HBM. Three launches (pre, main, post) and
//    a fp32 workspace of tiled_bwd_workspace_bytes();
//  - naive (standard attention): needs P as the naive forward left it in its scratch S [B, H, Nq, Nkv] and a
//    second [B, H, Nq, Nkv] buffer for dP (then dS in place). Five launches.
// Same tensor layouts and causal convention as attention.hpp. Every launch is asynchronous and returns a
// Status saying why it refused (bad shape, misaligned pointer, wrong device, configuration not compiled).
#pragma once

#include <cstddef>
#include <vector>

#include "attnscope/kernels/attention.hpp"
#include "attnscope/vocab/backward.hpp"

namespace attnscope::kernels {

using vocab::NaiveBwdTiling;
using vocab::TiledBwdConfig;

struct BackwardTensors {
  // Inputs (from the forward pass and the loss).
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* o = nullptr;
  const float* lse = nullptr;  // tiled: [B, H, Nq] as the tiled forward wrote it
  const void* d_o = nullptr;   // dO [B, H, Nq, d]
  const void* p = nullptr;     // naive: P [B, H, Nq, Nkv] (the naive forward's scratch after softmax)
  // Outputs, input dtype.
  void* dq = nullptr;  // [B, H, Nq, d]
  void* dk = nullptr;  // [B, H, Nkv, d]
  void* dv = nullptr;  // [B, H, Nkv, d]
  // Scratch.
  void* workspace = nullptr;            // tiled: tiled_bwd_workspace_bytes(), 16-byte aligned
  void* ds = nullptr;                   // naive: dP then dS [B, H, Nq, Nkv], input dtype
  const float* alibi_slopes = nullptr;  // tiled, when shape.alibi: [H] fp32 (the naive backward reads P)
};

Status launch_tiled_backward(const AttentionShape& shape, const TiledBwdConfig& config,
                             const BackwardTensors& tensors, Stream stream);
Status launch_naive_backward(const AttentionShape& shape, const BackwardTensors& tensors, Stream stream);

// One launch of a backward pass, for a profiler that measures each kernel on its own: `kernel` is one of the
// backward KernelIds (tiled_bwd.pre, tiled_bwd, tiled_bwd.post with the tiled `config`; naive_bwd.dv, .dp,
// .ds, .dq, .dk, config ignored). Run in that order they do what launch_tiled_backward or
// launch_naive_backward does. A forward KernelId is refused (bad_shape). With a `timeline` (device memory of
// tiled_bwd_timeline_capacity records) tiled_bwd runs its instrumented build, which writes one TileTiming
// per step: (batch, head, q tile, kv tile = the CTA's), %globaltimer at the step's start and end, at index
// ((batch * H + head) * kv tiles + kv tile) * q tiles + q tile; records of q tiles a kv tile does not visit
// (causal) are left untouched. Only tiled_bwd has that build (config_not_compiled otherwise).
Status launch_backward_kernel(vocab::KernelId kernel, const AttentionShape& shape,
                              const TiledBwdConfig& config, const BackwardTensors& tensors, Stream stream,
                              TileTiming* timeline = nullptr);
// Records the instrumented tiled_bwd may write: B x H x kv tiles x q tiles.
std::size_t tiled_bwd_timeline_capacity(const AttentionShape& shape, const TiledBwdConfig& config);
// Whether tiled_bwd has an instrumented build for (head_dim, dtype, config) (fp16, the default tiles).
bool tiled_bwd_instrumented_compiled(int head_dim, DType dtype, const TiledBwdConfig& config);

// HBM the naive attention holds at this shape for a training step (forward + backward): Q, K, V, O, dO,
// dQ, dK, dV, LSE and its two [B, H, Nq, Nkv] matrices (P, then dP / dS: vocab::naive_bwd_scratch_bytes).
std::size_t naive_training_hbm_bytes(const AttentionShape& shape);
// Refuses (bad_shape) a shape whose naive training step does not fit in the device's free memory, saying
// how much it would need, of which the N x N matrices, and how much is free; unsupported_device without a
// device.
Status check_naive_memory(const AttentionShape& shape);

// Bytes of the tiled backward's fp32 workspace for this shape (vocab::tiled_bwd_workspace).
std::size_t tiled_bwd_workspace_bytes(const AttentionShape& shape, const TiledBwdConfig& config);

// The tiled backward configurations compiled in for (head_dim, dtype).
std::vector<TiledBwdConfig> compiled_tiled_bwd_configs(int head_dim, DType dtype);
// The default configuration for (head_dim, dtype): the fastest measured on the H200 (docs/kernel-notes.md).
TiledBwdConfig default_tiled_bwd_config(int head_dim);

}  // namespace attnscope::kernels
