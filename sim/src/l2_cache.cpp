// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/l2_cache.hpp"

#include <algorithm>
#include <bit>

namespace attnscope::sim {
namespace {

int log2_of(int x) {
  return std::countr_zero(static_cast<unsigned>(x));
}

// Scatter consecutive lines over partitions and sets, as the hardware's (unpublished) XOR hash does.
std::uint64_t mix(std::uint64_t line) {
  return line * 0x9E3779B97F4A7C15ull;
}

// Map the 32 high or low bits of a hash onto [0, n) without a division.
std::uint32_t reduce(std::uint32_t bits, std::uint32_t n) {
  return static_cast<std::uint32_t>((std::uint64_t{bits} * n) >> 32);
}

}  // namespace

L2Cache::L2Cache(const GpuSpec& gpu)
    : ways_(gpu.l2_ways),
      partitions_(gpu.l2_partitions),
      sets_per_partition_(static_cast<std::uint32_t>(
          gpu.l2_bytes / (std::int64_t{gpu.l2_line_bytes} * gpu.l2_ways * gpu.l2_partitions))),
      line_shift_(log2_of(gpu.l2_line_bytes)),
      sector_shift_(log2_of(gpu.l2_sector_bytes)),
      sectors_per_line_(gpu.l2_line_bytes / gpu.l2_sector_bytes) {
  const std::size_t n = std::size_t{sets_per_partition_} * static_cast<std::size_t>(partitions_ * ways_);
  tag_.assign(n, 0);
  last_use_.assign(n, 0);
  valid_.assign(n, 0);
  dirty_.assign(n, 0);
}

void L2Cache::clear() {
  std::fill(tag_.begin(), tag_.end(), 0);
  std::fill(last_use_.begin(), last_use_.end(), 0);
  std::fill(valid_.begin(), valid_.end(), 0);
  std::fill(dirty_.begin(), dirty_.end(), 0);
  clock_ = 0;
}

L2Cache::Place L2Cache::locate(std::uint64_t line) const {
  const std::uint64_t h = mix(line);
  const auto partition =
      static_cast<int>(reduce(static_cast<std::uint32_t>(h >> 32), static_cast<std::uint32_t>(partitions_)));
  const std::uint32_t set = reduce(static_cast<std::uint32_t>(h), sets_per_partition_);
  return {partition, static_cast<std::uint32_t>(partition) * sets_per_partition_ + set};
}

// Returns the way holding `tag` (found = true) or the way it replaces: an invalid way, else the least
// recently used one, whose dirty sectors are written back.
std::uint32_t L2Cache::find_or_replace(std::uint32_t set, std::uint64_t tag, bool& found, Outcome& out) {
  const std::uint32_t first = set * static_cast<std::uint32_t>(ways_);
  const std::uint64_t* tags = tag_.data() + first;
  for (int w = 0; w < ways_; ++w) {
    if (tags[w] == tag) {
      found = true;
      return first + static_cast<std::uint32_t>(w);
    }
  }
  found = false;
  std::uint32_t victim = first;
  std::uint64_t oldest = ~std::uint64_t{0};
  for (int w = 0; w < ways_; ++w) {
    if (tags[w] == 0) {
      victim = first + static_cast<std::uint32_t>(w);
      oldest = 0;
      break;
    }
    if (last_use_[first + static_cast<std::uint32_t>(w)] < oldest) {
      oldest = last_use_[first + static_cast<std::uint32_t>(w)];
      victim = first + static_cast<std::uint32_t>(w);
    }
  }
  if (tag_[victim] != 0 && dirty_[victim] != 0) {
    out.writeback_sectors = static_cast<std::uint32_t>(std::popcount(dirty_[victim]));
    out.victim_line = tag_[victim] - 1;
  }
  tag_[victim] = tag;
  valid_[victim] = 0;
  dirty_[victim] = 0;
  return victim;
}

L2Cache::Outcome L2Cache::read(std::uint64_t line, std::uint8_t sectors) {
  Outcome out;
  const Place p = locate(line);
  out.partition = p.partition;
  bool found = false;
  const std::uint32_t way = find_or_replace(p.set, line + 1, found, out);
  const auto hit = static_cast<std::uint8_t>(sectors & valid_[way]);
  out.hit_sectors = static_cast<std::uint32_t>(std::popcount(hit));
  out.miss_sectors = static_cast<std::uint32_t>(std::popcount(sectors)) - out.hit_sectors;
  valid_[way] = static_cast<std::uint8_t>(valid_[way] | sectors);
  last_use_[way] = ++clock_;
  return out;
}

L2Cache::Outcome L2Cache::write(std::uint64_t line, std::uint8_t sectors) {
  Outcome out;
  const Place p = locate(line);
  out.partition = p.partition;
  bool found = false;
  const std::uint32_t way = find_or_replace(p.set, line + 1, found, out);
  const auto hit = static_cast<std::uint8_t>(sectors & valid_[way]);
  out.hit_sectors = static_cast<std::uint32_t>(std::popcount(hit));
  out.miss_sectors = static_cast<std::uint32_t>(std::popcount(sectors)) - out.hit_sectors;
  valid_[way] = static_cast<std::uint8_t>(valid_[way] | sectors);
  dirty_[way] = static_cast<std::uint8_t>(dirty_[way] | sectors);
  last_use_[way] = ++clock_;
  return out;
}

std::uint64_t L2Cache::resident_bytes() const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < valid_.size(); ++i) n += static_cast<std::uint64_t>(std::popcount(valid_[i]));
  return n << sector_shift_;
}

std::uint64_t L2Cache::dirty_bytes() const {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < dirty_.size(); ++i) n += static_cast<std::uint64_t>(std::popcount(dirty_[i]));
  return n << sector_shift_;
}

}  // namespace attnscope::sim
