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

// RFC 4180: quote when the field holds a comma, quote or newline. A text field that a spreadsheet would
// run as a formula (starting with = + - @, tab or carriage return) gets a leading apostrophe (OWASP's CSV
// injection guard); numbers are written by the caller, not through this.
inline std::string csv_field(std::string_view s) {
  std::string text;
  if (!s.empty() && std::string_view("=+-@\t\r").find(s.front()) != std::string_view::npos) text = "'";
  text += s;
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Text for a terminal: control characters (ESC starting a colour or a title change, a carriage return
// overwriting a line, C1 controls in UTF-8) are shown as \xNN instead of acted on. Newlines and tabs stay.
inline std::string terminal_safe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const bool c1 = c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(s[i + 1]) <= 0x9F;
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
    } else if (c1) {
      out += fmt::format("\\xc2\\x{:02x}", static_cast<unsigned char>(s[++i]));
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// Shortest text that reads back as the same double; empty when absent.
inline std::string number_or_empty(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : std::string();
}

// Text from a report in Markdown (table cells and lines): the pipe and backslash escaped, HTML's special
// characters as entities so a name cannot open a tag, link brackets and backticks escaped, line breaks and
// other control characters as spaces.
inline std::string md_cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '|':
      case '\\':
      case '`':
      case '[':
      case ']':
        out += '\\';
        out += c;
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      default:
        out += static_cast<unsigned char>(c) < 0x20 || c == 0x7F ? ' ' : c;
    }
  }
  return out;
}

// Text inside a Markdown code span: a backtick would end the span, a pipe the table cell.
inline std::string md_code(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '`')
      out += '\'';
    else if (c == '|')
      out += "\\|";
    else
      out += static_cast<unsigned char>(c) < 0x20 || c == 0x7F ? ' ' : c;
  }
  return out;
}

inline std::string workload_summary(const sim::Workload& w) {
  const char* pass = w.pass == sim::Pass::fwd   ? ""
                     : w.pass == sim::Pass::bwd ? ", backward pass"
                                                : ", training step";
  return fmt::format("{}: B={} H={} Nq={} Nkv={} d={} {}{}{}", w.name, w.batch, w.heads, w.seq_q, w.seq_kv,
                     w.head_dim, sim::to_string(w.dtype), sim::mask_label(w), pass);
}

}  // namespace attnscope::reports::detail
