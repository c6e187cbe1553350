// SPDX-License-Identifier: Apache-2.0
// The L2 cache: sectored (32-byte sectors in 128-byte lines), set-associative with LRU replacement, split
// into partitions by an address hash, write-back with a dirty bit per sector.
//
//   - A read fetches only the sectors it misses (sector fills), allocating the line if absent.
//   - A write allocates the line and marks its sectors valid and dirty without reading HBM (stores write
//     whole sectors in these kernels; a partial-sector write is treated as a whole-sector one).
//   - Evicting a line writes its dirty sectors back to HBM: that is where HBM writes come from. Nothing is
//     flushed when a kernel ends; the next kernel inherits what is resident and dirty (as on the H200).
//
// Interface is line-granular with a sector mask so the caller walks a tile's rows once per line.
#pragma once
#include <cstdint>
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
    int partition = 0;                    // partition that serves this line
  };

  explicit L2Cache(const GpuSpec& gpu);

  // `line` = byte address / line_bytes; `sectors` = bit i set for sector i of the line.
  Outcome read(std::uint64_t line, std::uint8_t sectors);
  Outcome write(std::uint64_t line, std::uint8_t sectors);
  void clear();  // empty and clean (a cold start)

  int partition_of(std::uint64_t line) const { return locate(line).partition; }
  int line_shift() const { return line_shift_; }
  int sector_shift() const { return sector_shift_; }
  int sectors_per_line() const { return sectors_per_line_; }
  std::uint64_t resident_bytes() const;  // valid sectors x sector size
  std::uint64_t dirty_bytes() const;     // dirty sectors x sector size

 private:
  struct Place {
    int partition;
    std::uint32_t set;  // global set index
  };
  Place locate(std::uint64_t line) const;
  std::uint32_t find_or_replace(std::uint32_t set, std::uint64_t tag, bool& found, Outcome& out);

  int ways_ = 0;
  int partitions_ = 0;
  std::uint32_t sets_per_partition_ = 0;
  int line_shift_ = 7;
  int sector_shift_ = 5;
  int sectors_per_line_ = 4;
  std::uint64_t clock_ = 0;  // LRU stamps
  // Per way, set-major: tag (line + 1; 0 = invalid), last use, valid and dirty sector masks.
  std::vector<std::uint64_t> tag_;
  std::vector<std::uint64_t> last_use_;
  std::vector<std::uint8_t> valid_;
  std::vector<std::uint8_t> dirty_;
};

}  // namespace attnscope::sim
