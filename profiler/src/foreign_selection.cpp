// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/foreign_selection.hpp"

#include <charconv>
#include <stdexcept>

namespace attnscope::profiler {

namespace {

std::optional<std::uint64_t> number(const char* name, const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  const std::string_view s(text);
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size())
    throw std::invalid_argument(std::string(name) + "='" + std::string(s) + "' is not a whole number");
  return value;
}

std::optional<std::regex> compile(const char* what, const std::string& pattern) {
  if (pattern.empty()) return std::nullopt;
  try {
    return std::regex(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw std::invalid_argument(std::string(what) + " '" + pattern + "' is not a valid regular expression (" +
                                e.what() + ")");
  }
}

}  // namespace

LaunchSelection selection_from_env(const std::function<const char*(const char*)>& getenv) {
  LaunchSelection s;
  if (const char* k = getenv(kEnvInjectKernel)) s.kernel_regex = k;
  if (const char* n = getenv(kEnvInjectNvtx)) s.nvtx_regex = n;
  s.skip = number(kEnvInjectSkip, getenv(kEnvInjectSkip)).value_or(0);
  s.count = number(kEnvInjectCount, getenv(kEnvInjectCount));
  return s;
}

LaunchSelector::LaunchSelector(const LaunchSelection& selection)
    : selection_(selection),
      kernel_(compile("the kernel name regex", selection.kernel_regex)),
      nvtx_(compile("the NVTX range regex", selection.nvtx_regex)) {}

bool LaunchSelector::matches(std::string_view name, const std::vector<std::string>& nvtx_ranges) const {
  if (kernel_ && !std::regex_search(name.begin(), name.end(), *kernel_)) return false;
  if (!nvtx_) return true;
  for (const auto& range : nvtx_ranges)
    if (std::regex_search(range, *nvtx_)) return true;
  return false;
}

bool LaunchSelector::select(std::string_view name, const std::vector<std::string>& nvtx_ranges) {
  if (done() || !matches(name, nvtx_ranges)) return false;
  ++matched_;
  if (matched_ <= selection_.skip) return false;
  ++selected_;
  return true;
}

}  // namespace attnscope::profiler
