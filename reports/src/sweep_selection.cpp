// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/sweep_selection.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

namespace attnscope::reports {

std::vector<std::size_t> bound_pareto_front(const std::vector<BoundedCandidate>& candidates) {
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto key = [&](std::size_t i) {
    const auto& c = candidates[i];
    return std::make_tuple(c.time_min, c.hbm_min, c.smem, c.index);
  };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  // Walking by increasing time, a point is dominated when an earlier one (time <=) has HBM <= and
  // shared memory <= too. Shared memory takes few distinct values: keep the least HBM seen per value.
  std::map<double, double> least_hbm;  // smem -> least HBM bound of the points kept so far
  std::vector<std::size_t> front;
  for (std::size_t i : order) {
    const auto& c = candidates[i];
    bool dominated = false;
    for (auto it = least_hbm.begin(); it != least_hbm.end() && it->first <= c.smem; ++it)
      if (it->second <= c.hbm_min) {
        dominated = true;
        break;
      }
    if (dominated) continue;
    front.push_back(i);
    auto [it, inserted] = least_hbm.emplace(c.smem, c.hbm_min);
    if (!inserted) it->second = std::min(it->second, c.hbm_min);
  }
  return front;
}

std::vector<std::size_t> model_top_k(const std::vector<BoundedCandidate>& candidates, int k,
                                     const ModelCandidate& model) {
  std::vector<std::size_t> order(candidates.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = candidates[a];
    const auto& y = candidates[b];
    return x.time_min != y.time_min ? x.time_min < y.time_min : x.index < y.index;
  });
  // The best k modeled so far by (time, HBM, index), kept sorted; its last entry is the bar to beat.
  using Rank = std::tuple<double, double, std::int64_t>;
  std::vector<Rank> best;
  std::vector<std::size_t> modeled;
  for (std::size_t i : order) {
    const auto& c = candidates[i];
    // A bound above the k-th best time: this point and every later one (larger bounds) rank below it.
    if (static_cast<int>(best.size()) == k && c.time_min > std::get<0>(best.back())) break;
    modeled.push_back(i);
    const std::optional<ModeledRank> r = model(i);
    if (!r) continue;
    const Rank rank{r->time, r->hbm, c.index};
    best.insert(std::upper_bound(best.begin(), best.end(), rank), rank);
    if (static_cast<int>(best.size()) > k) best.pop_back();
  }
  return modeled;
}

}  // namespace attnscope::reports
