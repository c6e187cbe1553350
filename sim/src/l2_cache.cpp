// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/l2_cache.hpp"

#include <algorithm>
#include <bit>

#include "popcount.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace attnscope::sim {
namespace {

// The per-way bytes that follow a set's tags: valid masks, dirty masks, LRU ranks.
std::uint8_t* meta(std::uint32_t* tags, int ways) {
  return reinterpret_cast<std::uint8_t*>(tags + ways);
}
const std::uint8_t* meta(const std::uint32_t* tags, int ways) {
  return reinterpret_cast<const std::uint8_t*>(tags + ways);
}

}  // namespace

L2Cache::L2Cache(const GpuSpec& gpu)
    : ways_(gpu.l2_ways),
      partitions_(gpu.l2_partitions),
      sets_(static_cast<std::uint32_t>(gpu.l2_bytes / (std::int64_t{gpu.l2_line_bytes} * gpu.l2_ways))),
      line_shift_(std::countr_zero(static_cast<unsigned>(gpu.l2_line_bytes))),
      sector_shift_(std::countr_zero(static_cast<unsigned>(gpu.l2_sector_bytes))),
      sectors_per_line_(gpu.l2_line_bytes / gpu.l2_sector_bytes) {
  const auto ways = static_cast<std::size_t>(ways_);
  set_words_ = (ways + (3 * ways + 3) / 4 + 15) / 16 * 16;  // tags + 3 bytes per way, in 64-byte units
  storage_.assign(std::size_t{sets_} * set_words_ + 16, 0u);
  const auto misalignment = reinterpret_cast<std::uintptr_t>(storage_.data()) % 64;
  base_ = storage_.data() + (misalignment == 0 ? 0 : (64 - misalignment) / 4);
  clear();
}

void L2Cache::clear() {
  std::fill(storage_.begin(), storage_.end(), 0u);
  for (std::uint32_t s = 0; s < sets_; ++s) {
    std::uint8_t* rank = meta(set_tags(s), ways_) + 2 * ways_;
    for (int w = 0; w < ways_; ++w) rank[w] = static_cast<std::uint8_t>(w);
  }
}

std::uint32_t L2Cache::rotation(std::uint64_t block) const {
  const std::uint64_t h = (block + 1) * 0x9E3779B97F4A7C15ull;
  return static_cast<std::uint32_t>(
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(h >> 32)) * sets_) >> 32);
}

L2Cache::Cursor L2Cache::seek(std::uint64_t line) const {
  Cursor c;
  c.line = line;
  c.block = line / sets_;
  c.offset = static_cast<std::uint32_t>(line - c.block * sets_);
  const std::uint64_t s = std::uint64_t{c.offset} + rotation(c.block);
  c.set = static_cast<std::uint32_t>(s >= sets_ ? s - sets_ : s);
  return c;
}

void L2Cache::advance(Cursor& c, std::uint64_t line) const {
  const std::uint64_t delta = line - c.line;
  if (delta >= sets_ - c.offset) {  // leaves the block: start over
    c = seek(line);
    return;
  }
  c.line = line;
  c.offset += static_cast<std::uint32_t>(delta);
  const std::uint64_t s = std::uint64_t{c.set} + delta;
  c.set = static_cast<std::uint32_t>(s >= sets_ ? s - sets_ : s);
}

L2Cache::Outcome L2Cache::access(const Cursor& c, std::uint8_t sectors, bool write) {
  Outcome out;
  std::uint32_t* tags = set_tags(c.set);
  std::uint8_t* valid = meta(tags, ways_);
  std::uint8_t* dirty = valid + ways_;
  std::uint8_t* ranks = dirty + ways_;
  const auto tag = static_cast<std::uint32_t>(c.block + 1);
  // Bit masks of the way holding the line, the invalid ways and the LRU way.
  std::uint64_t hit_mask = 0, free_mask = 0, lru_mask = 0;
  const auto oldest = static_cast<std::uint8_t>(ways_ - 1);
#if defined(__SSE2__)
  if (ways_ == 16) {  // the common case, four compares of four tags each
    const __m128i want = _mm_set1_epi32(static_cast<int>(tag));
    const __m128i zero = _mm_setzero_si128();
    for (int q = 0; q < 4; ++q) {
      const __m128i t = _mm_loadu_si128(reinterpret_cast<const __m128i*>(tags + 4 * q));
      hit_mask |= static_cast<std::uint64_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(t, want))))
                  << (4 * q);
      free_mask |= static_cast<std::uint64_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(t, zero))))
                   << (4 * q);
    }
    const __m128i r = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ranks));
    lru_mask = static_cast<std::uint64_t>(
        _mm_movemask_epi8(_mm_cmpeq_epi8(r, _mm_set1_epi8(static_cast<char>(oldest)))));
  } else
#endif
  {
    for (int w = 0; w < ways_; ++w) {
      hit_mask |= std::uint64_t{tags[w] == tag} << w;
      free_mask |= std::uint64_t{tags[w] == 0} << w;
      lru_mask |= std::uint64_t{ranks[w] == oldest} << w;
    }
  }
  const int hit_way = hit_mask != 0 ? std::countr_zero(hit_mask) : -1;
  const int free_way = free_mask != 0 ? std::countr_zero(free_mask) : -1;
  const int lru_way = std::countr_zero(lru_mask | (std::uint64_t{1} << 63));
  int way = hit_way;
  if (way < 0) {
    way = free_way >= 0 ? free_way : lru_way;
    if (tags[way] != 0 && dirty[way] != 0) {
      out.writeback_sectors = popcount8(dirty[way]);
      const std::uint64_t victim_block = tags[way] - 1u;
      const std::uint32_t rot = rotation(victim_block);
      const std::uint32_t offset = c.set >= rot ? c.set - rot : c.set + sets_ - rot;
      out.victim_line = victim_block * sets_ + offset;
    }
    tags[way] = tag;
    valid[way] = 0;
    dirty[way] = 0;
  }
  const auto hit = static_cast<std::uint8_t>(sectors & valid[way]);
  out.hit_sectors = popcount8(hit);
  out.miss_sectors = popcount8(sectors) - out.hit_sectors;
  valid[way] = static_cast<std::uint8_t>(valid[way] | sectors);
  if (write) dirty[way] = static_cast<std::uint8_t>(dirty[way] | sectors);
  // Promote to most recently used: every way more recent than it ages by one.
  const std::uint8_t rank = ranks[way];
#if defined(__SSE2__)
  if (ways_ == 16) {  // ranks are below 64, so a signed byte compare is exact
    const __m128i r = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ranks));
    const __m128i younger = _mm_cmplt_epi8(r, _mm_set1_epi8(static_cast<char>(rank)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(ranks), _mm_sub_epi8(r, younger));  // -(-1) = +1
  } else
#endif
  {
    for (int w = 0; w < ways_; ++w)
      ranks[w] = static_cast<std::uint8_t>(ranks[w] + (ranks[w] < rank ? 1 : 0));
  }
  ranks[way] = 0;
  return out;
}

std::uint64_t L2Cache::resident_bytes() const {
  std::uint64_t n = 0;
  for (std::uint32_t s = 0; s < sets_; ++s) {
    const std::uint8_t* valid = meta(set_tags(s), ways_);
    for (int w = 0; w < ways_; ++w) n += popcount8(valid[w]);
  }
  return n << sector_shift_;
}

std::uint64_t L2Cache::dirty_bytes() const {
  std::uint64_t n = 0;
  for (std::uint32_t s = 0; s < sets_; ++s) {
    const std::uint8_t* dirty = meta(set_tags(s), ways_) + ways_;
    for (int w = 0; w < ways_; ++w) n += popcount8(dirty[w]);
  }
  return n << sector_shift_;
}

}  // namespace attnscope::sim
