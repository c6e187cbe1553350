// SPDX-License-Identifier: Apache-2.0
// Escaping and small formatting helpers shared by the writers (internal to the reports library).
#pragma once
#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>

#include "attnscope/reports/report.hpp"

namespace attnscope::reports::detail {

// Columns of text as a terminal shows them: UTF-8 continuation bytes take no column.
inline std::size_t display_width(std::string_view s) {
  std::size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

// HTML and XML text and attribute values.
inline std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters other than tab/newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r')
          out += ' ';
        else
          out += c;
    }
  }
  return out;
}

// RFC 4180: quote when the field holds a comma, quote or newline.
inline std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Shortest text that reads back as the same double; empty when absent.
inline std::string number_or_empty(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : std::string();
}

// Markdown table cells: escape the pipe.
inline std::string md_cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

inline std::string workload_summary(const sim::Workload& w) {
  const char* pass = w.pass == sim::Pass::fwd   ? ""
                     : w.pass == sim::Pass::bwd ? ", backward pass"
                                                : ", training step";
  return fmt::format("{}: B={} H={} Nq={} Nkv={} d={} {}{}{}", w.name, w.batch, w.heads, w.seq_q, w.seq_kv,
                     w.head_dim, sim::to_string(w.dtype), w.causal ? " causal" : "", pass);
}

}  // namespace attnscope::reports::detail
