// SPDX-License-Identifier: Apache-2.0
// The main window: owns the report document, the models and the model runner, and wires them to the six
// pages (error overview first, then heatmap, bytes per level, timeline, what-if, data), the menus and the
// shortcuts. Errors go to an injectable sink (a QMessageBox by default) and the errorReported signal, so
// tests never block on a dialog.
#pragma once
#include <QMainWindow>
#include <functional>

#include "models/kernel_level_model.hpp"
#include "models/overview_model.hpp"
#include "models/report_document.hpp"
#include "models/sweep_grid_model.hpp"
#include "models/sweep_model.hpp"
#include "models/tile_grid_model.hpp"
#include "models/timeline_model.hpp"
#include "models/whatif_result_model.hpp"
#include "models/whatif_runner.hpp"

class QLabel;
class QMenu;
class QProcess;
class QTabWidget;

namespace attnscope::gui {

class HeatmapPage;
class OverviewPage;
class LevelsPage;
class TimelinePage;
class WhatIfPage;
class DataPage;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  enum class View { overview, heatmap, levels, timeline, whatIf, data };
  // "overview", "heatmap", "levels", "timeline", "whatif", "data" (command-line names)
  static QStringList viewNames();
  using ErrorSink = std::function<void(const QString& title, const QString& message)>;

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  bool openReport(const QString& path);      // becomes the primary report; false (and an error) on failure
  bool openComparison(const QString& path);  // shown as the difference against the primary
  void showView(View view);
  View currentView() const;
  QWidget* currentViewWidget() const;              // what Export writes
  QString exportCurrentView(const QString& path);  // empty on success, else the reason
  void runModel();                                 // the what-if page's request, off the UI thread
  void setErrorSink(ErrorSink sink) { error_sink_ = std::move(sink); }

  ReportDocument* document() const { return document_; }
  WhatIfRunner* runner() const { return runner_; }
  WhatIfPage* whatIfPage() const { return whatif_page_; }
  HeatmapPage* heatmapPage() const { return heatmap_page_; }
  TimelinePage* timelinePage() const { return timeline_page_; }
  OverviewPage* overviewPage() const { return overview_page_; }
  OverviewModel* overviewModel() const { return overview_model_; }
  LevelsPage* levelsPage() const { return levels_page_; }
  TileGridModel* tileModel() const { return tile_model_; }
  KernelLevelModel* levelModel() const { return level_model_; }
  TimelineModel* timelineModel() const { return timeline_model_; }
  SweepModel* sweepModel() const { return sweep_model_; }
  SweepGridModel* sweepGridModel() const { return sweep_grid_model_; }
  WhatIfResultModel* whatIfResultModel() const { return result_model_; }
  QAction* profileAction() const { return profile_action_; }
  double lastModelLatencyMs() const { return last_model_ms_; }
  double lastViewsLatencyMs() const { return last_views_ms_; }

 signals:
  void errorReported(const QString& title, const QString& message);
  void liveResultShown(double model_ms, double views_ms);  // a full what-if result reached every view
  void previewShown(double model_ms, double views_ms);     // a labelled preview reached every view

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void createActions();
  QVector<QPair<int, int>> measuredTilings() const;
  void rebuildRecentMenu();
  void onDocumentChanged();
  void onModelReady(const ReportPtr& report, double model_ms);
  void reportError(const QString& title, const QString& message);
  void openDialog(bool comparison);
  void exportDialog();
  void startProfile();
  void explainProfile();

  ReportDocument* document_;
  OverviewModel* overview_model_;
  TileGridModel* tile_model_;
  KernelLevelModel* level_model_;
  TimelineModel* timeline_model_;
  SweepModel* sweep_model_;
  SweepGridModel* sweep_grid_model_;
  WhatIfResultModel* result_model_;
  WhatIfRunner* runner_;
  QTabWidget* tabs_;
  OverviewPage* overview_page_;
  HeatmapPage* heatmap_page_;
  LevelsPage* levels_page_;
  TimelinePage* timeline_page_;
  WhatIfPage* whatif_page_;
  DataPage* data_page_;
  QMenu* recent_menu_ = nullptr;
  QAction* profile_action_ = nullptr;
  QLabel *source_label_, *latency_label_;
  QProcess* profile_process_ = nullptr;
  QString profile_output_;
  ErrorSink error_sink_;
  double last_model_ms_ = 0, last_views_ms_ = 0;
};

}  // namespace attnscope::gui
