// SPDX-License-Identifier: Apache-2.0
// Which points of one problem a two-fidelity sweep runs through the cycle model, given each point's
// closed-form lower bounds:
//
//   top K     branch and bound: points in order of their time bound, modeled until the next bound is above
//             the K-th best modeled time. The bound is a lower bound on the modeled time, so no point left
//             unmodeled can rank in the top K: the result equals the exhaustive top K (ties included: a bound
//             equal to the K-th time is still modeled, since a tie is broken by HBM bytes, then index).
//   front     the Pareto front of the bounds (time, HBM bytes, shared memory per CTA), modeled as well: the
//             configurations that could trade time for bytes or SRAM. This front is of the bounds, an
//             estimate of the modeled front, not a proof of it (the bounds' HBM bytes are compulsory
//             traffic, the same for most tiles).
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace attnscope::reports {

struct BoundedCandidate {
  double time_min = 0;  // lower bound on the modeled time
  double hbm_min = 0;   // lower bound on the modeled HBM bytes
  double smem = 0;      // shared memory per CTA (exact)
  std::int64_t index = 0;
};

// The cycle model's answer for a candidate: nullopt when it refuses the point.
struct ModeledRank {
  double time = 0;
  double hbm = 0;
};
using ModelCandidate = std::function<std::optional<ModeledRank>(std::size_t position)>;

// Positions (into `candidates`) of the bounds' Pareto front, in order of increasing time bound; of equal
// bound vectors only the lowest index.
std::vector<std::size_t> bound_pareto_front(const std::vector<BoundedCandidate>& candidates);

// Runs `model` on the candidates that can rank in the top `k` by (time, HBM bytes, index) and returns the
// positions modeled, in the order they were modeled. `model` is called once per position.
std::vector<std::size_t> model_top_k(const std::vector<BoundedCandidate>& candidates, int k,
                                     const ModelCandidate& model);

}  // namespace attnscope::reports
