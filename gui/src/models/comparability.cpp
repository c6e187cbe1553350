// SPDX-License-Identifier: Apache-2.0
#include "models/comparability.hpp"

#include <QObject>
#include <QStringList>

namespace attnscope::gui {
namespace {

template <typename T>
void differs(QStringList& out, const QString& what, const T& a, const T& b) {
  if (a != b) out << QStringLiteral("%1 %2 vs %3").arg(what).arg(a).arg(b);
}

}  // namespace

Comparability compareReports(const reports::Report& a, const reports::Report& b) {
  Comparability c;
  QStringList w;
  differs(w, QObject::tr("batch"), a.workload.batch, b.workload.batch);
  differs(w, QObject::tr("heads"), a.workload.heads, b.workload.heads);
  differs(w, QObject::tr("query length"), a.workload.seq_q, b.workload.seq_q);
  differs(w, QObject::tr("key/value length"), a.workload.seq_kv, b.workload.seq_kv);
  differs(w, QObject::tr("head dim"), a.workload.head_dim, b.workload.head_dim);
  if (a.workload.dtype != b.workload.dtype) {
    const auto da = sim::to_string(a.workload.dtype), db = sim::to_string(b.workload.dtype);
    w << QObject::tr("type %1 vs %2")
             .arg(QString::fromUtf8(da.data(), static_cast<qsizetype>(da.size())),
                  QString::fromUtf8(db.data(), static_cast<qsizetype>(db.size())));
  }
  if (a.workload.window != b.workload.window || a.workload.alibi != b.workload.alibi)
    w << QObject::tr("masks differ:%1 vs%2")
             .arg(QString::fromStdString(sim::mask_label(a.workload)),
                  QString::fromStdString(sim::mask_label(b.workload)));
  if (a.workload.causal != b.workload.causal)
    w << (a.workload.causal ? QObject::tr("causal vs not causal") : QObject::tr("not causal vs causal"));
  c.workload_difference = w.join(QStringLiteral(", "));
  QStringList t;
  differs(t, QStringLiteral("Br"), a.tiles.br, b.tiles.br);
  differs(t, QStringLiteral("Bc"), a.tiles.bc, b.tiles.bc);
  differs(t, QObject::tr("GEMM BM"), a.tiles.gemm_bm, b.tiles.gemm_bm);
  differs(t, QObject::tr("GEMM BN"), a.tiles.gemm_bn, b.tiles.gemm_bn);
  c.tile_difference = t.join(QStringLiteral(", "));
  return c;
}

QString Comparability::tileRefusal() const {
  if (tileByTile()) return {};
  QStringList why;
  if (!tile_difference.isEmpty()) why << QObject::tr("the tile shapes differ (%1)").arg(tile_difference);
  if (!workload_difference.isEmpty())
    why << QObject::tr("the workloads differ (%1)").arg(workload_difference);
  return QObject::tr(
             "Tile-by-tile comparison refused: %1, so tiles of the same index cover different data. "
             "Compare the totals in Bytes per level instead.")
      .arg(why.join(QObject::tr(" and ")));
}

QString Comparability::totalsWarning() const {
  if (sameWorkload()) return {};
  return QObject::tr("different workloads (%1): differences are not model errors").arg(workload_difference);
}

}  // namespace attnscope::gui
