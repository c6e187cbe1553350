// SPDX-License-Identifier: Apache-2.0
// Host launchers: validate shape, window, alignment, device and configuration, then dispatch to the
// compiled instantiation. Every refusal is a Status with a message that says what to change. Tile counts,
// grids and shared memory are the vocabulary's (attnscope/vocab/geometry.hpp), which the model reads too.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

#include "attnscope/kernels/attention.hpp"
#include "attnscope/vocab/geometry.hpp"
#include "launch_registry.hpp"

namespace attnscope::kernels {
namespace {

using detail::TiledEntry;

Status fail(StatusCode code, std::string message) {
  return Status{code, std::move(message)};
}

// Tile counts and grid dimensions fit an int: the grid limits (batch * heads <= 65535, seq <= 2^31 - 1).
int to_int(std::int64_t n) {
  return static_cast<int>(n);
}

Status check_shape(const AttentionShape& s) {
  if (s.batch < 1 || s.heads < 1 || s.seq_q < 1 || s.seq_kv < 1) {
    std::ostringstream m;
    m << "bad shape: batch, heads, seq_q and seq_kv must be >= 1 (got B=" << s.batch << " H=" << s.heads
      << " Nq=" << s.seq_q << " Nkv=" << s.seq_kv << ")";
    return fail(StatusCode::bad_shape, m.str());
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
  return {};
}

Status check_device() {
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) {
    return fail(StatusCode::unsupported_device,
                std::string("no usable CUDA device: ") + cudaGetErrorString(err));
  }
  int major = 0, minor = 0;
  err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (err != cudaSuccess)
    return fail(StatusCode::cuda_error, std::string("cudaDeviceGetAttribute: ") + cudaGetErrorString(err));
  if (major != 9 || minor != 0) {
    return fail(StatusCode::unsupported_device,
                "the kernels are built for sm_90a (Hopper, compute capability 9.0); device " +
                    std::to_string(device) + " is " + std::to_string(major) + "." + std::to_string(minor));
  }
  return {};
}

Status check_aligned(const void* p, const char* name, std::size_t alignment) {
  if (p == nullptr) return fail(StatusCode::misaligned, std::string("pointer ") + name + " is null");
  if (reinterpret_cast<std::uintptr_t>(p) % alignment != 0) {
    return fail(StatusCode::misaligned, std::string("pointer ") + name + " is not " +
                                            std::to_string(alignment) +
                                            "-byte aligned (16-byte vector loads/stores need it)");
  }
  return {};
}

// Clips [begin, end) (end = -1: all) to [0, total]; refuses negative or reversed windows.
Status clip_window(int begin, int end, int total, const char* what, int& out_begin, int& out_end) {
  if (begin < 0 || (end != -1 && end < begin)) {
    return fail(StatusCode::bad_shape, std::string("bad window: ") + what + " [" + std::to_string(begin) +
                                           ", " + std::to_string(end) + ") (begin >= 0, end >= begin or -1)");
  }
  if (begin > total) {
    return fail(StatusCode::bad_shape, std::string("bad window: ") + what + " begins at " +
                                           std::to_string(begin) + " but there are only " +
                                           std::to_string(total) + " tiles");
  }
  out_begin = begin;
  out_end = end == -1 ? total : std::min(end, total);
  return {};
}

Status cuda_status(int err, const char* what) {
  if (err == 0) return {};
  return fail(StatusCode::cuda_error,
              std::string(what) + ": " + cudaGetErrorString(static_cast<cudaError_t>(err)));
}

std::string config_name(const TiledConfig& c) {
  return "Br=" + std::to_string(c.br) + " Bc=" + std::to_string(c.bc) + " warps=" + std::to_string(c.warps) +
         " stages=" + std::to_string(c.stages);
}

const TiledEntry* find_entry(const AttentionShape& s, const TiledConfig& c, bool instrumented) {
  for (const TiledEntry& e : detail::tiled_registry()) {
    if (e.dtype == s.dtype && e.head_dim == s.head_dim && e.br == c.br && e.bc == c.bc &&
        e.stages == c.stages && e.instrumented == instrumented && c.warps == e.warps) {
      return &e;
    }
  }
  return nullptr;
}

std::string compiled_list(int head_dim, DType dtype, bool instrumented) {
  std::string list;
  for (const TiledEntry& e : detail::tiled_registry()) {
    if (e.dtype != dtype || e.head_dim != head_dim || e.instrumented != instrumented) continue;
    if (!list.empty()) list += "; ";
    list += config_name(TiledConfig{e.br, e.bc, e.warps, e.stages});
  }
  return list.empty() ? "none" : list;
}

}  // namespace

namespace detail {
const std::vector<TiledEntry>& tiled_registry() {
  static const std::vector<TiledEntry> registry = [] {
    std::vector<TiledEntry> all;
    append_tiled_fp16_d64(all);
    append_tiled_fp16_d128(all);
    append_tiled_bf16_d64(all);
    append_tiled_bf16_d128(all);
    append_tiled_fp16_d64_instrumented(all);
    append_tiled_fp16_d128_instrumented(all);
    return all;
  }();
  return registry;
}
}  // namespace detail

std::vector<TiledConfig> compiled_tiled_configs(int head_dim, DType dtype) {
  std::vector<TiledConfig> out;
  for (const TiledEntry& e : detail::tiled_registry()) {
    if (e.dtype == dtype && e.head_dim == head_dim && !e.instrumented) {
      out.push_back(TiledConfig{e.br, e.bc, e.warps, e.stages});
    }
  }
  return out;
}

bool tiled_instrumented_compiled(int head_dim, DType dtype, const TiledConfig& config) {
  AttentionShape s;
  s.head_dim = head_dim;
  s.dtype = dtype;
  return find_entry(s, config, true) != nullptr;
}

std::size_t tiled_smem_bytes(const AttentionShape& shape, const TiledConfig& config) {
  const TiledEntry* e = find_entry(shape, config, false);
  return e == nullptr ? 0 : e->smem_bytes;
}

Status launch_tiled(const AttentionShape& shape, const TiledConfig& config, const DeviceTensors& t,
                    const TileWindow& window, TileTiming* timeline, Stream stream) {
  if (Status st = check_shape(shape); !st) return st;
  const bool instrumented = timeline != nullptr;
  const TiledEntry* entry = find_entry(shape, config, instrumented);
  if (entry == nullptr) {
    return fail(StatusCode::config_not_compiled,
                std::string(instrumented ? "instrumented " : "") + "tiled configuration " +
                    config_name(config) + " is not compiled for " + dtype_name(shape.dtype) +
                    " d=" + std::to_string(shape.head_dim) +
                    "; compiled: " + compiled_list(shape.head_dim, shape.dtype, instrumented));
  }
  for (const auto& [p, name] : {std::pair{t.q, "q"}, std::pair{t.k, "k"}, std::pair{t.v, "v"},
                                std::pair<const void*, const char*>{t.o, "o"}}) {
    if (Status st = check_aligned(p, name, 16); !st) return st;
  }
  if (Status st = check_aligned(t.lse, "lse", 4); !st) return st;
  if (Status st = check_device(); !st) return st;
  int q_begin = 0, q_end = 0, kv_begin = 0, kv_end = 0;
  if (Status st = clip_window(window.q_tile_begin, window.q_tile_end,
                              to_int(vocab::tiled_q_tiles(config, shape.seq_q)), "q tiles", q_begin, q_end);
      !st) {
    return st;
  }
  if (Status st =
          clip_window(window.kv_tile_begin, window.kv_tile_end,
                      to_int(vocab::tiled_kv_tiles(config, shape.seq_kv)), "kv tiles", kv_begin, kv_end);
      !st) {
    return st;
  }
  if (q_end == q_begin) return {};  // empty window: nothing to launch
  detail::TiledParams p{t.q,
                        t.k,
                        t.v,
                        t.o,
                        t.lse,
                        shape.heads,
                        shape.seq_q,
                        shape.seq_kv,
                        shape.causal ? 1 : 0,
                        shape.scale,
                        shape.scale * 1.4426950408889634f,
                        q_begin,
                        kv_begin,
                        kv_end,
                        timeline};
  const vocab::Dim3 grid = vocab::tiled_grid(q_end - q_begin, shape.heads, shape.batch);
  return cuda_status(entry->launch(p, to_int(grid.x), to_int(grid.y), to_int(grid.z), stream),
                     "launch_tiled");
}

namespace {

Status naive_common(const AttentionShape& shape, const DeviceTensors& t, bool needs_qk, bool needs_v) {
  if (Status st = check_shape(shape); !st) return st;
  if (needs_qk) {
    if (Status st = check_aligned(t.q, "q", 16); !st) return st;
    if (Status st = check_aligned(t.k, "k", 16); !st) return st;
  }
  if (needs_v) {
    if (Status st = check_aligned(t.v, "v", 16); !st) return st;
    if (Status st = check_aligned(t.o, "o", 16); !st) return st;
  }
  if (Status st = check_aligned(t.s, "s (naive scratch)", 16); !st) return st;
  return check_device();
}

detail::NaiveParams naive_params(const AttentionShape& s, const DeviceTensors& t, int row_begin,
                                 int col_begin, int col_end, TileTiming* timeline) {
  return detail::NaiveParams{t.q,     t.k,       t.v,       t.o,        t.s,
                             s.heads, s.seq_q,   s.seq_kv,  s.head_dim, s.causal ? 1 : 0,
                             s.scale, row_begin, col_begin, col_end,    timeline};
}

}  // namespace

Status launch_naive_qk(const AttentionShape& shape, const DeviceTensors& t, const TileWindow& window,
                       TileTiming* timeline, Stream stream) {
  if (Status st = naive_common(shape, t, true, false); !st) return st;
  constexpr NaiveTiling kTiling{};
  int rb = 0, re = 0, cb = 0, ce = 0;
  if (Status st = clip_window(window.q_tile_begin, window.q_tile_end,
                              to_int(vocab::naive_qk_row_blocks(kTiling, shape.seq_q)), "row blocks", rb, re);
      !st) {
    return st;
  }
  if (Status st =
          clip_window(window.kv_tile_begin, window.kv_tile_end,
                      to_int(vocab::naive_qk_column_blocks(kTiling, shape.seq_kv)), "column blocks", cb, ce);
      !st) {
    return st;
  }
  if (re == rb || ce == cb) return {};
  const vocab::Dim3 grid =
      vocab::naive_qk_grid(kTiling, ce - cb, re - rb, std::int64_t{shape.batch} * shape.heads);
  return cuda_status(detail::launch_naive_qk_kernel(shape.dtype, naive_params(shape, t, rb, cb, ce, timeline),
                                                    to_int(grid.x), to_int(grid.y), to_int(grid.z), stream),
                     "launch_naive_qk");
}

Status launch_naive_softmax(const AttentionShape& shape, const DeviceTensors& t, const TileWindow& window,
                            TileTiming* timeline, Stream stream) {
  if (Status st = naive_common(shape, t, false, false); !st) return st;
  int rb = 0, re = 0;
  if (Status st = clip_window(window.q_tile_begin, window.q_tile_end,
                              to_int(vocab::naive_softmax_row_blocks(NaiveTiling{}, shape.seq_q)),
                              "row blocks", rb, re);
      !st) {
    return st;
  }
  if (re == rb) return {};
  const vocab::Dim3 grid = vocab::naive_softmax_grid(re - rb, std::int64_t{shape.batch} * shape.heads);
  return cuda_status(
      detail::launch_naive_softmax_kernel(shape.dtype, naive_params(shape, t, rb, 0, 0, timeline),
                                          to_int(grid.x), to_int(grid.y), stream),
      "launch_naive_softmax");
}

Status launch_naive_pv(const AttentionShape& shape, const DeviceTensors& t, const TileWindow& window,
                       TileTiming* timeline, Stream stream) {
  if (Status st = naive_common(shape, t, false, true); !st) return st;
  constexpr NaiveTiling kTiling{};
  int rb = 0, re = 0, kb = 0, ke = 0;
  if (Status st = clip_window(window.q_tile_begin, window.q_tile_end,
                              to_int(vocab::naive_pv_row_blocks(kTiling, shape.seq_q)), "row blocks", rb, re);
      !st) {
    return st;
  }
  if (Status st =
          clip_window(window.kv_tile_begin, window.kv_tile_end,
                      to_int(vocab::naive_pv_steps(kTiling, shape.seq_kv)), "reduction steps", kb, ke);
      !st) {
    return st;
  }
  if (re == rb) return {};
  const vocab::Dim3 grid = vocab::naive_pv_grid(re - rb, std::int64_t{shape.batch} * shape.heads);
  return cuda_status(detail::launch_naive_pv_kernel(shape.dtype, naive_params(shape, t, rb, kb, ke, timeline),
                                                    to_int(grid.x), to_int(grid.y), stream),
                     "launch_naive_pv");
}

std::size_t timeline_capacity(const char* kernel, const AttentionShape& s, const TiledConfig& c,
                              const TileWindow& w) {
  if (kernel == nullptr || s.batch < 1 || s.heads < 1 || s.seq_q < 1 || s.seq_kv < 1) return 0;
  const auto span = [](int begin, int end, int total) -> std::size_t {
    const int e = end == -1 ? total : std::min(end, total);
    return e > begin && begin >= 0 ? static_cast<std::size_t>(e - begin) : 0;
  };
  const std::optional<vocab::KernelId> id = vocab::parse_kernel_id(kernel);
  if (!id || (*id == vocab::KernelId::tiled && (c.br < 1 || c.bc < 1))) return 0;
  const vocab::WindowTiles all = vocab::window_tiles(*id, c, NaiveTiling{}, s.seq_q, s.seq_kv);
  const std::int64_t records = vocab::records_per_window(
      *id, static_cast<std::int64_t>(span(w.q_tile_begin, w.q_tile_end, to_int(all.q))),
      static_cast<std::int64_t>(span(w.kv_tile_begin, w.kv_tile_end, to_int(all.kv))),
      std::int64_t{s.batch} * s.heads);
  return static_cast<std::size_t>(records);
}

NaiveTiling naive_tiling() {
  return NaiveTiling{};
}

std::size_t naive_qk_smem_bytes(const AttentionShape& s) {
  return static_cast<std::size_t>(vocab::naive_qk_smem_bytes(NaiveTiling{}, s.head_dim, s.dtype));
}
std::size_t naive_pv_smem_bytes(const AttentionShape& s) {
  return static_cast<std::size_t>(vocab::naive_pv_smem_bytes(NaiveTiling{}, s.head_dim, s.dtype));
}

}  // namespace attnscope::kernels
