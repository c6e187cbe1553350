// SPDX-License-Identifier: Apache-2.0
// Reading and writing the report's JSON form. Readers reject malformed, truncated and newer-version files
// with a ReportError whose message names the problem and where it is (file, JSON pointer / byte offset).
// Writes are atomic: a temporary file in the same directory, flushed, then renamed over the target
// (reports/output.hpp).
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "attnscope/reports/report.hpp"

namespace attnscope::reports {

class ReportError : public std::runtime_error {
 public:
  explicit ReportError(const std::string& what) : std::runtime_error(what) {}
};

Report read_report(const std::filesystem::path& path);  // throws ReportError
Report parse_report(std::string_view json_text,
                    std::string_view origin);  // origin names the source in errors
std::string to_json_string(const Report& report, int indent = 2);
// Atomic; throws ReportError. Indented (2) unless the report has more than kPrettyJsonLimit tiles and sweep
// points together: then compact, which makes a default-workload report several times smaller.
void write_report_json(const Report& report, const std::filesystem::path& path);
inline constexpr std::size_t kPrettyJsonLimit = 20000;
int default_json_indent(const Report& report);  // 2 or -1 (compact), as write_report_json uses

// Write any text file atomically (used by every writer; reports/output.hpp says how each kind of
// destination is written). Throws OutputError, a ReportError.
void write_file_atomic(const std::filesystem::path& path, std::string_view contents);

}  // namespace attnscope::reports
