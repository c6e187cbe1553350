// SPDX-License-Identifier: Apache-2.0
// The L2 cache: sectored (32-byte sectors in 128-byte lines), set-associative with true LRU replacement,
// split into partitions, write-back with a dirty bit per sector.
//
//   - A read fetches only the sectors it misses (sector fills), allocating the line if absent.
//   - A write allocates the line and marks its sectors valid and dirty without reading HBM (stores write
//     whole sectors in these kernels; a partial-sector write is treated as a whole-sector one). An atomic
//     reduction is a write whose missed sectors the engine first reads from HBM (the old value).
//   - Evicting a line writes its dirty sectors back to HBM: that is where HBM writes come from. Nothing is
//     flushed when a kernel ends; the next kernel inherits what is resident and dirty (as on the H200).
//   - A partition holds at most a budget of dirty sectors (set_dirty_limit, GpuSpec::l2_dirty_bytes): a store
//     that takes it over the budget writes back the partition's oldest dirty line (the one made dirty first),
//     which stays resident and clean. Streaming writers on the H200 end with the same ~29.5 MB dirty whatever
//     they wrote (0.5 to 17 GB), well below what LRU alone leaves dirty; see GpuSpec::l2_dirty_bytes.
//
// Set index: consecutive lines go to consecutive sets (and alternate partitions, set % partitions), and each
// block of `sets` lines is rotated by a hash of its block number so that tensors a multiple of the cache size
// apart do not collide set for set. The real hash is unpublished; this one spreads like it and keeps the
// model's own memory access sequential (a Cursor walks consecutive lines without a division).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "attnscope/sim/gpu_spec.hpp"

namespace attnscope::sim {

class L2Cache {
 public:
  struct Outcome {
    std::uint32_t hit_sectors = 0;        // requested sectors already valid
    std::uint32_t miss_sectors = 0;       // requested sectors that were not (reads fetch them from HBM)
    std::uint32_t writeback_sectors = 0;  // dirty sectors of an evicted line, written to HBM
    std::uint64_t victim_line = 0;        // the evicted line (when writeback_sectors > 0)
    std::uint8_t miss_mask = 0;           // which requested sectors missed
  };
  // Where a line lives; advance() moves it forward cheaply.
  struct Cursor {
    std::uint64_t line = 0;
    std::uint64_t block = 0;   // line / sets
    std::uint32_t offset = 0;  // line % sets
    std::uint32_t set = 0;     // global set index
  };

  // Throws InvalidInput when the spec's L2 does not fit the packed entries (more than 4 sectors per line).
  explicit L2Cache(const GpuSpec& gpu);
  L2Cache(const L2Cache&) = delete;  // base_ points into storage_
  L2Cache& operator=(const L2Cache&) = delete;

  // Lines with line / sets() at or above this do not fit the 23-bit tags (bit 23 marks a copy).
  static constexpr std::uint64_t kMaxBlocks = (std::uint64_t{1} << 23) - 2;

  Cursor seek(std::uint64_t line) const;
  // Moves `c` forward to `line` (>= c.line): an add while it stays in the same block of sets() lines.
  void advance(Cursor& c, std::uint64_t line) const {
    const std::uint64_t delta = line - c.line;
    if (delta >= sets_ - c.offset) {
      c = seek(line);
      return;
    }
    c.line = line;
    c.offset += static_cast<std::uint32_t>(delta);
    const std::uint64_t s = std::uint64_t{c.set} + delta;
    c.set = static_cast<std::uint32_t>(s >= sets_ ? s - sets_ : s);
  }
  // Moves `c` to the next line.
  void next(Cursor& c) const {
    if (c.offset + 1 == sets_) {
      c = seek(c.line + 1);
      return;
    }
    ++c.line;
    ++c.offset;
    c.set = c.set + 1 == sets_ ? 0 : c.set + 1;
  }
  int partition(const Cursor& c) const {
    return static_cast<int>(c.set % static_cast<std::uint32_t>(partitions_));
  }

  // `sectors`: bit i set for sector i of the line. `copy`: the access is to a partition's copy of a line
  // whose home is another partition (GpuSpec::l2_near_copies); `set` is then copy_set(home set, partition).
  // Copies are clean and tagged apart from the lines that live in that set.
  Outcome access(std::uint32_t set, std::uint64_t block, std::uint8_t sectors, bool write,
                 bool copy = false) {
    const int hit = access_recent(set, block, sectors, write, copy);
    if (hit >= 0) {
      Outcome out;
      out.hit_sectors = sector_count(static_cast<std::uint32_t>(hit));
      out.miss_sectors = sector_count(sectors) - out.hit_sectors;
      out.miss_mask = static_cast<std::uint8_t>(sectors & ~hit);
      return out;
    }
    const Lookup rest = access_rest(set, block, sectors, write, copy);
    Outcome out;
    out.hit_sectors = sector_count(rest.hit_mask);
    out.miss_sectors = sector_count(sectors) - out.hit_sectors;
    out.miss_mask = static_cast<std::uint8_t>(sectors & ~rest.hit_mask);
    out.writeback_sectors = rest.writeback_sectors;
    out.victim_line = rest.victim_line;
    return out;
  }
  // The same access when the line is one of the two most recently used in its set (the common case: the
  // lines a kernel re-reads are re-read by the next CTA before much else reaches their set; with near copies
  // a set's two hot entries are a home line and a copy): returns the requested sectors that hit, having done
  // what access() does. Otherwise returns -1 and changes nothing (the caller then calls access()).
  // Inline and without a search of the set: the model's per-line hot path.
  int access_recent(std::uint32_t set, std::uint64_t block, std::uint8_t sectors, bool write, bool copy) {
    std::uint32_t* entries = set_entries(set);
    const std::uint32_t tag = tag_of(block, copy);
    const std::uint32_t e0 = entries[0];
    if ((e0 & kTagMask) == tag) {  // already the most recent: no reordering
      entries[0] = updated(e0, sectors, write, set);
      return static_cast<int>(sectors & valid_of(e0));
    }
    const std::uint32_t e1 = entries[1];         // a set has at least 16 words (see set_words_)
    if (ways_ >= 2 && (e1 & kTagMask) == tag) {  // second most recent: it and the first swap places
      entries[0] = updated(e1, sectors, write, set);
      entries[1] = e0;
      return static_cast<int>(sectors & valid_of(e1));
    }
    return -1;
  }
  // What access() does once access_recent() has returned -1: the search of the whole set, a miss and its
  // eviction. The result is small enough to come back in two registers.
  struct Lookup {
    std::uint64_t victim_line = 0;       // the evicted line (when writeback_sectors > 0)
    std::uint8_t hit_mask = 0;           // requested sectors already valid
    std::uint8_t writeback_sectors = 0;  // dirty sectors of an evicted line, written to HBM
  };
  Lookup access_rest(std::uint32_t set, std::uint64_t block, std::uint8_t sectors, bool write, bool copy);
  // Set bits of a sector mask of up to 4 bits, from a nibble table held in a constant (no memory load).
  static std::uint32_t sector_count(std::uint32_t mask) {
    return static_cast<std::uint32_t>((0x4332322132212110ull >> (4 * (mask & 0xFu))) & 0xFu);
  }
  // The dirty budget: at most `sectors` dirty sectors per partition (0: none, only evictions write back).
  void set_dirty_limit(std::uint64_t sectors);
  // True when a store took a partition over its dirty budget; clean_over_limit() then writes back the oldest
  // dirty lines of such partitions until each is within it, calling written_back(line, sectors) for each.
  bool over_dirty_limit() const { return over_limit_; }
  template <class F>
  void clean_over_limit(F&& written_back) {
    for (std::size_t p = 0; p < dirty_sectors_.size(); ++p)
      while (dirty_sectors_[p] > dirty_limit_) {
        const Cleaned c = clean_oldest(p);
        if (c.sectors > 0) written_back(c.line, c.sectors);
      }
    over_limit_ = false;
  }
  // The set in `partition` that holds copies of the lines whose home set is `home_set`.
  std::uint32_t copy_set(std::uint32_t home_set, int partition) const {
    const auto p = static_cast<std::uint32_t>(partitions_);
    return home_set - home_set % p + static_cast<std::uint32_t>(partition);
  }
  Outcome access(const Cursor& c, std::uint8_t sectors, bool write) {
    return access(c.set, c.block, sectors, write);
  }
  // Asks the host to fetch the set's record ahead of access() (the model is bound by host memory latency).
  void prefetch(std::uint32_t set) const { __builtin_prefetch(set_entries(set)); }
  Outcome read(std::uint64_t line, std::uint8_t sectors) { return access(seek(line), sectors, false); }
  Outcome write(std::uint64_t line, std::uint8_t sectors) { return access(seek(line), sectors, true); }
  void clear();  // empty and clean (a cold start)

  int line_shift() const { return line_shift_; }
  int sector_shift() const { return sector_shift_; }
  int sectors_per_line() const { return sectors_per_line_; }
  std::uint32_t sets() const { return sets_; }
  std::uint64_t resident_bytes() const;  // valid sectors x sector size
  std::uint64_t dirty_bytes() const;     // dirty sectors x sector size

 private:
  std::uint32_t rotation(std::uint64_t block) const;

  static constexpr std::uint32_t kTagMask = 0x00FFFFFFu;  // block + 1, and the copy bit
  static constexpr std::uint32_t kCopyBit = 0x00800000u;
  static constexpr int kValidShift = 24;
  static constexpr int kDirtyShift = 28;
  static std::uint32_t tag_of(std::uint64_t block, bool copy) {
    return static_cast<std::uint32_t>(block + 1) | (copy ? kCopyBit : 0u);
  }
  static std::uint8_t valid_of(std::uint32_t e) {
    return static_cast<std::uint8_t>((e >> kValidShift) & 0xFu);
  }
  static std::uint8_t dirty_of(std::uint32_t e) { return static_cast<std::uint8_t>(e >> kDirtyShift); }
  // Entry `e` of `set` after an access to `sectors`: they are valid, and dirty if written (a line that gains
  // dirty sectors joins its partition's dirty queue when there is a budget).
  std::uint32_t updated(std::uint32_t e, std::uint8_t sectors, bool write, std::uint32_t set) {
    e |= std::uint32_t{sectors} << kValidShift;
    if (write) {
      if (dirty_limit_ != 0) note_dirty(set, e, sectors);
      e |= std::uint32_t{sectors} << kDirtyShift;
    }
    return e;
  }
  // The dirty budget's bookkeeping (l2_cache.cpp).
  struct Cleaned {
    std::uint64_t line = 0;
    std::uint32_t sectors = 0;
  };
  struct DirtyEntry {
    std::uint32_t set;
    std::uint32_t tag;
  };
  // A partition's lines in the order they became dirty: a ring buffer (a power of two entries) whose
  // storage outlives clear(), so that the simulations of a sweep, which share a cache, do not grow it and
  // first-touch its megabytes again each time. An entry names a set and a tag, not a way: entries of lines
  // since evicted or cleaned are skipped when they come up (or dropped by a compaction), and an old entry
  // whose line was dirtied again stands for it.
  struct DirtyQueue {
    std::unique_ptr<DirtyEntry[]> ring;
    std::size_t capacity = 0;
    std::size_t head = 0;  // the oldest entry
    std::size_t size = 0;
    std::size_t mask() const { return capacity - 1; }
    void push(DirtyEntry d) {  // the caller has made room
      const std::size_t tail = (head + size) & mask();
      // The tail is written a few entries per store, too slowly for the hardware prefetcher: the host line
      // 64 entries on is asked for (for writing) ahead.
      if ((tail & 7) == 0) __builtin_prefetch(&ring[(tail + 64) & mask()], 1);
      ring[tail] = d;
      ++size;
    }
  };
  std::size_t partition_of(std::uint32_t set) const {  // set % partitions, without a division for two
    return partitions_ == 2 ? set & 1u : set % static_cast<std::uint32_t>(partitions_);
  }
  // Inline: the per-line store path of a streaming writer comes through here.
  void note_dirty(std::uint32_t set, std::uint32_t e, std::uint8_t sectors) {
    const auto fresh = static_cast<std::uint8_t>(sectors & ~dirty_of(e));
    if (fresh == 0) return;
    const std::size_t p = partition_of(set);
    if (dirty_of(e) == 0) {  // the line becomes dirty: it queues behind the partition's older dirty lines
      DirtyQueue& q = dirty_queue_[p];
      // Past this length the entries of lines no longer dirty are dropped, before this line's entry joins:
      // judged on the set as it is now, the line is not dirty yet, and compacting after the push would drop
      // its own entry (the line would then stay dirty outside the budget until evicted).
      if (q.size >= compact_above_) compact_dirty_queue(p);
      if (q.size == q.capacity) grow(q);
      q.push(DirtyEntry{set, e & kTagMask});
    }
    dirty_sectors_[p] += sector_count(fresh);
    if (dirty_sectors_[p] > dirty_limit_) over_limit_ = true;
  }
  // The way of `set` holding `tag`, or -1.
  int find_way(const std::uint32_t* set, std::uint32_t tag) const;
  Cleaned clean_oldest(std::size_t partition);
  void compact_dirty_queue(std::size_t partition);
  static void grow(DirtyQueue& q);
  std::uint64_t line_of(std::uint32_t set, std::uint32_t tag) const;

  int ways_ = 0;
  int partitions_ = 0;
  std::uint32_t sets_ = 0;
  int line_shift_ = 7;
  int sector_shift_ = 5;
  int sectors_per_line_ = 4;
  // One 32-bit entry per way, `ways` per set, each set 64-byte aligned (a 16-way set is one host cache
  // line): tag = block + 1 in bits 0-22 (0 = invalid; the set and the block together name the line), bit 23
  // set for a copy of a line from another partition (the set's partition is then not the line's home), valid
  // sectors in bits 24-27, dirty sectors in 28-31. A set's entries are kept in LRU order, most recently used
  // first (move to front on access), so the victim is always the last entry and no ranks are stored.
  std::uint32_t* set_entries(std::uint32_t set) { return base_ + std::size_t{set} * set_words_; }
  const std::uint32_t* set_entries(std::uint32_t set) const { return base_ + std::size_t{set} * set_words_; }
  std::vector<std::uint32_t> storage_;
  std::uint32_t* base_ = nullptr;  // first set, 64-byte aligned inside storage_
  std::size_t set_words_ = 0;
  // Per partition: dirty sectors held, and the lines in the order they became dirty.
  std::uint64_t dirty_limit_ = 0;
  std::uint64_t compact_above_ = 0;  // a queue longer than this is compacted: 4 x the limit + 1024
  bool over_limit_ = false;
  std::vector<std::uint64_t> dirty_sectors_;
  std::vector<DirtyQueue> dirty_queue_;
};

}  // namespace attnscope::sim
