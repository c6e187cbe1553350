// SPDX-License-Identifier: Apache-2.0
#include "nvtx_stacks.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <utility>

namespace attnscope::profiler::inject {

namespace {

struct Entry {
  const void* domain;
  std::string message;
};

// Thread id -> its open ranges. A map under one lock rather than thread_local storage: a launch on one thread
// may need the main thread's ranges.
std::mutex g_mutex;
std::map<long, std::vector<Entry>>& stacks() {
  static std::map<long, std::vector<Entry>> s;
  return s;
}

long thread_id() {
  return ::syscall(SYS_gettid);
}

std::vector<std::string> messages(const std::vector<Entry>& entries) {
  std::vector<std::string> out;
  out.reserve(entries.size());
  for (const auto& e : entries) out.push_back(e.message);
  return out;
}

}  // namespace

void nvtx_push(const void* domain, std::string message) {
  std::lock_guard lock(g_mutex);
  stacks()[thread_id()].push_back({domain, std::move(message)});
}

void nvtx_pop(const void* domain) {
  std::lock_guard lock(g_mutex);
  auto it = stacks().find(thread_id());
  if (it == stacks().end()) return;
  auto& s = it->second;
  for (auto e = s.rbegin(); e != s.rend(); ++e)
    if (e->domain == domain) {
      s.erase(std::next(e).base());
      break;
    }
  if (s.empty()) stacks().erase(it);
}

OpenRanges open_ranges() {
  std::lock_guard lock(g_mutex);
  const long self = thread_id();
  const long main_thread = ::getpid();
  OpenRanges out;
  if (self != main_thread)
    if (const auto it = stacks().find(main_thread); it != stacks().end() && !it->second.empty()) {
      out.ranges = messages(it->second);
      out.thread = "main+own";
    }
  if (const auto it = stacks().find(self); it != stacks().end()) {
    const auto own = messages(it->second);
    out.ranges.insert(out.ranges.end(), own.begin(), own.end());
  }
  return out;
}

std::string innermost_annotation(const std::vector<std::string>& ranges) {
  for (auto r = ranges.rbegin(); r != ranges.rend(); ++r)
    if (r->rfind("attnscope:", 0) == 0) return *r;
  return "";
}

}  // namespace attnscope::profiler::inject
