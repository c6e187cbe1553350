// SPDX-License-Identifier: Apache-2.0
// Covers sim/src/l2_cache.cpp: sector fills, write-back, LRU replacement, partitions, residency.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace attnscope::sim
