// SPDX-License-Identifier: Apache-2.0
// The first page: the error overview (OverviewModel: kernel x metric relative error against the targets,
// worst first), each kernel's tile coverage, and the report's notes, which say how it was measured and what
// its numbers do not include. Clicking a metric cell opens the tile heatmap of that kernel and metric.
#pragma once
#include <QWidget>

#include "models/overview_model.hpp"
#include "models/report_document.hpp"

class QLabel;
class QTableView;
class QTextBrowser;

namespace attnscope::gui {

class OverviewPage : public QWidget {
  Q_OBJECT
 public:
  OverviewPage(OverviewModel* model, QWidget* parent = nullptr);
  void setReport(const ReportPtr& report, const QString& title);
  QTableView* table() const { return table_; }
  QLabel* coverageLabel() const { return coverage_; }
  QTextBrowser* notes() const { return notes_; }

 signals:
  void metricActivated(const QString& kernel, attnscope::vocab::Metric metric);

 private:
  OverviewModel* model_;
  QLabel *heading_, *coverage_;
  QTableView* table_;
  QTextBrowser* notes_;
};

}  // namespace attnscope::gui
