// SPDX-License-Identifier: Apache-2.0
#include "workload_options.hpp"

#include <string>

#include "attnscope/sim/error.hpp"
#include "attnscope/vocab/backward.hpp"
#include "attnscope/vocab/tile_config.hpp"

namespace attnscope::cli {

void add_workload_options(CLI::App& cmd, WorkloadOptions& o) {
  auto presets = sim::preset_names();
  std::string preset_help = "workload preset (";
  for (std::size_t i = 0; i < presets.size(); ++i) preset_help += (i ? ", " : "") + presets[i];
  preset_help += "); flags below override its fields";
  cmd.add_option("--preset,-w", o.preset, preset_help)->capture_default_str();
  cmd.add_option("--batch,-b", o.batch, "batch size");
  cmd.add_option("--heads", o.heads, "attention heads");
  cmd.add_option("--seq,-n", o.seq, "sequence length (queries and keys/values)");
  cmd.add_option("--seq-q", o.seq_q, "query length");
  cmd.add_option("--seq-kv", o.seq_kv, "key/value length");
  cmd.add_option("--head-dim,-d", o.head_dim, "head dimension");
  cmd.add_option("--dtype", o.dtype, "element type: fp16, bf16, fp32");
  cmd.add_flag("--causal", o.causal, "causal mask");
  cmd.add_flag("--no-causal", o.non_causal, "no mask");
  cmd.add_option("--scale", o.scale, "softmax scale (default 1/sqrt(head_dim))");
  cmd.add_option("--window", o.window,
                 "sliding-window (local) attention: each query sees the W keys ending at its diagonal "
                 "(causal; 0 = none)");
  cmd.add_flag("--alibi", o.alibi, "ALiBi bias on the scores (standard per-head slopes)");
  cmd.add_option("--br", o.br, "tiled kernel: query rows per CTA (Br)");
  cmd.add_option("--bc", o.bc, "tiled kernel: key/value rows per step (Bc)");
  cmd.add_option("--warps", o.warps, "tiled kernel: warps per CTA");
  cmd.add_option("--stages", o.stages, "tiled kernel: cp.async pipeline stages");
  cmd.add_option("--order", o.order, "CTA launch order: q_tile_fastest, head_fastest");
  cmd.add_option("--kernel,-k", o.kernel,
                 "naive, tiled, hopper, both (naive and tiled) or all (the three; hopper forward only)")
      ->check(CLI::IsMember({"naive", "tiled", "hopper", "both", "all"}))
      ->capture_default_str();
  cmd.add_option("--pass", o.pass,
                 "fwd, bwd (gradients from dO) or both (a training step: forward, then backward)")
      ->check(CLI::IsMember({"fwd", "bwd", "both"}))
      ->capture_default_str();
  // The defaults in the help text come from the one definition of each kernel's default tile.
  const auto default_of = [](int at64, int at128) {
    return at64 == at128
               ? "default " + std::to_string(at64)
               : "default " + std::to_string(at64) + " at d 64, " + std::to_string(at128) + " at d 128";
  };
  const vocab::TiledBwdConfig b64 = vocab::default_tiled_bwd_config(64);
  const vocab::TiledBwdConfig b128 = vocab::default_tiled_bwd_config(128);
  cmd.add_option("--bwd-bc", o.bwd_bc,
                 "tiled backward: keys per CTA (Bc; " + default_of(b64.bc, b128.bc) + ")");
  cmd.add_option("--bwd-br", o.bwd_br,
                 "tiled backward: query rows per step (Br; " + default_of(b64.br, b128.br) + ")");
  cmd.add_option(
      "--bwd-stages", o.bwd_stages,
      "tiled backward: cp.async stages of Q, dO, LSE, D (" + default_of(b64.stages, b128.stages) + ")");
  const vocab::HopperConfig h64 = vocab::default_hopper_config(64, false);
  const vocab::HopperConfig h64_causal = vocab::default_hopper_config(64, true);
  const vocab::HopperConfig h128 = vocab::default_hopper_config(128, false);
  const auto per_head_dim = [](const std::string& at64, const std::string& at128) {
    return "(default " + at64 + " at d 64, " + at128 + " at d 128)";
  };
  const auto schedule = [](const vocab::HopperConfig& c) {
    sim::TileConfig t;
    t.set_hopper(c);
    return std::string(sim::to_string(t.hopper_schedule));
  };
  cmd.add_option("--hopper-bc", o.hopper_bc,
                 "Hopper kernel: keys per kv step (Bc; " + default_of(h64.bc, h128.bc) + ")");
  cmd.add_option("--hopper-consumers", o.hopper_consumers,
                 "Hopper kernel: consumer warpgroups of 64 query rows (Br = 64 x consumers) " +
                     per_head_dim(std::to_string(h64.consumers), std::to_string(h128.consumers)));
  cmd.add_option("--hopper-stages", o.hopper_stages,
                 "Hopper kernel: slots of the K/V ring " +
                     per_head_dim(std::to_string(h64.stages), std::to_string(h128.stages)));
  cmd.add_option("--hopper-schedule", o.hopper_schedule,
                 "Hopper kernel: serial, overlap, pingpong (overlap + ping-pong) or serial-pingpong " +
                     per_head_dim(schedule(h64), schedule(h128)));
  cmd.add_option(
      "--hopper-persistent", o.hopper_persistent,
      "Hopper kernel: true = one CTA per SM walking the tiles (two Q buffers), false = one CTA per "
      "tile " +
          per_head_dim(std::string(h64.persistent ? "true" : "false") +
                           (h64_causal.persistent != h64.persistent
                                ? std::string(" (") + (h64_causal.persistent ? "true" : "false") + " causal)"
                                : std::string()),
                       h128.persistent ? "true" : "false"));
  cmd.add_option("--gpu", o.gpu, "GPU spec: h200, h100, a100 or a JSON file")->capture_default_str();
}

sim::Workload WorkloadOptions::workload() const {
  sim::Workload w = sim::preset(preset);
  if (batch) w.batch = *batch;
  if (heads) w.heads = *heads;
  if (seq) w.seq_q = w.seq_kv = *seq;
  if (seq_q) w.seq_q = *seq_q;
  if (seq_kv) w.seq_kv = *seq_kv;
  if (head_dim) w.head_dim = *head_dim;
  if (dtype) {
    auto t = sim::parse_dtype(*dtype);
    if (!t) throw sim::InvalidInput("--dtype '" + *dtype + "' is not one of fp16, bf16, fp32");
    w.dtype = *t;
  }
  if (causal && non_causal) throw sim::InvalidInput("--causal and --no-causal are exclusive");
  if (causal) w.causal = true;
  if (non_causal) w.causal = false;
  if (scale) w.scale = *scale;
  if (window) {
    if (*window > 0 && non_causal)
      throw sim::InvalidInput(
          "--window is a causal mask (the W keys ending at each query's diagonal); drop "
          "--no-causal");
    w.window = *window;
    if (*window > 0) w.causal = true;
  }
  if (alibi) w.alibi = true;
  if (const auto p = sim::parse_pass(pass))
    w.pass = *p;
  else
    throw sim::InvalidInput("--pass '" + pass + "' is not one of fwd, bwd, both");
  if (batch || heads || seq || seq_q || seq_kv || head_dim || dtype || causal || non_causal || scale ||
      window || alibi)
    w.name = preset + "*";
  sim::validate(w);
  return w;
}

sim::TileConfig WorkloadOptions::tile_config() const {
  sim::TileConfig t;
  const sim::Workload w = workload();
  if (w.general_mask()) {
    // Sliding window and ALiBi: the GPU kernels are compiled for one tile per pass (vocab), so that is the
    // default; flags still choose another tile for the model (a what-if the GPU cannot run).
    t.set_tiled(vocab::general_mask_tiled_config(w.head_dim));
    t.set_tiled_bwd(vocab::general_mask_tiled_bwd_config());
  }
  if (br) t.br = *br;
  if (bc) t.bc = *bc;
  if (warps) t.warps = *warps;
  if (stages) t.stages = *stages;
  if (bwd_bc) t.bwd_bc = *bwd_bc;
  if (bwd_br) t.bwd_br = *bwd_br;
  if (bwd_stages) t.bwd_stages = *bwd_stages;
  {
    // The Hopper kernel's default tile depends on the head dim and the causal mask
    // (vocab::default_hopper_config); each flag given overrides its own field.
    t.set_hopper(vocab::default_hopper_config(static_cast<int>(w.head_dim), w.causal));
  }
  if (hopper_bc) t.hopper_bc = *hopper_bc;
  if (hopper_consumers) t.hopper_consumers = *hopper_consumers;
  if (hopper_stages) t.hopper_stages = *hopper_stages;
  if (hopper_persistent) t.hopper_persistent = *hopper_persistent;
  if (hopper_schedule) {
    const auto s = sim::parse_hopper_schedule(*hopper_schedule);
    if (!s)
      throw sim::InvalidInput("--hopper-schedule '" + *hopper_schedule +
                              "' is not one of serial, overlap, pingpong, serial-pingpong");
    t.hopper_schedule = *s;
  }
  if (order) {
    auto o = sim::parse_launch_order(*order);
    if (!o) throw sim::InvalidInput("--order '" + *order + "' is not one of q_tile_fastest, head_fastest");
    t.order = *o;
  }
  return t;
}

std::vector<sim::KernelKind> WorkloadOptions::kinds() const {
  if (kernel == "both") return {sim::KernelKind::naive, sim::KernelKind::tiled};
  if (kernel == "all") {
    if (pass != "fwd") return {sim::KernelKind::naive, sim::KernelKind::tiled};
    return {sim::KernelKind::naive, sim::KernelKind::tiled, sim::KernelKind::hopper};
  }
  if (const auto k = sim::parse_kernel_kind(kernel)) return {*k};
  throw sim::InvalidInput("--kernel '" + kernel + "' is not one of naive, tiled, hopper, both, all");
}

}  // namespace attnscope::cli
