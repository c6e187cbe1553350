// SPDX-License-Identifier: Apache-2.0
#include "attnscope/reports/gate.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "attnscope/reports/units.hpp"

namespace attnscope::reports {

namespace {

constexpr std::string_view kForm =
    "expected KERNEL.METRIC[.measured|.modeled|.error] OP VALUE, e.g. "
    "'tiled.dram_read.error < 5%'";

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

bool compare(double a, Comparison op, double b) {
  switch (op) {
    case Comparison::less:
      return a < b;
    case Comparison::less_equal:
      return a <= b;
    case Comparison::greater:
      return a > b;
    case Comparison::greater_equal:
      return a >= b;
    case Comparison::equal:
      return a == b;
    case Comparison::not_equal:
      return a != b;
  }
  return false;
}

std::string join(const std::set<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

}  // namespace

std::string_view to_string(Comparison op) {
  switch (op) {
    case Comparison::less:
      return "<";
    case Comparison::less_equal:
      return "<=";
    case Comparison::greater:
      return ">";
    case Comparison::greater_equal:
      return ">=";
    case Comparison::equal:
      return "==";
    case Comparison::not_equal:
      return "!=";
  }
  return "?";
}

Gate parse_gate(std::string_view text) {
  Gate g;
  g.text = trim(text);
  // Find the operator: the first of < > = !.
  const auto pos = g.text.find_first_of("<>=!");
  if (pos == std::string::npos)
    throw GateError(fmt::format("gate '{}': no comparison (< <= > >= == !=); {}", g.text, kForm));
  std::string op_text(1, g.text[pos]);
  if (pos + 1 < g.text.size() && g.text[pos + 1] == '=') op_text += '=';
  if (op_text == "<")
    g.op = Comparison::less;
  else if (op_text == "<=")
    g.op = Comparison::less_equal;
  else if (op_text == ">")
    g.op = Comparison::greater;
  else if (op_text == ">=")
    g.op = Comparison::greater_equal;
  else if (op_text == "==")
    g.op = Comparison::equal;
  else if (op_text == "!=")
    g.op = Comparison::not_equal;
  else
    throw GateError(fmt::format("gate '{}': '{}' is not a comparison (< <= > >= == !=)", g.text, op_text));
  const std::string lhs = trim(std::string_view(g.text).substr(0, pos));
  g.threshold_text = trim(std::string_view(g.text).substr(pos + op_text.size()));
  if (lhs.empty())
    throw GateError(fmt::format("gate '{}': nothing left of '{}'; {}", g.text, op_text, kForm));
  if (g.threshold_text.empty())
    throw GateError(fmt::format("gate '{}': no value right of '{}'; {}", g.text, op_text, kForm));
  if (g.threshold_text.find_first_of("<>=!") != std::string::npos)
    throw GateError(fmt::format("gate '{}': more than one comparison; {}", g.text, kForm));

  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto dot = lhs.find('.', start);
    parts.push_back(lhs.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const auto& p : parts)
    if (p.empty() || p.find_first_of(" \t") != std::string::npos)
      throw GateError(fmt::format("gate '{}': '{}' is not KERNEL.METRIC[.FIELD]; {}", g.text, lhs, kForm));
  if (parts.size() >= 3) {
    const std::string& last = parts.back();
    if (last == "measured")
      g.field = GateField::measured;
    else if (last == "modeled")
      g.field = GateField::modeled;
    else if (last == "error")
      g.field = GateField::error;
    if (g.field != GateField::automatic) parts.pop_back();
  }
  if (parts.size() < 2)
    throw GateError(fmt::format("gate '{}': '{}' names no metric; {}", g.text, lhs, kForm));
  g.metric = parts.back();
  parts.pop_back();
  for (const auto& p : parts) g.kernel += (g.kernel.empty() ? "" : ".") + p;
  try {
    const Quantity q = parse_quantity(g.threshold_text);
    g.threshold = q.value;
  } catch (const std::invalid_argument& e) {
    throw GateError(fmt::format("gate '{}': {}", g.text, e.what()));
  }
  return g;
}

GateResult evaluate_gate(const Gate& gate, const Report& report) {
  // The kernels the gate reads: one by name, or all whose name starts with "<kernel>." (a sum).
  std::vector<const KernelEntry*> kernels;
  if (const KernelEntry* k = find_kernel(report, gate.kernel)) {
    kernels.push_back(k);
  } else {
    for (const auto& entry : report.kernels)
      if (entry.name.rfind(gate.kernel + ".", 0) == 0) kernels.push_back(&entry);
  }
  if (kernels.empty()) {
    std::set<std::string> names;
    for (const auto& k : report.kernels) names.insert(k.name);
    throw GateError(fmt::format("gate '{}': the report has no kernel '{}' (it has: {})", gate.text,
                                gate.kernel, names.empty() ? "no kernels" : join(names)));
  }
  const auto metric = vocab::metric_from_key(gate.metric);
  if (!metric) {
    std::set<std::string> keys;
    for (const auto& m : vocab::kMetrics) keys.insert(std::string(m.key));
    throw GateError(
        fmt::format("gate '{}': '{}' is not a metric (metrics: {})", gate.text, gate.metric, join(keys)));
  }
  const std::string unit(vocab::to_string(vocab::info(*metric).unit));
  Value sum;
  bool any_measured = false, all_measured = true, any_modeled = false, all_modeled = true;
  double measured = 0, modeled_sum = 0;
  for (const KernelEntry* k : kernels) {
    const Value* found = k->metrics.find(*metric);
    if (found == nullptr) {
      std::set<std::string> keys;
      for (const auto& [key, v] : k->metrics) keys.insert(std::string(vocab::key(key)));
      throw GateError(fmt::format("gate '{}': kernel '{}' has no metric '{}' (it has: {})", gate.text,
                                  k->name, gate.metric, keys.empty() ? "no metrics" : join(keys)));
    }
    const Value& v = *found;
    if (v.measured)
      any_measured = true, measured += *v.measured;
    else
      all_measured = false;
    if (v.modeled)
      any_modeled = true, modeled_sum += *v.modeled;
    else
      all_modeled = false;
  }
  if (any_measured && all_measured) sum.measured = measured;
  if (any_modeled && all_modeled) sum.modeled = modeled_sum;

  // Units must fit: a percentage only for the error, a time only for a time metric, and so on.
  const Quantity q = parse_quantity(gate.threshold_text);
  const Dimension metric_dim = dimension_of_unit(unit);
  if (gate.field == GateField::error) {
    if (q.dimension != Dimension::fraction && q.dimension != Dimension::none)
      throw GateError(fmt::format("gate '{}': an error is compared with a percentage (e.g. 5%), not {}",
                                  gate.text, to_string(q.dimension)));
  } else if (q.dimension == Dimension::fraction) {
    throw GateError(fmt::format("gate '{}': a percentage only fits the error field (write {}.{}.error ...)",
                                gate.text, gate.kernel, gate.metric));
  } else if (q.dimension != Dimension::none && q.dimension != metric_dim) {
    throw GateError(fmt::format("gate '{}': {} is {}, but '{}' is {}", gate.text, gate.metric,
                                to_string(metric_dim), gate.threshold_text, to_string(q.dimension)));
  }

  GateResult r;
  r.gate = gate;
  const std::string label = gate.kernel + "." + gate.metric;
  auto show = [&](double v) {
    return r.field_used == "error" ? fmt::format("{:.2f}%", v * 100.0) : format_value(v, unit);
  };
  switch (gate.field) {
    case GateField::automatic:
      r.field_used = sum.measured ? "measured" : "modeled";
      r.actual = sum.measured ? sum.measured : sum.modeled;
      break;
    case GateField::measured:
      r.field_used = "measured";
      r.actual = sum.measured;
      break;
    case GateField::modeled:
      r.field_used = "modeled";
      r.actual = sum.modeled;
      break;
    case GateField::error:
      r.field_used = "error";
      if (auto e = sum.relative_error()) r.actual = std::fabs(*e);
      break;
  }
  const std::string wanted = fmt::format("{} {}", to_string(gate.op), show(gate.threshold));
  if (!r.actual) {
    r.passed = false;
    r.message = fmt::format("{}: the report has no {} value{}, wanted {}", label, r.field_used,
                            r.field_used == "error" ? " (needs both measured and modeled)" : "", wanted);
    return r;
  }
  r.passed = compare(*r.actual, gate.op, gate.threshold);
  if (r.field_used == "error")
    r.message = fmt::format("{} |error| = {}, wanted {}", label, show(*r.actual), wanted);
  else
    r.message = fmt::format("{} = {} ({}), wanted {}", label, show(*r.actual), r.field_used, wanted);
  return r;
}

std::vector<GateResult> evaluate_gates(const std::vector<std::string>& gate_texts, const Report& report) {
  std::vector<GateResult> out;
  out.reserve(gate_texts.size());
  for (const auto& t : gate_texts) out.push_back(evaluate_gate(parse_gate(t), report));
  return out;
}

}  // namespace attnscope::reports
