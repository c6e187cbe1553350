// SPDX-License-Identifier: Apache-2.0
// The file the injected collector writes inside the other program and `attnscope profile -- COMMAND` reads
// back: JSON lines, one record per line, each line written and flushed as soon as it is known, so a program
// that dies (or is killed) leaves every record before its last one readable.
//
// Records, by their "record" field:
//   start    the collector loaded: its format, the selection it read, list or measure mode
//   device   the GPU of the first context the collector used (name, chip, L2, SMs, driver)
//   launch   one selected launch: ForeignLaunch's fields plus `annotation` (the raw text of the innermost
//            NVTX range starting with "attnscope:"; parsing it is the recogniser's), `nvtx_thread`, the
//            replay `passes`, `unavailable_metrics` and `notes`
//   error    something the collector could not do, with the profiler's error code and message
//   summary  at the program's exit: launches seen, matched, selected, and the first distinct kernel names
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attnscope/profiler/foreign.hpp"
#include "attnscope/profiler/measurement.hpp"

namespace attnscope::profiler {

inline constexpr int kForeignRecordsFormat = 1;

// One selected launch with what the collector knows beside ForeignLaunch's fields.
struct ForeignLaunchRecord {
  ForeignLaunch launch;
  std::string annotation;  // raw "attnscope: ..." NVTX message, "" when none was open
  // Whose NVTX ranges `launch.nvtx_ranges` are: "own" (the launching thread's) or "main+own" (the main
  // thread's open ranges, then the launching thread's: PyTorch runs the backward pass on worker threads
  // while the script's ranges stay open on the main thread).
  std::string nvtx_thread = "own";
  int passes = 0;  // replay passes the counters took (0: none collected, e.g. list mode)
  std::vector<std::string> unavailable_metrics;  // standard counters this chip does not have
  std::vector<std::string> notes;                // how this launch was measured, in words
};

struct ForeignError {
  std::optional<std::uint64_t> launch_index;  // the launch it concerns, if any
  std::string kernel;                         // its demangled name, if any
  std::string code;                           // the profiler's ErrorCode as text (to_string)
  std::string message;
};

struct ForeignSummary {
  std::uint64_t launches_seen = 0;     // every kernel launch of the program
  std::uint64_t matched = 0;           // launches passing the name and NVTX filters
  std::uint64_t selected = 0;          // of those, past the skip and within the count
  std::uint64_t measured = 0;          // launch records written
  std::uint64_t runtime_launches = 0;  // cudaLaunchKernel calls seen (a check on the driver-level count)
  std::vector<std::pair<std::string, std::uint64_t>> kernels;  // first distinct demangled names, launches
};

struct ForeignStart {
  int format = kForeignRecordsFormat;
  bool list_kernels = false;
  std::string kernel_regex, nvtx_regex, replay;
  std::uint64_t skip = 0;
  std::optional<std::uint64_t> count;
  std::int64_t pid = 0;
};

// Everything read back from one file.
struct ForeignRun {
  std::optional<ForeignStart> start;
  std::optional<DeviceInfo> device;
  std::vector<ForeignLaunchRecord> launches;
  std::vector<ForeignError> errors;
  std::optional<ForeignSummary> summary;  // absent when the program did not exit normally
  // Lines that could not be read, as "line N: why" (a last line cut short by a killed program is one);
  // the records before and after them are kept.
  std::vector<std::string> unreadable;
};

// One line each (no newline at the end).
std::string to_json_line(const ForeignStart& start);
std::string to_json_line(const DeviceInfo& device);
std::string to_json_line(const ForeignLaunchRecord& record);
std::string to_json_line(const ForeignError& error);
std::string to_json_line(const ForeignSummary& summary);

// Reads the records of `text`; `origin` names it in messages. Never throws for content: a line that is not a
// record goes to `unreadable`. A record of a newer format is unreadable too.
ForeignRun parse_foreign_records(std::string_view text, std::string_view origin);
// The same from a file; throws ProfilerError(io_error) when it cannot be opened. A missing file reads as an
// empty run (the program never initialised CUDA, so the collector never loaded).
ForeignRun read_foreign_records(const std::filesystem::path& path);

}  // namespace attnscope::profiler
