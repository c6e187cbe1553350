// SPDX-License-Identifier: Apache-2.0
// Writing output files so that a reader never sees half of one, and a run that fails or is stopped says
// what it did and did not replace.
//
//   OutputBatch out;
//   out.add("run.html", to_html(r));
//   out.add("run.md", to_markdown(r));
//   out.commit();   // both replaced, or an OutputError naming the ones written and the ones left as they
//   were
//
// How each destination is written:
//   - a regular file, or a name that does not exist yet: a temporary file `.NAME.tmp-PID-RANDOM` beside it,
//     flushed to disk, then renamed over it. An existing file's permission bits (and, for root, its owner)
//     are kept; a new file gets 0666 less the umask. A missing parent folder is created.
//   - /dev/stdout, /dev/stderr, /dev/fd/N: written to that open descriptor, after what was printed to it.
//   - a character device, FIFO or socket (/dev/null, /dev/tty, a named pipe): written directly, never
//     replaced.
//   - a symbolic link: written through only when it leads to a device, FIFO or socket; a link to a file or
//     to nothing is refused, never followed or replaced silently.
//   - a directory, a block device or a name ending in '/': refused.
// A batch checks every destination first, then writes every temporary file, then renames them one after
// the other, so a failure before the renames leaves every destination as it was. Temporary files are
// removed on every error and when the process is stopped by SIGINT, SIGTERM, SIGHUP, SIGQUIT or SIGPIPE;
// those of a process that no longer exists (stopped by SIGKILL or a crash) are removed by the next write
// into the same folder, with a note on stderr naming the file that process had not replaced.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "attnscope/reports/json_io.hpp"

namespace attnscope::reports {

// An output that could not be written (attnscope exits 15). Derives from ReportError so callers that catch
// that keep working.
class OutputError : public ReportError {
 public:
  explicit OutputError(const std::string& what) : ReportError(what) {}
};

class OutputBatch {
 public:
  OutputBatch() = default;
  OutputBatch(const OutputBatch&) = delete;
  OutputBatch& operator=(const OutputBatch&) = delete;
  ~OutputBatch();

  void add(std::filesystem::path path, std::string contents);
  // Writes every added file; returns them in the order added. Throws OutputError.
  std::vector<std::filesystem::path> commit();

 private:
  struct Item {
    std::filesystem::path path;
    std::string contents;
  };
  std::vector<Item> items_;
};

// Temporary files left in `dir` by processes that no longer exist: removed; returns the destinations they
// were for (the files those processes did not replace). Exposed for tests; commit() calls it.
std::vector<std::filesystem::path> remove_stale_temporaries(const std::filesystem::path& dir);

}  // namespace attnscope::reports
