// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/units.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace attnscope::reports {

namespace {

struct UnitInfo {
  std::string_view name;
  double scale;
  Dimension dimension;
};

// Longest names are matched exactly, so order does not matter.
constexpr std::array kUnits{
    UnitInfo{"%", 0.01, Dimension::fraction},        UnitInfo{"s", 1.0, Dimension::seconds},
    UnitInfo{"ms", 1e-3, Dimension::seconds},        UnitInfo{"us", 1e-6, Dimension::seconds},
    UnitInfo{"ns", 1e-9, Dimension::seconds},        UnitInfo{"B", 1.0, Dimension::bytes},
    UnitInfo{"KB", 1e3, Dimension::bytes},           UnitInfo{"MB", 1e6, Dimension::bytes},
    UnitInfo{"GB", 1e9, Dimension::bytes},           UnitInfo{"TB", 1e12, Dimension::bytes},
    UnitInfo{"KiB", 1024.0, Dimension::bytes},       UnitInfo{"MiB", 1048576.0, Dimension::bytes},
    UnitInfo{"GiB", 1073741824.0, Dimension::bytes}, UnitInfo{"TiB", 1099511627776.0, Dimension::bytes},
    UnitInfo{"K", 1024.0, Dimension::bytes},         UnitInfo{"M", 1048576.0, Dimension::bytes},
    UnitInfo{"G", 1073741824.0, Dimension::bytes},   UnitInfo{vocab::to_string(vocab::Unit::cycles), 1.0, Dimension::cycles},
    UnitInfo{"FLOP", 1.0, Dimension::flops},         UnitInfo{"GFLOP", 1e9, Dimension::flops},
    UnitInfo{"TFLOP", 1e12, Dimension::flops},
};

std::string unit_list() {
  std::string s;
  for (const auto& u : kUnits) s += (s.empty() ? "" : " ") + std::string(u.name);
  return s;
}

}  // namespace

Quantity parse_quantity(std::string_view text) {
  const std::string original(text);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty())
    throw std::invalid_argument("empty quantity (expected a number such as 5%, 0.6ms, 1.2GB)");
  double number = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (*first == '+') ++first;  // from_chars rejects a leading '+'
  auto [ptr, ec] = std::from_chars(first, last, number);
  if (ec != std::errc() || !std::isfinite(number))
    throw std::invalid_argument("'" + original + "' does not start with a number");
  std::string_view unit(ptr, static_cast<std::size_t>(last - ptr));
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.remove_prefix(1);
  if (unit.empty()) return {number, Dimension::none};
  for (const auto& u : kUnits)
    if (u.name == unit) return {number * u.scale, u.dimension};
  // "µs" in UTF-8
  if (unit == "\xC2\xB5s") return {number * 1e-6, Dimension::seconds};
  throw std::invalid_argument("unknown unit '" + std::string(unit) + "' in '" + original +
                              "' (known: " + unit_list() + ")");
}

std::string_view to_string(Dimension d) {
  switch (d) {
    case Dimension::none:
      return "a plain number";
    case Dimension::fraction:
      return "a percentage";
    case Dimension::seconds:
      return "a time";
    case Dimension::bytes:
      return "a size in bytes";
    case Dimension::cycles:
      return vocab::to_string(vocab::Unit::cycles);
    case Dimension::flops:
      return "FLOP";
  }
  return "?";
}

Dimension dimension_of_unit(std::string_view unit) {
  using vocab::Unit;
  if (unit == vocab::to_string(Unit::bytes)) return Dimension::bytes;
  if (unit == vocab::to_string(Unit::seconds)) return Dimension::seconds;
  if (unit == vocab::to_string(Unit::cycles)) return Dimension::cycles;
  if (unit == vocab::to_string(Unit::flop)) return Dimension::flops;
  return Dimension::none;
}

std::string format_bytes(double bytes) {
  const double a = std::fabs(bytes);
  if (a >= 1e12) return fmt::format("{:.3g} TB", bytes / 1e12);
  if (a >= 1e9) return fmt::format("{:.3g} GB", bytes / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g} MB", bytes / 1e6);
  if (a >= 1e3) return fmt::format("{:.3g} KB", bytes / 1e3);
  return fmt::format("{:.0f} B", bytes);
}

std::string format_bytes_binary(double bytes) {
  const double a = std::fabs(bytes);
  if (a >= 1073741824.0) return fmt::format("{:.3g} GiB", bytes / 1073741824.0);
  if (a >= 1048576.0) return fmt::format("{:.3g} MiB", bytes / 1048576.0);
  if (a >= 1024.0) return fmt::format("{:.3g} KiB", bytes / 1024.0);
  return fmt::format("{:.0f} B", bytes);
}

std::string format_seconds(double seconds) {
  const double a = std::fabs(seconds);
  if (a >= 1.0 || a == 0.0) return fmt::format("{:.4g} s", seconds);
  if (a >= 1e-3) return fmt::format("{:.4g} ms", seconds * 1e3);
  if (a >= 1e-6) return fmt::format("{:.4g} us", seconds * 1e6);
  return fmt::format("{:.4g} ns", seconds * 1e9);
}

std::string format_value(double value, std::string_view unit) {
  if (unit == "B") return format_bytes(value);
  if (unit == "s") return format_seconds(value);
  if (unit == "FLOP") {
    if (std::fabs(value) >= 1e9) return fmt::format("{:.4g} GFLOP", value / 1e9);
    return fmt::format("{:.4g} FLOP", value);
  }
  if (unit.empty()) return format_count(value);
  return format_count(value) + " " + std::string(unit);
}

std::string format_count(double value) {
  if (!std::isfinite(value) || std::fabs(value) >= 1e15 || value != std::floor(value))
    return fmt::format("{:.4g}", value);
  const auto whole = static_cast<long long>(std::fabs(value));
  std::string digits = std::to_string(whole), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (value < 0 ? "-" : "") + out;
}

std::string format_metric(double value, vocab::Metric metric) {
  return format_value(value, vocab::to_string(vocab::info(metric).unit));
}

std::string format_percent(double fraction) {
  return fmt::format("{:+.1f}%", fraction * 100.0);
}

}  // namespace attnscope::reports
