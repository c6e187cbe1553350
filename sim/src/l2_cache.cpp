// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/l2_cache.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "attnscope/sim/error.hpp"
#include "popcount.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace attnscope::sim {
namespace {

#if defined(__SSE2__)
// Move to front in a 16-way set (four 4-entry vectors, 64-byte aligned): entries 0..way-1 move one place
// back, `front` becomes entry 0, entries after `way` stay. The compiler made the scalar loop a memmove call,
// a visible cost on the line-by-line hot path; this is loads, shifts and stores of the vectors up to the one
// holding `way`, whose entries after `way` are blended back.
void move_to_front16(std::uint32_t* set, int way, std::uint32_t front) {
  __m128i carry = _mm_cvtsi32_si128(static_cast<int>(front));
  const int last = way >> 2;
  auto* p = reinterpret_cast<__m128i*>(set);
  for (int k = 0; k < last; ++k, ++p) {  // whole vectors move one entry back
    const __m128i v = _mm_load_si128(p);
    _mm_store_si128(p, _mm_or_si128(_mm_slli_si128(v, 4), carry));
    carry = _mm_srli_si128(v, 12);  // this vector's last entry becomes the next vector's first
  }
  const __m128i v = _mm_load_si128(p);
  const __m128i shifted = _mm_or_si128(_mm_slli_si128(v, 4), carry);
  const __m128i index = _mm_setr_epi32(4 * last, 4 * last + 1, 4 * last + 2, 4 * last + 3);
  const __m128i take = _mm_cmplt_epi32(index, _mm_set1_epi32(way + 1));  // entries up to `way` move
  _mm_store_si128(p, _mm_or_si128(_mm_and_si128(take, shifted), _mm_andnot_si128(take, v)));
}
#endif

}  // namespace

L2Cache::L2Cache(const GpuSpec& gpu)
    : ways_(gpu.l2_ways),
      partitions_(gpu.l2_partitions),
      sets_(static_cast<std::uint32_t>(gpu.l2_bytes / (std::int64_t{gpu.l2_line_bytes} * gpu.l2_ways))),
      line_shift_(std::countr_zero(static_cast<unsigned>(gpu.l2_line_bytes))),
      sector_shift_(std::countr_zero(static_cast<unsigned>(gpu.l2_sector_bytes))),
      sectors_per_line_(gpu.l2_line_bytes / gpu.l2_sector_bytes) {
  if (sectors_per_line_ < 1 || sectors_per_line_ > 4 || ways_ < 1 || sets_ < 1)
    throw InvalidInput("L2 model: needs 1 to 4 sectors per line and at least one set of one way, got " +
                       std::to_string(sectors_per_line_) + " sectors, " + std::to_string(ways_) + " ways");
  set_words_ = (static_cast<std::size_t>(ways_) + 15) / 16 * 16;  // whole 64-byte host lines
  storage_.assign(std::size_t{sets_} * set_words_ + 16, 0u);
  const auto misalignment = reinterpret_cast<std::uintptr_t>(storage_.data()) % 64;
  base_ = storage_.data() + (misalignment == 0 ? 0 : (64 - misalignment) / 4);
  const std::int64_t budget = gpu.l2_dirty_bytes / std::max(1, partitions_) / gpu.l2_sector_bytes;
  set_dirty_limit(static_cast<std::uint64_t>(std::max<std::int64_t>(budget, 0)));
}

void L2Cache::clear() {
  std::fill(storage_.begin(), storage_.end(), 0u);
  set_dirty_limit(dirty_limit_);
}

void L2Cache::set_dirty_limit(std::uint64_t sectors) {
  dirty_limit_ = sectors;
  compact_above_ = 4 * sectors + 1024;
  over_limit_ = false;
  const auto partitions = static_cast<std::size_t>(std::max(1, partitions_));
  dirty_sectors_.assign(partitions, 0);
  dirty_queue_.resize(partitions);
  for (DirtyQueue& q : dirty_queue_) q.head = q.size = 0;
  if (sectors == 0) return;
  // What is dirty now (a budget set on a cache in use) joins the queue in set order, uncompacted.
  for (std::uint32_t s = 0; s < sets_; ++s)
    for (int w = 0; w < ways_; ++w) {
      const std::uint32_t e = set_entries(s)[w];
      if ((e & kTagMask) != 0 && dirty_of(e) != 0) {
        DirtyQueue& q = dirty_queue_[s % partitions];
        dirty_sectors_[s % partitions] += sector_count(dirty_of(e));
        if (q.size == q.capacity) grow(q);
        q.push(DirtyEntry{s, e & kTagMask});
      }
    }
}

void L2Cache::grow(DirtyQueue& q) {
  const std::size_t capacity = std::max<std::size_t>(1024, 2 * q.capacity);
  auto ring = std::make_unique_for_overwrite<DirtyEntry[]>(capacity);
  for (std::size_t i = 0; i < q.size; ++i) ring[i] = q.ring[(q.head + i) & q.mask()];
  q.ring = std::move(ring);
  q.capacity = capacity;
  q.head = 0;
}

std::uint64_t L2Cache::line_of(std::uint32_t set, std::uint32_t tag) const {
  const std::uint64_t block = (tag & ~kCopyBit) - 1u;
  const std::uint32_t rot = rotation(block);
  const std::uint32_t offset = set >= rot ? set - rot : set + sets_ - rot;
  return block * sets_ + offset;
}

int L2Cache::find_way(const std::uint32_t* set, std::uint32_t tag) const {
#if defined(__SSE2__)
  if (ways_ == 16) {  // the common case: four compares of four tags each
    const __m128i want = _mm_set1_epi32(static_cast<int>(tag));
    const __m128i mask = _mm_set1_epi32(static_cast<int>(kTagMask));
    unsigned hits = 0;
    for (int q = 0; q < 4; ++q) {
      const __m128i e = _mm_and_si128(_mm_load_si128(reinterpret_cast<const __m128i*>(set + 4 * q)), mask);
      hits |= static_cast<unsigned>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(e, want)))) << (4 * q);
    }
    return hits != 0 ? std::countr_zero(hits) : -1;
  }
#endif
  for (int w = 0; w < ways_; ++w)
    if ((set[w] & kTagMask) == tag) return w;
  return -1;
}

// A set holds a tag at most once, so the entry's line is the way holding its tag, if that way is dirty.
L2Cache::Cleaned L2Cache::clean_oldest(std::size_t p) {
  constexpr std::size_t kAhead = 8;  // the queue's sets are far apart in host memory: prefetched this early
  // The queue itself (up to 16 MB a partition on the H200) is read a few entries per store, too slowly for
  // the hardware prefetcher to follow: its next host lines are asked for well ahead.
  constexpr std::size_t kRingAhead = 64;
  DirtyQueue& q = dirty_queue_[p];
  Cleaned out;
  while (q.size > 0) {
    if (q.size > kAhead) prefetch(q.ring[(q.head + kAhead) & q.mask()].set);
    if ((q.head & 7) == 0) __builtin_prefetch(&q.ring[(q.head + kRingAhead) & q.mask()]);
    const DirtyEntry d = q.ring[q.head];
    q.head = (q.head + 1) & q.mask();
    --q.size;
    std::uint32_t* set = set_entries(d.set);
    const int w = find_way(set, d.tag);
    if (w < 0 || dirty_of(set[w]) == 0) continue;
    out.sectors = sector_count(dirty_of(set[w]));
    out.line = line_of(d.set, d.tag);
    set[w] &= ~(std::uint32_t{0xF} << kDirtyShift);  // written back: resident and clean, where it was
    dirty_sectors_[p] -= out.sectors;
    return out;
  }
  dirty_sectors_[p] = 0;  // nothing dirty is left queued (cannot happen while the counts are right)
  return out;
}

// Drops the queue's entries of lines no longer dirty and resident (evicted, or cleaned and written again
// later: those have a newer entry), keeping the order of the rest, in place.
void L2Cache::compact_dirty_queue(std::size_t p) {
  constexpr std::size_t kAhead = 16;
  DirtyQueue& q = dirty_queue_[p];
  const std::size_t mask = q.mask();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < q.size; ++i) {
    if (i + kAhead < q.size) prefetch(q.ring[(q.head + i + kAhead) & mask].set);
    const DirtyEntry d = q.ring[(q.head + i) & mask];
    const std::uint32_t* set = set_entries(d.set);
    const int w = find_way(set, d.tag);
    if (w >= 0 && dirty_of(set[w]) != 0) q.ring[(q.head + kept++) & mask] = d;
  }
  q.size = kept;
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

L2Cache::Lookup L2Cache::access_rest(std::uint32_t set_index, std::uint64_t block, std::uint8_t sectors,
                                     bool write, bool copy) {
  Lookup out;
  const std::uint32_t tag = tag_of(block, copy);
  std::uint32_t* set = set_entries(set_index);
  int way = find_way(set, tag);
  std::uint32_t e = 0;
  if (way >= 0) {
    e = set[way];
    out.hit_mask = static_cast<std::uint8_t>(sectors & valid_of(e));
  } else {
    // Miss: the last entry is the least recently used (or invalid) line; it leaves, writing back dirty
    // sectors.
    way = ways_ - 1;
    const std::uint32_t victim = set[way];
    if ((victim & kTagMask) != 0 && dirty_of(victim) != 0) {  // copies are never dirty: a home line
      out.writeback_sectors = static_cast<std::uint8_t>(sector_count(dirty_of(victim)));
      if (dirty_limit_ != 0) dirty_sectors_[partition_of(set_index)] -= out.writeback_sectors;
      const std::uint64_t victim_block = (victim & kTagMask & ~kCopyBit) - 1u;
      const std::uint32_t rot = rotation(victim_block);
      const std::uint32_t offset = set_index >= rot ? set_index - rot : set_index + sets_ - rot;
      out.victim_line = victim_block * sets_ + offset;
    }
    e = tag;
  }
  e = updated(e, sectors, write, set_index);
  // Move to front: the entries more recent than it shift one place back.
#if defined(__SSE2__)
  if (ways_ == 16) {
    move_to_front16(set, way, e);
    return out;
  }
#endif
  for (int w = way; w > 0; --w) set[w] = set[w - 1];
  set[0] = e;
  return out;
}

std::uint64_t L2Cache::resident_bytes() const {
  std::uint64_t n = 0;
  for (std::uint32_t s = 0; s < sets_; ++s)
    for (int w = 0; w < ways_; ++w) n += popcount8(valid_of(set_entries(s)[w]));
  return n << sector_shift_;
}

std::uint64_t L2Cache::dirty_bytes() const {
  std::uint64_t n = 0;
  for (std::uint32_t s = 0; s < sets_; ++s)
    for (int w = 0; w < ways_; ++w) n += popcount8(dirty_of(set_entries(s)[w]));
  return n << sector_shift_;
}

}  // namespace attnscope::sim
