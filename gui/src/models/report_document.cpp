// SPDX-License-Identifier: Apache-2.0
#include "models/report_document.hpp"

#include <utility>

#include "models/comparability.hpp"

namespace attnscope::gui {

QString preferredKernel(const reports::Report& report) {
  for (const auto& k : report.kernels) {
    if (k.name == "tiled") return QStringLiteral("tiled");
  }
  return report.kernels.empty() ? QString() : QString::fromStdString(report.kernels.front().name);
}

bool isSynthetic(const reports::Report& report) {
  return QString::fromStdString(report.provenance.gpu_name).contains(QLatin1String("SYNTHETIC"), Qt::CaseInsensitive) ||
         QString::fromStdString(report.provenance.command).contains(QLatin1String("--synthetic"));
}

void ReportDocument::setPrimary(ReportPtr report, const QString& title, bool is_live) {
  primary_ = std::move(report);
  primary_title_ = title;
  primary_is_live_ = is_live;
  live_.reset();
  live_title_.clear();
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

void ReportDocument::setLiveResult(ReportPtr report, const QString& title) {
  if (primary_ && !primary_is_live_) {
    live_ = std::move(report);
    live_title_ = title;
    emit changed();
    return;
  }
  primary_ = std::move(report);
  primary_title_ = title;
  primary_is_live_ = true;
  emit changed();
}

QString ReportDocument::describe() const {
  if (!primary_) return tr("No report: open one (Ctrl+O) or run the model (Ctrl+R)");
  // The kind and the GPU say how far to trust the measured side (a fixture says it is synthetic).
  QString line =
      tr("%1 (%2; GPU: %3)")
          .arg(primary_title_, QString::fromStdString(primary_->kind),
               QString::fromStdString(primary_->provenance.gpu_name.empty() ? primary_->provenance.gpu_spec
                                                                            : primary_->provenance.gpu_name));
  if (live_) {
    line += tr("  —  what-if: %1").arg(live_title_);
    if (const QString w = compareReports(*primary_, *live_).totalsWarning(); !w.isEmpty())
      line += tr(" [%1]").arg(w);
  }
  if (comparison_) {
    line += tr("  —  compared with %1").arg(comparison_title_);
    if (const QString w = compareReports(*primary_, *comparison_).totalsWarning(); !w.isEmpty())
      line += tr(" [%1]").arg(w);
  }
  return line;
}

QString ReportDocument::exportCaption() const {
  if (!primary_) return tr("attnscope: no report");
  QString caption = tr("attnscope — %1 — %2, %3")
                        .arg(primary_title_, QString::fromStdString(primary_->workload.name),
                             QString::fromStdString(primary_->tiles.label()));
  if (primary_is_live_) caption += tr(" — model only, nothing measured");
  if (isSynthetic(*primary_))
    caption = tr("SYNTHETIC DATA: the \"measured\" side is the model times fixed factors, not a measurement. ") +
              caption;
  if (live_) caption += tr(" — what-if: %1").arg(live_title_);
  if (comparison_) caption += tr(" — compared with %1").arg(comparison_title_);
  return caption;
}

}  // namespace attnscope::gui
