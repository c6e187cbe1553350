// SPDX-License-Identifier: Apache-2.0
// Host launchers: validate shape, window, alignment, device and configuration, then dispatch to the
// compiled instantiation. Every refusal is a Status with a message that says what to change. Tile counts,
// grids and shared memory are the vocabulary's (attnscope/vocab/geometry.hpp), which the model reads too.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include "attnscope/kernels/attention.hpp"
#include "attnscope/vocab/geometry.hpp"
#include "launch_checks.hpp"
#include "launch_registry.hpp"

namespace attnscope::kernels {
namespace {

using detail::check_device;
using detail::clip_window;
using detail::fail;

using detail::TiledEntry;

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
  if (s.window < 0)
    return fail(StatusCode::bad_shape, "bad shape: window must be >= 0 (0: no sliding window)");
  if (s.window > 0 && !s.causal) {
    return fail(
        StatusCode::bad_shape,
        "bad shape: a sliding window is causal (each row sees the window keys ending at its diagonal); "
        "set causal");
  }
  return {};
}

Status check_aligned(const void* p, const char* name, std::size_t alignment) {
  return detail::check_aligned(p, name, alignment, "16-byte vector loads/stores");
}

// Clips [begin, end) (end = -1: all) to [0, total]; refuses negative or reversed windows.
// ALiBi needs its slopes; only the general-mask kernels read them.
Status check_alibi(const AttentionShape& s, const float* slopes) {
  if (s.alibi && slopes == nullptr)
    return fail(StatusCode::bad_shape, "bad shape: ALiBi needs alibi_slopes, fp32 [H] on the device");
  if (!s.alibi && slopes != nullptr)
    return fail(StatusCode::bad_shape, "bad shape: alibi_slopes given but the shape has alibi = false");
  return s.alibi ? check_aligned(slopes, "alibi_slopes", 4) : Status{};
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

// The shape that selects a plain (no sliding window, no ALiBi) instantiation of (head_dim, dtype).
AttentionShape plain_shape(int head_dim, DType dtype) {
  AttentionShape s;
  s.head_dim = head_dim;
  s.dtype = dtype;
  return s;
}

const TiledEntry* find_entry(const AttentionShape& s, const TiledConfig& c, bool instrumented) {
  for (const TiledEntry& e : detail::tiled_registry()) {
    if (e.dtype == s.dtype && e.head_dim == s.head_dim && e.br == c.br && e.bc == c.bc &&
        e.stages == c.stages && e.instrumented == instrumented && c.warps == e.warps &&
        e.general_mask == s.general_mask()) {
      return &e;
    }
  }
  return nullptr;
}

std::string compiled_list(int head_dim, DType dtype, bool instrumented) {
  std::string list;
  for (const TiledEntry& e : detail::tiled_registry()) {
    if (e.dtype != dtype || e.head_dim != head_dim || e.instrumented != instrumented || e.general_mask)
      continue;
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
    append_tiled_general_mask(all);
    return all;
  }();
  return registry;
}
}  // namespace detail

std::vector<TiledConfig> compiled_tiled_configs(int head_dim, DType dtype) {
  std::vector<TiledConfig> out;
  for (const TiledEntry& e : detail::tiled_registry()) {
    if (e.dtype == dtype && e.head_dim == head_dim && !e.instrumented && !e.general_mask) {
      out.push_back(TiledConfig{e.br, e.bc, e.warps, e.stages});
    }
  }
  return out;
}

bool tiled_instrumented_compiled(int head_dim, DType dtype, const TiledConfig& config) {
  return find_entry(plain_shape(head_dim, dtype), config, true) != nullptr;
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
  if (entry == nullptr && shape.general_mask()) {
    return fail(StatusCode::config_not_compiled,
                std::string("sliding window and ALiBi are compiled for one tile only (") +
                    config_name(vocab::general_mask_tiled_config(shape.head_dim)) +
                    " at d=" + std::to_string(shape.head_dim) + ")" +
                    (instrumented ? ", without the timeline build" : "") + "; asked: " + config_name(config) +
                    (instrumented ? " with a timeline" : ""));
  }
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
  if (Status st = check_alibi(shape, t.alibi_slopes); !st) return st;
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
  const detail::MaskParams mask{shape.window, shape.alibi ? t.alibi_slopes : nullptr};
  return cuda_status(entry->launch(p, mask, to_int(grid.x), to_int(grid.y), to_int(grid.z), stream),
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
  if (Status st = check_alibi(shape, t.alibi_slopes); !st) return st;
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
  if (shape.general_mask() && timeline != nullptr) {
    return fail(StatusCode::config_not_compiled,
                "naive.softmax with a sliding window or ALiBi has no timeline build (instrumented kernel)");
  }
  int rb = 0, re = 0;
  if (Status st = clip_window(window.q_tile_begin, window.q_tile_end,
                              to_int(vocab::naive_softmax_row_blocks(NaiveTiling{}, shape.seq_q)),
                              "row blocks", rb, re);
      !st) {
    return st;
  }
  if (re == rb) return {};
  const vocab::Dim3 grid = vocab::naive_softmax_grid(re - rb, std::int64_t{shape.batch} * shape.heads);
  return cuda_status(detail::launch_naive_softmax_kernel(
                         shape.dtype, naive_params(shape, t, rb, 0, 0, timeline),
                         detail::MaskParams{shape.window, shape.alibi ? t.alibi_slopes : nullptr},
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

// ---- backward ------------------------------------------------------------------------------------------

namespace attnscope::kernels {
namespace {

std::string bwd_config_name(const TiledBwdConfig& c) {
  return "Bc=" + std::to_string(c.bc) + " Br=" + std::to_string(c.br) + " stages=" + std::to_string(c.stages);
}

const detail::TiledBwdEntry* find_bwd_entry(const AttentionShape& s, const TiledBwdConfig& c,
                                            bool instrumented = false) {
  for (const detail::TiledBwdEntry& e : detail::tiled_bwd_registry()) {
    if (e.dtype == s.dtype && e.head_dim == s.head_dim && e.config.bc == c.bc && e.config.br == c.br &&
        e.config.stages == c.stages && e.general_mask == s.general_mask() && e.instrumented == instrumented) {
      return &e;
    }
  }
  return nullptr;
}

Status check_all_aligned(std::initializer_list<std::pair<const void*, const char*>> pointers) {
  for (const auto& [p, name] : pointers) {
    if (Status st = check_aligned(p, name, 16); !st) return st;
  }
  return {};
}

}  // namespace

namespace detail {
const std::vector<TiledBwdEntry>& tiled_bwd_registry() {
  static const std::vector<TiledBwdEntry> registry = [] {
    std::vector<TiledBwdEntry> all;
    append_tiled_bwd_fp16(all);
    append_tiled_bwd_bf16(all);
    append_tiled_bwd_general_mask(all);
    append_tiled_bwd_instrumented(all);
    return all;
  }();
  return registry;
}
}  // namespace detail

std::vector<TiledBwdConfig> compiled_tiled_bwd_configs(int head_dim, DType dtype) {
  std::vector<TiledBwdConfig> out;
  for (const detail::TiledBwdEntry& e : detail::tiled_bwd_registry())
    if (e.dtype == dtype && e.head_dim == head_dim && !e.general_mask && !e.instrumented)
      out.push_back(e.config);
  return out;
}

bool tiled_bwd_instrumented_compiled(int head_dim, DType dtype, const TiledBwdConfig& config) {
  return find_bwd_entry(plain_shape(head_dim, dtype), config, true) != nullptr;
}

std::size_t tiled_bwd_timeline_capacity(const AttentionShape& s, const TiledBwdConfig& c) {
  if (c.bc < 1 || c.br < 1 || s.batch < 1 || s.heads < 1 || s.seq_q < 1 || s.seq_kv < 1) return 0;
  return static_cast<std::size_t>(s.batch) * static_cast<std::size_t>(s.heads) *
         static_cast<std::size_t>(vocab::tiled_bwd_grid(c, s.seq_kv, 1, 1).x) *
         static_cast<std::size_t>(vocab::tiled_bwd_q_tiles(c, s.seq_q));
}

TiledBwdConfig default_tiled_bwd_config(int head_dim) {
  return vocab::default_tiled_bwd_config(head_dim);
}

std::size_t tiled_bwd_workspace_bytes(const AttentionShape& s, const TiledBwdConfig& c) {
  if (c.br < 1 || s.batch < 1 || s.heads < 1 || s.seq_q < 1) return 0;
  return static_cast<std::size_t>(vocab::tiled_bwd_workspace(c, s.batch, s.heads, s.seq_q, s.head_dim).bytes);
}

namespace {

// The launches `parts` (bit 0 pre, 1 main, 2 post) of the tiled backward; with a `timeline`, the main
// kernel alone, instrumented.
Status tiled_backward_parts(const AttentionShape& shape, const TiledBwdConfig& config,
                            const BackwardTensors& t, int parts, Stream stream,
                            TileTiming* timeline = nullptr) {
  if (Status st = check_shape(shape); !st) return st;
  if (timeline != nullptr && parts != 2)
    return fail(StatusCode::config_not_compiled,
                "only the tiled backward's main kernel (tiled_bwd) has a timeline build");
  const detail::TiledBwdEntry* entry = find_bwd_entry(shape, config, timeline != nullptr);
  if (entry == nullptr && timeline != nullptr) {
    return fail(StatusCode::config_not_compiled,
                "the tiled backward's timeline build is compiled for fp16 at each head dim's default tile (" +
                    bwd_config_name(vocab::default_tiled_bwd_config(shape.head_dim)) +
                    ") without a sliding window or ALiBi; asked: " + std::string(dtype_name(shape.dtype)) +
                    " " + bwd_config_name(config) + (shape.general_mask() ? " with a general mask" : ""));
  }
  if (entry == nullptr && shape.general_mask()) {
    return fail(StatusCode::config_not_compiled,
                "the tiled backward with a sliding window or ALiBi is compiled for one tile only (" +
                    bwd_config_name(vocab::general_mask_tiled_bwd_config()) +
                    "); asked: " + bwd_config_name(config));
  }
  if (entry == nullptr) {
    std::string list;
    for (const TiledBwdConfig& c : compiled_tiled_bwd_configs(shape.head_dim, shape.dtype))
      list += (list.empty() ? "" : "; ") + bwd_config_name(c);
    return fail(StatusCode::config_not_compiled, "tiled backward configuration " + bwd_config_name(config) +
                                                     " is not compiled for " + dtype_name(shape.dtype) +
                                                     " d=" + std::to_string(shape.head_dim) +
                                                     "; compiled: " + (list.empty() ? "none" : list));
  }
  if (Status st = check_all_aligned({{t.q, "q"},
                                     {t.k, "k"},
                                     {t.v, "v"},
                                     {t.o, "o"},
                                     {t.d_o, "d_o"},
                                     {t.dq, "dq"},
                                     {t.dk, "dk"},
                                     {t.dv, "dv"},
                                     {t.workspace, "workspace"}});
      !st) {
    return st;
  }
  if (Status st = check_aligned(t.lse, "lse", 4); !st) return st;
  if (Status st = check_alibi(shape, t.alibi_slopes); !st) return st;
  if (Status st = check_device(); !st) return st;
  const vocab::BwdWorkspace ws =
      vocab::tiled_bwd_workspace(config, shape.batch, shape.heads, shape.seq_q, shape.head_dim);
  auto* base = static_cast<unsigned char*>(t.workspace);
  detail::TiledBwdParams p{t.q,
                           t.k,
                           t.v,
                           t.o,
                           t.d_o,
                           t.lse,
                           t.dq,
                           t.dk,
                           t.dv,
                           reinterpret_cast<float*>(base + ws.lse_log2_offset),
                           reinterpret_cast<float*>(base + ws.delta_offset),
                           reinterpret_cast<float*>(base + ws.dq_accum_offset),
                           shape.heads,
                           shape.seq_q,
                           shape.seq_kv,
                           to_int(vocab::tiled_bwd_padded_rows(config, shape.seq_q)),
                           shape.causal ? 1 : 0,
                           shape.scale,
                           shape.scale * 1.4426950408889634f};
  const detail::MaskParams mask{shape.window, shape.alibi ? t.alibi_slopes : nullptr};
  return cuda_status(entry->launch(p, mask, timeline, shape.batch, parts, stream), "launch_tiled_backward");
}

// The launches `parts` (bit i: dv, dp, ds, dq, dk) of the naive backward.
Status naive_backward_parts(const AttentionShape& shape, const BackwardTensors& t, int parts, Stream stream) {
  if (Status st = check_shape(shape); !st) return st;
  if (Status st = check_all_aligned({{t.q, "q"},
                                     {t.k, "k"},
                                     {t.v, "v"},
                                     {t.o, "o"},
                                     {t.d_o, "d_o"},
                                     {t.p, "p (the naive forward's scratch)"},
                                     {t.ds, "ds (scratch)"},
                                     {t.dq, "dq"},
                                     {t.dk, "dk"},
                                     {t.dv, "dv"}});
      !st) {
    return st;
  }
  if (std::int64_t{shape.seq_q} > 128 * std::int64_t{65535} ||
      std::int64_t{shape.seq_kv} > 128 * std::int64_t{65535})
    return fail(StatusCode::bad_shape, "bad shape: the naive backward's grid holds at most 8388480 rows");
  if (Status st = check_device(); !st) return st;
  return cuda_status(detail::launch_naive_backward_kernels(shape, t, parts, stream), "launch_naive_backward");
}

}  // namespace

Status launch_tiled_backward(const AttentionShape& shape, const TiledBwdConfig& config,
                             const BackwardTensors& t, Stream stream) {
  return tiled_backward_parts(shape, config, t, detail::kAllBwdParts, stream);
}

Status launch_naive_backward(const AttentionShape& shape, const BackwardTensors& t, Stream stream) {
  return naive_backward_parts(shape, t, detail::kAllBwdParts, stream);
}

Status launch_backward_kernel(vocab::KernelId kernel, const AttentionShape& shape,
                              const TiledBwdConfig& config, const BackwardTensors& t, Stream stream,
                              TileTiming* timeline) {
  using vocab::KernelId;
  if (timeline != nullptr && kernel != KernelId::tiled_bwd)
    return fail(StatusCode::config_not_compiled,
                std::string(vocab::to_string(kernel)) +
                    ": no timeline build (of the backward's kernels only tiled_bwd has one)");
  switch (kernel) {
    case KernelId::tiled_bwd_pre:
      return tiled_backward_parts(shape, config, t, 1, stream);
    case KernelId::tiled_bwd:
      return tiled_backward_parts(shape, config, t, 2, stream, timeline);
    case KernelId::tiled_bwd_post:
      return tiled_backward_parts(shape, config, t, 4, stream);
    case KernelId::naive_bwd_dv:
      return naive_backward_parts(shape, t, 1, stream);
    case KernelId::naive_bwd_dp:
      return naive_backward_parts(shape, t, 2, stream);
    case KernelId::naive_bwd_ds:
      return naive_backward_parts(shape, t, 4, stream);
    case KernelId::naive_bwd_dq:
      return naive_backward_parts(shape, t, 8, stream);
    case KernelId::naive_bwd_dk:
      return naive_backward_parts(shape, t, 16, stream);
    default:
      return fail(StatusCode::bad_shape, std::string("launch_backward_kernel: ") +
                                             std::string(vocab::to_string(kernel)) +
                                             " is not a backward kernel");
  }
}

std::size_t naive_training_hbm_bytes(const AttentionShape& s) {
  if (s.batch < 1 || s.heads < 1 || s.seq_q < 1 || s.seq_kv < 1 || s.head_dim < 1) return 0;
  const double e = static_cast<double>(dtype_size(s.dtype));
  const double bh = static_cast<double>(s.batch) * s.heads;
  const double tensors = bh * (4.0 * s.seq_q + 4.0 * s.seq_kv) * s.head_dim * e + bh * s.seq_q * 4.0;
  const double matrices =
      static_cast<double>(vocab::naive_bwd_scratch_bytes(s.batch, s.heads, s.seq_q, s.seq_kv, s.dtype));
  return static_cast<std::size_t>(tensors + matrices);
}

Status check_naive_memory(const AttentionShape& shape) {
  if (Status st = check_shape(shape); !st) return st;
  std::size_t free_bytes = 0, total_bytes = 0;
  const cudaError_t err = cudaMemGetInfo(&free_bytes, &total_bytes);
  if (err != cudaSuccess)
    return fail(StatusCode::unsupported_device,
                std::string("no usable CUDA device: ") + cudaGetErrorString(err));
  const std::size_t need = naive_training_hbm_bytes(shape);
  if (need <= free_bytes) return {};
  const auto gb = [](double b) {
    std::ostringstream o;
    o.setf(std::ios::fixed);
    o.precision(1);
    o << b * 1e-9 << " GB";
    return o.str();
  };
  const double matrices = static_cast<double>(
      vocab::naive_bwd_scratch_bytes(shape.batch, shape.heads, shape.seq_q, shape.seq_kv, shape.dtype));
  return fail(StatusCode::bad_shape, "naive attention does not fit: a training step at this shape needs " +
                                         gb(static_cast<double>(need)) + " of HBM, of which " + gb(matrices) +
                                         " for its two B*H*Nq*Nkv matrices (P, dP/dS), and the device has " +
                                         gb(static_cast<double>(free_bytes)) + " free of " +
                                         gb(static_cast<double>(total_bytes)) +
                                         "; the tiled kernels need no N x N matrix");
}

}  // namespace attnscope::kernels
