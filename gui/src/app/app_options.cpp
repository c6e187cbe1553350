// SPDX-License-Identifier: Apache-2.0
#include "app/app_options.hpp"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QRegularExpression>

#include "views/main_window.hpp"

namespace attnscope::gui {

AppOptions parseAppOptions(const QCoreApplication& app) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("attnscope-gui: explore measured versus modeled bytes per tile of attention kernels"));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption open(QStringLiteral("open"), QStringLiteral("Open a report (JSON)."),
                                QStringLiteral("REPORT"));
  const QCommandLineOption compare(QStringLiteral("compare"),
                                   QStringLiteral("Open a second report to compare against."),
                                   QStringLiteral("REPORT"));
  const QCommandLineOption view(
      QStringLiteral("view"),
      QStringLiteral("Start on a view: %1.").arg(MainWindow::viewNames().join(QStringLiteral(", "))),
      QStringLiteral("NAME"));
  const QCommandLineOption level(
      QStringLiteral("heatmap-level"),
      QStringLiteral("Heatmap metric key: dram_read, dram_write, l2_read, l2_write, smem_read, "
                     "smem_write, l2_hit, duration."),
      QStringLiteral("KEY"));
  const QCommandLineOption mode(
      QStringLiteral("heatmap-mode"),
      QStringLiteral("Heatmap values: measured, modeled, diff (modeled - measured), relative (relative error), whatif, compare."),
      QStringLiteral("MODE"));
  const QCommandLineOption kernel(
      QStringLiteral("kernel"),
      QStringLiteral("Kernel to show first: tiled, naive.qk, naive.softmax, naive.pv."),
      QStringLiteral("NAME"));
  const QCommandLineOption hover(
      QStringLiteral("hover-tile"),
      QStringLiteral("With --screenshot: hover this heatmap tile so its tooltip is captured."),
      QStringLiteral("Q,KV"));
  const QCommandLineOption color(QStringLiteral("timeline-color"),
                                 QStringLiteral("SM timeline box colours: cta (a hue per CTA), tile-time "
                                                "(tile time), hbm (HBM bytes), l2 (L2 bytes)."),
                                 QStringLiteral("BY"));
  const QCommandLineOption run(
      QStringLiteral("run-model"),
      QStringLiteral("Run the what-if model at start (done anyway when no report is opened)."));
  const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size, e.g. 1500x950."),
                                QStringLiteral("WxH"));
  const QCommandLineOption screenshot(
      QStringLiteral("screenshot"),
      QStringLiteral("Save the window as PNG once the views are ready, then quit."), QStringLiteral("FILE"));
  const QCommandLineOption export_view(
      QStringLiteral("export"),
      QStringLiteral("Export the current view (PNG or SVG by suffix) once ready, then quit."),
      QStringLiteral("FILE"));
  parser.addOptions(
      {open, compare, view, kernel, hover, level, mode, color, run, size, screenshot, export_view});
  parser.process(app);  // --help, --version and unknown options end here with a message

  AppOptions o;
  o.open = parser.value(open);
  o.compare = parser.value(compare);
  o.view = parser.value(view);
  o.kernel = parser.value(kernel);
  o.heatmap_level = parser.value(level);
  if (parser.isSet(hover)) {
    const auto match = QRegularExpression(QStringLiteral("^(\\d+),(\\d+)$")).match(parser.value(hover));
    if (!match.hasMatch()) {
      o.error = QStringLiteral("--hover-tile %1: expected Q,KV, e.g. 3,5").arg(parser.value(hover));
    } else {
      o.hover_tile = QPoint(match.captured(2).toInt(), match.captured(1).toInt());
    }
  }
  o.heatmap_mode = parser.value(mode);
  o.timeline_color = parser.value(color);
  if (!o.timeline_color.isEmpty() && !QStringList{QStringLiteral("cta"), QStringLiteral("tile-time"),
                                                  QStringLiteral("hbm"), QStringLiteral("l2")}
                                          .contains(o.timeline_color))
    o.error = QStringLiteral("--timeline-color %1: use cta, tile-time, hbm or l2").arg(o.timeline_color);
  o.run_model = parser.isSet(run);
  o.screenshot = parser.value(screenshot);
  o.export_path = parser.value(export_view);
  if (!o.view.isEmpty() && !MainWindow::viewNames().contains(o.view)) {
    o.error = QStringLiteral("--view %1: unknown view (use %2)")
                  .arg(o.view, MainWindow::viewNames().join(QStringLiteral(", ")));
  }
  if (!o.heatmap_mode.isEmpty() && !QStringList{QStringLiteral("measured"), QStringLiteral("modeled"),
                                                QStringLiteral("diff"), QStringLiteral("compare"), QStringLiteral("relative"), QStringLiteral("whatif")}
                                        .contains(o.heatmap_mode)) {
    o.error = QStringLiteral("--heatmap-mode %1: use measured, modeled, diff, relative, whatif or compare").arg(o.heatmap_mode);
  }
  if (parser.isSet(size)) {
    const auto match = QRegularExpression(QStringLiteral("^(\\d+)x(\\d+)$")).match(parser.value(size));
    if (!match.hasMatch()) {
      o.error = QStringLiteral("--size %1: expected WIDTHxHEIGHT, e.g. 1500x950").arg(parser.value(size));
    } else {
      o.size = QSize(match.captured(1).toInt(), match.captured(2).toInt());
    }
  }
  return o;
}

}  // namespace attnscope::gui
