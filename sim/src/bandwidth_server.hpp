// SPDX-License-Identifier: Apache-2.0
// A first-come-first-served server of fixed throughput (an HBM channel, an L2 partition, one SM's tensor
// cores). Requests arrive in time order (the event loop guarantees it); each occupies the server for
// amount / rate seconds after the server is free. Contention among CTAs in flight comes from here.
#pragma once
#include <algorithm>

namespace attnscope::sim::detail {

class BandwidthServer {
 public:
  BandwidthServer() = default;
  explicit BandwidthServer(double units_per_second) : seconds_per_unit_(1.0 / units_per_second) {}

  // Occupies the server with `amount` units arriving at `now`; returns when it is served (seconds).
  double serve(double now, double amount) {
    if (amount <= 0) return now;
    free_at_ = std::max(now, free_at_) + amount * seconds_per_unit_;
    return free_at_;
  }
  double free_at() const { return free_at_; }

 private:
  double seconds_per_unit_ = 0;
  double free_at_ = 0;
};

}  // namespace attnscope::sim::detail
