// SPDX-License-Identifier: Apache-2.0
// An attention workload: the shape of Q (batch, heads, seq_q, head_dim), K and V (batch, heads, seq_kv,
// head_dim), their element type, causal masking and the softmax scale. Every front end (CLI, GUI,
// benchmarks) shares the presets below, so "llm-4k" means the same thing everywhere.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attnscope/sim/dtype.hpp"
#include "attnscope/vocab/kernel.hpp"

namespace attnscope::sim {

using vocab::parse_pass;  // "fwd" | "bwd" | "both"
using vocab::Pass;        // fwd | bwd | both (a training step: forward, then backward)

struct Workload {
  std::string name = "custom";
  std::int64_t batch = 1;
  std::int64_t heads = 32;
  std::int64_t seq_q = 4096;   // query length (rows of Q and O)
  std::int64_t seq_kv = 4096;  // key/value length (rows of K and V)
  std::int64_t head_dim = 64;
  DType dtype = DType::fp16;
  bool causal = false;  // bottom-right aligned mask when seq_q != seq_kv (FlashAttention-2 convention)
  // Sliding window (local attention, requires causal): row i sees only the `window` keys ending at its
  // diagonal; 0 means none (vocab::first_visible_key).
  std::int64_t window = 0;
  bool alibi = false;     // ALiBi bias on the scores: changes values and work per score, no visibility
  double scale = 0.0;     // softmax scale; 0 means 1/sqrt(head_dim)
  Pass pass = Pass::fwd;  // which pass runs: the forward, the backward (given O, LSE and dO), or both

  double effective_scale() const;
  // A sliding window or ALiBi: the kernels then run their general-mask variants (default tiles only).
  bool general_mask() const { return window > 0 || alibi; }
  // Query-key pairs that are visible (summed over rows of one (batch, head)): Nq Nkv without a mask,
  // exact under causal and window masks.
  double visible_pairs() const;
  // FLOPs by the convention 4*B*H*Nq*Nkv*d, halved when causal (the reference-speed convention; a
  // sliding window counts its visible pairs exactly instead), of the forward pass; the backward counts 2.5
  // times that (five products against two, the FlashAttention papers' convention), a training step 3.5 times.
  double flops() const;
  double flops(Pass p) const;
};

// The mask in words for one-line summaries: "" (none), " causal", " causal window=W", plus " alibi".
std::string mask_label(const Workload& w);

// Throws InvalidInput with a message naming the field when a size is zero/negative or too large.
void validate(const Workload& w);

// Presets: "llm-4k" (the default: fp16, B=1, H=32, N=4096, d=64) and "vit-b16" (ViT-B/16 at 224x224:
// 197 tokens = 196 patches + class token, H=12, d=64, B=32).
Workload preset(std::string_view name);  // throws InvalidInput listing the known presets
std::vector<std::string> preset_names();
inline constexpr std::string_view kDefaultPreset = "llm-4k";

}  // namespace attnscope::sim
