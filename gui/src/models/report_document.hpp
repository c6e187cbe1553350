// SPDX-License-Identifier: Apache-2.0
// What the views show. The primary report is the opened file, and it stays the primary (the measurement is
// the anchor): a live what-if result is a third series beside it ("what-if model"), never a replacement.
// Only when no file is open does the live model become the primary. A second file can be opened to compare
// against. Whether two reports can be compared tile by tile is comparability.hpp's question.
#pragma once
#include <QObject>
#include <QString>
#include <memory>

#include "attnscope/reports/report.hpp"

namespace attnscope::gui {

using ReportPtr = std::shared_ptr<const reports::Report>;

// The kernel a view shows first: the tiled (FlashAttention-2) kernel when the report has it, else the first.
QString preferredKernel(const reports::Report& report);

// True for a report whose measured side is synthetic (a test fixture: model x fixed factors), which every
// view and export must say.
bool isSynthetic(const reports::Report& report);

class ReportDocument : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;

  const ReportPtr& primary() const { return primary_; }
  const ReportPtr& comparison() const { return comparison_; }
  const ReportPtr& live() const { return live_; }  // the what-if model beside an opened file, or null
  const QString& primaryTitle() const { return primary_title_; }
  const QString& comparisonTitle() const { return comparison_title_; }
  const QString& liveTitle() const { return live_title_; }
  bool primaryIsLive() const { return primary_is_live_; }

  // A file (is_live false) or, with no file open, the live model. Opening a file drops an older live result.
  void setPrimary(ReportPtr report, const QString& title, bool is_live = false);
  void setComparison(ReportPtr report, const QString& title);
  void clearComparison();
  // A what-if result: beside the opened file when there is one, else the primary.
  void setLiveResult(ReportPtr report, const QString& title);
  QString describe() const;  // one line for the status bar
  // What an export says under the picture: the source and, for synthetic data, that it is synthetic.
  QString exportCaption() const;

 signals:
  void changed();

 private:
  ReportPtr primary_, comparison_, live_;
  QString primary_title_, comparison_title_, live_title_;
  bool primary_is_live_ = false;
};

}  // namespace attnscope::gui
