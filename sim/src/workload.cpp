// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/workload.hpp"

#include <cmath>
#include <string>

#include "attnscope/sim/error.hpp"
#include "attnscope/vocab/geometry.hpp"

namespace attnscope::sim {

double Workload::effective_scale() const {
  return scale != 0.0 ? scale : 1.0 / std::sqrt(static_cast<double>(head_dim));
}

double Workload::flops() const {
  return flops(pass);
}

double Workload::flops(Pass p) const {
  double f = 4.0 * static_cast<double>(batch) * static_cast<double>(heads) * static_cast<double>(seq_q) *
             static_cast<double>(seq_kv) * static_cast<double>(head_dim);
  if (window > 0)
    f = 4.0 * static_cast<double>(batch) * static_cast<double>(heads) * visible_pairs() *
        static_cast<double>(head_dim);
  else if (causal)
    f /= 2.0;
  return p == Pass::fwd ? f : p == Pass::bwd ? 2.5 * f : 3.5 * f;
}

std::string mask_label(const Workload& w) {
  std::string out = w.causal ? " causal" : "";
  if (w.window > 0) out += " window=" + std::to_string(w.window);
  if (w.alibi) out += " alibi";
  return out;
}

double Workload::visible_pairs() const {
  if (!causal) return static_cast<double>(seq_q) * static_cast<double>(seq_kv);
  // Row i sees keys [first(i), end(i)); a sum in closed form would need four cases, the loop is cheap
  // next to any model run (one pass over Nq rows).
  double pairs = 0.0;
  for (std::int64_t i = 0; i < seq_q; ++i) {
    const std::int64_t end = vocab::visible_keys(i, seq_q, seq_kv, vocab::Mask::causal);
    const std::int64_t first = vocab::first_visible_key(i, seq_q, seq_kv, window);
    if (end > first) pairs += static_cast<double>(end - first);
  }
  return pairs;
}

namespace {
void require_positive(std::int64_t v, const char* field) {
  if (v <= 0)
    throw InvalidInput(std::string("workload: ") + field + " must be positive, got " + std::to_string(v));
}
}  // namespace

void validate(const Workload& w) {
  require_positive(w.batch, "batch");
  require_positive(w.heads, "heads");
  require_positive(w.seq_q, "seq_q (query length)");
  require_positive(w.seq_kv, "seq_kv (key/value length)");
  require_positive(w.head_dim, "head_dim");
  // Grid dimensions and 32-bit offsets inside one (batch, head) slice must stay representable.
  constexpr std::int64_t kMaxSeq = std::int64_t{1} << 24;
  if (w.seq_q > kMaxSeq || w.seq_kv > kMaxSeq)
    throw InvalidInput("workload: sequence length above 16M tokens is not supported");
  // Divided, not multiplied: batch * heads itself can overflow (batch 2^62, heads 4).
  if (w.batch > ((std::int64_t{1} << 31) - 1) / w.heads)
    throw InvalidInput("workload: batch * heads must fit in 31 bits");
  if (w.head_dim > 512) throw InvalidInput("workload: head_dim above 512 is not supported");
  if (w.window < 0) throw InvalidInput("workload: window must be >= 0 (0 means no sliding window)");
  if (w.window > 0 && !w.causal)
    throw InvalidInput(
        "workload: a sliding window is causal (each row sees the window keys ending at its "
        "diagonal); add --causal");
  if (!std::isfinite(w.scale) || w.scale < 0.0)
    throw InvalidInput("workload: scale must be finite and non-negative (0 means 1/sqrt(head_dim))");
}

Workload preset(std::string_view name) {
  Workload w;
  if (name == "llm-4k") {
    // The seeds' example: torch.randn(1, 32, 4096, 64, dtype=torch.float16).
    w.name = "llm-4k";
    w.batch = 1;
    w.heads = 32;
    w.seq_q = w.seq_kv = 4096;
    w.head_dim = 64;
    w.dtype = DType::fp16;
    return w;
  }
  if (name == "vit-b16") {
    // ViT-B/16 at 224x224: (224/16)^2 = 196 patches + 1 class token; 12 heads of 64 (D = 768).
    w.name = "vit-b16";
    w.batch = 32;
    w.heads = 12;
    w.seq_q = w.seq_kv = 197;
    w.head_dim = 64;
    w.dtype = DType::fp16;
    return w;
  }
  std::string known;
  for (const auto& n : preset_names()) known += (known.empty() ? "" : ", ") + n;
  throw InvalidInput("unknown workload preset '" + std::string(name) + "' (known: " + known + ")");
}

std::vector<std::string> preset_names() {
  return {"llm-4k", "vit-b16"};
}

}  // namespace attnscope::sim
