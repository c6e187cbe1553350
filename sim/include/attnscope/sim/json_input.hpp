// SPDX-License-Identifier: Apache-2.0
// The one reading path for the JSON files attnscope takes in (reports, GPU specs, recordings, benchmark
// results): the file must be a regular file under a size limit, and the document must be JSON without
// duplicate keys, numbers outside double range or nesting deeper than kMaxJsonDepth. Each failure says which
// file, what is wrong and, for the document, at which byte.
//
//   const std::string text = sim::read_input_file(path, sim::kMaxGpuSpecBytes, "GPU spec");
//   const nlohmann::json doc = sim::parse_json_strict(text);   // throws sim::JsonInputError
#pragma once
#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace attnscope::sim {

// A file that cannot be read as an input: missing, not a regular file (directory, FIFO, device), too large.
class InputFileError : public std::runtime_error {
 public:
  explicit InputFileError(const std::string& what) : std::runtime_error(what) {}
};

// A document that is not acceptable JSON. what() is the problem without the file's name or the place
// ("duplicate key 'kind'"); byte is where (1-based); truncated says the text ended before the document did.
class JsonInputError : public std::runtime_error {
 public:
  JsonInputError(const std::string& what, std::size_t byte, bool truncated)
      : std::runtime_error(what), byte_(byte), truncated_(truncated) {}
  std::size_t byte() const { return byte_; }
  bool truncated() const { return truncated_; }

 private:
  std::size_t byte_;
  bool truncated_;
};

// Size limits, far above the largest file of each kind attnscope writes (a full llm-4k profile report with
// every tile is about 60 MB compact).
inline constexpr std::size_t kMaxReportBytes = std::size_t{1} << 30;      // 1 GiB
inline constexpr std::size_t kMaxGpuSpecBytes = std::size_t{1} << 20;     // 1 MiB
inline constexpr std::size_t kMaxSideFileBytes = std::size_t{256} << 20;  // benchmark results, baselines
inline constexpr int kMaxJsonDepth = 128;

// Reads the whole file. `what` names the kind of file in messages ("report", "GPU spec"). Throws
// InputFileError.
std::string read_input_file(const std::filesystem::path& path, std::size_t max_bytes, std::string_view what);

// Throws JsonInputError.
nlohmann::json parse_json_strict(std::string_view text);

}  // namespace attnscope::sim
