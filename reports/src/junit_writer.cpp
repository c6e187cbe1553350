// SPDX-License-Identifier: Apache-2.0
// JUnit XML as CI systems read it (Jenkins, GitLab, GitHub test reporters): one testsuite, one testcase per
// gate, a <failure> element with the gate's message when it fails.
#include "attnscope/reports/writers.hpp"
#include "text_util.hpp"

namespace attnscope::reports {

using detail::xml_escape;

std::string to_junit(const Report& report, const std::vector<GateResult>& gates) {
  std::size_t failures = 0;
  for (const auto& g : gates) failures += g.passed ? 0 : 1;
  const std::string suite = "attnscope gates: " + report.workload.name;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"attnscope\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n",
                     gates.size(), failures);
  out += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"0\"",
      xml_escape(suite), gates.size(), failures);
  if (!report.provenance.date.empty())
    out += fmt::format(" timestamp=\"{}\"", xml_escape(report.provenance.date));
  out += ">\n";
  out += "    <properties>\n";
  auto property = [&out](std::string_view name, std::string_view value) {
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name, xml_escape(value));
  };
  property("report.kind", report.kind);
  property("workload", detail::workload_summary(report.workload));
  property("gpu", report.provenance.gpu_name);
  property("tool_version", report.provenance.tool_version);
  property("git_revision", report.provenance.git_revision);
  out += "    </properties>\n";
  for (const auto& g : gates) {
    out += fmt::format("    <testcase classname=\"attnscope.gates.{}\" name=\"{}\" time=\"0\"",
                       xml_escape(g.gate.kernel), xml_escape(g.gate.text));
    if (g.passed) {
      out += fmt::format(">\n      <system-out>{}</system-out>\n    </testcase>\n", xml_escape(g.message));
    } else {
      out += fmt::format(">\n      <failure type=\"gate\" message=\"{0}\">{0}</failure>\n    </testcase>\n",
                         xml_escape(g.message));
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace attnscope::reports
