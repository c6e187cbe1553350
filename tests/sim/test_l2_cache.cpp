// SPDX-License-Identifier: Apache-2.0
// Covers sim/src/l2_cache.cpp: sector fills, write-back, LRU replacement, partitions, residency, the dirty
// budget against a plain reference model.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <deque>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/sim/l2_cache.hpp"

namespace attnscope::sim {
namespace {

GpuSpec small_l2() {
  GpuSpec g = load_gpu_spec("h200");
  g.l2_bytes = 128 * 16 * 64;  // 64 sets of 16 ways
  return g;
}

// `count` distinct lines that map to the same set as line `first`.
std::vector<std::uint64_t> same_set_lines(const L2Cache& l2, std::uint64_t first, int count) {
  std::vector<std::uint64_t> lines{first};
  const std::uint32_t set = l2.seek(first).set;
  for (std::uint64_t line = first + 1; static_cast<int>(lines.size()) < count; ++line)
    if (l2.seek(line).set == set) lines.push_back(line);
  return lines;
}

// The cache and its dirty budget spelled out plainly (a vector per set in LRU order, a deque per partition),
// for L2Cache to match access for access on random streams. The queue rules are the model's, corners
// included, since its results depend on them:
//   - a line queues when it goes from clean to dirty; an entry names the set and the tag only, so an entry
//     whose line was evicted (or cleaned through an older entry) and later dirtied again stands for the new
//     dirty line, and the oldest such entry is the one that cleans it;
//   - when a partition's queue holds more than 4 x budget + 1024 entries after a push, the entries whose line
//     is not resident and dirty are dropped, judged on the set as it was before the access that pushed (so
//     the entry just pushed is dropped too, and a miss's victim still counts as resident).
class ReferenceL2 {
 public:
  struct Cleaned {
    std::uint64_t line;
    std::uint32_t sectors;
    bool operator==(const Cleaned&) const = default;
  };
  std::uint64_t compactions = 0;  // how often the queue was compacted
  std::uint64_t stand_ins = 0;    // lines cleaned through an entry older than their present dirty spell

  ReferenceL2(std::uint32_t sets, int ways, int partitions, std::uint64_t limit)
      : ways_(ways), partitions_(partitions), sets_(sets) {
    set_dirty_limit(limit);
  }

  L2Cache::Outcome access(std::uint32_t set, std::uint64_t block, std::uint64_t line, std::uint8_t sectors,
                          bool write, bool copy) {
    std::vector<Line>& s = sets_[set];
    const auto it =
        std::find_if(s.begin(), s.end(), [&](const Line& l) { return l.block == block && l.copy == copy; });
    const bool miss = it == s.end();
    const std::uint8_t valid = miss ? 0 : it->valid;
    L2Cache::Outcome out;
    out.hit_sectors = count(sectors & valid);
    out.miss_sectors = count(sectors) - out.hit_sectors;
    out.miss_mask = static_cast<std::uint8_t>(sectors & ~valid);
    const bool evict = miss && static_cast<int>(s.size()) == ways_;
    const std::size_t p = set % static_cast<std::uint32_t>(partitions_);
    if (evict && s.back().dirty != 0) {
      out.writeback_sectors = count(s.back().dirty);
      out.victim_line = s.back().line;
      if (limit_ != 0) dirty_[p] -= out.writeback_sectors;
    }
    const std::uint8_t fresh = static_cast<std::uint8_t>(sectors & ~(miss ? 0 : it->dirty));
    if (write && limit_ != 0 && fresh != 0) {  // the bookkeeping sees the set before the access changes it
      if (miss || it->dirty == 0) {
        if (queue_[p].size() >= 4 * limit_ + 1024) compact(p);  // before the line's own entry joins
        queue_[p].push_back(Entry{set, block, copy, ++spell_});
      }
      dirty_[p] += count(fresh);
      if (dirty_[p] > limit_) over_ = true;
    }
    Line l = miss ? Line{block, copy, 0, 0, line, 0} : *it;
    if (!miss) s.erase(it);
    if (evict) s.pop_back();
    l.valid |= sectors;
    if (write) {
      if (l.dirty == 0) l.spell = spell_;
      l.dirty |= sectors;
    }
    s.push_back(l);  // then to the front: the most recent first
    std::rotate(s.rbegin(), s.rbegin() + 1, s.rend());
    return out;
  }
  bool over_dirty_limit() const { return over_; }
  std::vector<Cleaned> clean_over_limit() {
    std::vector<Cleaned> out;
    for (std::size_t p = 0; p < dirty_.size(); ++p)
      while (dirty_[p] > limit_) {
        const Cleaned c = clean_oldest(p);
        if (c.sectors > 0) out.push_back(c);
      }
    over_ = false;
    return out;
  }
  void set_dirty_limit(std::uint64_t limit) {
    limit_ = limit;
    over_ = false;
    dirty_.assign(static_cast<std::size_t>(partitions_), 0);
    queue_.assign(static_cast<std::size_t>(partitions_), {});
    if (limit == 0) return;
    for (std::uint32_t set = 0; set < sets_.size(); ++set)
      for (Line& l : sets_[set])  // most recent first
        if (l.dirty != 0) {
          const std::size_t p = set % static_cast<std::uint32_t>(partitions_);
          dirty_[p] += count(l.dirty);
          l.spell = ++spell_;
          queue_[p].push_back(Entry{set, l.block, l.copy, spell_});
        }
  }
  void clear() {
    for (std::vector<Line>& s : sets_) s.clear();
    set_dirty_limit(limit_);
  }
  std::uint64_t dirty_bytes() const {
    return sum([](const Line& l) { return l.dirty; });
  }
  std::uint64_t resident_bytes() const {
    return sum([](const Line& l) { return l.valid; });
  }

 private:
  struct Line {
    std::uint64_t block;
    bool copy;
    std::uint8_t valid, dirty;
    std::uint64_t line;
    std::uint64_t spell;  // the push that made it dirty this time
  };
  struct Entry {
    std::uint32_t set;
    std::uint64_t block;
    bool copy;
    std::uint64_t spell;
  };
  static std::uint32_t count(unsigned mask) { return static_cast<std::uint32_t>(std::popcount(mask & 0xFu)); }
  Line* dirty_line(const Entry& e) {
    for (Line& l : sets_[e.set])
      if (l.block == e.block && l.copy == e.copy) return l.dirty != 0 ? &l : nullptr;
    return nullptr;
  }
  void compact(std::size_t p) {
    ++compactions;
    std::deque<Entry> kept;
    for (const Entry& e : queue_[p])
      if (dirty_line(e) != nullptr) kept.push_back(e);
    queue_[p].swap(kept);
  }
  Cleaned clean_oldest(std::size_t p) {
    while (!queue_[p].empty()) {
      const Entry e = queue_[p].front();
      queue_[p].pop_front();
      if (Line* l = dirty_line(e)) {
        if (l->spell != e.spell) ++stand_ins;
        const Cleaned c{l->line, count(l->dirty)};
        l->dirty = 0;
        dirty_[p] -= c.sectors;
        return c;
      }
    }
    dirty_[p] = 0;
    return {0, 0};
  }
  template <class F>
  std::uint64_t sum(F&& mask) const {
    std::uint64_t n = 0;
    for (const std::vector<Line>& s : sets_)
      for (const Line& l : s) n += count(mask(l));
    return n * 32;
  }

  int ways_;
  int partitions_;
  std::vector<std::vector<Line>> sets_;
  std::uint64_t limit_ = 0;
  bool over_ = false;
  std::vector<std::uint64_t> dirty_;
  std::vector<std::deque<Entry>> queue_;
  std::uint64_t spell_ = 0;
};

TEST(L2Cache, ReadMissFillsOnlyTheRequestedSectors) {
  L2Cache l2(small_l2());
  auto o = l2.read(1000, 0b0011);
  EXPECT_EQ(o.miss_sectors, 2u);
  EXPECT_EQ(o.hit_sectors, 0u);
  o = l2.read(1000, 0b1111);
  EXPECT_EQ(o.hit_sectors, 2u);
  EXPECT_EQ(o.miss_sectors, 2u);
  o = l2.read(1000, 0b1111);
  EXPECT_EQ(o.hit_sectors, 4u);
  EXPECT_EQ(l2.resident_bytes(), 128u);
  EXPECT_EQ(l2.dirty_bytes(), 0u);
}

TEST(L2Cache, WritesAreDirtyAndWrittenBackOnlyWhenEvicted) {
  L2Cache l2(small_l2());
  const auto lines = same_set_lines(l2, 7, 17);
  auto o = l2.write(lines[0], 0b1111);
  EXPECT_EQ(o.writeback_sectors, 0u);
  EXPECT_EQ(l2.dirty_bytes(), 128u);
  for (int i = 1; i < 16; ++i) EXPECT_EQ(l2.read(lines[i], 0b1111).writeback_sectors, 0u);
  // The 17th line evicts the least recently used one: the dirty line written first.
  o = l2.read(lines[16], 0b1111);
  EXPECT_EQ(o.writeback_sectors, 4u);
  EXPECT_EQ(o.victim_line, lines[0]);
  EXPECT_EQ(l2.dirty_bytes(), 0u);
  EXPECT_EQ(l2.resident_bytes(), 16u * 128u);
}

TEST(L2Cache, LeastRecentlyUsedIsReplaced) {
  L2Cache l2(small_l2());
  const auto lines = same_set_lines(l2, 3, 18);
  for (int i = 0; i < 16; ++i) l2.read(lines[i], 0b1111);
  l2.read(lines[0], 0b1111);   // line 0 is now the most recent; line 1 the least
  l2.read(lines[16], 0b1111);  // evicts line 1
  EXPECT_EQ(l2.read(lines[0], 0b1111).hit_sectors, 4u);
  EXPECT_EQ(l2.read(lines[1], 0b1111).miss_sectors, 4u);  // evicts line 2
  EXPECT_EQ(l2.read(lines[3], 0b1111).hit_sectors, 4u);
  EXPECT_EQ(l2.read(lines[2], 0b1111).miss_sectors, 4u);
}

TEST(L2Cache, ConsecutiveLinesAlternatePartitionsAndCursorAgreesWithSeek) {
  L2Cache l2(load_gpu_spec("h200"));
  std::set<int> partitions;
  L2Cache::Cursor c = l2.seek(12345);
  for (std::uint64_t line = 12345; line < 12345 + 100000; line += 7) {
    l2.advance(c, line);
    const L2Cache::Cursor s = l2.seek(line);
    ASSERT_EQ(c.set, s.set) << line;
    ASSERT_EQ(c.block, s.block);
    partitions.insert(l2.partition(c));
  }
  EXPECT_EQ(partitions.size(), 2u);
  EXPECT_NE(l2.partition(l2.seek(500)), l2.partition(l2.seek(501)));
}

TEST(L2Cache, HoldsItsCapacityAndClearEmptiesIt) {
  const GpuSpec g = small_l2();
  L2Cache l2(g);
  // Twice the capacity of consecutive lines: the first half is evicted clean, residency stays at capacity.
  const auto lines = static_cast<std::uint64_t>(g.l2_bytes / 128);
  for (std::uint64_t i = 0; i < 2 * lines; ++i) l2.write(i, 0b1111);
  EXPECT_EQ(l2.resident_bytes(), static_cast<std::uint64_t>(g.l2_bytes));
  EXPECT_EQ(l2.dirty_bytes(), static_cast<std::uint64_t>(g.l2_bytes));
  l2.clear();
  EXPECT_EQ(l2.resident_bytes(), 0u);
  EXPECT_EQ(l2.read(0, 1).miss_sectors, 1u);
}

// The dirty budget (GpuSpec::l2_dirty_bytes): a partition over it writes back its oldest dirty lines, which
// stay resident and clean; lines evicted dirty before their turn leave the budget with their write-back.
TEST(L2Cache, DirtyBudgetWritesBackTheOldestDirtyLineOfThePartition) {
  GpuSpec g = small_l2();
  g.l2_dirty_bytes = 2 * 4 * 128;  // 4 lines per partition
  L2Cache l2(g);
  std::vector<std::uint64_t> ours;  // lines of partition 0, in different sets
  for (std::uint64_t line = 0; ours.size() < 6; ++line)
    if (l2.partition(l2.seek(line)) == 0) ours.push_back(line);
  std::vector<std::pair<std::uint64_t, std::uint32_t>> written_back;
  const auto clean = [&] {
    if (l2.over_dirty_limit())
      l2.clean_over_limit(
          [&](std::uint64_t line, std::uint32_t sectors) { written_back.emplace_back(line, sectors); });
  };
  for (int i = 0; i < 4; ++i) {
    l2.write(ours[static_cast<std::size_t>(i)], 0b1111);
    clean();
  }
  EXPECT_TRUE(written_back.empty());  // at the budget, not over it
  l2.write(ours[0], 0b1111);          // rewriting a dirty line adds nothing
  clean();
  EXPECT_TRUE(written_back.empty());
  l2.write(ours[4], 0b0011);  // two sectors over: the line made dirty first goes
  clean();
  ASSERT_EQ(written_back.size(), 1u);
  EXPECT_EQ(written_back[0], std::make_pair(ours[0], 4u));
  EXPECT_EQ(l2.read(ours[0], 0b1111).hit_sectors, 4u);  // still resident, now clean
  EXPECT_EQ(l2.dirty_bytes(), (3u * 4u + 2u) * 32u);
  // A line of the other partition does not count against this one's budget.
  for (std::uint64_t line = 0;; ++line)
    if (l2.partition(l2.seek(line)) == 1) {
      l2.write(line, 0b1111);
      break;
    }
  clean();
  EXPECT_EQ(written_back.size(), 1u);
  // A clean line written again is dirty again and queues behind the others.
  l2.write(ours[0], 0b1111);
  clean();
  ASSERT_EQ(written_back.size(), 2u);
  EXPECT_EQ(written_back[1].first, ours[1]);
}

TEST(L2Cache, DirtyBudgetSkipsLinesEvictedBeforeTheirTurn) {
  GpuSpec g = small_l2();
  g.l2_dirty_bytes = 2 * 2 * 128;  // 2 lines per partition
  L2Cache l2(g);
  const auto lines = same_set_lines(l2, 7, 18);
  const int partition = l2.partition(l2.seek(7));
  l2.write(lines[0], 0b1111);
  for (int i = 1; i < 16; ++i) l2.read(lines[static_cast<std::size_t>(i)], 0b1111);
  EXPECT_EQ(l2.read(lines[16], 0b1111).writeback_sectors, 4u);  // evicted dirty: written back by the eviction
  std::vector<std::uint64_t> more;  // three lines of the same partition in other sets
  for (std::uint64_t line = 100000; more.size() < 3; ++line)
    if (l2.partition(l2.seek(line)) == partition && l2.seek(line).set != l2.seek(7).set) more.push_back(line);
  std::vector<std::uint64_t> written_back;
  for (const std::uint64_t line : more) {
    l2.write(line, 0b1111);
    if (l2.over_dirty_limit())
      l2.clean_over_limit([&](std::uint64_t victim, std::uint32_t) { written_back.push_back(victim); });
  }
  // The evicted line left the budget: only the third of the new lines takes it over, and the oldest of
  // them, not the evicted one, is written back.
  ASSERT_EQ(written_back.size(), 1u);
  EXPECT_EQ(written_back[0], more[0]);
  l2.clear();
  EXPECT_FALSE(l2.over_dirty_limit());
  EXPECT_EQ(l2.dirty_bytes(), 0u);
}

// One random stream through L2Cache and ReferenceL2 side by side: every outcome, every write-back of the
// budget, the over-budget flag, and now and then the resident and dirty bytes must agree. The stream mixes a
// sequential writer (a streaming kernel) with random reads, writes and near-copy reads over a range of lines
// a few times the cache, so lines are evicted dirty, come back and are dirtied again.
struct Stream {
  int ways = 16;
  std::uint32_t sets = 64;
  std::int64_t dirty_bytes = 0;  // GpuSpec::l2_dirty_bytes (both partitions)
  std::uint64_t lines = 0;       // the range the stream touches
  int accesses = 0;
  int write_percent = 60;
  std::uint64_t seed = 1;
  std::uint64_t change_limit_at = 0;  // set_dirty_limit(change_limit_to) on the cache in use (0: never)
  std::uint64_t change_limit_to = 0;
  std::uint64_t clear_at = 0;  // clear() (0: never)
};

// The reference's counters come back in `out`.
void replay(const Stream& st, ReferenceL2* out = nullptr) {
  GpuSpec g = load_gpu_spec("h200");
  g.l2_ways = st.ways;
  g.l2_bytes = std::int64_t{128} * st.ways * st.sets;
  g.l2_dirty_bytes = st.dirty_bytes;
  L2Cache l2(g);
  EXPECT_EQ(l2.sets(), st.sets);
  const int partitions = g.l2_partitions;
  ReferenceL2 ref(l2.sets(), st.ways, partitions,
                  static_cast<std::uint64_t>(st.dirty_bytes / partitions / g.l2_sector_bytes));
  std::mt19937_64 rng(st.seed);
  std::uint64_t next = 0;  // the sequential writer's next line
  for (int i = 1; i <= st.accesses; ++i) {
    if (static_cast<std::uint64_t>(i) == st.change_limit_at) {
      l2.set_dirty_limit(st.change_limit_to);
      ref.set_dirty_limit(st.change_limit_to);
    }
    if (static_cast<std::uint64_t>(i) == st.clear_at) {
      l2.clear();
      ref.clear();
    }
    const std::uint64_t r = rng() % 100;
    const bool streaming = r < 40;
    const std::uint64_t line = streaming ? next++ % st.lines : rng() % st.lines;
    const auto sectors = static_cast<std::uint8_t>(streaming ? 0xF : 1 + rng() % 15);
    const bool write = streaming || r < 40 + static_cast<std::uint64_t>(st.write_percent) * 60 / 100;
    const bool copy = !write && rng() % 4 == 0;
    const L2Cache::Cursor c = l2.seek(line);
    std::uint32_t set = c.set;
    if (copy) set = l2.copy_set(c.set, 1 - l2.partition(c));  // the other partition's copy of the line
    const L2Cache::Outcome got = l2.access(set, c.block, sectors, write, copy);
    const L2Cache::Outcome want = ref.access(set, c.block, line, sectors, write, copy);
    ASSERT_EQ(got.hit_sectors, want.hit_sectors) << "access " << i;
    ASSERT_EQ(got.miss_sectors, want.miss_sectors) << "access " << i;
    ASSERT_EQ(got.miss_mask, want.miss_mask) << "access " << i;
    ASSERT_EQ(got.writeback_sectors, want.writeback_sectors) << "access " << i;
    if (want.writeback_sectors > 0) {
      ASSERT_EQ(got.victim_line, want.victim_line) << "access " << i;
    }
    ASSERT_EQ(l2.over_dirty_limit(), ref.over_dirty_limit()) << "access " << i;
    if (l2.over_dirty_limit()) {
      std::vector<ReferenceL2::Cleaned> cleaned;
      l2.clean_over_limit([&](std::uint64_t l, std::uint32_t n) {
        cleaned.push_back(ReferenceL2::Cleaned{l, n});
      });
      ASSERT_EQ(cleaned, ref.clean_over_limit()) << "access " << i;
    }
    if (i % 4096 == 0) {
      ASSERT_EQ(l2.dirty_bytes(), ref.dirty_bytes()) << "access " << i;
      ASSERT_EQ(l2.resident_bytes(), ref.resident_bytes()) << "access " << i;
    }
  }
  EXPECT_EQ(l2.dirty_bytes(), ref.dirty_bytes());
  if (out != nullptr) *out = ref;
}

// A budget of 10 to 12 sixteenths of the cache, as on the H200 (29.4 MB of 60 MiB): dirty lines are written
// back by the budget or evicted dirty first, whose entries pile up until the queue is compacted, and lines
// evicted dirty come back and are dirtied again while their old entry waits (the counters say both happen).
TEST(L2Cache, DirtyBudgetMatchesTheReferenceOnRandomStreams) {
  struct Mix {
    int write_percent;
    std::int64_t sixteenths;
    std::uint64_t seed;
  };
  for (const Mix m : {Mix{40, 10, 1}, Mix{60, 11, 2}, Mix{80, 11, 3}, Mix{80, 12, 4}}) {
    Stream st;
    st.dirty_bytes = 128 * 16 * 64 * m.sixteenths / 16;
    st.write_percent = m.write_percent;
    st.lines = 4000;
    st.accesses = 300000;
    st.seed = m.seed;
    ReferenceL2 ref(1, 1, 1, 0);
    replay(st, &ref);
    if (HasFatalFailure()) return;
    EXPECT_GT(ref.compactions, 5u) << m.seed;
    EXPECT_GT(ref.stand_ins, 100u) << m.seed;
  }
}

// A budget of a few sectors (nearly every store writes one back), four ways (the scalar set search), a range
// of lines the cache nearly holds, and a limit changed on the cache in use, then a cold start.
TEST(L2Cache, DirtyBudgetMatchesTheReferenceWithSmallBudgetsAndFewWays) {
  for (std::int64_t budget : {2 * 32, 2 * 3 * 32, 2 * 4 * 128 * 10}) {
    Stream st;
    st.ways = 4;
    st.sets = 32;
    st.dirty_bytes = budget;
    st.lines = 200;
    st.accesses = 200000;
    st.write_percent = 30;
    st.seed = static_cast<std::uint64_t>(budget);
    st.change_limit_at = 90000;
    st.change_limit_to = 7;
    st.clear_at = 150000;
    replay(st);
    if (HasFatalFailure()) return;
  }
}

// No budget left to clean anything (as large as the cache): every dirty line leaves by eviction and every
// entry goes stale, so the queue is compacted again and again; then the budget is switched off and back on.
TEST(L2Cache, DirtyBudgetMatchesTheReferenceWhenOnlyEvictionsWriteBack) {
  Stream st;
  st.dirty_bytes = 128 * 16 * 64;
  st.lines = 3000;
  st.accesses = 300000;
  st.write_percent = 90;
  st.change_limit_at = 200000;
  st.change_limit_to = 0;
  ReferenceL2 ref(1, 1, 1, 0);
  replay(st, &ref);
  if (HasFatalFailure()) return;
  EXPECT_GT(ref.compactions, 10u);
  Stream again = st;
  again.change_limit_at = 100000;
  again.change_limit_to = 64 * 16 * 4 / 2;
  replay(again);
}

}  // namespace
}  // namespace attnscope::sim
