// SPDX-License-Identifier: Apache-2.0
#include "models/report_loader.hpp"

#include <exception>
#include <filesystem>

#include "attnscope/reports/json_io.hpp"

namespace attnscope::gui {

LoadedReport loadReport(const QString& path) {
  LoadedReport out;
  try {
    out.report = std::make_shared<const reports::Report>(
        reports::read_report(std::filesystem::path(path.toStdString())));
  } catch (const reports::ReportError& e) {
    out.error = QString::fromStdString(e.what());
  } catch (const std::exception& e) {
    // Anything else the reader lets through (e.g. an I/O error) is still a message, not a crash.
    out.error = QStringLiteral("%1: %2").arg(path, QString::fromStdString(e.what()));
  }
  return out;
}

}  // namespace attnscope::gui
