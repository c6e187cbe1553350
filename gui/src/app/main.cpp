// SPDX-License-Identifier: Apache-2.0
// attnscope-gui: opens reports, drives the model live, and (with --screenshot/--export) renders a view to a
// file and quits, which is how docs/screenshots/gui-*.png are made.
#include <QApplication>
#include <QComboBox>
#include <QCursor>
#include <QMouseEvent>
#include <QPixmap>
#include <QScreen>
#include <QTimer>
#include <cstdio>

#include "app/app_options.hpp"
#include "attnscope/version.hpp"
#include "views/heatmap_page.hpp"
#include "views/heatmap_view.hpp"
#include "views/levels_page.hpp"
#include "views/main_window.hpp"
#include "views/timeline_page.hpp"

using attnscope::gui::MainWindow;

namespace {

void selectData(QComboBox* box, const QVariant& data) {
  if (const int i = box->findData(data); i >= 0) box->setCurrentIndex(i);
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("attnscope"));
  QApplication::setApplicationName(QStringLiteral("attnscope-gui"));
  QApplication::setApplicationVersion(QStringLiteral("%1 (%2)").arg(QLatin1String(attnscope::kVersion),
                                                                    QLatin1String(attnscope::kGitRevision)));
  const attnscope::gui::AppOptions options = attnscope::gui::parseAppOptions(app);
  if (!options.error.isEmpty()) {
    std::fprintf(stderr, "attnscope-gui: %s\n", qPrintable(options.error));
    return 2;
  }
  const bool batch = !options.screenshot.isEmpty() || !options.export_path.isEmpty();

  MainWindow window;
  int exit_code = 0;
  if (batch) {
    // No one is there to close a dialog: print errors and fail.
    window.setErrorSink([&exit_code](const QString& title, const QString& message) {
      std::fprintf(stderr, "attnscope-gui: %s: %s\n", qPrintable(title), qPrintable(message));
      exit_code = 1;
    });
  }
  if (options.size) window.resize(*options.size);
  if (!options.open.isEmpty()) window.openReport(options.open);
  if (!options.compare.isEmpty()) window.openComparison(options.compare);
  if (!options.view.isEmpty())
    window.showView(static_cast<MainWindow::View>(MainWindow::viewNames().indexOf(options.view)));
  if (!options.kernel.isEmpty()) {
    window.tileModel()->setKernel(options.kernel);
    window.timelineModel()->setKernel(options.kernel);
    window.levelsPage()->kernelBox()->setCurrentText(options.kernel);
  }
  if (!options.heatmap_level.isEmpty()) selectData(window.heatmapPage()->levelBox(), options.heatmap_level);
  if (!options.heatmap_mode.isEmpty()) {
    using Mode = attnscope::gui::TileGridModel::Mode;
    const Mode mode = options.heatmap_mode == QLatin1String("measured")  ? Mode::measured
                      : options.heatmap_mode == QLatin1String("modeled") ? Mode::modeled
                      : options.heatmap_mode == QLatin1String("diff")    ? Mode::modeledMinusMeasured
                      : options.heatmap_mode == QLatin1String("relative") ? Mode::relativeError
                      : options.heatmap_mode == QLatin1String("whatif")  ? Mode::whatIf
                                                                         : Mode::versusComparison;
    selectData(window.heatmapPage()->modeBox(), static_cast<int>(mode));
  }
  if (!options.timeline_color.isEmpty()) {
    using C = attnscope::gui::TimelineModel::ColorBy;
    const C by = options.timeline_color == QLatin1String("tile-time") ? C::tileTime
                 : options.timeline_color == QLatin1String("hbm")     ? C::hbmBytes
                 : options.timeline_color == QLatin1String("l2")      ? C::l2Bytes
                                                                      : C::cta;
    selectData(window.timelinePage()->colorByBox(), static_cast<int>(by));
  }
  window.show();
  if (options.open.isEmpty() || options.run_model) window.runModel();
  if (!batch) return QApplication::exec();
  if (exit_code != 0) return exit_code;

  // Render once the model (and its sweep) has answered and the window has painted.
  const auto capture = [&] {
    if (options.hover_tile) {
      // Hover a tile as a user would, so the screenshot shows its tooltip (a separate window: the screen is
      // grabbed rather than the main window alone).
      // Twice: a loaded machine may not have laid the window out by the first one.
      for (const int at_ms : {300, 700}) {
        QTimer::singleShot(at_ms, &app, [&] {
          auto* view = window.heatmapPage()->view();
          const QPointF at = view->cellCenter(options.hover_tile->y(), options.hover_tile->x());
          QMouseEvent move(QEvent::MouseMove, at, view->mapToGlobal(at), Qt::NoButton, Qt::NoButton,
                           Qt::NoModifier);
          QCursor::setPos(
              view->mapToGlobal(at).toPoint());  // the real pointer too, or its own events undo the hover
          QApplication::sendEvent(view, &move);
        });
      }
    }
    QTimer::singleShot(1300, &app, [&] {
      const QPixmap shot =
          options.hover_tile
              ? window.screen()->grabWindow(0, window.frameGeometry().x(), window.frameGeometry().y(),
                                            window.frameGeometry().width(), window.frameGeometry().height())
              : window.grab();
      if (!options.screenshot.isEmpty() && !shot.save(options.screenshot, "PNG")) {
        std::fprintf(stderr, "attnscope-gui: cannot write %s\n", qPrintable(options.screenshot));
        exit_code = 1;
      }
      if (!options.export_path.isEmpty()) {
        if (const QString error = window.exportCurrentView(options.export_path); !error.isEmpty()) {
          std::fprintf(stderr, "attnscope-gui: %s\n", qPrintable(error));
          exit_code = 1;
        }
      }
      QApplication::exit(exit_code);
    });
  };
  if (window.runner()->isIdle()) {
    capture();
  } else {
    QObject::connect(window.runner(), &attnscope::gui::WhatIfRunner::idle, &app, capture,
                     Qt::SingleShotConnection);
  }
  QTimer::singleShot(300000, &app, [] {
    std::fprintf(stderr, "attnscope-gui: the model did not answer within 5 minutes; no screenshot taken\n");
    QApplication::exit(1);
  });
  return QApplication::exec();
}
