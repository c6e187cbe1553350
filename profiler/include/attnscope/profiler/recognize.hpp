// SPDX-License-Identifier: Apache-2.0
// Reading what a launch of another program is: the attention shape its NVTX annotation announces, the tile
// hint the Triton example adds, and which row of the kernel table (kernel_table.hpp) its demangled name
// matches, with the row's named captures. Pure C++, no CUDA.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "attnscope/profiler/foreign.hpp"
#include "attnscope/profiler/kernel_table.hpp"

namespace attnscope::profiler {

// The shape annotation, as attnscope.annotate(q, k, v, causal=...) pushes it:
//   "attnscope: B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=1"
// The seven fields, each exactly once, in any order, separated by spaces; sizes are positive integers,
// dtype is fp16 or bf16, causal is 0 or 1. Nothing else is accepted.
inline constexpr std::string_view kAnnotationPrefix = "attnscope:";

struct ParsedAnnotation {
  std::optional<AnnotatedShape> shape;
  std::string error;  // why the text is not a valid annotation (empty when `shape` is set)
};

// Strict reader of the annotation text (the one reader of it: the collector and the report both use it).
ParsedAnnotation parse_annotation(std::string_view message);

// The annotation text of a shape: what attnscope.annotate writes (tests compare the two).
std::string format_annotation(const AnnotatedShape& shape);

// The tile hint the Triton example pushes inside the shape annotation, for a kernel whose name carries no
// tile sizes:
//   "attnscope tiles: block_m=128 block_n=64 num_warps=4 num_stages=2"
// The four fields, each exactly once, positive integers.
inline constexpr std::string_view kTileHintPrefix = "attnscope tiles:";

struct TileHint {
  int block_m = 0, block_n = 0, num_warps = 0, num_stages = 0;
};

struct ParsedTileHint {
  std::optional<TileHint> hint;
  std::string error;
};

ParsedTileHint parse_tile_hint(std::string_view message);

// The launch's shape: the collector's parse when it made one, else the innermost "attnscope:" range of its
// NVTX stack read here. `error` says why an annotation that is there could not be read.
ParsedAnnotation shape_of(const ForeignLaunch& launch);

// The innermost "attnscope tiles:" range of the launch's NVTX stack, if any.
ParsedTileHint tile_hint_of(const ForeignLaunch& launch);

// The first row of kKernelTable whose pattern is found in `demangled_name`, and its named captures.
struct Recognition {
  const KernelRow* row = nullptr;  // null: unknown kernel
  std::map<std::string, std::string, std::less<>> captures;
};
Recognition recognize(std::string_view demangled_name);

// The kernel's name without return type, namespaces, template arguments or parameters
// ("void pytorch_flash::flash_fwd_kernel<...>(pytorch_flash::Flash_fwd_params)" -> "flash_fwd_kernel").
std::string short_kernel_name(std::string_view demangled_name);

}  // namespace attnscope::profiler
