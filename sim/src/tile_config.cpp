// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/tile_config.hpp"

#include <fmt/format.h>

namespace attnscope::sim {

std::string_view to_string(LaunchOrder o) {
  return o == LaunchOrder::q_tile_fastest ? "q_tile_fastest" : "head_fastest";
}

std::optional<LaunchOrder> parse_launch_order(std::string_view s) {
  if (s == "q_tile_fastest") return LaunchOrder::q_tile_fastest;
  if (s == "head_fastest") return LaunchOrder::head_fastest;
  return std::nullopt;
}

std::string_view to_string(HopperSchedule s) {
  switch (s) {
    case HopperSchedule::serial:
      return "serial";
    case HopperSchedule::overlap:
      return "overlap";
    case HopperSchedule::pingpong:
      return "pingpong";
    case HopperSchedule::serial_pingpong:
      return "serial-pingpong";
  }
  return "?";
}

std::optional<HopperSchedule> parse_hopper_schedule(std::string_view s) {
  if (s == "serial") return HopperSchedule::serial;
  if (s == "overlap") return HopperSchedule::overlap;
  if (s == "pingpong") return HopperSchedule::pingpong;
  if (s == "serial-pingpong") return HopperSchedule::serial_pingpong;
  return std::nullopt;
}

bool TileConfig::same_naive_tiling(const TileConfig& o) const {
  return gemm_bm == o.gemm_bm && gemm_bn == o.gemm_bn && gemm_bk == o.gemm_bk && gemm_warps == o.gemm_warps &&
         gemm_stages == o.gemm_stages && softmax_rows_per_cta == o.softmax_rows_per_cta &&
         gemm_qk_tiles_per_cta == o.gemm_qk_tiles_per_cta && gemm_qk_stages == o.gemm_qk_stages &&
         gemm_pv_l2_fetch_bytes == o.gemm_pv_l2_fetch_bytes;
}

TileConfig naive_tiling_measured_at(TileConfig t, std::string_view date) {
  if (date < kNaiveMultiTileDate) {
    t.gemm_qk_tiles_per_cta = 1;
    t.gemm_qk_stages = t.gemm_stages;
    t.gemm_pv_l2_fetch_bytes = 0;
  }
  return t;
}

std::string TileConfig::bwd_label(std::int64_t head_dim) const {
  const vocab::TiledBwdConfig c = tiled_bwd(head_dim);
  return fmt::format("bwd-Bc{}-Br{}-s{}", c.bc, c.br, c.stages);
}

std::string TileConfig::label() const {
  return fmt::format("Br{}-Bc{}-w{}-s{}", br, bc, warps, stages);
}

std::string TileConfig::hopper_label() const {
  return fmt::format("hopper-Br{}-Bc{}-c{}-s{}-{}{}", 64 * hopper_consumers, hopper_bc, hopper_consumers,
                     hopper_stages, to_string(hopper_schedule), hopper_persistent ? "-persistent" : "");
}

std::string TileConfig::label_of(KernelId k, std::int64_t head_dim) const {
  if (k == KernelId::hopper) return hopper_label();
  if (k == KernelId::tiled_bwd) return bwd_label(head_dim);
  return label();
}

}  // namespace attnscope::sim
