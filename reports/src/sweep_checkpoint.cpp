// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/sweep_checkpoint.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>

#include "attnscope/reports/json_io.hpp"
#include "attnscope/reports/sweep_work.hpp"

namespace attnscope::reports {

namespace {

constexpr std::string_view kMagic = "attnscope-sweep-checkpoint 1";

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// One journal line's points, or false when the line is damaged.
bool parse_line(std::string_view line, std::int64_t& unit, std::vector<SweepPoint>& points) {
  const auto tab1 = line.find('\t');
  const auto tab2 = line.rfind('\t');
  if (tab1 == std::string_view::npos || tab2 == tab1) return false;
  const std::string_view unit_text = line.substr(0, tab1), json = line.substr(tab1 + 1, tab2 - tab1 - 1),
                         sum = line.substr(tab2 + 1);
  const auto [end, ec] = std::from_chars(unit_text.data(), unit_text.data() + unit_text.size(), unit);
  if (ec != std::errc() || end != unit_text.data() + unit_text.size()) return false;
  if (sum != fmt::format("{:016x}", fnv1a(json))) return false;
  try {
    points = decode_points(json);
  } catch (const ReportError&) {
    return false;
  }
  return true;
}

void write_all(int fd, std::string_view text, const std::string& path) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ReportError(fmt::format("checkpoint {}: write failed: {}", path, std::strerror(errno)));
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

SweepCheckpoint::SweepCheckpoint(std::string path, const std::string& definition, int shard_index,
                                 int shard_count)
    : path_(std::move(path)),
      header_(fmt::format("{}\t{}/{}\t{}\n", kMagic, shard_index, shard_count, definition)) {
  std::string text;
  {
    std::ifstream in(path_, std::ios::binary);
    if (in) {
      std::ostringstream all;
      all << in.rdbuf();
      text = all.str();
    }
  }
  std::size_t good = 0;  // bytes of the file that are whole, checked lines
  if (!text.empty()) {
    if (text.rfind(header_, 0) != 0) {
      // A header cut short by a kill at the very start is no sweep's: start afresh.
      if (text.size() >= header_.size() || header_.rfind(text, 0) != 0)
        throw ReportError(fmt::format(
            "checkpoint {} belongs to another sweep or shard (delete it to start afresh)", path_));
    } else {
      good = header_.size();
      while (good < text.size()) {
        const auto newline = text.find('\n', good);
        if (newline == std::string::npos) break;  // the line the kill cut short
        std::int64_t unit = 0;
        std::vector<SweepPoint> points;
        if (!parse_line(std::string_view(text).substr(good, newline - good), unit, points)) break;
        units_[unit] = std::move(points);
        good = newline + 1;
      }
    }
  }
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT, 0644);
  if (fd_ < 0) throw ReportError(fmt::format("checkpoint {}: {}", path_, std::strerror(errno)));
  if (::ftruncate(fd_, static_cast<off_t>(good)) != 0 || ::lseek(fd_, 0, SEEK_END) < 0)
    throw ReportError(fmt::format("checkpoint {}: {}", path_, std::strerror(errno)));
  if (good == 0) write_all(fd_, header_, path_);
}

SweepCheckpoint::~SweepCheckpoint() {
  if (fd_ >= 0) ::close(fd_);
}

void SweepCheckpoint::append(std::int64_t unit, const std::vector<SweepPoint>& points) {
  const std::string json = encode_points(points);
  write_all(fd_, fmt::format("{}\t{}\t{:016x}\n", unit, json, fnv1a(json)), path_);
  ::fdatasync(fd_);  // a finished unit survives a crash of the machine too, not only of the process
  units_[unit] = points;
}

}  // namespace attnscope::reports
