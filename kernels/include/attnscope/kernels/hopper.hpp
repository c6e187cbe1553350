// SPDX-License-Identifier: Apache-2.0
// Host API of the Hopper-native tiled attention forward (FlashAttention-3 style, sm_90a): Q, K and V tiles
// arrive by bulk tensor copies (TMA) completing on mbarriers, S = Q K^T and O += P V run on wgmma with the
// operands in 128-byte-swizzled shared memory (P from registers), a producer warpgroup feeds a K/V ring and
// one to three consumer warpgroups of 64 query rows each run the online softmax. docs/hopper-kernel.md
// describes it and its measurements.
//
// Same tensors, masks and conventions as launch_tiled (attention.hpp): Q [B, H, Nq, d], K and V [B, H, Nkv,
// d], O [B, H, Nq, d] in fp16 or bf16, LSE [B, H, Nq] fp32 (natural log); causal masking bottom-right
// aligned, a row that sees no key gets O = 0 and LSE = -inf. No sliding window or ALiBi. Tile windows
// (TileWindow: q tiles of Br rows, kv tiles of Bc keys) and a timeline build (one TileTiming per kv step, the
// default tile of each head dim only) as for launch_tiled. Pure C++: including this needs no CUDA headers.
#pragma once

#include <cstddef>
#include <vector>

#include "attnscope/kernels/attention.hpp"
#include "attnscope/vocab/tile_config.hpp"

namespace attnscope::kernels {

// Br query rows (64 per consumer warpgroup), Bc keys per kv step, consumer warpgroups, K/V ring depth
// (attnscope/vocab/tile_config.hpp; geometry in attnscope/vocab/geometry.hpp, hopper_*).
using vocab::HopperConfig;

// The configurations compiled in for (head_dim, dtype): exactly what launch_hopper accepts.
std::vector<HopperConfig> compiled_hopper_configs(int head_dim, DType dtype);

// The configuration launch_hopper is benchmarked with by default for a head dim and mask
// (vocab::default_hopper_config; docs/hopper-kernel.md).
HopperConfig default_hopper_config(int head_dim, bool causal);

// sizeof(SharedStorage) of that instantiation in bytes (= vocab::hopper_smem_bytes); 0 if not compiled.
std::size_t hopper_smem_bytes(const AttentionShape& shape, const HopperConfig& config);

// Launches the kernel asynchronously on `stream`. Refuses (Status) a bad shape, a sliding window or ALiBi
// (not compiled), a configuration not compiled, pointers that are null or not 16-byte aligned (the copy
// engine needs 16-byte aligned tensors; LSE 4-byte), a device that is not compute capability 9.0, and a
// driver without the tensor-map entry point.
Status launch_hopper(const AttentionShape& shape, const HopperConfig& config, const DeviceTensors& tensors,
                     Stream stream);
// The same over a window of tiles; with a non-null `timeline` (capacity >= hopper_timeline_capacity records)
// the instrumented build writes one TileTiming per kv step of every CTA (the last one ends once the CTA's O
// is stored; a CTA with no visible kv tile in the window writes one at the window's first kv tile). Records
// the launch does not produce (causal kv steps past the diagonal) are left untouched. Also refuses a window
// that begins past the grid and a timeline for a configuration without the instrumented build.
Status launch_hopper(const AttentionShape& shape, const HopperConfig& config, const DeviceTensors& tensors,
                     const TileWindow& window, TileTiming* timeline, Stream stream);

// Whether launch_hopper with a non-null timeline accepts this configuration.
bool hopper_instrumented_compiled(int head_dim, DType dtype, const HopperConfig& config);
// Records an instrumented launch over `window` may write (the window clipped to the grid); 0 for a bad shape.
std::size_t hopper_timeline_capacity(const AttentionShape& shape, const HopperConfig& config,
                                     const TileWindow& window);

}  // namespace attnscope::kernels
