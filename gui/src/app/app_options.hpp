// SPDX-License-Identifier: Apache-2.0
// attnscope-gui's command line, so a session (and a screenshot for the docs) can be reproduced:
//   attnscope-gui [--open REPORT] [--compare REPORT] [--view heatmap|levels|timeline|whatif|data]
//                 [--kernel NAME] [--hover-tile Q,KV] [--heatmap-level KEY] [--timeline-color BY]
//                 [--heatmap-mode measured|modeled|diff|compare] [--run-model]
//                 [--size WxH] [--screenshot FILE.png] [--export FILE.png|svg]
#pragma once
#include <QPoint>
#include <QSize>
#include <QString>
#include <optional>

class QCoreApplication;

namespace attnscope::gui {

struct AppOptions {
  QString open, compare, view, kernel, heatmap_level, heatmap_mode, timeline_color, screenshot, export_path;
  std::optional<QPoint> hover_tile;  // (kv-tile, q-tile) to hover in the heatmap before a screenshot
  bool run_model = false;            // run the what-if model at start (always done when no report is opened)
  std::optional<QSize> size;
  QString error;  // a bad option, for the caller to print
};

AppOptions parseAppOptions(const QCoreApplication& app);

}  // namespace attnscope::gui
