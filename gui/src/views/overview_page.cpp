// SPDX-License-Identifier: Apache-2.0
#include "views/overview_page.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "attnscope/reports/overview.hpp"

namespace attnscope::gui {

OverviewPage::OverviewPage(OverviewModel* model, QWidget* parent)
    : QWidget(parent),
      model_(model),
      heading_(new QLabel(this)),
      coverage_(new QLabel(this)),
      table_(new QTableView(this)),
      notes_(new QTextBrowser(this)) {
  heading_->setObjectName(QStringLiteral("overviewHeading"));
  coverage_->setObjectName(QStringLiteral("overviewCoverage"));
  notes_->setObjectName(QStringLiteral("overviewNotes"));
  heading_->setWordWrap(true);
  coverage_->setWordWrap(true);
  coverage_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  table_->setModel(model_);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setSelectionBehavior(QAbstractItemView::SelectItems);
  table_->setWordWrap(false);
  notes_->setOpenLinks(false);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->addWidget(table_);
  splitter->addWidget(notes_);
  splitter->setStretchFactor(0, 2);
  splitter->setStretchFactor(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(heading_);
  layout->addWidget(coverage_);
  layout->addWidget(splitter, 1);
  connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    if (const auto m = model_->metricAt(index.column())) emit metricActivated(model_->kernelAt(index.row()), *m);
  });
  setReport(nullptr, QString());
}

void OverviewPage::setReport(const ReportPtr& report, const QString& title) {
  model_->setReport(report);
  if (!report) {
    heading_->setText(tr("<b>Error overview</b>: open a measured report (Ctrl+O) to see how far the model is "
                         "from the measurement."));
    coverage_->clear();
    notes_->clear();
    return;
  }
  QString heading = tr("<b>Error overview</b> of %1: relative error of the model against the measurement, "
                       "worst kernel first (the terminal's and the HTML report's first screen). White is 0; "
                       "red: the model says more, blue: less; full colour at twice the worst-case target. "
                       "Click a cell for its tile heatmap.")
                        .arg(title.toHtmlEscaped());
  if (isSynthetic(*report))
    heading = tr("<span style='color:#b0302a'><b>SYNTHETIC DATA</b>: the measured side is the model times fixed "
                 "factors, not a measurement.</span><br/>") +
              heading;
  heading_->setText(heading);
  QStringList coverage;
  for (const auto& k : report->kernels) {
    const std::string text = reports::tile_coverage(k);
    coverage << tr("%1: %2").arg(QString::fromStdString(k.name),
                                 text.empty() ? tr("all %1 tiles").arg(k.tiles.size()) : QString::fromStdString(text));
  }
  coverage_->setText(tr("Tiles kept: ") + coverage.join(QStringLiteral(" · ")));
  QString html = tr("<h3>Notes of the report</h3>");
  bool any = false;
  for (const auto& k : report->kernels) {
    if (k.notes.empty()) continue;
    any = true;
    html += QStringLiteral("<h4>%1</h4><dl>").arg(QString::fromStdString(k.name).toHtmlEscaped());
    for (const auto& [key, text] : k.notes)
      html += QStringLiteral("<dt><b>%1</b></dt><dd>%2</dd>")
                  .arg(QString::fromStdString(key).toHtmlEscaped(), QString::fromStdString(text).toHtmlEscaped());
    html += QStringLiteral("</dl>");
  }
  if (!any) html += tr("<p>The report has no notes.</p>");
  notes_->setHtml(html);
}

}  // namespace attnscope::gui
