// SPDX-License-Identifier: Apache-2.0
// Host launcher of the Hopper attention kernel: validates shape, configuration, pointers, window and device,
// encodes the four tensor maps of the bulk tensor copies (Q, K, V loads, O stores) and dispatches to the
// compiled instantiation (the timeline build when a timeline is given). The maps
// are encoded with cuTensorMapEncodeTiled, reached through the runtime's driver entry point so that the
// library needs no link against the driver library.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "attnscope/kernels/hopper.hpp"
#include "attnscope/vocab/geometry.hpp"
#include "hopper_registry.hpp"
#include "launch_checks.hpp"

namespace attnscope::kernels {
namespace {

using detail::check_device;
using detail::clip_window;
using detail::fail;

using detail::HopperEntry;

const std::vector<HopperEntry>& registry() {
  static const std::vector<HopperEntry> all = [] {
    std::vector<HopperEntry> out;
    detail::append_hopper_fp16(out);
    detail::append_hopper_bf16(out);
    return out;
  }();
  return all;
}

bool same(const HopperConfig& a, const HopperConfig& b) {
  return a.br == b.br && a.bc == b.bc && a.consumers == b.consumers && a.stages == b.stages &&
         a.overlap == b.overlap && a.pingpong == b.pingpong && a.persistent == b.persistent;
}

const HopperEntry* find_entry(const AttentionShape& s, const HopperConfig& c, bool instrumented) {
  for (const HopperEntry& e : registry()) {
    if (e.dtype == s.dtype && e.head_dim == s.head_dim && same(e.config, c) && e.instrumented == instrumented)
      return &e;
  }
  return nullptr;
}

std::string config_name(const HopperConfig& c) {
  return "Br=" + std::to_string(c.br) + " Bc=" + std::to_string(c.bc) +
         " consumers=" + std::to_string(c.consumers) + " stages=" + std::to_string(c.stages) +
         (c.overlap ? " overlap" : " serial") + (c.pingpong ? " pingpong" : "") +
         (c.persistent ? " persistent" : "");
}

Status check_shape(const AttentionShape& s) {
  if (s.batch < 1 || s.heads < 1 || s.seq_q < 1 || s.seq_kv < 1) {
    return fail(StatusCode::bad_shape,
                "bad shape: batch, heads, seq_q and seq_kv must be >= 1 (got B=" + std::to_string(s.batch) +
                    " H=" + std::to_string(s.heads) + " Nq=" + std::to_string(s.seq_q) +
                    " Nkv=" + std::to_string(s.seq_kv) + ")");
  }
  if (!vocab::is_compiled_head_dim(s.head_dim)) {
    return fail(StatusCode::bad_shape, "bad shape: head_dim " + std::to_string(s.head_dim) +
                                           " is not supported (supported: 64, 128)");
  }
  if (!vocab::is_compiled_dtype(s.dtype)) {
    return fail(StatusCode::config_not_compiled,
                "dtype fp32 is not compiled in: the kernels take fp16 or bf16 inputs (fp32 accumulation)");
  }
  if (!std::isfinite(s.scale)) return fail(StatusCode::bad_shape, "bad shape: scale must be finite");
  if (s.batch > 65535 || s.heads > 65535 || static_cast<long long>(s.batch) * s.heads > 65535) {
    return fail(StatusCode::bad_shape, "bad shape: batch * heads must be <= 65535 (grid dimension limit)");
  }
  if (s.general_mask()) {
    return fail(StatusCode::config_not_compiled,
                "the Hopper kernel has no sliding window or ALiBi (use launch_tiled for those)");
  }
  return {};
}

Status check_aligned(const void* p, const char* name, std::size_t alignment) {
  return detail::check_aligned(p, name, alignment, "the bulk tensor copies and the stores");
}

// cuTensorMapEncodeTiled's signature (CUDA 12.0 and later), declared here so that nothing depends on the
// typedef header's versioned names.
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*,
                                 CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                 CUtensorMapFloatOOBfill);

EncodeTiled encode_tiled() {
  static const EncodeTiled fn = []() -> EncodeTiled {
    void* ptr = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      return nullptr;
    }
    return reinterpret_cast<EncodeTiled>(ptr);
  }();
  return fn;
}

// [B * H][rows][d] (d fastest) in boxes of [1][box_rows][64]: 128-byte box rows, the 128-byte swizzle (for
// the loads and for the O stores alike).
// Strides in bytes, of dims 1 and 2: d * 2 and rows * d * 2 (multiples of 16 for d = 64 and 128).
Status encode_map(CUtensorMap* map, const AttentionShape& s, const void* base, int rows, int box_rows,
                  const char* name) {
  const EncodeTiled encode = encode_tiled();
  if (encode == nullptr) {
    return fail(StatusCode::unsupported_device,
                "the driver has no cuTensorMapEncodeTiled (needs a CUDA 12 driver or later)");
  }
  const std::uint64_t elem = dtype_size(s.dtype);
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(s.head_dim), static_cast<cuuint64_t>(rows),
                              static_cast<cuuint64_t>(s.batch) * static_cast<cuuint64_t>(s.heads)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(s.head_dim) * elem,
                                 static_cast<cuuint64_t>(rows) * static_cast<cuuint64_t>(s.head_dim) * elem};
  const cuuint32_t box[3] = {64, static_cast<cuuint32_t>(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r = encode(
      map, s.dtype == DType::bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3,
      const_cast<void*>(base), dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    return fail(StatusCode::cuda_error, std::string("cuTensorMapEncodeTiled for ") + name +
                                            " failed (CUresult " + std::to_string(r) + ")");
  }
  return {};
}

}  // namespace

std::vector<HopperConfig> compiled_hopper_configs(int head_dim, DType dtype) {
  std::vector<HopperConfig> out;
  for (const HopperEntry& e : registry())
    if (e.dtype == dtype && e.head_dim == head_dim && !e.instrumented) out.push_back(e.config);
  return out;
}

bool hopper_instrumented_compiled(int head_dim, DType dtype, const HopperConfig& config) {
  AttentionShape s;
  s.head_dim = head_dim;
  s.dtype = dtype;
  return find_entry(s, config, true) != nullptr;
}

std::size_t hopper_timeline_capacity(const AttentionShape& s, const HopperConfig& c, const TileWindow& w) {
  if (s.batch < 1 || s.heads < 1 || s.seq_q < 1 || s.seq_kv < 1 || c.br < 1 || c.bc < 1) return 0;
  int q_begin = 0, q_end = 0, kv_begin = 0, kv_end = 0;
  if (!clip_window(w.q_tile_begin, w.q_tile_end, static_cast<int>(vocab::hopper_q_tiles(c, s.seq_q)),
                   "q tiles", q_begin, q_end) ||
      !clip_window(w.kv_tile_begin, w.kv_tile_end, static_cast<int>(vocab::hopper_kv_tiles(c, s.seq_kv)),
                   "kv tiles", kv_begin, kv_end)) {
    return 0;
  }
  return static_cast<std::size_t>(vocab::records_per_window(
      vocab::KernelId::hopper, q_end - q_begin, kv_end - kv_begin, std::int64_t{s.batch} * s.heads));
}

HopperConfig default_hopper_config(int head_dim, bool causal) {
  return vocab::default_hopper_config(head_dim, causal);
}

std::size_t hopper_smem_bytes(const AttentionShape& shape, const HopperConfig& config) {
  const HopperEntry* e = find_entry(shape, config, false);
  return e == nullptr ? 0 : e->smem_bytes;
}

Status launch_hopper(const AttentionShape& shape, const HopperConfig& config, const DeviceTensors& t,
                     Stream stream) {
  return launch_hopper(shape, config, t, TileWindow{}, nullptr, stream);
}

Status launch_hopper(const AttentionShape& shape, const HopperConfig& config, const DeviceTensors& t,
                     const TileWindow& window, TileTiming* timeline, Stream stream) {
  if (Status st = check_shape(shape); !st) return st;
  const bool instrumented = timeline != nullptr;
  const HopperEntry* entry = find_entry(shape, config, instrumented);
  if (entry == nullptr && instrumented && find_entry(shape, config, false) != nullptr) {
    return fail(
        StatusCode::config_not_compiled,
        "the Hopper kernel's timeline build is compiled for the default tiles of each head dim only (" +
            config_name(vocab::default_hopper_config(shape.head_dim, shape.causal)) +
            " at d=" + std::to_string(shape.head_dim) + (shape.causal ? " causal" : "") +
            "); asked: " + config_name(config));
  }
  if (entry == nullptr) {
    std::string list;
    for (const HopperConfig& c : compiled_hopper_configs(shape.head_dim, shape.dtype))
      list += (list.empty() ? "" : "; ") + config_name(c);
    return fail(StatusCode::config_not_compiled, "Hopper configuration " + config_name(config) +
                                                     " is not compiled for " + dtype_name(shape.dtype) +
                                                     " d=" + std::to_string(shape.head_dim) +
                                                     "; compiled: " + (list.empty() ? "none" : list));
  }
  for (const auto& [p, name] : {std::pair{t.q, "q"}, std::pair{t.k, "k"}, std::pair{t.v, "v"},
                                std::pair<const void*, const char*>{t.o, "o"}}) {
    if (Status st = check_aligned(p, name, 16); !st) return st;
  }
  if (Status st = check_aligned(t.lse, "lse", 4); !st) return st;
  if (Status st = check_device(); !st) return st;
  int q_begin = 0, q_end = 0, kv_begin = 0, kv_end = 0;
  if (Status st = clip_window(window.q_tile_begin, window.q_tile_end,
                              static_cast<int>(vocab::hopper_q_tiles(config, shape.seq_q)), "q tiles",
                              q_begin, q_end);
      !st) {
    return st;
  }
  if (Status st = clip_window(window.kv_tile_begin, window.kv_tile_end,
                              static_cast<int>(vocab::hopper_kv_tiles(config, shape.seq_kv)), "kv tiles",
                              kv_begin, kv_end);
      !st) {
    return st;
  }
  if (q_end == q_begin) return {};  // empty window: nothing to launch
  detail::HopperParams p{};
  if (Status st = encode_map(&p.q_map, shape, t.q, shape.seq_q, config.br, "q"); !st) return st;
  if (Status st = encode_map(&p.k_map, shape, t.k, shape.seq_kv, config.bc, "k"); !st) return st;
  if (Status st = encode_map(&p.v_map, shape, t.v, shape.seq_kv, config.bc, "v"); !st) return st;
  if (Status st = encode_map(&p.o_map, shape, t.o, shape.seq_q, vocab::kWgmmaRows, "o"); !st) return st;
  p.q_tile_begin = q_begin;
  p.kv_tile_begin = kv_begin;
  p.kv_tile_end = kv_end;
  p.timeline = timeline;
  p.lse = t.lse;
  p.seq_q = shape.seq_q;
  p.seq_kv = shape.seq_kv;
  p.causal = shape.causal ? 1 : 0;
  p.scale = shape.scale;
  p.scale_log2 = shape.scale * 1.4426950408889634f;
  p.q_tiles = q_end - q_begin;
  p.bh = shape.batch * shape.heads;
  p.heads = shape.heads;
  int err = 0;
  if (config.persistent) {
    int device = 0, sms = 0;
    if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess)
      return fail(StatusCode::cuda_error, std::string("cudaGetDevice: ") + cudaGetErrorString(e));
    if (const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
        e != cudaSuccess) {
      return fail(StatusCode::cuda_error,
                  std::string("cudaDeviceGetAttribute(multiprocessor count): ") + cudaGetErrorString(e));
    }
    const std::int64_t tiles = std::int64_t{p.q_tiles} * p.bh;
    if (tiles > std::numeric_limits<int>::max()) {
      return fail(StatusCode::bad_shape, "bad shape: " + std::to_string(tiles) +
                                             " tiles (q tiles x batch x heads) exceed what the persistent "
                                             "kernel counts (2^31 - 1)");
    }
    err = entry->launch(p, static_cast<int>(vocab::hopper_persistent_ctas(tiles, sms)), 1, 1, stream);
  } else {
    err = entry->launch(p, q_end - q_begin, shape.heads, shape.batch, stream);
  }
  if (err != 0) {
    return fail(StatusCode::cuda_error,
                std::string("launch_hopper: ") + cudaGetErrorString(static_cast<cudaError_t>(err)));
  }
  return {};
}

}  // namespace attnscope::kernels
