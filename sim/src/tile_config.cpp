// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/tile_config.hpp"

#include <fmt/format.h>

namespace attnscope::sim {

std::string_view to_string(KernelKind k) {
  return k == KernelKind::naive ? "naive" : "tiled";
}

std::optional<KernelKind> parse_kernel_kind(std::string_view s) {
  if (s == "naive") return KernelKind::naive;
  if (s == "tiled" || s == "flash") return KernelKind::tiled;
  return std::nullopt;
}

std::string_view to_string(LaunchOrder o) {
  return o == LaunchOrder::q_tile_fastest ? "q_tile_fastest" : "head_fastest";
}

std::optional<LaunchOrder> parse_launch_order(std::string_view s) {
  if (s == "q_tile_fastest") return LaunchOrder::q_tile_fastest;
  if (s == "head_fastest") return LaunchOrder::head_fastest;
  return std::nullopt;
}

std::string TileConfig::label() const {
  return fmt::format("Br{}-Bc{}-w{}-s{}", br, bc, warps, stages);
}

}  // namespace attnscope::sim
