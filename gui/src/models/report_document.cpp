// SPDX-License-Identifier: Apache-2.0
#include "models/report_document.hpp"

#include <utility>

namespace attnscope::gui {

QString preferredKernel(const reports::Report& report) {
  for (const auto& k : report.kernels) {
    if (k.name == "tiled") return QStringLiteral("tiled");
  }
  return report.kernels.empty() ? QString() : QString::fromStdString(report.kernels.front().name);
}

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
  // The kind and the GPU say how far to trust the measured side (a fixture may say it is synthetic).
  QString line =
      tr("%1 (%2; GPU: %3)")
          .arg(primary_title_, QString::fromStdString(primary_->kind),
               QString::fromStdString(primary_->provenance.gpu_name.empty() ? primary_->provenance.gpu_spec
                                                                            : primary_->provenance.gpu_name));
  if (comparison_) line += tr("  —  compared with %1").arg(comparison_title_);
  return line;
}

}  // namespace attnscope::gui
