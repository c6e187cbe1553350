// SPDX-License-Identifier: Apache-2.0
// A sweep's checkpoint: an append-only journal of finished work units (a two-fidelity sweep's problems),
// one line per unit written and flushed as it finishes, so a killed sweep restarts without redoing them:
//
//   SweepCheckpoint cp("sweep.json.checkpoint", definition_text);  // reads what an earlier run finished
//   if (!cp.finished(7)) cp.append(7, points_of_problem_7);           // one line, flushed to the disk
//   cp.points(7)                                                      // an earlier run's points of unit 7
//
// Line format: "<unit>\t<points as one line of report JSON>\t<FNV-1a of the JSON, 16 hex digits>\n" after a
// header naming the sweep. A line cut short by the kill (no newline, or a checksum that does not match) is
// the last one written: it is dropped, and the file truncated to the lines before it, so the next append
// starts on a clean line. The report itself is written only at the end, atomically (reports/output.hpp).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attnscope/reports/report.hpp"

namespace attnscope::reports {

class SweepCheckpoint {
 public:
  // Opens (creating) `path` for the sweep whose SweepSpec::definition_text() and shard are given. Throws
  // ReportError when the file belongs to another sweep or shard, or cannot be written.
  SweepCheckpoint(std::string path, const std::string& definition, int shard_index, int shard_count);
  ~SweepCheckpoint();
  SweepCheckpoint(const SweepCheckpoint&) = delete;
  SweepCheckpoint& operator=(const SweepCheckpoint&) = delete;

  bool finished(std::int64_t unit) const { return units_.count(unit) != 0; }
  const std::vector<SweepPoint>& points(std::int64_t unit) const { return units_.at(unit); }
  std::size_t finished_count() const { return units_.size(); }
  // Journals unit `unit` (not thread-safe: callers serialise) and flushes it to the disk.
  void append(std::int64_t unit, const std::vector<SweepPoint>& points);

 private:
  std::string path_;
  std::string header_;
  int fd_ = -1;
  std::map<std::int64_t, std::vector<SweepPoint>> units_;
};

}  // namespace attnscope::reports
