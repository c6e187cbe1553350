// SPDX-License-Identifier: Apache-2.0
// What the views show: a primary report and, optionally, a second one to compare against (shown as a
// difference). The primary is an opened file or the live model's latest result.
#pragma once
#include <QObject>
#include <QString>
#include <memory>

#include "attnscope/reports/report.hpp"

namespace attnscope::gui {

using ReportPtr = std::shared_ptr<const reports::Report>;

// The kernel a view shows first: the tiled (FlashAttention-2) kernel when the report has it, else the first.
QString preferredKernel(const reports::Report& report);

class ReportDocument : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;

  const ReportPtr& primary() const { return primary_; }
  const ReportPtr& comparison() const { return comparison_; }
  const QString& primaryTitle() const { return primary_title_; }
  const QString& comparisonTitle() const { return comparison_title_; }
  bool primaryIsLive() const { return primary_is_live_; }

  void setPrimary(ReportPtr report, const QString& title, bool is_live = false);
  void setComparison(ReportPtr report, const QString& title);
  void clearComparison();
  QString describe() const;  // one line for the status bar

 signals:
  void changed();

 private:
  ReportPtr primary_, comparison_;
  QString primary_title_, comparison_title_;
  bool primary_is_live_ = false;
};

}  // namespace attnscope::gui
