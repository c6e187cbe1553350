// SPDX-License-Identifier: Apache-2.0
#include "record_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

namespace attnscope::profiler::inject {

namespace {
std::atomic<bool> g_verbose{false};
}

bool RecordWriter::open(const std::string& path) {
  std::lock_guard lock(mutex_);
  // Append: a program that starts CUDA in several processes (a launcher and its workers) writes one file,
  // and each record is one write(2) of a whole line, so lines of two processes do not interleave.
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    log_line(fmt::format("cannot open the records file {}: {}", path, std::strerror(errno)));
    return false;
  }
  return true;
}

void RecordWriter::write(const std::string& json_line) {
  std::lock_guard lock(mutex_);
  if (fd_ < 0) return;
  const std::string line = json_line + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      log_line(fmt::format("cannot write the records file: {}", std::strerror(errno)));
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

RecordWriter& records() {
  static RecordWriter writer;
  return writer;
}

bool verbose() {
  return g_verbose.load(std::memory_order_relaxed);
}

void set_verbose(bool on) {
  g_verbose.store(on, std::memory_order_relaxed);
}

// Each line carries the milliseconds since the collector's first line, so that where a measured program's
// extra wall time goes (CUPTI's set-up, the saves, the passes, the flushes) can be read off the log.
void log_line(const std::string& text) {
  static const auto start = std::chrono::steady_clock::now();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::fprintf(stderr, "attnscope-inject: [%9.1f ms] %s\n", ms, text.c_str());
  std::fflush(stderr);
}

}  // namespace attnscope::profiler::inject
