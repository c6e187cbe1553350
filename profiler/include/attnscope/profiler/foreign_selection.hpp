// SPDX-License-Identifier: Apache-2.0
// Which kernel launches of another program the injected collector measures, as ncu selects them: a regex on
// the kernel's demangled name, a regex on the NVTX ranges open at the launch, then skip the first N launches
// that pass both filters and measure the next M. Pure logic (no CUDA), so it is unit-tested on the CPU; the
// `attnscope profile -- COMMAND` front end hands the selection to the collector through the environment
// variables below.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace attnscope::profiler {

// The environment the collector (libattnscope_inject.so) reads; the CLI sets every one it uses.
inline constexpr const char* kEnvInjectOut = "ATTNSCOPE_INJECT_OUT";        // JSON-lines output path
inline constexpr const char* kEnvInjectKernel = "ATTNSCOPE_INJECT_KERNEL";  // regex on the demangled name
inline constexpr const char* kEnvInjectNvtx = "ATTNSCOPE_INJECT_NVTX";      // regex on any open NVTX range
inline constexpr const char* kEnvInjectSkip = "ATTNSCOPE_INJECT_SKIP";      // matching launches to skip
inline constexpr const char* kEnvInjectCount = "ATTNSCOPE_INJECT_COUNT";    // matching launches to measure
inline constexpr const char* kEnvInjectList = "ATTNSCOPE_INJECT_LIST";      // 1: record names, no counters
inline constexpr const char* kEnvInjectReplay = "ATTNSCOPE_INJECT_REPLAY";  // user (default) | kernel
inline constexpr const char* kEnvInjectLog = "ATTNSCOPE_INJECT_LOG";        // 1: log every step to stderr

struct LaunchSelection {
  std::string kernel_regex;  // empty: every kernel
  std::string nvtx_regex;    // empty: no NVTX condition
  std::uint64_t skip = 0;
  std::optional<std::uint64_t> count;  // absent: every matching launch after the skipped ones
};

// Reads the selection from environment variables through `getenv` (std::getenv in the collector, a map in
// tests). Throws std::invalid_argument naming the variable when a number or a regex is malformed.
LaunchSelection selection_from_env(const std::function<const char*(const char*)>& getenv);

class LaunchSelector {
 public:
  // Throws std::invalid_argument when a regex does not compile (the message names which one).
  explicit LaunchSelector(const LaunchSelection& selection);

  // Whether a launch passes the name and NVTX filters (no counting). The kernel regex is searched in the
  // demangled name (a part matches, as ncu's regex:); the NVTX regex in each open range, outermost first.
  bool matches(std::string_view demangled_name, const std::vector<std::string>& nvtx_ranges) const;

  // The decision for the next launch of the program, in launch order: it passes the filters, is past the
  // skipped ones and within the count. Counts the launches that matched.
  bool select(std::string_view demangled_name, const std::vector<std::string>& nvtx_ranges);

  // True once `count` launches were selected: no later launch can be, so the collector can stop looking.
  bool done() const { return selection_.count && selected_ >= *selection_.count; }
  std::uint64_t matched() const { return matched_; }
  std::uint64_t selected() const { return selected_; }

 private:
  LaunchSelection selection_;
  std::optional<std::regex> kernel_, nvtx_;
  std::uint64_t matched_ = 0, selected_ = 0;
};

}  // namespace attnscope::profiler
