// SPDX-License-Identifier: Apache-2.0
#include "models/report_document.hpp"

#include <utility>

namespace attnscope::gui {

void ReportDocument::setPrimary(ReportPtr report, const QString& title, bool is_live) {
  primary_ = std::move(report);
  primary_title_ = title;
  primary_is_live_ = is_live;
  emit changed();
}

void ReportDocument::setComparison(ReportPtr report, const QString& title) {
  comparison_ = std::move(report);
  comparison_title_ = title;
  emit changed();
}

void ReportDocument::clearComparison() {
  comparison_.reset();
  comparison_title_.clear();
  emit changed();
}

QString ReportDocument::describe() const {
  if (!primary_) return tr("No report: open one (Ctrl+O) or run the model (Ctrl+R)");
  QString line = primary_title_;
  if (comparison_) line += tr("  —  compared with %1").arg(comparison_title_);
  return line;
}

}  // namespace attnscope::gui
