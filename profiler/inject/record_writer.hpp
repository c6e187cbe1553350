// SPDX-License-Identifier: Apache-2.0
// Where the collector's words go: the JSON-lines records file (foreign_records.hpp), one line written and
// flushed per record so a program that dies loses nothing already measured, and stderr, every line prefixed
// "attnscope-inject:" (steps only with ATTNSCOPE_INJECT_LOG=1; errors always).
#pragma once
#include <fmt/format.h>

#include <mutex>
#include <string>

namespace attnscope::profiler::inject {

class RecordWriter {
 public:
  // Opens `path` for appending; returns false (and says why on stderr) when it cannot.
  bool open(const std::string& path);
  bool is_open() const { return fd_ >= 0; }
  // One record: the line, a newline, flushed.
  void write(const std::string& json_line);

 private:
  std::mutex mutex_;
  int fd_ = -1;
};

RecordWriter& records();

// Verbose step log, on when ATTNSCOPE_INJECT_LOG=1.
bool verbose();
void set_verbose(bool on);
void log_line(const std::string& text);  // always printed (errors, warnings)

template <typename... Args>
void step(fmt::format_string<Args...> format, Args&&... args) {
  if (verbose()) log_line(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace attnscope::profiler::inject
