// SPDX-License-Identifier: Apache-2.0
// Which attention kernels exist. Two kinds: the naive (unfused) attention of three launches, and the tiled
// FlashAttention-2 forward of one. Each launch is a KernelId; its name ("tiled", "naive.qk", ...) is what
// reports, timelines and the command line call it.
//
// C++17 and constexpr only: the CUDA translation units of kernels/ include this header.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace attnscope::vocab {

enum class KernelKind : std::uint8_t {
  naive,  // three kernels: S = QK^T*scale -> HBM; softmax(S) -> P in place; O = P V
  tiled,  // FlashAttention-2 forward: one CTA per (q-tile, head, batch), online softmax
};

// One launched kernel. The naive kind launches three, in this order.
enum class KernelId : std::uint8_t { tiled, naive_qk, naive_softmax, naive_pv };
inline constexpr int kKernelIdCount = 4;
inline constexpr std::array<KernelId, kKernelIdCount> kAllKernelIds = {
    KernelId::tiled, KernelId::naive_qk, KernelId::naive_softmax, KernelId::naive_pv};

constexpr KernelKind kind_of(KernelId k) {
  return k == KernelId::tiled ? KernelKind::tiled : KernelKind::naive;
}

constexpr std::string_view to_string(KernelKind k) {
  return k == KernelKind::naive ? "naive" : "tiled";
}

// "naive" | "tiled" (also "flash", the name the FlashAttention papers give the tiled kernel).
constexpr std::optional<KernelKind> parse_kernel_kind(std::string_view s) {
  if (s == "naive") return KernelKind::naive;
  if (s == "tiled" || s == "flash") return KernelKind::tiled;
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
  }
  return "?";
}

// Inverse of to_string(KernelId).
constexpr std::optional<KernelId> parse_kernel_id(std::string_view s) {
  for (KernelId k : kAllKernelIds)
    if (s == to_string(k)) return k;
  return std::nullopt;
}

}  // namespace attnscope::vocab
