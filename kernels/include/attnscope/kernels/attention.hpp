// SPDX-License-Identifier: Apache-2.0
// Host API of the real attention kernels (naive three-launch and FlashAttention-2-style tiled forward).
//
// Pure C++: including this needs no CUDA headers. Pointers are device pointers; `Stream` holds a
// cudaStream_t (nullptr = the legacy default stream). Every launch is asynchronous and returns a Status
// saying why it refused to launch (bad shape, misaligned pointer, wrong device, configuration not compiled,
// CUDA error at launch). The exact dataflow of each kernel (which tiles are loaded, when, and what is
// written) is documented in docs/dataflow.md and mirrored by the model in sim/; the geometry (grids, CTA
// sizes, shared memory, tile counts) is written once in attnscope/vocab/geometry.hpp, which both read.
//
// Tensors, row-major, contiguous:
//   Q [B, H, Nq, d], K and V [B, H, Nkv, d], O [B, H, Nq, d]   input dtype (fp16 / bf16)
//   LSE [B, H, Nq]                                               float32, natural log of sum exp(scaled
//   score) S (naive scratch, holds S then P in place) [B, H, Nq, Nkv]   input dtype
// Causal masking is bottom-right aligned: query row i sees key j iff j <= i + Nkv - Nq; a row that sees no
// key gets O = 0 and LSE = -inf. A sliding window (causal, `window` > 0) also hides keys j <= i + Nkv - Nq -
// window: each row sees itself and the window - 1 keys before it. ALiBi adds -slope[h] * |i + Nkv - Nq - j|
// to the scaled score (slopes fp32 [H] on the device, e.g. alibi_slopes(H)); it combines with any mask.
// Sliding window and ALiBi run a general-mask variant of the tiled kernels compiled for one tile per head
// dim (vocab::general_mask_tiled_config, the backward's default tile), and a two-pass naive softmax; they
// have no timeline build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnscope/vocab/dtype.hpp"
#include "attnscope/vocab/tile_config.hpp"

namespace attnscope::kernels {

using Stream = void*;  // a cudaStream_t

using vocab::DType;  // fp16 and bf16 are compiled; fp32 is refused with config_not_compiled

struct AttentionShape {
  int batch = 1;
  int heads = 1;
  int seq_q = 1;      // Nq
  int seq_kv = 1;     // Nkv
  int head_dim = 64;  // d
  DType dtype = DType::fp16;
  bool causal = false;
  float scale = 0.125f;  // multiplies Q K^T; usually 1/sqrt(d)
  int window = 0;        // sliding window in keys (requires causal); 0: none
  bool alibi = false;    // ALiBi bias; DeviceTensors::alibi_slopes must then be set

  bool general_mask() const { return window > 0 || alibi; }
};

// Tiled (FlashAttention-2) CTA tile: Br query rows, Bc key/value rows per kv step, `warps` warps, `stages`
// deep cp.async K/V ring (attnscope/vocab/tile_config.hpp). `warps` is br / 16 (each warp owns 16 query
// rows) or, for the configurations compiled that way, br / 32 (32 rows per warp: half the shared-memory
// reads of K and V per FLOP); compiled_tiled_configs() lists what exists. The default is the fastest
// measured on the H200 (docs/kernel-notes.md).
using vocab::TiledConfig;

// The naive kernels' tiling is fixed; the model reads the same struct (attnscope/vocab/tile_config.hpp):
// 128x128 output tiles for S = Q K^T, reduction steps of 32, 8 warps; softmax one warp per row, 8 rows per
// CTA. naive.pv: a 2-stage cp.async ring (P and V slices), P copies with a 256-byte L2 prefetch hint.
// naive.qk: one CTA computes qk_tiles_per_cta consecutive S tiles of one row block; its Q row block
// [128 x d] is loaded once, K slices [128 x 32] stream through a qk_stages-slot ring across the CTA's tiles,
// each S tile is staged in its own shared buffer.
using vocab::NaiveTiling;

// A window of tiles, in the kernel's own tile units (docs/dataflow.md); end = -1 means "to the end".
// Tiled: q tiles of Br rows, kv tiles of Bc rows. naive.qk: row block (128) / column block (128) of S.
// naive.softmax: row blocks of 8 rows (kv window ignored). naive.pv: row block (128) / reduction steps (32).
struct TileWindow {
  int q_tile_begin = 0;
  int q_tile_end = -1;
  int kv_tile_begin = 0;
  int kv_tile_end = -1;
};

struct DeviceTensors {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;
  void* s = nullptr;  // naive scratch [B, H, Nq, Nkv] in the input dtype (S, then P in place)
  const float* alibi_slopes = nullptr;  // [H] fp32, when shape.alibi
};

// One record of the instrumented kernels' timeline: %globaltimer (ns) at the start and end of the record's
// work on SM `sm` (%smid).
struct TileTiming {
  std::uint32_t batch = 0;
  std::uint32_t head = 0;
  std::uint32_t q_tile = 0;
  std::uint32_t kv_tile = 0;
  std::uint32_t sm = 0;
  std::uint64_t start_ns = 0;
  std::uint64_t end_ns = 0;
};

enum class StatusCode { ok, bad_shape, misaligned, unsupported_device, config_not_compiled, cuda_error };

struct Status {
  StatusCode code = StatusCode::ok;
  std::string message;
  explicit operator bool() const { return code == StatusCode::ok; }
};

// Launches (asynchronous on `stream`). `timeline` may be null; when non-null the instrumented build of the
// kernel writes one TileTiming per record (docs/dataflow.md) into it; its capacity (in records) must be
// >= timeline_capacity(...). Records the launch does not produce (e.g. causal kv steps past the diagonal)
// are left untouched.
Status launch_tiled(const AttentionShape& shape, const TiledConfig& config, const DeviceTensors& tensors,
                    const TileWindow& window, TileTiming* timeline, Stream stream);
Status launch_naive_qk(const AttentionShape& shape, const DeviceTensors& tensors, const TileWindow& window,
                       TileTiming* timeline, Stream stream);
Status launch_naive_softmax(const AttentionShape& shape, const DeviceTensors& tensors,
                            const TileWindow& window, TileTiming* timeline, Stream stream);
Status launch_naive_pv(const AttentionShape& shape, const DeviceTensors& tensors, const TileWindow& window,
                       TileTiming* timeline, Stream stream);

// Records an instrumented launch of `kernel` ("tiled", "naive.qk", "naive.softmax", "naive.pv") may write
// (upper bound; the window is clipped to the grid). 0 for an unknown kernel name.
std::size_t timeline_capacity(const char* kernel, const AttentionShape& shape, const TiledConfig& config,
                              const TileWindow& window);

// The tiled configurations compiled in for (head_dim, dtype): exactly what launch_tiled accepts.
std::vector<TiledConfig> compiled_tiled_configs(int head_dim, DType dtype);
// Whether launch_tiled with a non-null timeline accepts this configuration (instrumented subset).
bool tiled_instrumented_compiled(int head_dim, DType dtype, const TiledConfig& config);

NaiveTiling naive_tiling();

// The ALiBi paper's head slopes: for H a power of two, 2^(-8 h / H) for h = 1..H; otherwise those of the
// largest power of two n below H, then every other slope of 2n (the reference implementation's rule).
std::vector<float> alibi_slopes(int heads);

// sizeof(SharedStorage) of that instantiation in bytes, = vocab::tiled_smem_bytes = (Br + 2*stages*Bc) * d *
// sizeof(dtype); 0 if the configuration is not compiled.
std::size_t tiled_smem_bytes(const AttentionShape& shape, const TiledConfig& config);

// Dynamic shared memory of the naive GEMM kernels (bytes; vocab::naive_qk_smem_bytes, naive_pv_smem_bytes):
// qk = (128*d + 4*128*32 + 128*128)*sizeof(dtype) (Q row block, K ring, S staging), pv = 2*(128*32 +
// 32*d)*sizeof(dtype). Softmax: vocab::naive_softmax_smem_bytes (docs/dataflow.md).
std::size_t naive_qk_smem_bytes(const AttentionShape& shape);
std::size_t naive_pv_smem_bytes(const AttentionShape& shape);

// Bytes per element of a dtype.
std::size_t dtype_size(DType dtype);
const char* dtype_name(DType dtype);

}  // namespace attnscope::kernels
