// SPDX-License-Identifier: Apache-2.0
#include "attnscope/profiler/recognize.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <regex>
#include <vector>

namespace attnscope::profiler {

namespace {

// "key=value" fields of an annotation after its prefix, each key once. Returns the error, or "" and fills
// `fields`.
std::string split_fields(std::string_view text, std::string_view prefix,
                         std::map<std::string, std::string, std::less<>>& fields) {
  if (text.substr(0, prefix.size()) != prefix) return fmt::format("does not start with '{}'", prefix);
  text.remove_prefix(prefix.size());
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    const std::size_t end = std::min(text.find(' ', i), text.size());
    const std::string_view token = text.substr(i, end - i);
    i = end;
    const std::size_t eq = token.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == token.size())
      return fmt::format("'{}' is not of the form key=value", token);
    const std::string key(token.substr(0, eq));
    if (!fields.emplace(key, std::string(token.substr(eq + 1))).second)
      return fmt::format("'{}' is given twice", key);
  }
  return "";
}

// A positive integer field, or the error.
std::string positive(const std::map<std::string, std::string, std::less<>>& fields, std::string_view key,
                     std::int64_t& out) {
  const auto it = fields.find(key);
  if (it == fields.end()) return fmt::format("'{}' is missing", key);
  const std::string& s = it->second;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || end != s.data() + s.size() || out <= 0)
    return fmt::format("{}={} is not a positive integer", key, s);
  return "";
}

std::string unknown_keys(const std::map<std::string, std::string, std::less<>>& fields,
                         std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : fields)
    if (std::find(known.begin(), known.end(), key) == known.end())
      return fmt::format("unknown field '{}'", key);
  return "";
}

// A table row's pattern with its named groups `(?<name>` turned into plain groups (std::regex knows no
// named groups), and the name of each capturing group by index (empty for unnamed ones).
struct CompiledRow {
  std::regex regex;
  std::vector<std::string> group_names;  // [0] is the whole match
};

// `pattern` with every `{name}` of kPatternPieces replaced by the piece's text, pieces inside pieces
// included (other braces, such as a quantifier's {2}, stay).
std::string expand_pieces(std::string_view pattern) {
  std::string text(pattern);
  for (bool replaced = true; replaced;) {
    replaced = false;
    for (const PatternPiece& piece : kPatternPieces) {
      const std::string token = fmt::format("{{{}}}", piece.name);
      for (std::size_t at = text.find(token); at != std::string::npos; at = text.find(token, at)) {
        text.replace(at, token.size(), piece.text);
        replaced = true;
      }
    }
  }
  return text;
}

CompiledRow compile(std::string_view row_pattern) {
  const std::string expanded = expand_pieces(row_pattern);
  const std::string_view pattern = expanded;
  std::string plain;
  std::vector<std::string> names{""};
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      plain += c;
      plain += pattern[++i];
      continue;
    }
    if (in_class) {
      in_class = c != ']';
      plain += c;
      continue;
    }
    if (c == '[') in_class = true;
    if (c == '(') {
      if (pattern.substr(i, 3) == "(?<" && i + 3 < pattern.size() && pattern[i + 3] != '=' &&
          pattern[i + 3] != '!') {
        const std::size_t close = pattern.find('>', i + 3);
        names.emplace_back(pattern.substr(i + 3, close - (i + 3)));
        plain += '(';
        i = close;
        continue;
      }
      if (pattern.substr(i, 2) != "(?") names.emplace_back();
    }
    plain += c;
  }
  return {std::regex(plain, std::regex::ECMAScript | std::regex::optimize), std::move(names)};
}

const std::vector<CompiledRow>& compiled_table() {
  static const std::vector<CompiledRow> rows = [] {
    std::vector<CompiledRow> out;
    out.reserve(kKernelTable.size());
    for (const KernelRow& row : kKernelTable) out.push_back(compile(row.pattern));
    return out;
  }();
  return rows;
}

}  // namespace

ParsedAnnotation parse_annotation(std::string_view message) {
  ParsedAnnotation out;
  std::map<std::string, std::string, std::less<>> fields;
  auto fail = [&](const std::string& why) {
    out.error = fmt::format("annotation '{}': {} (expected e.g. '{}')", message, why,
                            "attnscope: B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=1");
    return out;
  };
  if (std::string e = split_fields(message, kAnnotationPrefix, fields); !e.empty()) return fail(e);
  if (std::string e = unknown_keys(fields, {"B", "H", "Nq", "Nkv", "d", "dtype", "causal"}); !e.empty())
    return fail(e);
  AnnotatedShape s;
  for (auto [key, value] : {std::pair<std::string_view, std::int64_t*>{"B", &s.batch},
                            {"H", &s.heads},
                            {"Nq", &s.seq_q},
                            {"Nkv", &s.seq_kv},
                            {"d", &s.head_dim}})
    if (std::string e = positive(fields, key, *value); !e.empty()) return fail(e);
  const auto dtype = fields.find("dtype");
  if (dtype == fields.end()) return fail("'dtype' is missing");
  if (dtype->second != "fp16" && dtype->second != "bf16")
    return fail(fmt::format("dtype={} is not fp16 or bf16", dtype->second));
  s.dtype = dtype->second;
  const auto causal = fields.find("causal");
  if (causal == fields.end()) return fail("'causal' is missing");
  if (causal->second != "0" && causal->second != "1")
    return fail(fmt::format("causal={} is not 0 or 1", causal->second));
  s.causal = causal->second == "1";
  out.shape = s;
  return out;
}

std::string format_annotation(const AnnotatedShape& s) {
  return fmt::format("{} B={} H={} Nq={} Nkv={} d={} dtype={} causal={}", kAnnotationPrefix, s.batch, s.heads,
                     s.seq_q, s.seq_kv, s.head_dim, s.dtype, s.causal ? 1 : 0);
}

ParsedTileHint parse_tile_hint(std::string_view message) {
  ParsedTileHint out;
  std::map<std::string, std::string, std::less<>> fields;
  auto fail = [&](const std::string& why) {
    out.error = fmt::format("tile hint '{}': {} (expected e.g. '{}')", message, why,
                            "attnscope tiles: block_m=128 block_n=64 num_warps=4 num_stages=2");
    return out;
  };
  if (std::string e = split_fields(message, kTileHintPrefix, fields); !e.empty()) return fail(e);
  if (std::string e = unknown_keys(fields, {"block_m", "block_n", "num_warps", "num_stages"}); !e.empty())
    return fail(e);
  TileHint h;
  for (auto [key, value] : {std::pair<std::string_view, int*>{"block_m", &h.block_m},
                            {"block_n", &h.block_n},
                            {"num_warps", &h.num_warps},
                            {"num_stages", &h.num_stages}}) {
    std::int64_t v = 0;
    if (std::string e = positive(fields, key, v); !e.empty()) return fail(e);
    if (v > 1 << 16) return fail(fmt::format("{}={} is too large", key, v));
    *value = static_cast<int>(v);
  }
  out.hint = h;
  return out;
}

ParsedAnnotation shape_of(const ForeignLaunch& launch) {
  if (launch.shape) return ParsedAnnotation{launch.shape, ""};
  for (auto it = launch.nvtx_ranges.rbegin(); it != launch.nvtx_ranges.rend(); ++it)
    if (std::string_view(*it).substr(0, kAnnotationPrefix.size()) == kAnnotationPrefix)
      return parse_annotation(*it);
  return {};
}

ParsedTileHint tile_hint_of(const ForeignLaunch& launch) {
  for (auto it = launch.nvtx_ranges.rbegin(); it != launch.nvtx_ranges.rend(); ++it)
    if (std::string_view(*it).substr(0, kTileHintPrefix.size()) == kTileHintPrefix)
      return parse_tile_hint(*it);
  return {};
}

Recognition recognize(std::string_view demangled_name) {
  const auto& rows = compiled_table();
  // std::regex matches a repetition by recursion, one level per character: a run of a hundred thousand
  // characters under a pattern's `[^<>]*` overflows the stack. Every kernel of the table names itself and its
  // template arguments within its first few hundred characters, so the search sees the first 4096.
  constexpr std::size_t kSearchedCharacters = 4096;
  const std::string name(demangled_name.substr(0, kSearchedCharacters));
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::smatch m;
    if (!std::regex_search(name, m, rows[r].regex)) continue;
    Recognition out;
    out.row = &kKernelTable[r];
    for (std::size_t g = 1; g < rows[r].group_names.size() && g < m.size(); ++g)
      if (!rows[r].group_names[g].empty() && m[g].matched) out.captures[rows[r].group_names[g]] = m[g].str();
    return out;
  }
  return {};
}

std::string short_kernel_name(std::string_view demangled_name) {
  // The name ends before the first '<' or '(' (template arguments, parameters); it starts after the last
  // "::" or space before that point (namespaces, return type). An anonymous namespace is dropped first.
  std::string text(demangled_name);
  constexpr std::string_view kAnonymous = "(anonymous namespace)::";
  for (std::size_t at = text.find(kAnonymous); at != std::string::npos; at = text.find(kAnonymous))
    text.erase(at, kAnonymous.size());
  const std::string_view name = text;
  const std::size_t end = std::min(name.find_first_of("<("), name.size());
  std::string_view head = name.substr(0, end);
  if (const std::size_t colon = head.rfind("::"); colon != std::string_view::npos)
    head.remove_prefix(colon + 2);
  if (const std::size_t space = head.rfind(' '); space != std::string_view::npos)
    head.remove_prefix(space + 1);
  return head.empty() ? std::string(name) : std::string(head);
}

}  // namespace attnscope::profiler
