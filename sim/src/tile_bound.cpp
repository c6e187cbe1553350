// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/tile_bound.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "attnscope/sim/error.hpp"
#include "attnscope/sim/occupancy.hpp"
#include "attnscope/sim/tiling_rules.hpp"
#include "attnscope/vocab/geometry.hpp"

namespace attnscope::sim {

std::string_view to_string(BoundFloor f) {
  switch (f) {
    case BoundFloor::tensor:
      return "tensor";
    case BoundFloor::serial:
      return "serial";
    case BoundFloor::smem:
      return "smem";
    case BoundFloor::sfu:
      return "sfu";
    case BoundFloor::fp32:
      return "fp32";
    case BoundFloor::l2:
      return "l2";
    case BoundFloor::hbm:
      return "hbm";
  }
  return "";
}

namespace {

// What one CTA (one q tile of one head) puts through each per-SM resource of the timing model.
struct CtaWork {
  double tensor = 0;  // tensor-server units: FLOPs plus the steps' issue overhead in FLOP units
  double smem_read = 0, smem_write = 0;
  double exps = 0, fp32 = 0;
  double l2_bytes = 0;  // requested through the SM's L2 port (loads and stores)
  double chain_s = 0;   // the CTA's serial time on its slot (see the header)
  double flops = 0;
  double l2_read = 0, l2_write = 0;
};

struct Sum {
  double total = 0;
  double least = std::numeric_limits<double>::infinity();
  void add(double v, double count) {
    total += v * count;
    least = std::min(least, v);
  }
};

}  // namespace

TileBound tiled_forward_bound(const GpuSpec& gpu, const Workload& w, const TileConfig& tiles) {
  if (w.pass != Pass::fwd) throw InvalidInput("the closed-form bound covers the forward pass only");
  validate_tiling(KernelId::tiled, w, tiles);
  TileBound b;
  b.smem_per_cta = smem_bytes_per_cta(KernelId::tiled, w, tiles);
  const int threads = vocab::tiled_threads_per_cta(tiles.tiled());
  const Occupancy occ =
      occupancy(gpu, b.smem_per_cta, threads, estimate_registers_per_thread(KernelId::tiled, w, tiles));
  b.ctas_per_sm = occ.ctas_per_sm;

  // The timing model's rates (kernel_engine.cpp, Engine::run), per SM.
  const double sms = gpu.sm_count;
  const double tensor_rate = gpu.tensor_flops(w.dtype) * gpu.mma_sync_efficiency / sms;
  const double sfu_rate = gpu.sfu_exp_per_s / sms;
  const double fp32_rate = gpu.fp32_flops / 2.0 / sms;
  const double smem_rate = gpu.smem_bytes_per_cycle * gpu.sm_clock_hz;
  const double port_rate = gpu.sm_l2_bytes_per_cycle * gpu.sm_clock_hz;
  const double smsp = std::max(1, gpu.smsp_per_sm);
  const double warps = std::max(1, tiles.warps);
  const double overhead_s = gpu.warp_step_overhead_cycles / gpu.sm_clock_hz;
  const double overhead_flops = warps / smsp * overhead_s * tensor_rate;
  const double l2_latency = gpu.l2_latency_ns * 1e-9;

  const auto e = static_cast<double>(bytes_of(w.dtype));
  const double d = static_cast<double>(w.head_dim);
  const vocab::TiledConfig c = tiles.tiled();
  const std::int64_t q_tiles = vocab::tiled_q_tiles(c, w.seq_q);
  const double slices = static_cast<double>(w.batch) * static_cast<double>(w.heads);
  const vocab::Mask mask = vocab::mask_of(w.causal);

  // One step of `rows` query rows against `cols` keys: its serial time on a warp (the model's on_compute).
  const auto step_serial = [&](double rows, double cols) {
    const double rc = rows * cols;
    return 4.0 * rc * d * smsp / (warps * tensor_rate) +
           std::max(rc * smsp / (warps * sfu_rate),
                    (4.0 * rc + 2.0 * rows * d) * smsp / (warps * fp32_rate)) +
           overhead_s;
  };

  Sum tensor, smem, exps, fp32, port, chain;
  double flops = 0, smem_read = 0, smem_write = 0, l2_read = 0, l2_write = 0, longest_chain = 0;
  double q_rows_read = 0;
  std::int64_t most_kv_tiles = 0;
  // Causal q tiles differ; unmasked ones differ only in the last (partial) tile: group equal tiles.
  std::int64_t q = 0;
  while (q < q_tiles) {
    const std::int64_t r0 = q * c.br;
    const double rows = static_cast<double>(std::min<std::int64_t>(r0 + c.br, w.seq_q) - r0);
    const std::int64_t visible = vocab::tiled_visible_kv_tiles(c, w.seq_q, w.seq_kv, mask, q);
    // Tiles q .. q + same - 1 do the same work (all full tiles when unmasked).
    std::int64_t same = 1;
    if (mask == vocab::Mask::none && (r0 + c.br) <= w.seq_q)
      same = std::max<std::int64_t>(1, w.seq_q / c.br - q);
    const double count = static_cast<double>(same) * slices;
    CtaWork work;
    const double q_bytes = rows * d * e, out_bytes = rows * d * e + rows * 4.0;
    if (visible <= 0) {
      // Stores only: zero rows of O and LSE = -inf, after one empty step.
      work.tensor = overhead_flops;
      work.l2_bytes = out_bytes;
      work.l2_write = out_bytes;
      work.chain_s = overhead_s + out_bytes / port_rate + l2_latency;
    } else {
      most_kv_tiles = std::max(most_kv_tiles, visible);
      q_rows_read += rows * count;
      const double full_cols = c.bc;
      const std::int64_t keys = std::min<std::int64_t>(visible * c.bc, w.seq_kv);
      const double last_cols = static_cast<double>(keys - (visible - 1) * c.bc);
      const double cols = static_cast<double>(keys);
      const double steps = static_cast<double>(visible);
      const double kv_bytes = 2.0 * cols * d * e;
      work.flops = 4.0 * rows * cols * d;
      work.tensor = work.flops + steps * overhead_flops;
      work.exps = rows * cols;
      work.fp32 = 4.0 * rows * cols + 2.0 * rows * d * steps;
      // Every warp reads all of each K/V tile; Q once (d = 64, kept in registers) or every step; O staged.
      work.smem_read = warps * kv_bytes + q_bytes * (w.head_dim == 64 ? 1.0 : steps) + q_bytes;
      work.smem_write = kv_bytes + 2.0 * q_bytes;
      work.l2_read = q_bytes + kv_bytes;
      work.l2_write = out_bytes;
      work.l2_bytes = work.l2_read + work.l2_write;
      double serial = (steps - 1.0) * step_serial(rows, full_cols) + step_serial(rows, last_cols);
      // The first step waits for its loads (Q, K_0, V_0), the finish for the stores of O and LSE.
      const double first_loads = q_bytes + 2.0 * (visible == 1 ? last_cols : full_cols) * d * e;
      serial += first_loads / port_rate + l2_latency + out_bytes / port_rate + l2_latency;
      // With one stage every later step's loads are issued after the previous step: their port time and
      // latency are on the chain too.
      if (c.stages == 1)
        serial += (kv_bytes - 2.0 * (visible == 1 ? last_cols : full_cols) * d * e) / port_rate +
                  (steps - 1.0) * l2_latency;
      work.chain_s = serial;
    }
    tensor.add(work.tensor, count);
    smem.add(work.smem_read, count);
    exps.add(work.exps, count);
    fp32.add(work.fp32, count);
    port.add(work.l2_bytes, count);
    chain.add(work.chain_s, count);
    longest_chain = std::max(longest_chain, work.chain_s);
    flops += work.flops * count;
    smem_read += work.smem_read * count;
    smem_write += work.smem_write * count;
    l2_read += work.l2_read * count;
    l2_write += work.l2_write * count;
    q += same;
  }

  b.ctas = q_tiles * w.batch * w.heads;
  const double ctas = static_cast<double>(b.ctas);
  const double per_sm = std::ceil(ctas / sms);  // CTAs on the busiest SM, at least
  const double slots = std::min(sms * b.ctas_per_sm, ctas);
  const double per_slot = std::ceil(ctas / slots);
  // The busiest SM's work on one of its servers: at least the average, and at least its CTA count times the
  // lightest CTA.
  const auto busiest = [&](const Sum& s, double rate) {
    return std::max(s.total / sms, per_sm * s.least) / rate;
  };
  // The math servers work only between the first load's arrival and the last store's issue, each at least an
  // L2 latency from the kernel's start and end.
  const auto sm_floor = [&](const Sum& s, double rate) { return busiest(s, rate) + 2.0 * l2_latency; };
  std::array<double, 7> floors{};
  floors[static_cast<std::size_t>(BoundFloor::tensor)] = sm_floor(tensor, tensor_rate);
  floors[static_cast<std::size_t>(BoundFloor::serial)] =
      std::max({chain.total / slots, per_slot * chain.least, longest_chain});
  floors[static_cast<std::size_t>(BoundFloor::smem)] = sm_floor(smem, smem_rate);
  floors[static_cast<std::size_t>(BoundFloor::sfu)] = sm_floor(exps, sfu_rate);
  floors[static_cast<std::size_t>(BoundFloor::fp32)] = sm_floor(fp32, fp32_rate);
  floors[static_cast<std::size_t>(BoundFloor::l2)] =
      // The SM's L2 port is busy from the first load's issue (at 0); the last request's latency follows it.
      std::max((l2_read + l2_write) / gpu.l2_bandwidth, busiest(port, port_rate)) + l2_latency;
  const double kv_rows = static_cast<double>(std::min<std::int64_t>(most_kv_tiles * c.bc, w.seq_kv));
  b.hbm_read_min = slices * (q_rows_read / slices + 2.0 * kv_rows) * d * e;
  const double written = l2_write;
  b.hbm_write_min = std::max(0.0, written - static_cast<double>(gpu.l2_bytes));
  floors[static_cast<std::size_t>(BoundFloor::hbm)] =
      b.hbm_read_min / (gpu.hbm_bandwidth * gpu.hbm_efficiency) + gpu.hbm_latency_ns * 1e-9;
  const auto most = std::max_element(floors.begin(), floors.end());
  // The model adds the launch cost to the CTAs' time (kernel_engine.cpp), so the bound does too.
  b.time_s = *most + gpu.launch_overhead_ns * 1e-9;
  b.limiter = static_cast<BoundFloor>(most - floors.begin());
  b.flops = flops;
  b.smem_read = smem_read;
  b.smem_write = smem_write;
  b.l2_read = l2_read;
  b.l2_write = l2_write;
  return b;
}

}  // namespace attnscope::sim
