// SPDX-License-Identifier: Apache-2.0
// Whether this build and machine can profile the real kernels, and why not. The GUI profiles by running the
// `attnscope profile` command (next to attnscope-gui or in the build tree) in a separate process, so the UI
// stays responsive and a crash in CUDA/CUPTI cannot take the window down.
#pragma once
#include <QString>
#include <QStringList>

namespace attnscope::gui {

struct ProfileAvailability {
  bool available = false;
  QString reason;  // why not (for the tooltip and the dialog); empty when available
  QString cli;     // path of the attnscope command when found
};

ProfileAvailability profileAvailability();

// The `attnscope profile` arguments for the what-if page's workload and tiling, writing JSON to `out`.
QStringList profileArguments(const QStringList& workload_flags, const QString& out);

}  // namespace attnscope::gui
