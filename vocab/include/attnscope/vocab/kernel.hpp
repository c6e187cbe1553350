// SPDX-License-Identifier: Apache-2.0
// Which attention kernels exist. Three kinds: the naive (unfused) attention, three launches forward and
// five backward; the tiled FlashAttention-2 attention, one launch forward and three backward; and the
// Hopper attention (bulk tensor copies into a shared-memory ring, wgmma, producer and consumer warpgroups:
// docs/hopper-kernel.md), one launch forward and no backward. Each launch is a KernelId; its name ("tiled",
// "naive.qk", "tiled_bwd", ...) is what reports, timelines and the command line call it. A training step is
// the forward pass, then the backward pass.
//
// C++17 and constexpr only: the CUDA translation units of kernels/ include this header.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace attnscope::vocab {

enum class KernelKind : std::uint8_t {
  naive,   // forward: S = QK^T*scale -> HBM; softmax(S) -> P in place; O = P V. Backward: five GEMM-like
           // launches through P and dP = dS in HBM
  tiled,   // FlashAttention-2: forward one CTA per (q-tile, head, batch), online softmax; backward one CTA
           // per (kv-tile, head, batch), P recomputed from LSE
  hopper,  // FlashAttention-3 style forward only: one CTA per (q-tile, head, batch), a producer warpgroup
           // copying Q, K, V tiles by TMA, consumer warpgroups running wgmma and the online softmax
};

// Which pass runs: the forward (O and LSE from Q, K, V), the backward (the gradients dQ, dK, dV from dO), or
// both, one after the other (a training step).
enum class Pass : std::uint8_t { fwd, bwd, both };

constexpr std::string_view to_string(Pass p) {
  return p == Pass::fwd ? "fwd" : p == Pass::bwd ? "bwd" : "both";
}

// "fwd" | "bwd" | "both".
constexpr std::optional<Pass> parse_pass(std::string_view s) {
  if (s == "fwd") return Pass::fwd;
  if (s == "bwd") return Pass::bwd;
  if (s == "both") return Pass::both;
  return std::nullopt;
}

// One launched kernel; kAllKernelIds lists them in launch order within each (kind, pass): naive forward qk,
// softmax, pv; naive backward dv, dp, ds, dq, dk; tiled forward tiled; tiled backward pre, main, post; hopper
// forward hopper. New
// ids are appended, so that the values of the older ones (indices of per-kernel arrays) stay.
enum class KernelId : std::uint8_t {
  tiled,
  naive_qk,
  naive_softmax,
  naive_pv,
  tiled_bwd_pre,   // D = rowsum(dO o O), LSE * log2 e, dQ accumulator zeroed
  tiled_bwd,       // one CTA per kv tile: dK, dV in registers, dQ through fp32 atomics
  tiled_bwd_post,  // dQ = scale * accumulator
  naive_bwd_dv,    // dV = P^T dO
  naive_bwd_dp,    // dP = dO V^T (to HBM)
  naive_bwd_ds,    // dS = P o (dP - D), in place of dP
  naive_bwd_dq,    // dQ = scale * dS K
  naive_bwd_dk,    // dK = scale * dS^T Q
  hopper,          // the Hopper forward (TMA + wgmma), one CTA per (q tile, head, batch)
};
inline constexpr int kKernelIdCount = 13;
inline constexpr std::array<KernelId, kKernelIdCount> kAllKernelIds = {
    KernelId::tiled,         KernelId::naive_qk,     KernelId::naive_softmax,  KernelId::naive_pv,
    KernelId::tiled_bwd_pre, KernelId::tiled_bwd,    KernelId::tiled_bwd_post, KernelId::naive_bwd_dv,
    KernelId::naive_bwd_dp,  KernelId::naive_bwd_ds, KernelId::naive_bwd_dq,   KernelId::naive_bwd_dk,
    KernelId::hopper};

constexpr KernelKind kind_of(KernelId k) {
  switch (k) {
    case KernelId::tiled:
    case KernelId::tiled_bwd_pre:
    case KernelId::tiled_bwd:
    case KernelId::tiled_bwd_post:
      return KernelKind::tiled;
    case KernelId::hopper:
      return KernelKind::hopper;
    case KernelId::naive_qk:
    case KernelId::naive_softmax:
    case KernelId::naive_pv:
    case KernelId::naive_bwd_dv:
    case KernelId::naive_bwd_dp:
    case KernelId::naive_bwd_ds:
    case KernelId::naive_bwd_dq:
    case KernelId::naive_bwd_dk:
      return KernelKind::naive;
  }
  return KernelKind::naive;
}

// The pass a kernel belongs to: fwd or bwd (never both).
constexpr Pass pass_of(KernelId k) {
  return k == KernelId::tiled || k == KernelId::naive_qk || k == KernelId::naive_softmax ||
                 k == KernelId::naive_pv || k == KernelId::hopper
             ? Pass::fwd
             : Pass::bwd;
}

// Whether kernel `k` runs in `p` (a training step runs both passes' kernels).
constexpr bool runs_in(KernelId k, Pass p) {
  return p == Pass::both || pass_of(k) == p;
}

constexpr std::string_view to_string(KernelKind k) {
  switch (k) {
    case KernelKind::naive:
      return "naive";
    case KernelKind::tiled:
      return "tiled";
    case KernelKind::hopper:
      return "hopper";
  }
  return "?";
}

// Whether the kind has a backward pass (the Hopper kernel is forward only).
constexpr bool has_backward(KernelKind k) {
  return k != KernelKind::hopper;
}

// "naive" | "tiled" (also "flash", the name the FlashAttention papers give the tiled kernel) | "hopper".
constexpr std::optional<KernelKind> parse_kernel_kind(std::string_view s) {
  if (s == "naive") return KernelKind::naive;
  if (s == "tiled" || s == "flash") return KernelKind::tiled;
  if (s == "hopper") return KernelKind::hopper;
  return std::nullopt;
}

constexpr std::string_view to_string(KernelId k) {
  switch (k) {
    case KernelId::tiled:
      return "tiled";
    case KernelId::naive_qk:
      return "naive.qk";
    case KernelId::naive_softmax:
      return "naive.softmax";
    case KernelId::naive_pv:
      return "naive.pv";
    case KernelId::tiled_bwd_pre:
      return "tiled_bwd.pre";
    case KernelId::tiled_bwd:
      return "tiled_bwd";
    case KernelId::tiled_bwd_post:
      return "tiled_bwd.post";
    case KernelId::naive_bwd_dv:
      return "naive_bwd.dv";
    case KernelId::naive_bwd_dp:
      return "naive_bwd.dp";
    case KernelId::naive_bwd_ds:
      return "naive_bwd.ds";
    case KernelId::naive_bwd_dq:
      return "naive_bwd.dq";
    case KernelId::naive_bwd_dk:
      return "naive_bwd.dk";
    case KernelId::hopper:
      return "hopper";
  }
  return "?";
}

// Since when (ISO 8601 UTC; such dates compare as text) kernel `k` runs as it does now; a measurement of it
// dated earlier ran a version the model no longer describes. "" for a kernel no change has superseded.
//   tiled_bwd 2026-12-06T09:35Z: swizzled shared-memory addresses as one XOR per chunk pattern plus immediate
//   offsets (17-20 % fewer instructions, ~1 % faster; bytes and wavefronts unchanged). Since 03:57Z P^T and
//   dS^T packed to 16 bits as soon as the softmax has them (2 % fewer instructions at d 64), and Br 64 the
//   default at d 128 (Br 32 before); since 02:44Z dQ is added one step behind from a second dS^T slot (one
//   barrier per step instead of two) and tile copies run in fixed-count loops (the kernel before that
//   executed 12-13 % more instructions).
//   hopper 2026-12-07T09:49Z: the persistent build (d 128's default), and the one-CTA-per-tile code
//   restructured around it (one tile per call of the consumer's body, the ring's slot from a running step
//   count): the defaults ran within 1 % of the code before, but one non-default tile (d 128 Bc 128 overlapped
//   without ping-pong at 3 stages) 5.6 % faster, so the measurements before are left out. Since
//   2026-12-06T23:35Z the overlapped schedule's ordering store (lane 0 of each consumer warp stores its row
//   sums before the wait for P V, so the softmax runs beside P V instead of after it: overlapped schedules
//   8-14 % faster on an H100) and one more word per consumer warp in shared memory; the serial schedule's
//   code is unchanged, but a measurement does not say which code its build had, so all of them are left out.
constexpr std::string_view current_since(KernelId k) {
  switch (k) {
    case KernelId::tiled_bwd:
      return "2026-12-06T09:35:48Z";
    case KernelId::hopper:
      return "2026-12-07T09:49:43Z";
    default:
      return "";
  }
}

// Inverse of to_string(KernelId).
constexpr std::optional<KernelId> parse_kernel_id(std::string_view s) {
  for (KernelId k : kAllKernelIds)
    if (s == to_string(k)) return k;
  return std::nullopt;
}

}  // namespace attnscope::vocab
