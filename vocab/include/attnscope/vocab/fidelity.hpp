// SPDX-License-Identifier: Apache-2.0
// Which model produced a number of a sweep, and how a sweep spends the cycle-approximate model:
//
//   bound        the closed-form lower bound (sim/tile_bound.hpp): microseconds per point, no cache or
//   events; cycle_model  the event-driven model (simulate()): milliseconds to seconds per point.
//
// A `cycle` sweep runs the cycle model on every point; a `two` sweep prices every point with the bound and
// runs the cycle model only on the candidates: the exact top K per problem (the bound is a lower bound, so a
// point whose bound is above the K-th best modeled time cannot enter the top K) and the Pareto front of the
// bounds' time, HBM bytes and shared memory.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace attnscope::vocab {

enum class Fidelity : std::uint8_t { cycle_model, bound };
enum class SweepFidelity : std::uint8_t { cycle, two };

constexpr std::string_view to_string(Fidelity f) {
  return f == Fidelity::bound ? "bound" : "cycle_model";
}
constexpr std::optional<Fidelity> parse_fidelity(std::string_view s) {
  if (s == "bound") return Fidelity::bound;
  if (s == "cycle_model") return Fidelity::cycle_model;
  return std::nullopt;
}
constexpr std::string_view to_string(SweepFidelity f) {
  return f == SweepFidelity::two ? "two" : "cycle";
}
constexpr std::optional<SweepFidelity> parse_sweep_fidelity(std::string_view s) {
  if (s == "two") return SweepFidelity::two;
  if (s == "cycle") return SweepFidelity::cycle;
  return std::nullopt;
}

}  // namespace attnscope::vocab
