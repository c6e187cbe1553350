// SPDX-License-Identifier: Apache-2.0
#include "views/whatif_page.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <exception>
#include <initializer_list>

#include "attnscope/sim/gpu_spec.hpp"
#include "models/metric_levels.hpp"
#include "views/sweep_chart.hpp"
#include "views/sweep_grid_view.hpp"

namespace attnscope::gui {
namespace {

QSpinBox* spin(QWidget* parent, int low, int high, const QString& name) {
  auto* s = new QSpinBox(parent);
  s->setRange(low, high);
  s->setObjectName(name);
  s->setKeyboardTracking(false);  // re-run when the number is complete, not at every digit
  return s;
}

QComboBox* tileBox(QWidget* parent, const QString& name) {
  auto* c = new QComboBox(parent);
  for (const int v : {16, 32, 64, 128, 256}) c->addItem(QString::number(v), v);
  c->setObjectName(name);
  return c;
}

// A backward tile field: item 0 (data 0) is the head dim's compiled default, the command line's default when
// its --bwd-* flag is not given; the others are values to try (the model's validation says which fit).
QComboBox* backwardBox(QWidget* parent, const QString& name, std::initializer_list<int> values) {
  auto* c = new QComboBox(parent);
  c->addItem(QString(), 0);
  for (const int v : values) c->addItem(QString::number(v), v);
  c->setObjectName(name);
  return c;
}

void selectValue(QComboBox* box, int v) {
  if (box->findData(v) < 0) box->addItem(QString::number(v), v);
  box->setCurrentIndex(box->findData(v));
}

double sumOf(const reports::Report& r, vocab::Metric key, bool modeled) {
  double total = 0;
  for (const auto& k : r.kernels) {
    if (const auto v = metricValue(k.metrics, key, modeled ? Side::modeled : Side::measured)) total += *v;
  }
  return total;
}

}  // namespace

WhatIfPage::WhatIfPage(SweepModel* sweep, SweepGridModel* grid, WhatIfResultModel* result, QWidget* parent)
    : QWidget(parent),
      preset_(new QComboBox(this)),
      dtype_(new QComboBox(this)),
      kernel_(new QComboBox(this)),
      pass_(new QComboBox(this)),
      br_(tileBox(this, QStringLiteral("whatifBr"))),
      bc_(tileBox(this, QStringLiteral("whatifBc"))),
      gpu_(new QComboBox(this)),
      bwd_bc_(backwardBox(this, QStringLiteral("whatifBwdBc"), {16, 32, 64, 128, 256})),
      bwd_br_(backwardBox(this, QStringLiteral("whatifBwdBr"), {16, 32, 64, 128})),
      bwd_stages_(backwardBox(this, QStringLiteral("whatifBwdStages"), {1, 2, 3, 4})),
      backward_(new QGroupBox(tr("Backward tile (tiled kernel)"), this)),
      results_(new QTableView(this)),
      batch_(spin(this, 1, 4096, QStringLiteral("whatifBatch"))),
      heads_(spin(this, 1, 1024, QStringLiteral("whatifHeads"))),
      seq_q_(spin(this, 1, 1 << 20, QStringLiteral("whatifSeqQ"))),
      seq_kv_(spin(this, 1, 1 << 20, QStringLiteral("whatifSeqKv"))),
      head_dim_(spin(this, 16, 512, QStringLiteral("whatifHeadDim"))),
      warps_(spin(this, 1, 32, QStringLiteral("whatifWarps"))),
      stages_(spin(this, 1, 8, QStringLiteral("whatifStages"))),
      smem_kib_(spin(this, 0, 1024, QStringLiteral("whatifSmem"))),
      window_(spin(this, 0, 1 << 20, QStringLiteral("whatifWindow"))),
      causal_(new QCheckBox(tr("causal"), this)),
      alibi_(new QCheckBox(tr("ALiBi bias"), this)),
      auto_run_(new QCheckBox(tr("re-run on every change"), this)),
      sweep_(new QCheckBox(tr("sweep tile sizes after each run"), this)),
      preview_(new QCheckBox(tr("large workloads: a scaled preview first"), this)),
      status_(new QLabel(this)),
      summary_(new QLabel(this)),
      sweep_chart_(new SweepChart(this)),
      sweep_grid_(new SweepGridView(grid, this)) {
  preset_->setObjectName(QStringLiteral("whatifPreset"));
  gpu_->setObjectName(QStringLiteral("whatifGpu"));
  kernel_->setObjectName(QStringLiteral("whatifKernel"));
  pass_->setObjectName(QStringLiteral("whatifPass"));
  results_->setObjectName(QStringLiteral("whatifResults"));
  status_->setObjectName(QStringLiteral("whatifStatus"));
  for (const auto& name : sim::preset_names()) preset_->addItem(QString::fromStdString(name));
  preset_->addItem(tr("custom"));
  for (const char* d : {"fp16", "bf16", "fp32"}) dtype_->addItem(QLatin1String(d));
  kernel_->addItem(tr("tiled (FlashAttention-2)"), static_cast<int>(KernelChoice::tiled));
  kernel_->addItem(tr("naive (3 kernels forward, 5 backward)"), static_cast<int>(KernelChoice::naive));
  kernel_->addItem(tr("both"), static_cast<int>(KernelChoice::both));
  kernel_->addItem(tr("hopper (TMA + wgmma, default tile, forward only)"),
                   static_cast<int>(KernelChoice::hopper));
  pass_->addItem(tr("forward"), static_cast<int>(sim::Pass::fwd));
  pass_->addItem(tr("backward (dQ, dK, dV from dO)"), static_cast<int>(sim::Pass::bwd));
  pass_->addItem(tr("training step (forward, then backward)"), static_cast<int>(sim::Pass::both));
  pass_->setToolTip(
      tr("Which pass the model runs, as `attnscope simulate --pass fwd|bwd|both`. The tiled "
         "backward runs tiled_bwd.pre, tiled_bwd and tiled_bwd.post; the naive backward five "
         "GEMM-like kernels; the Hopper kernel has no backward."));
  backward_->setToolTip(
      tr("The tiled backward's CTA tile (--bwd-bc, --bwd-br, --bwd-stages): Bc keys per CTA "
         "(Bc/16 warps), Br query rows per step, stages of the Q/dO ring. \"head-dim "
         "default\" is the compiled tile for the head dim, the command line's default."));
  for (const auto& name : sim::builtin_gpu_names())
    gpu_->addItem(QString::fromStdString(name), QString::fromStdString(name));
  gpu_->addItem(tr("spec file…"), QString());
  smem_kib_->setSpecialValueText(tr("GPU spec's limit"));
  smem_kib_->setSuffix(tr(" KiB per CTA"));
  auto_run_->setChecked(true);
  preview_->setObjectName(QStringLiteral("whatifPreview"));
  preview_->setToolTip(
      tr("From %L1 tiles on, the model first runs 1/8 of the heads on 1/8 of the GPU and scales "
         "the totals (labelled \"preview\"), then the full model replaces it.")
          .arg(kPreviewMinTiles));
  status_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  summary_->setWordWrap(true);

  auto* workload = new QGroupBox(tr("Workload"), this);
  auto* wf = new QFormLayout(workload);
  wf->addRow(tr("Preset"), preset_);
  wf->addRow(tr("Batch"), batch_);
  wf->addRow(tr("Heads"), heads_);
  wf->addRow(tr("Query length"), seq_q_);
  wf->addRow(tr("Key/value length"), seq_kv_);
  wf->addRow(tr("Head dim"), head_dim_);
  wf->addRow(tr("Type"), dtype_);
  wf->addRow(QString(), causal_);
  window_->setSpecialValueText(tr("none"));
  window_->setToolTip(tr("Sliding window (local attention): each query sees the last N keys; needs causal"));
  wf->addRow(tr("Window"), window_);
  alibi_->setObjectName(QStringLiteral("whatifAlibi"));
  wf->addRow(QString(), alibi_);
  auto* kernel = new QGroupBox(tr("Kernel and GPU"), this);
  auto* kf = new QFormLayout(kernel);
  kf->addRow(tr("Kernel"), kernel_);
  kf->addRow(tr("Pass"), pass_);
  kf->addRow(tr("Br (q rows per CTA)"), br_);
  kf->addRow(tr("Bc (kv rows per step)"), bc_);
  kf->addRow(tr("Warps per CTA"), warps_);
  kf->addRow(tr("Pipeline stages"), stages_);
  kf->addRow(tr("Shared memory"), smem_kib_);
  kf->addRow(tr("GPU spec"), gpu_);
  auto* bf = new QFormLayout(backward_);
  bf->addRow(tr("Bc (keys per CTA)"), bwd_bc_);
  bf->addRow(tr("Br (q rows per step)"), bwd_br_);
  bf->addRow(tr("Stages"), bwd_stages_);
  results_->setModel(result);
  results_->setSelectionBehavior(QAbstractItemView::SelectRows);
  results_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  results_->verticalHeader()->setVisible(false);
  results_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  results_->horizontalHeader()->setStretchLastSection(true);
  auto* run = new QPushButton(tr("Run model (Ctrl+R)"), this);
  auto* controls = new QVBoxLayout();
  controls->addWidget(workload);
  controls->addWidget(kernel);
  controls->addWidget(backward_);
  controls->addWidget(auto_run_);
  controls->addWidget(sweep_);
  controls->addWidget(preview_);
  controls->addWidget(run);
  controls->addWidget(status_);
  controls->addStretch();
  auto* right = new QVBoxLayout();
  right->addWidget(summary_);
  right->addWidget(results_, 1);
  right->addWidget(sweep_chart_, 1);
  right->addWidget(sweep_grid_, 1);
  auto* layout = new QHBoxLayout(this);
  layout->addLayout(controls);
  layout->addLayout(right, 1);

  sweep_chart_->setModel(sweep);
  setRequest(WhatIfRequest{});
  preset_->setCurrentText(
      QString::fromUtf8(sim::kDefaultPreset.data(), static_cast<qsizetype>(sim::kDefaultPreset.size())));

  connect(run, &QPushButton::clicked, this, &WhatIfPage::runRequested);
  connect(preset_, &QComboBox::currentTextChanged, this, &WhatIfPage::applyPreset);
  for (auto* s : {batch_, heads_, seq_q_, seq_kv_, head_dim_, window_, warps_, stages_, smem_kib_}) {
    connect(s, &QSpinBox::valueChanged, this, &WhatIfPage::controlChanged);
  }
  for (auto* c : {dtype_, kernel_, bc_, bwd_bc_, bwd_br_, bwd_stages_})
    connect(c, &QComboBox::currentIndexChanged, this, &WhatIfPage::controlChanged);
  connect(pass_, &QComboBox::currentIndexChanged, this, [this] {
    updateTileControls();
    controlChanged();
  });
  connect(head_dim_, &QSpinBox::valueChanged, this, &WhatIfPage::updateTileControls);
  // A new Br keeps the query rows per warp (16 or 32 in the real kernel): warps follow, still editable.
  connect(br_, &QComboBox::currentIndexChanged, this, [this] {
    if (filling_) return;
    filling_ = true;
    sim::TileConfig before;
    before.br = last_br_;
    before.warps = warps_->value();
    warps_->setValue(std::max(1, br_->currentData().toInt() / rowsPerWarp(before)));
    filling_ = false;
    controlChanged();
  });
  connect(causal_, &QCheckBox::toggled, this, &WhatIfPage::controlChanged);
  connect(alibi_, &QCheckBox::toggled, this, &WhatIfPage::controlChanged);
  connect(sweep_, &QCheckBox::toggled, this, &WhatIfPage::controlChanged);
  connect(gpu_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (gpu_->itemData(i).toString().isEmpty()) {
      const QString file =
          QFileDialog::getOpenFileName(this, tr("GPU spec"), QString(), tr("GPU spec (*.json)"));
      if (file.isEmpty()) {
        gpu_->setCurrentIndex(0);
        return;
      }
      gpu_->insertItem(i, file, file);
      gpu_->setCurrentIndex(i);
      return;
    }
    controlChanged();
  });
}

void WhatIfPage::applyPreset(const QString& name) {
  if (filling_ || name == tr("custom")) return;
  WhatIfRequest r = request();
  try {
    const sim::Pass pass = r.workload.pass;  // a preset is a shape; the pass stays the user's choice
    r.workload = sim::preset(name.toStdString());
    r.workload.pass = pass;
  } catch (const std::exception& e) {
    showError(QString::fromStdString(e.what()));
    return;
  }
  setRequest(r);
  preset_->blockSignals(true);
  preset_->setCurrentText(name);
  preset_->blockSignals(false);
  emit requestChanged();
}

void WhatIfPage::controlChanged() {
  if (filling_) return;
  last_br_ = br_->currentData().toInt();
  // A hand-edited workload is no longer the preset.
  preset_->blockSignals(true);
  const WhatIfRequest r = request();
  bool matches = false;
  try {
    const sim::Workload p = sim::preset(preset_->currentText().toStdString());
    matches = p.batch == r.workload.batch && p.heads == r.workload.heads && p.seq_q == r.workload.seq_q &&
              p.seq_kv == r.workload.seq_kv && p.head_dim == r.workload.head_dim &&
              p.dtype == r.workload.dtype && p.causal == r.workload.causal && p.window == r.workload.window &&
              p.alibi == r.workload.alibi;
  } catch (const std::exception&) {
  }
  if (!matches) preset_->setCurrentText(tr("custom"));
  preset_->blockSignals(false);
  emit requestChanged();
}

WhatIfRequest WhatIfPage::request() const {
  WhatIfRequest r;
  r.workload.name = preset_->currentText().toStdString();
  r.workload.batch = batch_->value();
  r.workload.heads = heads_->value();
  r.workload.seq_q = seq_q_->value();
  r.workload.seq_kv = seq_kv_->value();
  r.workload.head_dim = head_dim_->value();
  r.workload.dtype = sim::parse_dtype(dtype_->currentText().toStdString()).value_or(sim::DType::fp16);
  r.workload.causal = causal_->isChecked();
  r.workload.window = window_->value();
  r.workload.alibi = alibi_->isChecked();
  r.kernels = static_cast<KernelChoice>(kernel_->currentData().toInt());
  r.workload.pass = static_cast<sim::Pass>(pass_->currentData().toInt());
  r.tiles.bwd_bc = bwd_bc_->currentData().toInt();
  r.tiles.bwd_br = bwd_br_->currentData().toInt();
  r.tiles.bwd_stages = bwd_stages_->currentData().toInt();
  r.tiles.br = br_->currentData().toInt();
  r.tiles.bc = bc_->currentData().toInt();
  r.tiles.warps = warps_->value();
  r.tiles.stages = stages_->value();
  r.smem_limit = static_cast<std::int64_t>(smem_kib_->value()) * 1024;
  r.gpu = gpu_->currentData().toString();
  r.sweep = sweep_->isChecked();
  r.preview = preview_->isChecked();
  return r;
}

void WhatIfPage::setRequest(const WhatIfRequest& r) {
  filling_ = true;
  const auto& w = r.workload;
  const auto clampInt = [](std::int64_t v) { return static_cast<int>(std::min<std::int64_t>(v, 1 << 20)); };
  preset_->setCurrentText(QString::fromStdString(w.name));
  if (preset_->currentText() != QString::fromStdString(w.name)) preset_->setCurrentText(tr("custom"));
  batch_->setValue(clampInt(w.batch));
  heads_->setValue(clampInt(w.heads));
  seq_q_->setValue(clampInt(w.seq_q));
  seq_kv_->setValue(clampInt(w.seq_kv));
  head_dim_->setValue(clampInt(w.head_dim));
  const std::string_view dtype = sim::to_string(w.dtype);
  dtype_->setCurrentText(QString::fromUtf8(dtype.data(), static_cast<qsizetype>(dtype.size())));
  causal_->setChecked(w.causal);
  window_->setValue(clampInt(w.window));
  alibi_->setChecked(w.alibi);
  sweep_->setChecked(r.sweep);
  preview_->setChecked(r.preview);
  kernel_->setCurrentIndex(kernel_->findData(static_cast<int>(r.kernels)));
  pass_->setCurrentIndex(pass_->findData(static_cast<int>(w.pass)));
  selectValue(br_, r.tiles.br);
  last_br_ = r.tiles.br;
  selectValue(bc_, r.tiles.bc);
  selectValue(bwd_bc_, std::max(0, r.tiles.bwd_bc));
  selectValue(bwd_br_, std::max(0, r.tiles.bwd_br));
  selectValue(bwd_stages_, std::max(0, r.tiles.bwd_stages));
  warps_->setValue(r.tiles.warps);
  stages_->setValue(r.tiles.stages);
  smem_kib_->setValue(static_cast<int>(r.smem_limit / 1024));
  if (gpu_->findData(r.gpu) < 0) gpu_->insertItem(gpu_->count() - 1, r.gpu, r.gpu);
  gpu_->setCurrentIndex(gpu_->findData(r.gpu));
  filling_ = false;
  updateTileControls();
}

void WhatIfPage::updateTileControls() {
  const vocab::TiledBwdConfig d = vocab::default_tiled_bwd_config(head_dim_->value());
  bwd_bc_->setItemText(0, tr("head-dim default (%1)").arg(d.bc));
  bwd_br_->setItemText(0, tr("head-dim default (%1)").arg(d.br));
  bwd_stages_->setItemText(0, tr("head-dim default (%1)").arg(d.stages));
  const auto pass = static_cast<sim::Pass>(pass_->currentData().toInt());
  backward_->setEnabled(pass != sim::Pass::fwd);
  for (QWidget* forward : std::initializer_list<QWidget*>{br_, bc_, warps_, stages_}) {
    forward->setEnabled(pass != sim::Pass::bwd);
    forward->setToolTip(pass == sim::Pass::bwd ? tr("The backward pass alone runs no forward kernel")
                                               : QString());
  }
}

bool WhatIfPage::autoRun() const {
  return auto_run_->isChecked();
}

void WhatIfPage::setBusy(bool busy) {
  if (busy) {
    status_->setStyleSheet(QString());
    status_->setText(tr("computing…"));
  }
}

void WhatIfPage::showResult(const ReportPtr& report, double model_ms, double views_ms) {
  const auto& r = *report;
  const QString preview = previewLabel(r);
  // A preview is an estimate from a slice of the heads: it says so until the full model replaces it.
  status_->setStyleSheet(preview.isEmpty() ? QString() : QStringLiteral("color: #8a5a00"));
  const QString timing = tr("%1 ms (model %2 ms + views %3 ms)")
                             .arg(model_ms + views_ms, 0, 'f', 1)
                             .arg(model_ms, 0, 'f', 1)
                             .arg(views_ms, 0, 'f', 1);
  status_->setText(preview.isEmpty() ? tr("updated in %1").arg(timing)
                                     : tr("%1 in %2; computing the full model…").arg(preview, timing));
  const QString pass = r.workload.pass == sim::Pass::fwd   ? tr("forward")
                       : r.workload.pass == sim::Pass::bwd ? tr("backward")
                                                           : tr("training step");
  summary_->setText(
      tr("<b>%1</b> on %2, %3 pass, %4<br/>time %5 · HBM read %6 · HBM write %7 · L2 read %8 · L2 write %9 · "
         "shared %10")
          .arg(QString::fromStdString(r.workload.name), QString::fromStdString(r.provenance.gpu_spec), pass,
               tilesLabel(r))
          .arg(formatSeconds(sumOf(r, vocab::Metric::time, true)),
               formatBytes(sumOf(r, vocab::Metric::dram_read, true)),
               formatBytes(sumOf(r, vocab::Metric::dram_write, true)),
               formatBytes(sumOf(r, vocab::Metric::l2_read, true)),
               formatBytes(sumOf(r, vocab::Metric::l2_write, true)),
               formatBytes(sumOf(r, vocab::Metric::smem_read, true) +
                           sumOf(r, vocab::Metric::smem_write, true))));
}

void WhatIfPage::showError(const QString& message) {
  status_->setStyleSheet(QStringLiteral("color: #b0302a"));
  status_->setText(tr("The model cannot run this configuration: %1").arg(message));
}

void WhatIfPage::setSweepComputing() {
  sweep_chart_->setComputing(true);
}

}  // namespace attnscope::gui
