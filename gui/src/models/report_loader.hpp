// SPDX-License-Identifier: Apache-2.0
// Reading a report file for the GUI: every failure (malformed, truncated, newer format version, unreadable)
// comes back as a message for an error dialog, never as an exception that could take the app down.
#pragma once
#include <QString>
#include <memory>

#include "attnscope/reports/report.hpp"

namespace attnscope::gui {

struct LoadedReport {
  std::shared_ptr<const reports::Report> report;  // null on failure
  QString error;                                  // the reader's message on failure
};

LoadedReport loadReport(const QString& path);

}  // namespace attnscope::gui
