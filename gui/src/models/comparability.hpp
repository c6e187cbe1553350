// SPDX-License-Identifier: Apache-2.0
// Whether two reports can be compared, and how far: totals per level compare whenever both have the kernel,
// but they are marked when the workloads differ (a query length of 8192 against a 4k measurement is not a
// model error); tile by tile only where tiles cover the same data (same workload shape and same Br / Bc, or
// the same GEMM tiling for the naive kernels). A Bc 128 tile reads other keys than a Bc 64 tile of the same
// index, so that comparison is refused with the reason.
#pragma once
#include <QString>

#include "attnscope/reports/report.hpp"

namespace attnscope::gui {

struct Comparability {
  QString workload_difference;  // "" when the workloads have the same shape, else e.g. "query length 8192 vs 4096"
  QString tile_difference;      // "" when the tiles cover the same data, else e.g. "Bc 128 vs 64"

  bool sameWorkload() const { return workload_difference.isEmpty(); }
  bool tileByTile() const { return workload_difference.isEmpty() && tile_difference.isEmpty(); }
  // Why a tile-by-tile comparison is refused ("" when it is not).
  QString tileRefusal() const;
  // A warning for totals compared across different workloads ("" when the workloads match).
  QString totalsWarning() const;
};

// `a` is the report shown, `b` the one it is compared with.
Comparability compareReports(const reports::Report& a, const reports::Report& b);

}  // namespace attnscope::gui
