// SPDX-License-Identifier: Apache-2.0
#include "views/profile_support.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

#ifdef ATTNSCOPE_GUI_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace attnscope::gui {
#ifdef ATTNSCOPE_GUI_HAVE_CUDA
namespace {

QString findCli() {
  const QString here = QCoreApplication::applicationDirPath();
  for (const QString& candidate :
       {here + QStringLiteral("/attnscope"), here + QStringLiteral("/../cli/attnscope")}) {
    if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
  }
  return QStandardPaths::findExecutable(QStringLiteral("attnscope"));
}

}  // namespace
#endif

ProfileAvailability profileAvailability() {
  ProfileAvailability a;
#ifndef ATTNSCOPE_GUI_HAVE_CUDA
  a.reason = QCoreApplication::translate(
      "attnscope",
      "Profiling is unavailable: this build of attnscope has no CUDA (nvcc was not found when it was "
      "configured, or ATTNSCOPE_ENABLE_CUDA=OFF), so it cannot run the kernels under CUPTI. Use the "
      "what-if panel (the model), or open a report profiled on a GPU machine with "
      "`attnscope profile --out report.json`.");
  return a;
#else
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    a.reason = QCoreApplication::translate(
                   "attnscope",
                   "Profiling is unavailable: no CUDA device was found (%1). Use the what-if "
                   "panel (the model), or open a report profiled on a GPU machine.")
                   .arg(status == cudaSuccess ? QStringLiteral("0 devices")
                                              : QString::fromLatin1(cudaGetErrorString(status)));
    return a;
  }
  a.cli = findCli();
  if (a.cli.isEmpty()) {
    a.reason =
        QCoreApplication::translate("attnscope",
                                    "Profiling is unavailable: the `attnscope` command was not found next to "
                                    "attnscope-gui, in the build tree or on PATH.");
    return a;
  }
  a.available = true;
  return a;
#endif
}

QStringList profileArguments(const QStringList& workload_flags, const QString& out) {
  QStringList args{QStringLiteral("profile")};
  args << workload_flags << QStringLiteral("--out") << out;
  return args;
}

}  // namespace attnscope::gui
