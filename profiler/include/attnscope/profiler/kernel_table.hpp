// SPDX-License-Identifier: Apache-2.0
// The kernel table: which attention kernels of other programs attnscope recognises from their demangled
// names, and which of attnscope's model dataflows (vocab::KernelId) each one maps to. Data, read by
// recognize.cpp; adding a kernel is adding one row. docs/kernel-recognition.md explains the columns.
//
// A row's pattern is an ECMAScript regular expression searched in the demangled name (the first row whose
// pattern is found wins, so specific rows come before catch-all rows of the same family). Named groups
// `(?<name>...)` carry the launch's parameters; these names are understood:
//   head_dim       kHeadDim of the instantiation (checked against the annotated d)
//   block_m        query rows of a CTA (forward) or of one step (backward): the model's Br
//   block_n        keys of one step (forward) or of a CTA (backward): the model's Bc
//   warps          warps per CTA (checked against the launch's block)
//   stages         depth of the K/V (forward) or Q/dO (backward) copy ring
//   consumers      consumer warpgroups of a warp-specialized CTA (attnscope's Hopper kernel: Br = 64 x this)
//   overlap        true/1: softmax of one kv tile overlapped with the next tile's QK^T (Hopper kernel)
//   pingpong       true/1: the consumers take turns on the tensor cores (Hopper kernel)
//   single_buffer  true/1: the ring has one stage (FlashAttention-2's No_double_buffer)
//   dtype          element type spelled as in C++ (cutlass::half_t, __nv_bfloat16, ...)
//   causal         true/1 or false/0 (checked against the annotation)
//   dropout        true/1: not modeled (the model has no dropout)
//   local          true/1: a sliding window, not modeled (the annotation carries no window). FlashAttention-2
//                  added Is_local after Is_causal in later versions; the patterns take the third boolean as
//                  Is_local only where as many booleans follow as that version's signature has after it.
// Template booleans appear as true/false (abi::__cxa_demangle) or 1/0 (NVIDIA's demangler in Nsight tools),
// and nested closing brackets as "> >" or ">>": the patterns accept both spellings.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "attnscope/vocab/kernel.hpp"

namespace attnscope::profiler {

// How a modeled row's tile sizes are found.
enum class TileSource : std::uint8_t {
  captures,  // the name's named groups; stages from `stages`/`single_buffer`, else the row's default_stages
  // The Triton example (examples/triton_attention.py), whose name carries no sizes: Br from the grid (x = q
  // tiles, so Br is the power of two with ceil(Nq / Br) = grid.x), warps from the block (block.x / 32), Bc
  // and stages from the "attnscope tiles:" NVTX range the example pushes beside the shape.
  triton,
  naive,  // attnscope's naive kernels: their tiling is fixed (vocab::NaiveTiling{}), nothing to read
};

// The grid a modeled launch must have for its annotated shape and tile, from the vocabulary's geometry
// (vocab/geometry.hpp, vocab/backward.hpp). A mismatch means the recognition or the shape is wrong, and the
// launch is not modeled.
enum class GridRule : std::uint8_t {
  none,  // not checked (rows that are not modeled)
  // The grid of the row's KernelId: attnscope's own kernels, and the Triton example, written to the same
  // (q tiles, heads, batch) order.
  model,
  // The grid of the row's KernelId with y and z swapped: FlashAttention-2 launches (tiles, batch, heads)
  // where attnscope launches (tiles, heads, batch) (its forward and its backward's main loop).
  model_batch_heads,
  // (backward q tiles of Br = kBlockM rows, batch, heads): FlashAttention-2's dot(dO, O) and dQ conversion,
  // one CTA per q tile of its backward's tile.
  bwd_q_tiles_batch_heads,
};

struct KernelRow {
  std::string_view family;  // who ships the kernel: "flash-attention-2", "pytorch-mem-efficient", ...
  std::string_view kernel;  // a short name for the report ("flash_fwd_kernel")
  std::string_view pattern;
  vocab::Pass pass = vocab::Pass::fwd;
  std::optional<vocab::KernelId> model;  // empty: recognised, not modeled
  std::string_view not_modeled;          // why, when `model` is empty: "not modeled: <this>"
  TileSource tiles = TileSource::captures;
  int default_stages = 0;  // stages when the name carries none
  GridRule grid = GridRule::none;
  std::string_view assumes;  // what mapping this kernel onto the model's dataflow assumes (a report note)
};

// Pieces of patterns several rows share, written `{name}` inside a pattern (recognize.cpp expands them,
// pieces inside pieces included, before compiling it).
struct PatternPiece {
  std::string_view name;
  std::string_view text;
};

// clang-format off
inline constexpr std::array kPatternPieces = {
    PatternPiece{"bool", "(?:true|false|1|0)"},
    // The FlashAttention-2 trait lists, as PyTorch (namespace pytorch_flash::) and the flash-attn package
    // (namespace flash::, traits global) instantiate them: Flash_fwd_kernel_traits<kHeadDim, kBlockM, kBlockN,
    // kNWarps, Is_Q_in_regs, Share_Q_K_smem, elem_type, Base> and Flash_bwd_kernel_traits<kHeadDim, kBlockM,
    // kBlockN, kNWarps, AtomLayoutMSdP, AtomLayoutNdKV, AtomLayoutMdQ, Is_V_in_regs, No_double_buffer,
    // elem_type, Base>. The trailing Base (Flash_kernel_traits<...>) is skipped.
    PatternPiece{"fa2_ns", "(?:pytorch_flash::|flash::)?"},
    PatternPiece{"cutlass_elem", "(?<dtype>cutlass::half_t|cutlass::bfloat16_t)"},
    PatternPiece{"fa2_base", "(?:,\\s*[\\w:]+<[^<>]*>)?\\s*>"},
    PatternPiece{"fa2_fwd_traits",
                 "{fa2_ns}Flash_fwd_kernel_traits<(?<head_dim>\\d+),\\s*(?<block_m>\\d+),\\s*(?<block_n>\\d+),\\s*"
                 "(?<warps>\\d+),\\s*{bool},\\s*{bool},\\s*{cutlass_elem}{fa2_base}"},
    PatternPiece{"fa2_bwd_traits",
                 "{fa2_ns}Flash_bwd_kernel_traits<(?<head_dim>\\d+),\\s*(?<block_m>\\d+),\\s*(?<block_n>\\d+),\\s*"
                 "(?<warps>\\d+),\\s*\\d+,\\s*\\d+,\\s*\\d+,\\s*{bool},\\s*(?<single_buffer>{bool}),\\s*"
                 "{cutlass_elem}{fa2_base}"},
    // attnscope's own kernels: namespace attnscope::kernels::detail (the naive ones in an anonymous
    // namespace), element types __half and __nv_bfloat16.
    PatternPiece{"own_ns", "attnscope::kernels::detail::(?:\\(anonymous namespace\\)::)?"},
    PatternPiece{"own_elem", "(?<dtype>__half|__nv_bfloat16)"},
};
// clang-format on

inline constexpr std::string_view kFa2ForwardAssumes =
    "FlashAttention-2's forward is the model's tiled dataflow: one CTA per (q tile of kBlockM rows, batch, "
    "head) streaming K and V tiles of kBlockN keys with the online softmax, kNWarps warps each owning "
    "kBlockM / kNWarps rows. FA2 keeps one K and one V tile in shared memory and overlaps the copy of one "
    "with the product of the other (next K during P V, V during Q K^T), so one tile's load is always in "
    "flight during math: the model's 2-stage ring has that overlap, and counts (Br + 4 Bc) d elements of "
    "shared memory against FA2's (Br + 2 Bc) d (the launch's own shared memory is in launch.smem)";
inline constexpr std::string_view kFa2BackwardAssumes =
    "FlashAttention-2's seqk-parallel backward is the model's tiled_bwd dataflow: one CTA per (kv tile of "
    "kBlockN keys, batch, head), q steps of kBlockM rows, dK and dV in registers, dQ added into an fp32 "
    "accumulator with atomics, P recomputed from the LSE. The model rings Q, dO, LSE and D `stages` deep; "
    "FA2 double-buffers Q only (stages 2 unless No_double_buffer, then 1)";
inline constexpr std::string_view kFa2PreAssumes =
    "flash_bwd_dot_do_o_kernel is the model's tiled_bwd.pre dataflow: D = rowsum(dO o O) per query row and "
    "the fp32 dQ accumulator zeroed. FA2 does not write LSE * log2 e as attnscope's pre kernel does (the "
    "model counts 4 B per query row more writes). The model runs FA2's CTAs: kBlockM-row blocks of 256 "
    "threads, each loading all of its rows before using them";
inline constexpr std::string_view kFa2PostAssumes =
    "flash_bwd_convert_dq_kernel is the model's tiled_bwd.post dataflow: dQ = scale * the fp32 accumulator, "
    "converted to the input dtype. The model runs FA2's CTAs: kBlockM-row blocks of 256 threads, each "
    "loading all of its rows before using them (FA2 stages them through shared memory, which the model does "
    "not count)";
inline constexpr std::string_view kTritonAssumes =
    "the Triton kernel of examples/triton_attention.py is the model's tiled dataflow with Br = BLOCK_M, Bc = "
    "BLOCK_N, warps = num_warps, stages = num_stages: it is written as one program per (q tile, head, batch) "
    "streaming K and V blocks with the online softmax, like the tiled kernel. Triton decides the rest (its "
    "software pipeline, shared-memory layout and which warps own which rows), which the model does not see";
inline constexpr std::string_view kOwnAssumes =
    "attnscope's own kernel: the model's dataflow of the same kernel";

// clang-format off
inline constexpr std::array kKernelTable = {
    // ---- FlashAttention-2 (PyTorch's copy under aten/src/ATen/native/transformers/cuda/flash_attn/, and
    //      the flash-attn package): forward
    KernelRow{"flash-attention-2", "flash_fwd_kernel",
              "(?:^|[\\s:])flash_fwd_kernel<{fa2_fwd_traits},\\s*(?<dropout>{bool}),\\s*(?<causal>{bool})"
              "(?:,\\s*(?<local>{bool})(?=(?:,\\s*{bool}){3}))?",
              vocab::Pass::fwd, vocab::KernelId::tiled, "", TileSource::captures, 2,
              GridRule::model_batch_heads, kFa2ForwardAssumes},
    KernelRow{"flash-attention-2", "flash_fwd_splitkv_combine_kernel",
              "(?:^|[\\s:])flash_fwd_splitkv_combine_kernel<",
              vocab::Pass::fwd, std::nullopt, "split-KV (the combine of the per-split partial outputs)",
              TileSource::captures, 0, GridRule::none, ""},
    KernelRow{"flash-attention-2", "flash_fwd_splitkv_kernel",
              "(?:^|[\\s:])flash_fwd_splitkv_kernel<",
              vocab::Pass::fwd, std::nullopt, "split-KV (the model has no split-KV dataflow)",
              TileSource::captures, 0, GridRule::none, ""},
    // ---- FlashAttention-2: backward (run_flash_bwd_seqk_parallel: pre, main loop, dQ conversion)
    KernelRow{"flash-attention-2", "flash_bwd_dot_do_o_kernel",
              "(?:^|[\\s:])flash_bwd_dot_do_o_kernel<{bool},\\s*{fa2_bwd_traits}",
              vocab::Pass::bwd, vocab::KernelId::tiled_bwd_pre, "", TileSource::captures, 2,
              GridRule::bwd_q_tiles_batch_heads, kFa2PreAssumes},
    KernelRow{"flash-attention-2", "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel",
              "(?:^|[\\s:])flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<{fa2_bwd_traits}"
              ",\\s*(?<dropout>{bool}),\\s*(?<causal>{bool})(?:,\\s*(?<local>{bool})(?=(?:,\\s*{bool}){2}))?",
              vocab::Pass::bwd, vocab::KernelId::tiled_bwd, "", TileSource::captures, 2,
              GridRule::model_batch_heads, kFa2BackwardAssumes},
    KernelRow{"flash-attention-2", "flash_bwd_convert_dq_kernel",
              "(?:^|[\\s:])flash_bwd_convert_dq_kernel<{fa2_bwd_traits}",
              vocab::Pass::bwd, vocab::KernelId::tiled_bwd_post, "", TileSource::captures, 2,
              GridRule::bwd_q_tiles_batch_heads, kFa2PostAssumes},
    KernelRow{"flash-attention-2", "flash_bwd (other)",
              "(?:^|[\\s:])flash_bwd_\\w+_kernel<",
              vocab::Pass::bwd, std::nullopt,
              "a FlashAttention-2 backward variant with no attnscope dataflow (seqq-parallel, dK/dV conversion)",
              TileSource::captures, 0, GridRule::none, ""},
    // ---- PyTorch's memory-efficient attention (xFormers' CUTLASS kernels): fmha_cutlass{F,B}_<dtype>_
    //      <aligned|notaligned>_<blockM>x<blockN>_..._sm<arch>
    KernelRow{"pytorch-mem-efficient", "fmha_cutlassF",
              "(?:^|[\\s:])fmha_cutlassF_(?:f16|bf16|f32)_(?:aligned|notaligned)_(?<block_m>\\d+)x(?<block_n>\\d+)",
              vocab::Pass::fwd, std::nullopt,
              "memory-efficient attention dataflow (its tiles and softmax bookkeeping are not the tiled "
              "kernel's)",
              TileSource::captures, 0, GridRule::none, ""},
    KernelRow{"pytorch-mem-efficient", "fmha_cutlassB",
              "(?:^|[\\s:])fmha_cutlassB_(?:f16|bf16|f32)_(?:aligned|notaligned)_(?<block_m>\\d+)x(?<block_n>\\d+)",
              vocab::Pass::bwd, std::nullopt,
              "memory-efficient attention dataflow (its backward is not the tiled backward's)",
              TileSource::captures, 0, GridRule::none, ""},
    // ---- cuDNN's fused attention (the runtime-compiled "fort native sdpa" kernels; names only)
    KernelRow{"cudnn-sdpa", "cudnn sdpa fprop",
              "(?:^|[\\s:])cudnn_generated_fort_native_sdpa_\\w*fprop",
              vocab::Pass::fwd, std::nullopt, "cuDNN's attention kernels are generated at run time; their "
              "dataflow is not published", TileSource::captures, 0, GridRule::none, ""},
    KernelRow{"cudnn-sdpa", "cudnn sdpa bprop",
              "(?:^|[\\s:])cudnn_generated_fort_native_sdpa_\\w*bprop",
              vocab::Pass::bwd, std::nullopt, "cuDNN's attention kernels are generated at run time; their "
              "dataflow is not published", TileSource::captures, 0, GridRule::none, ""},
    KernelRow{"cudnn-sdpa", "cudnn sdpa",
              "(?:^|[\\s:])cudnn_generated_fort_native_sdpa",
              vocab::Pass::fwd, std::nullopt, "cuDNN's attention kernels are generated at run time; their "
              "dataflow is not published", TileSource::captures, 0, GridRule::none, ""},
    // ---- the Triton fused attention of examples/triton_attention.py (Triton names a kernel after its
    //      Python function)
    KernelRow{"attnscope-triton-example", "attnscope_attention_fwd",
              "^attnscope_attention_fwd(?:_\\w+)?$",
              vocab::Pass::fwd, vocab::KernelId::tiled, "", TileSource::triton, 0,
              GridRule::model, kTritonAssumes},
    // ---- attnscope's own kernels (kernels/src/*.cu), launched by another program
    KernelRow{"attnscope", "tiled_attention_kernel",
              "{own_ns}tiled_attention_kernel<{own_elem},\\s*(?<head_dim>\\d+),\\s*"
              "(?<block_m>\\d+),\\s*(?<block_n>\\d+),\\s*(?<stages>\\d+),\\s*(?<warps>\\d+),\\s*{bool}>",
              vocab::Pass::fwd, vocab::KernelId::tiled, "", TileSource::captures, 0, GridRule::model,
              kOwnAssumes},
    KernelRow{"attnscope", "tiled_attention_general_mask_kernel",
              "{own_ns}tiled_attention_general_mask_kernel<",
              vocab::Pass::fwd, std::nullopt,
              "the sliding-window / ALiBi variant needs the window and bias, which the annotation does not carry",
              TileSource::captures, 0, GridRule::none, ""},
    // The persistent build (template arguments ..., overlap, ping-pong, persistent, timeline build): its grid
    // is one CTA per SM, which a launch seen from outside does not map onto the model's tiles yet; names
    // recorded before it existed have no persistent argument.
    KernelRow{"attnscope", "hopper_attention_kernel (persistent)",
              "{own_ns}hopper_attention_kernel<{own_elem}(?:,\\s*\\d+){5},\\s*{bool},\\s*{bool},\\s*true,\\s*{bool}>",
              vocab::Pass::fwd, std::nullopt,
              "the persistent Hopper build launched by another program (its grid of one CTA per SM is not mapped "
              "onto the model's tiles)",
              TileSource::captures, 0, GridRule::none, ""},
    KernelRow{"attnscope", "hopper_attention_kernel",
              "{own_ns}hopper_attention_kernel<{own_elem},\\s*(?<head_dim>\\d+),\\s*(?<block_m>\\d+),\\s*"
              "(?<block_n>\\d+),\\s*(?<consumers>\\d+),\\s*(?<stages>\\d+),\\s*(?<overlap>{bool}),\\s*"
              "(?<pingpong>{bool}),\\s*(?:false,\\s*)?{bool}>",
              vocab::Pass::fwd, vocab::KernelId::hopper, "", TileSource::captures, 0, GridRule::model,
              kOwnAssumes},
    KernelRow{"attnscope", "tiled_bwd_pre_kernel",
              "{own_ns}tiled_bwd_pre_kernel<{own_elem},\\s*(?<head_dim>\\d+)>",
              vocab::Pass::bwd, vocab::KernelId::tiled_bwd_pre, "", TileSource::captures, 0,
              GridRule::model, kOwnAssumes},
    KernelRow{"attnscope", "tiled_bwd_post_kernel",
              "{own_ns}tiled_bwd_post_kernel<{own_elem},\\s*(?<head_dim>\\d+)>",
              vocab::Pass::bwd, vocab::KernelId::tiled_bwd_post, "", TileSource::captures, 0,
              GridRule::model, kOwnAssumes},
    KernelRow{"attnscope", "tiled_bwd_kernel",
              "{own_ns}tiled_bwd_kernel<{own_elem},\\s*(?<head_dim>\\d+),\\s*"
              "(?<block_n>\\d+),\\s*(?<block_m>\\d+),\\s*(?<stages>\\d+)>",
              vocab::Pass::bwd, vocab::KernelId::tiled_bwd, "", TileSource::captures, 0, GridRule::model,
              kOwnAssumes},
    KernelRow{"attnscope", "tiled_bwd_general_mask_kernel",
              "{own_ns}tiled_bwd_general_mask_kernel<",
              vocab::Pass::bwd, std::nullopt,
              "the sliding-window / ALiBi variant needs the window and bias, which the annotation does not carry",
              TileSource::captures, 0, GridRule::none, ""},
    KernelRow{"attnscope", "naive_qk_kernel",
              "{own_ns}naive_qk_kernel<{own_elem},\\s*(?<head_dim>\\d+),",
              vocab::Pass::fwd, vocab::KernelId::naive_qk, "", TileSource::naive, 0, GridRule::model,
              kOwnAssumes},
    KernelRow{"attnscope", "naive_softmax_kernel",
              "{own_ns}naive_softmax_(?:shared|two_pass)_kernel<{own_elem}",
              vocab::Pass::fwd, vocab::KernelId::naive_softmax, "", TileSource::naive, 0, GridRule::model,
              kOwnAssumes},
    KernelRow{"attnscope", "naive_pv_kernel",
              "{own_ns}naive_pv_kernel<{own_elem},\\s*(?<head_dim>\\d+),",
              vocab::Pass::fwd, vocab::KernelId::naive_pv, "", TileSource::naive, 0, GridRule::model,
              kOwnAssumes},
    KernelRow{"attnscope", "naive kernel (other)",
              "{own_ns}naive_\\w+_kernel<",
              vocab::Pass::both, std::nullopt,
              "which of the naive backward's GEMMs (or the general-mask softmax) this launch is cannot be told "
              "from its name alone",
              TileSource::naive, 0, GridRule::none, ""},
};
// clang-format on

}  // namespace attnscope::profiler
