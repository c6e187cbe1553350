// SPDX-License-Identifier: Apache-2.0
#include "views/main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <algorithm>
#include <string>
#include <vector>

#include "attnscope/sim/gpu_spec.hpp"
#include "attnscope/vocab/kernel.hpp"
#include "models/comparability.hpp"
#include "models/recent_files.hpp"
#include "models/report_loader.hpp"
#include "views/data_page.hpp"
#include "views/export_view.hpp"
#include "views/heatmap_page.hpp"
#include "views/heatmap_view.hpp"
#include "views/level_bar_chart.hpp"
#include "views/levels_page.hpp"
#include "views/overview_page.hpp"
#include "views/profile_support.hpp"
#include "views/timeline_page.hpp"
#include "views/timeline_view.hpp"
#include "views/whatif_page.hpp"

namespace attnscope::gui {

QStringList MainWindow::viewNames() {
  return {QStringLiteral("overview"), QStringLiteral("heatmap"), QStringLiteral("levels"),
          QStringLiteral("timeline"), QStringLiteral("whatif"),  QStringLiteral("data")};
}

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      document_(new ReportDocument(this)),
      overview_model_(new OverviewModel(this)),
      tile_model_(new TileGridModel(this)),
      level_model_(new KernelLevelModel(this)),
      timeline_model_(new TimelineModel(this)),
      sweep_model_(new SweepModel(this)),
      sweep_grid_model_(new SweepGridModel(sweep_model_, this)),
      result_model_(new WhatIfResultModel(this)),
      runner_(new WhatIfRunner(this)),
      tabs_(new QTabWidget(this)),
      overview_page_(new OverviewPage(overview_model_, this)),
      heatmap_page_(new HeatmapPage(tile_model_, this)),
      levels_page_(new LevelsPage(level_model_, this)),
      timeline_page_(new TimelinePage(timeline_model_, this)),
      whatif_page_(new WhatIfPage(sweep_model_, sweep_grid_model_, result_model_, this)),
      data_page_(new DataPage(level_model_, timeline_model_, sweep_model_, this)),
      source_label_(new QLabel(this)),
      latency_label_(new QLabel(this)) {
  setObjectName(QStringLiteral("attnscopeMainWindow"));
  setWindowTitle(tr("attnscope"));
  tabs_->addTab(overview_page_, tr("&Error overview"));
  tabs_->addTab(heatmap_page_, tr("&Tile heatmap"));
  tabs_->addTab(levels_page_, tr("&Bytes per level"));
  tabs_->addTab(timeline_page_, tr("SM &timeline"));
  tabs_->addTab(whatif_page_, tr("&What-if"));
  tabs_->addTab(data_page_, tr("&Data"));
  setCentralWidget(tabs_);
  statusBar()->addWidget(source_label_, 1);
  statusBar()->addPermanentWidget(latency_label_);
  error_sink_ = [this](const QString& title, const QString& message) {
    QMessageBox::critical(this, title, message);
  };
  createActions();

  connect(document_, &ReportDocument::changed, this, &MainWindow::onDocumentChanged);
  connect(overview_page_, &OverviewPage::metricActivated, this,
          [this](const QString& kernel, vocab::Metric m) {
            heatmap_page_->showKernelMetric(kernel, m, TileGridModel::Mode::relativeError);
            showView(View::heatmap);
          });
  connect(runner_, &WhatIfRunner::busyChanged, whatif_page_, &WhatIfPage::setBusy);
  connect(runner_, &WhatIfRunner::busyChanged, this, [this](bool busy) {
    if (busy) latency_label_->setText(tr("model: computing…"));
  });
  connect(runner_, &WhatIfRunner::modelReady, this, &MainWindow::onModelReady);
  connect(runner_, &WhatIfRunner::previewReady, this, &MainWindow::onModelReady);
  connect(runner_, &WhatIfRunner::failed, whatif_page_, &WhatIfPage::showError);
  connect(runner_, &WhatIfRunner::failed, this, [this](const QString&) {
    latency_label_->setText(tr("model: error"));
    result_model_->setReport(nullptr);  // the rows of an earlier question are not this one's answer
  });
  connect(runner_, &WhatIfRunner::sweepStarted, whatif_page_, &WhatIfPage::setSweepComputing);
  connect(runner_, &WhatIfRunner::sweepStarted, sweep_model_, &SweepModel::startSweep);
  // A backward sweep marks the backward tiles the reports measured, a forward one the forward tiles.
  connect(runner_, &WhatIfRunner::sweepStarted, sweep_grid_model_,
          [this] { sweep_grid_model_->setMeasured(measuredTilings()); });
  connect(runner_, &WhatIfRunner::sweepPoint, sweep_model_, &SweepModel::appendPoint);
  connect(runner_, &WhatIfRunner::sweepReady, sweep_model_, &SweepModel::setPoints);
  // Progress: from the sweep's start to its answer (or to a newer request, which drops it).
  connect(runner_, &WhatIfRunner::sweepStarted, sweep_grid_model_, [this] {
    sweep_grid_model_->setProgress(0, static_cast<int>(std::size(kSweepBr) * std::size(kSweepBc)));
  });
  connect(runner_, &WhatIfRunner::sweepProgress, sweep_grid_model_, &SweepGridModel::setProgress);
  connect(runner_, &WhatIfRunner::sweepReady, sweep_grid_model_,
          [this] { sweep_grid_model_->setProgress(0, 0); });
  connect(runner_, &WhatIfRunner::idle, sweep_grid_model_, [this] { sweep_grid_model_->setProgress(0, 0); });
  connect(whatif_page_, &WhatIfPage::runRequested, this, &MainWindow::runModel);
  connect(whatif_page_, &WhatIfPage::requestChanged, this, [this] {
    if (whatif_page_->autoRun()) runModel();
  });

  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray());
  tabs_->setCurrentIndex(settings.value(QStringLiteral("mainWindow/view"), 0).toInt());
  onDocumentChanged();
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions() {
  auto* file = menuBar()->addMenu(tr("&File"));
  auto* toolbar = addToolBar(tr("Main"));
  toolbar->setObjectName(QStringLiteral("mainToolBar"));
  toolbar->setToolButtonStyle(Qt::ToolButtonTextOnly);

  auto* open = file->addAction(tr("&Open report…"), this, [this] { openDialog(false); });
  open->setShortcut(QKeySequence::Open);
  auto* compare = file->addAction(tr("Open report to &compare…"), this, [this] { openDialog(true); });
  compare->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  file->addAction(tr("Close compared report"), document_, &ReportDocument::clearComparison);
  recent_menu_ = file->addMenu(tr("Recent files"));
  rebuildRecentMenu();
  file->addSeparator();
  auto* export_action = file->addAction(tr("&Export view as PNG or SVG…"), this, &MainWindow::exportDialog);
  export_action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
  file->addSeparator();
  auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  auto* view = menuBar()->addMenu(tr("&View"));
  const QStringList titles{tr("Error overview"), tr("Tile heatmap"), tr("Bytes per level"),
                           tr("SM timeline"),    tr("What-if"),      tr("Data")};
  for (int i = 0; i < titles.size(); ++i) {
    auto* a = view->addAction(titles[i], this, [this, i] { tabs_->setCurrentIndex(i); });
    a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
  }

  auto* model = menuBar()->addMenu(tr("&Model"));
  auto* rerun = model->addAction(tr("&Re-run the model"), this, &MainWindow::runModel);
  rerun->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  profile_action_ = model->addAction(tr("&Profile on the GPU…"), this, &MainWindow::startProfile);
  model->addAction(tr("Why is profiling unavailable?"), this, &MainWindow::explainProfile);
  const ProfileAvailability availability = profileAvailability();
  profile_action_->setEnabled(availability.available);
  profile_action_->setToolTip(availability.available
                                  ? tr("Run the real kernels under CUPTI and load the report")
                                  : availability.reason);
  profile_action_->setStatusTip(profile_action_->toolTip());

  toolbar->addAction(open);
  toolbar->addAction(compare);
  toolbar->addAction(export_action);
  toolbar->addAction(rerun);
  toolbar->addAction(profile_action_);
}

void MainWindow::rebuildRecentMenu() {
  recent_menu_->clear();
  const QStringList files = RecentFiles::load();
  for (const QString& path : files) {
    recent_menu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openReport(path); })
        ->setToolTip(path);
  }
  recent_menu_->setEnabled(!files.isEmpty());
  recent_menu_->setToolTipsVisible(true);
}

bool MainWindow::openReport(const QString& path) {
  const LoadedReport loaded = loadReport(path);
  if (!loaded.report) {
    reportError(tr("Cannot open report"), loaded.error);
    return false;
  }
  RecentFiles::add(path);
  rebuildRecentMenu();
  // The what-if controls start from the report's workload and tiling, so Ctrl+R asks "what would the model
  // say about this run"; its answer is the what-if series beside the file, which stays the primary.
  WhatIfRequest request = whatif_page_->request();
  request.workload = loaded.report->workload;
  request.tiles = loaded.report->tiles;
  bool has_tiled = false, has_naive = false, has_hopper = false;
  for (const auto& k : loaded.report->kernels) {
    const auto id = vocab::parse_kernel_id(k.name);
    if (!id) continue;  // not a kernel of the model (a measured-only entry)
    const vocab::KernelKind kind = vocab::kind_of(*id);
    (kind == vocab::KernelKind::tiled    ? has_tiled
     : kind == vocab::KernelKind::hopper ? has_hopper
                                         : has_naive) = true;
  }
  if (has_hopper && !has_tiled && !has_naive) {
    request.kernels = KernelChoice::hopper;
  } else if (has_tiled || has_naive) {
    request.kernels = has_tiled && has_naive ? KernelChoice::both
                      : has_tiled            ? KernelChoice::tiled
                                             : KernelChoice::naive;
  }
  // Only a built-in GPU is taken over from the report: a spec path written in a file from elsewhere is not
  // read unless the user picks it (the GPU list's "spec file..." entry).
  const std::string& spec = loaded.report->provenance.gpu_spec;
  const std::vector<std::string> builtin = sim::builtin_gpu_names();
  if (std::find(builtin.begin(), builtin.end(), spec) != builtin.end())
    request.gpu = QString::fromStdString(spec);
  whatif_page_->setRequest(request);
  document_->setPrimary(loaded.report, QFileInfo(path).fileName());
  return true;
}

bool MainWindow::openComparison(const QString& path) {
  const LoadedReport loaded = loadReport(path);
  if (!loaded.report) {
    reportError(tr("Cannot open report"), loaded.error);
    return false;
  }
  RecentFiles::add(path);
  rebuildRecentMenu();
  document_->setComparison(loaded.report, QFileInfo(path).fileName());
  return true;
}

void MainWindow::openDialog(bool comparison) {
  const QString path =
      QFileDialog::getOpenFileName(this, comparison ? tr("Open report to compare") : tr("Open report"),
                                   QString(), tr("attnscope reports (*.json *.json.gz);;All files (*)"));
  if (path.isEmpty()) return;
  comparison ? openComparison(path) : openReport(path);
}

void MainWindow::onDocumentChanged() {
  const ReportPtr& primary = document_->primary();
  overview_page_->setReport(primary, document_->primaryTitle());
  // What the level chart compares, and whether the workloads match.
  QStringList note;
  if (primary && isSynthetic(*primary)) note << tr("SYNTHETIC measured side (a fixture, not a measurement)");
  if (document_->live()) {
    const QString w = compareReports(*primary, *document_->live()).totalsWarning();
    note << (w.isEmpty() ? tr("what-if: %1").arg(document_->liveTitle()) : tr("what-if: %1").arg(w));
  }
  if (document_->comparison()) {
    const QString w = compareReports(*primary, *document_->comparison()).totalsWarning();
    note << (w.isEmpty() ? tr("compared with %1").arg(document_->comparisonTitle())
                         : tr("compared report: %1").arg(w));
  }
  levels_page_->setNote(note.join(QStringLiteral(" · ")));
  tile_model_->setReports(primary, document_->comparison(), document_->live());
  level_model_->setReports(primary, document_->comparison(), document_->live());
  timeline_model_->setReport(document_->primary());
  sweep_grid_model_->setMeasured(measuredTilings());
  source_label_->setText(document_->describe());
  setWindowTitle(document_->primary() ? tr("attnscope — %1").arg(document_->primaryTitle())
                                      : tr("attnscope"));
}

// The tiled kernel's (Br, Bc) of the opened and the compared report, where it has measured values: the
// sweep grid marks them. For a backward sweep, the tiled backward's (Br, Bc) where tiled_bwd was measured.
QVector<QPair<int, int>> MainWindow::measuredTilings() const {
  QVector<QPair<int, int>> out;
  const bool backward = sweep_model_->backward();
  for (const ReportPtr& r :
       {document_->primaryIsLive() ? ReportPtr() : document_->primary(), document_->comparison()}) {
    if (!r) continue;
    const reports::KernelEntry* tiled = reports::find_kernel(*r, backward ? "tiled_bwd" : "tiled");
    if (!tiled) continue;
    const bool measured = std::any_of(tiled->metrics.begin(), tiled->metrics.end(),
                                      [](const auto& kv) { return kv.second.measured.has_value(); });
    const vocab::TiledBwdConfig bwd = r->tiles.tiled_bwd(r->workload.head_dim);
    const auto t = backward ? qMakePair(bwd.br, bwd.bc) : qMakePair(r->tiles.br, r->tiles.bc);
    if (measured && !out.contains(t)) out.push_back(t);
  }
  return out;
}

void MainWindow::runModel() {
  runner_->request(whatif_page_->request());
}

void MainWindow::onModelReady(const ReportPtr& report, double model_ms) {
  QElapsedTimer views;
  views.start();
  // The opened file stays the primary report (the measurement is the anchor); the live result is the
  // what-if series beside it, or the primary only when no file is open.
  const QString preview = previewLabel(*report);
  const QString what = tr("%1, %2").arg(QString::fromStdString(report->workload.name), tilesLabel(*report));
  result_model_->setReport(report);
  document_->setLiveResult(report, preview.isEmpty() ? tr("live model: %1").arg(what)
                                                     : tr("live model (%1): %2").arg(preview, what));
  last_model_ms_ = model_ms;
  last_views_ms_ = static_cast<double>(views.nsecsElapsed()) / 1e6;
  whatif_page_->showResult(report, last_model_ms_, last_views_ms_);
  if (!preview.isEmpty()) {
    latency_label_->setText(
        tr("model preview: %1 ms; computing…").arg(last_model_ms_ + last_views_ms_, 0, 'f', 1));
    emit previewShown(last_model_ms_, last_views_ms_);
    return;
  }
  latency_label_->setText(tr("model update: %1 ms").arg(last_model_ms_ + last_views_ms_, 0, 'f', 1));
  emit liveResultShown(last_model_ms_, last_views_ms_);
}

void MainWindow::showView(View view) {
  tabs_->setCurrentIndex(static_cast<int>(view));
}

MainWindow::View MainWindow::currentView() const {
  return static_cast<View>(tabs_->currentIndex());
}

QWidget* MainWindow::currentViewWidget() const {
  switch (currentView()) {
    case View::overview:
      return overview_page_;
    case View::heatmap:
      return heatmap_page_->view();
    case View::levels:
      return levels_page_->chart();
    case View::timeline:
      return timeline_page_->view();
    case View::whatIf:
      return whatif_page_;
    case View::data:
      return data_page_->currentWidget();
  }
  return tabs_->currentWidget();
}

QString MainWindow::exportCurrentView(const QString& path) {
  return exportWidget(currentViewWidget(), path, document_->exportCaption());
}

void MainWindow::exportDialog() {
  const QString suggested = QStringLiteral("attnscope-%1.png").arg(viewNames().value(tabs_->currentIndex()));
  const QString path = QFileDialog::getSaveFileName(this, tr("Export view"), suggested,
                                                    tr("PNG image (*.png);;SVG drawing (*.svg)"));
  if (path.isEmpty()) return;
  if (const QString error = exportCurrentView(path); !error.isEmpty())
    reportError(tr("Cannot export"), error);
}

void MainWindow::reportError(const QString& title, const QString& message) {
  emit errorReported(title, message);
  if (error_sink_) error_sink_(title, message);
}

void MainWindow::explainProfile() {
  const ProfileAvailability a = profileAvailability();
  QMessageBox::information(this, tr("Profiling"),
                           a.available
                               ? tr("A CUDA device is present: Model ▸ Profile runs `%1 profile` with the "
                                    "what-if page's workload and tiling, then opens its report.")
                                     .arg(a.cli)
                               : a.reason);
}

void MainWindow::startProfile() {
  const ProfileAvailability a = profileAvailability();
  if (!a.available) {
    reportError(tr("Profiling unavailable"), a.reason);
    return;
  }
  if (profile_process_) return;  // one profile at a time
  profile_output_ = QDir::temp().filePath(
      QStringLiteral("attnscope-gui-profile-%1.json").arg(QApplication::applicationPid()));
  profile_process_ = new QProcess(this);
  profile_action_->setEnabled(false);
  latency_label_->setText(tr("profiling on the GPU…"));
  connect(profile_process_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
    const QString errors = QString::fromLocal8Bit(profile_process_->readAllStandardError());
    profile_process_->deleteLater();
    profile_process_ = nullptr;
    profile_action_->setEnabled(true);
    latency_label_->clear();
    if (status != QProcess::NormalExit || code != 0) {
      reportError(tr("Profiling failed"),
                  tr("attnscope profile exited with code %1:\n%2").arg(code).arg(errors));
      return;
    }
    openReport(profile_output_);
  });
  profile_process_->start(a.cli, profileArguments(whatif_page_->request().cliFlags(), profile_output_));
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings settings;
  settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("mainWindow/state"), saveState());
  settings.setValue(QStringLiteral("mainWindow/view"), tabs_->currentIndex());
  QMainWindow::closeEvent(event);
}

}  // namespace attnscope::gui
