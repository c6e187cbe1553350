// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/output.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>

namespace attnscope::reports {

namespace fs = std::filesystem;

namespace {

// ---- Temporary files removed when a signal stops the process ------------------------------------------

constexpr std::size_t kSlots = 256;
std::array<std::atomic<char*>, kSlots> g_temporaries{};

extern "C" void remove_temporaries_and_reraise(int sig) {
  // Only async-signal-safe calls here: unlink, signal, raise.
  for (auto& slot : g_temporaries)
    if (char* p = slot.load()) ::unlink(p);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void install_signal_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0) continue;
      // A handler the program installed, or an ignored signal, stays as it is.
      if ((old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = remove_temporaries_and_reraise;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

// A temporary file: registered for removal on a signal while it exists; removed by the destructor unless
// renamed.
class Temporary {
 public:
  explicit Temporary(fs::path path) : path_(std::move(path)) {
    install_signal_handlers();
    char* copy = ::strdup(path_.c_str());
    for (auto& slot : g_temporaries) {
      char* expected = nullptr;
      if (slot.compare_exchange_strong(expected, copy)) {
        slot_ = &slot;
        return;
      }
    }
    std::free(copy);  // all slots taken: removed on errors, left for the next run's clean-up on a signal
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  ~Temporary() {
    if (!renamed_) ::unlink(path_.c_str());
    release();
  }
  const fs::path& path() const { return path_; }
  void renamed() {
    renamed_ = true;
    release();
  }

 private:
  void release() {
    if (slot_ != nullptr) std::free(slot_->exchange(nullptr));
    slot_ = nullptr;
  }
  fs::path path_;
  std::atomic<char*>* slot_ = nullptr;
  bool renamed_ = false;
};

// ---- Destinations -----------------------------------------------------------------------------------

// replace: temporary file and rename; direct: opened and written; descriptor: one of this process's open
// descriptors (/dev/stdout and the like), written where it stands, so output printed before stays.
enum class Method { replace, direct, descriptor };

struct Destination {
  fs::path path;
  const std::string* contents = nullptr;
  Method method = Method::replace;
  int fd = -1;  // Method::descriptor
  bool exists = false;
  struct stat st {};
  std::unique_ptr<Temporary> temporary;
};

std::string errno_text() {
  return std::strerror(errno);
}

[[noreturn]] void fail(const fs::path& path, const std::string& why) {
  throw OutputError(fmt::format("cannot write {}: {}", path.string(), why));
}

bool written_directly(mode_t mode) {
  return S_ISCHR(mode) || S_ISFIFO(mode) || S_ISSOCK(mode);
}

fs::path parent_of(const fs::path& path) {
  return path.parent_path().empty() ? fs::path(".") : path.parent_path();
}

// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the descriptor, or -1.
int descriptor_named(const std::string& text) {
  if (text == "/dev/stdout") return STDOUT_FILENO;
  if (text == "/dev/stderr") return STDERR_FILENO;
  for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (text.rfind(prefix, 0) != 0 || text.size() == prefix.size() || text.size() > prefix.size() + 6)
      continue;
    int fd = 0;
    for (std::size_t i = prefix.size(); i < text.size(); ++i) {
      if (text[i] < '0' || text[i] > '9') return -1;
      fd = fd * 10 + (text[i] - '0');
    }
    return fd;
  }
  return -1;
}

void classify(Destination& d) {
  const std::string& text = d.path.native();
  if (text.empty()) throw OutputError("cannot write an output with an empty name");
  if (const int fd = descriptor_named(text); fd >= 0) {
    if (::fcntl(fd, F_GETFL) == -1) fail(d.path, "descriptor " + std::to_string(fd) + " is not open");
    d.method = Method::descriptor;
    d.fd = fd;
    return;
  }
  if (text.back() == '/' || d.path.filename() == "." || d.path.filename() == "..")
    fail(d.path, "the name is a directory's, not a file's");
  if (::lstat(d.path.c_str(), &d.st) != 0) {
    if (errno != ENOENT) fail(d.path, errno_text());
    d.exists = false;
    d.method = Method::replace;
    return;
  }
  d.exists = true;
  if (S_ISLNK(d.st.st_mode)) {
    struct stat target {};
    std::error_code ec;
    const fs::path to = fs::read_symlink(d.path, ec);
    if (::stat(d.path.c_str(), &target) == 0 && written_directly(target.st_mode)) {
      d.method = Method::direct;
      return;
    }
    fail(d.path, fmt::format("it is a symbolic link{}; attnscope neither replaces links nor writes through "
                             "them to files: name the file itself",
                             ec ? std::string() : " to " + to.string()));
  }
  if (S_ISDIR(d.st.st_mode)) fail(d.path, "it is a directory");
  if (S_ISBLK(d.st.st_mode)) fail(d.path, "it is a block device");
  d.method = written_directly(d.st.st_mode) ? Method::direct : Method::replace;
}

void write_all_bytes(int fd, const std::string& contents, const fs::path& path) {
  const char* data = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path, n == 0 ? std::string("no bytes written") : errno_text());
    data += n;
    left -= static_cast<std::size_t>(n);
  }
}

void stage(Destination& d) {
  const fs::path dir = parent_of(d.path);
  std::random_device rd;
  std::unique_ptr<Temporary> tmp;
  int fd = -1;
  const mode_t mode = d.exists ? (d.st.st_mode & 07777) : 0666;
  for (int attempt = 0; attempt < 8 && fd < 0; ++attempt) {
    tmp = std::make_unique<Temporary>(
        dir / fmt::format(".{}.tmp-{}-{:08x}", d.path.filename().string(), ::getpid(), rd()));
    fd = ::open(tmp->path().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) fail(d.path, errno_text());
  // An existing file keeps its permission bits exactly (the umask applies to open's mode) and, where we may
  // give it, its owner.
  if (d.exists) {
    if (::fchmod(fd, mode) != 0) {
      const std::string why = errno_text();
      ::close(fd);
      fail(d.path, why);
    }
    if (::geteuid() == 0 && ::fchown(fd, d.st.st_uid, d.st.st_gid) != 0) {
      // Keeping the owner is best effort: the contents are what was asked for.
    }
  }
  try {
    write_all_bytes(fd, *d.contents, d.path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::fsync(fd) != 0) {
    const std::string why = errno_text();
    ::close(fd);
    fail(d.path, why);
  }
  if (::close(fd) != 0) fail(d.path, errno_text());
  d.temporary = std::move(tmp);
}

void write_direct(const Destination& d) {
  std::fflush(stdout);  // what was printed before comes first
  std::fflush(stderr);
  if (d.method == Method::descriptor) {
    write_all_bytes(d.fd, *d.contents, d.path);
    return;
  }
  const int fd = ::open(d.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail(d.path, errno_text());
  try {
    write_all_bytes(fd, *d.contents, d.path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) fail(d.path, errno_text());
}

std::string join_paths(const std::vector<fs::path>& paths) {
  std::string out;
  for (const auto& p : paths) out += (out.empty() ? "" : ", ") + p.string();
  return out;
}

// `.NAME.tmp-PID-XXXXXXXX`: NAME and PID, or nothing when the entry is not one of ours.
bool parse_temporary_name(const std::string& entry, std::string& name, long& pid) {
  if (entry.size() < 16 || entry[0] != '.') return false;
  const std::size_t tmp = entry.rfind(".tmp-");
  if (tmp == std::string::npos || tmp < 2) return false;
  const std::size_t dash = entry.find('-', tmp + 5);
  if (dash == std::string::npos || entry.size() - dash - 1 != 8) return false;
  for (std::size_t i = dash + 1; i < entry.size(); ++i)
    if (std::isxdigit(static_cast<unsigned char>(entry[i])) == 0) return false;
  const std::string digits = entry.substr(tmp + 5, dash - tmp - 5);
  if (digits.empty() || digits.size() > 9) return false;
  for (char c : digits)
    if (c < '0' || c > '9') return false;
  pid = std::stol(digits);
  name = entry.substr(1, tmp - 1);
  return pid > 0;
}

}  // namespace

std::vector<fs::path> remove_stale_temporaries(const fs::path& dir) {
  std::vector<fs::path> stale;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return stale;
  while (const dirent* e = ::readdir(d)) {
    std::string name;
    long pid = 0;
    if (!parse_temporary_name(e->d_name, name, pid)) continue;
    if (pid == ::getpid()) continue;
    // A live process (ours or another user's) may still be writing it.
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    const fs::path path = dir / e->d_name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (::unlink(path.c_str()) == 0) {
      std::fprintf(
          stderr,
          "attnscope: removed %s, left by process %ld, which was stopped before it replaced %s; that "
          "file holds the output of an earlier run\n",
          path.c_str(), pid, (dir / name).c_str());
      stale.push_back(dir / name);
    }
  }
  ::closedir(d);
  return stale;
}

OutputBatch::~OutputBatch() = default;

void OutputBatch::add(fs::path path, std::string contents) {
  items_.push_back(Item{std::move(path), std::move(contents)});
}

std::vector<fs::path> OutputBatch::commit() {
  std::vector<Destination> dests(items_.size());
  for (std::size_t i = 0; i < items_.size(); ++i) {
    dests[i].path = items_[i].path;
    dests[i].contents = &items_[i].contents;
    classify(dests[i]);
  }
  // Parent folders: created where missing (and removed again when nothing gets written into them).
  std::vector<fs::path> created;
  const auto remove_created = [&created] {
    for (auto it = created.rbegin(); it != created.rend(); ++it) {
      std::error_code ec;
      fs::remove(*it, ec);  // only empty ones go
    }
  };
  std::vector<fs::path> cleaned;
  for (const Destination& d : dests) {
    if (d.method != Method::replace) continue;
    const fs::path dir = parent_of(d.path);
    std::error_code ec;
    if (!fs::exists(dir, ec)) {
      fs::path missing = dir;
      std::vector<fs::path> chain;
      while (!missing.empty() && !fs::exists(missing, ec)) {
        chain.push_back(missing);
        missing = missing.parent_path();
      }
      fs::create_directories(dir, ec);
      if (ec) {
        remove_created();
        fail(d.path, fmt::format("cannot create folder {}: {}", dir.string(), ec.message()));
      }
      created.insert(created.end(), chain.rbegin(), chain.rend());
    } else if (!fs::is_directory(dir, ec)) {
      remove_created();
      fail(d.path, fmt::format("{} is not a folder", dir.string()));
    }
    if (std::find(cleaned.begin(), cleaned.end(), dir) == cleaned.end()) {
      remove_stale_temporaries(dir);
      cleaned.push_back(dir);
    }
  }
  try {
    for (Destination& d : dests)
      if (d.method == Method::replace) stage(d);
  } catch (...) {
    dests.clear();  // removes the temporary files written so far
    remove_created();
    throw;
  }
  std::vector<fs::path> written;
  for (std::size_t i = 0; i < dests.size(); ++i) {
    Destination& d = dests[i];
    try {
      if (d.method != Method::replace) {
        write_direct(d);
      } else if (::rename(d.temporary->path().c_str(), d.path.c_str()) == 0) {
        d.temporary->renamed();
      } else {
        fail(d.path, errno_text());
      }
    } catch (const OutputError& e) {
      std::vector<fs::path> unchanged;
      for (std::size_t j = i; j < dests.size(); ++j) unchanged.push_back(dests[j].path);
      dests.clear();
      if (written.empty()) throw;
      throw OutputError(fmt::format("{}; written: {}; not written (they hold what they held before): {}",
                                    e.what(), join_paths(written), join_paths(unchanged)));
    }
    written.push_back(d.path);
  }
  // Make the renames durable.
  for (const fs::path& dir : cleaned) {
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
  }
  items_.clear();
  return written;
}

void write_file_atomic(const fs::path& path, std::string_view contents) {
  OutputBatch batch;
  batch.add(path, std::string(contents));
  batch.commit();
}

}  // namespace attnscope::reports
