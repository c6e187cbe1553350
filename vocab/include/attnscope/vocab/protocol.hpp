// SPDX-License-Identifier: Apache-2.0
// How a measurement was taken, as typed facts: the L2 state each measured kernel starts from (the cache
// protocol) and how CUPTI replayed the kernel to collect counters needing several passes. The model of a
// measurement must run under the same protocol, or measured and modeled do not describe the same thing.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace attnscope::vocab {

// L2 state at the start of every measured range.
enum class CacheProtocol : std::uint8_t {
  flush,     // L2 written back and emptied before every measured kernel (as ncu --cache-control all)
  sequence,  // flushed once, then the kernels back to back (naive: softmax sees what qk left)
  warm,      // the same launches run once unmeasured right before, so L2 holds what they left
};

// How CUPTI replays a range to collect metrics needing several passes.
enum class ReplayMode : std::uint8_t {
  user,    // the profiler re-runs the whole sequence itself, flushing L2 before each range
  kernel,  // CUPTI kernel replay: CUPTI restores memory between passes, so the L2 state of passes after
           // the first is CUPTI's, not the protocol's
};

constexpr std::string_view to_string(CacheProtocol p) {
  switch (p) {
    case CacheProtocol::flush:
      return "flush";
    case CacheProtocol::sequence:
      return "sequence";
    case CacheProtocol::warm:
      return "warm";
  }
  return "?";
}
constexpr std::optional<CacheProtocol> parse_cache_protocol(std::string_view s) {
  if (s == "flush") return CacheProtocol::flush;
  if (s == "sequence") return CacheProtocol::sequence;
  if (s == "warm") return CacheProtocol::warm;
  return std::nullopt;
}
constexpr std::string_view to_string(ReplayMode m) {
  return m == ReplayMode::user ? "user" : "kernel";
}
constexpr std::optional<ReplayMode> parse_replay_mode(std::string_view s) {
  if (s == "user") return ReplayMode::user;
  if (s == "kernel") return ReplayMode::kernel;
  return std::nullopt;
}

}  // namespace attnscope::vocab
