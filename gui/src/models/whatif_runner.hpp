// SPDX-License-Identifier: Apache-2.0
// Runs the model off the UI thread and keeps only the newest question. A request while a run is in flight
// replaces any queued one and cancels the run in flight (sim::SimOptions::cancel: it stops within about a
// millisecond), so the newest question starts at once instead of queueing behind a stale answer. A large
// workload first gets a labelled preview (computePreview: a slice of the heads, scaled), then the full model;
// after each fresh full result the tile-size sweep runs for the same request; a newer request cancels both.
#pragma once
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "models/whatif_request.hpp"

namespace attnscope::gui {

class WhatIfRunner : public QObject {
  Q_OBJECT
 public:
  explicit WhatIfRunner(QObject* parent = nullptr);
  ~WhatIfRunner() override;  // waits for a run in flight: its worker reads the request it holds

  void request(const WhatIfRequest& request);
  bool isBusy() const {
    return busy_;
  }  // a full model run is queued or in flight (a preview does not end it)
  bool isIdle() const { return !busy_ && !in_flight_; }
  int staleResultsDropped() const { return stale_dropped_; }
  // Time the last shown result (preview or full) spent in the model on the worker (the rest of the latency is
  // queueing behind an older run and the hop back to the UI thread).
  double lastComputeMs() const { return last_compute_ms_; }

 signals:
  void busyChanged(bool busy);
  // latency_ms: from request() to this signal, i.e. the queueing and the model run and its conversion.
  void modelReady(attnscope::gui::ReportPtr report, double latency_ms);
  // The preview of the same request, before modelReady (only for a large workload; previewLabel() names it).
  void previewReady(attnscope::gui::ReportPtr report, double latency_ms);
  // The request's own tile in the sweep (sweepTarget: the backward tile when its pass has a backward).
  void sweepStarted(int current_br, int current_bc, bool backward);
  // Points of the sweep in flight done so far (for a progress bar), from the UI thread.
  void sweepProgress(int done, int total);
  // Each point of the sweep in flight as soon as it is modeled (sweepReady still brings them all).
  void sweepPoint(attnscope::gui::SweepPointResult point);
  void sweepReady(QVector<attnscope::gui::SweepPointResult> points, int current_br, int current_bc);
  void failed(const QString& message);
  void idle();  // nothing running or queued

 private:
  enum class Stage : std::uint8_t { preview, full, sweep };
  struct Outcome {
    quint64 generation = 0;
    Stage stage = Stage::full;
    ReportPtr report;
    QVector<SweepPointResult> points;
    QString error;
    bool cancelled = false;
    double compute_ms = 0;
  };
  struct Job {
    WhatIfRequest request;
    quint64 generation = 0;
    Stage stage = Stage::full;
    std::shared_ptr<const std::atomic<quint64>> latest;  // newest generation requested, read by the worker
    // Raised by a newer request: the model stops mid-run instead of finishing an answer nobody will see.
    std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);
  };
  Outcome run(const Job& job);  // on the model thread
  void startNext();
  void onFinished();
  void setBusy(bool busy);

  // The model runs on one long-lived thread: the simulator keeps its L2 arrays, CTA slots and event heap
  // per thread, and the allocator its arena, so each run after the first reuses warm memory instead of
  // page-faulting tens of megabytes back in (a fresh pool thread per run did).
  QThreadPool model_thread_;
  QFutureWatcher<Outcome> watcher_;
  std::optional<Job> queued_;       // newest request not yet started
  std::optional<Job> full_after_;   // full model to run once the preview of the same generation is shown
  std::optional<Job> sweep_after_;  // sweep to run once the main result of the same generation is shown
  Job running_;
  quint64 generation_ = 0;
  std::shared_ptr<std::atomic<quint64>> latest_ = std::make_shared<std::atomic<quint64>>(0);
  QElapsedTimer since_request_;
  bool busy_ = false;
  // A run started and its finished() not yet handled. Kept by hand: a future that has finished but whose
  // signal is still queued is no longer isRunning(), yet starting another would race with that signal.
  bool in_flight_ = false;
  int stale_dropped_ = 0;
  double last_compute_ms_ = 0;
};

}  // namespace attnscope::gui
