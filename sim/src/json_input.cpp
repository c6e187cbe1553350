// SPDX-License-Identifier: Apache-2.0
#include "attnscope/sim/json_input.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <iterator>
#include <set>
#include <vector>

namespace attnscope::sim {

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// An iterator over the text that records how far the parser has read, so a duplicate key or an
// out-of-range number can be reported at its byte.
class CountingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator() = default;
  CountingIterator(const char* p, const char* begin, std::size_t* consumed)
      : p_(p), begin_(begin), consumed_(consumed) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    ++p_;
    if (consumed_ != nullptr) *consumed_ = static_cast<std::size_t>(p_ - begin_);
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator& o) const { return p_ == o.p_; }
  bool operator!=(const CountingIterator& o) const { return p_ != o.p_; }

 private:
  const char* p_ = nullptr;
  const char* begin_ = nullptr;
  std::size_t* consumed_ = nullptr;
};

using json = nlohmann::json;

// Builds the document like nlohmann's own DOM parser, refusing what it would accept silently.
class StrictSax {
 public:
  StrictSax(json& root, const std::size_t& consumed, std::size_t size)
      : dom_(root, true), consumed_(consumed), size_(size) {}

  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const std::string& text) {
    // Integers too long for 64 bits arrive here as floats, so one check covers both.
    if (!std::isfinite(v)) fail(fmt::format("number {} is out of range", abbreviate(text)));
    return dom_.number_float(v, text);
  }
  bool string(std::string& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) {
    enter();
    keys_.emplace_back();
    return dom_.start_object(n);
  }
  bool key(std::string& k) {
    if (!keys_.back().insert(k).second) fail(fmt::format("duplicate key '{}'", abbreviate(k)));
    return dom_.key(k);
  }
  bool end_object() {
    keys_.pop_back();
    --depth_;
    return dom_.end_object();
  }
  bool start_array(std::size_t n) {
    enter();
    return dom_.start_array(n);
  }
  bool end_array() {
    --depth_;
    return dom_.end_array();
  }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error while parsing value -
    // invalid literal": the part after the location, which the byte offset replaces.
    std::string detail = e.what();
    if (detail.rfind("[json.exception.", 0) == 0)
      if (const auto close = detail.find("] "); close != std::string::npos) detail = detail.substr(close + 2);
    if (const auto pos = detail.find("syntax error while parsing value - "); pos != std::string::npos)
      detail = detail.substr(pos + 35);
    else if (const auto colon = detail.find(": ");
             detail.rfind("parse error", 0) == 0 && colon != std::string::npos)
      detail = detail.substr(colon + 2);
    throw JsonInputError(detail, position, position >= size_);
  }

 private:
  static std::string abbreviate(const std::string& s) { return s.size() > 40 ? s.substr(0, 40) + "..." : s; }
  void enter() {
    if (++depth_ > kMaxJsonDepth) fail(fmt::format("nesting deeper than {} levels", kMaxJsonDepth));
  }
  [[noreturn]] void fail(const std::string& what) const { throw JsonInputError(what, consumed_, false); }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  const std::size_t& consumed_;
  std::size_t size_;
  std::vector<std::set<std::string>> keys_;
  int depth_ = 0;
};

}  // namespace

std::string read_input_file(const std::filesystem::path& path, std::size_t max_bytes, std::string_view what) {
  // O_NONBLOCK: opening a FIFO that has no writer must not hang; anything but a regular file is refused
  // right after.
  const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0)
    throw InputFileError(fmt::format("cannot open {} {}: {}", what, path.string(), std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    throw InputFileError(fmt::format("cannot read {} {}: {}", what, path.string(), std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw InputFileError(fmt::format("{} {} is {}, not a file", what, path.string(), kind_of(st.st_mode)));
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw InputFileError(fmt::format("{} {} is {} bytes, more than the {} bytes a {} may have", what,
                                     path.string(), st.st_size, max_bytes, what));
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  // The file may grow while it is read: read to its end, within the limit.
  for (;;) {
    if (got == text.size()) {
      if (text.size() >= max_bytes + 1) break;
      text.resize(std::min(max_bytes + 1, std::max<std::size_t>(text.size() * 2, 4096)));
    }
    const ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw InputFileError(fmt::format("cannot read {} {}: {}", what, path.string(), std::strerror(errno)));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got > max_bytes)
    throw InputFileError(
        fmt::format("{} {} is more than the {} bytes a {} may have", what, path.string(), max_bytes, what));
  text.resize(got);
  return text;
}

json parse_json_strict(std::string_view text) {
  json doc;
  std::size_t consumed = 0;
  StrictSax sax(doc, consumed, text.size());
  const CountingIterator first(text.data(), text.data(), &consumed);
  const CountingIterator last(text.data() + text.size(), text.data(), nullptr);
  json::sax_parse(first, last, &sax);
  return doc;
}

}  // namespace attnscope::sim
