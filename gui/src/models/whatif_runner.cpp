// SPDX-License-Identifier: Apache-2.0
#include "models/whatif_runner.hpp"

#include <QtConcurrent/QtConcurrentRun>
#include <exception>
#include <iterator>

#include "attnscope/sim/error.hpp"

namespace attnscope::gui {

WhatIfRunner::WhatIfRunner(QObject* parent) : QObject(parent) {
  model_thread_.setMaxThreadCount(1);
  model_thread_.setExpiryTimeout(-1);  // never retire the thread: its warm storage is the point
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &WhatIfRunner::onFinished);
}

WhatIfRunner::~WhatIfRunner() {
  if (in_flight_) running_.cancel->store(true);  // nobody will see it: stop instead of finishing
  watcher_.waitForFinished();
  model_thread_.waitForDone();
}

void WhatIfRunner::request(const WhatIfRequest& request) {
  ++generation_;
  latest_->store(generation_);
  queued_ = Job{request, generation_, Stage::preview, latest_};
  full_after_.reset();
  sweep_after_.reset();
  if (in_flight_) running_.cancel->store(true);  // its answer is stale now: stop computing it
  since_request_.start();
  setBusy(true);
  if (!in_flight_) startNext();
}

WhatIfRunner::Outcome WhatIfRunner::run(const Job& job) {
  Outcome out;
  out.generation = job.generation;
  out.stage = job.stage;
  QElapsedTimer clock;
  clock.start();
  try {
    if (job.stage == Stage::sweep) {
      constexpr int total = static_cast<int>(std::size(kSweepBr) * std::size(kSweepBc));
      int done = 0;
      out.points = computeSweep(
          job.request,
          [&] {
            if (job.latest->load() != job.generation) return true;
            // Queued to the UI thread; a stale generation's progress is dropped there.
            QMetaObject::invokeMethod(this, [this, generation = job.generation, d = done] {
              if (generation == generation_) emit sweepProgress(d, total);
            });
            ++done;
            return false;
          },
          job.cancel.get(),
          [&](const SweepPointResult& p) {
            QMetaObject::invokeMethod(this, [this, generation = job.generation, p] {
              if (generation == generation_) emit sweepPoint(p);
            });
          });
    } else if (job.stage == Stage::preview) {
      out.report = computePreview(job.request, job.cancel.get());  // null: no preview for this request
    } else {
      out.report = computeModel(job.request, job.cancel.get());
    }
  } catch (const sim::Cancelled&) {
    out.cancelled = true;  // a newer request exists: onFinished drops this outcome as stale
  } catch (const std::exception& e) {
    out.error = QString::fromStdString(e.what());
  }
  out.compute_ms = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  return out;
}

void WhatIfRunner::startNext() {
  std::optional<Job> next;
  if (queued_) {
    next = std::move(queued_);
    queued_.reset();
  } else if (full_after_ && full_after_->generation == generation_) {
    next = std::move(full_after_);
    full_after_.reset();
  } else if (sweep_after_ && sweep_after_->generation == generation_) {
    next = std::move(sweep_after_);
    sweep_after_.reset();
  }
  if (!next) {
    emit idle();
    return;
  }
  running_ = *next;
  in_flight_ = true;
  watcher_.setFuture(QtConcurrent::run(&model_thread_, &WhatIfRunner::run, this, running_));
  // Signalled once the run is in flight, so a slot that requests again only queues.
  if (running_.stage == Stage::sweep) {
    const SweepTarget t = sweepTarget(running_.request);
    emit sweepStarted(t.br, t.bc, t.backward);
  }
}

void WhatIfRunner::onFinished() {
  in_flight_ = false;
  const Outcome out = watcher_.result();
  if (out.generation != generation_) {
    ++stale_dropped_;  // a newer request is queued: this answer is to an old question
  } else if (!out.error.isEmpty()) {
    if (out.stage != Stage::sweep) setBusy(false);
    emit failed(out.error);
  } else if (out.stage == Stage::sweep) {
    const SweepTarget t = sweepTarget(running_.request);
    emit sweepReady(out.points, t.br, t.bc);
  } else if (out.stage == Stage::preview) {
    full_after_ = Job{running_.request, out.generation, Stage::full, latest_};
    if (out.report) {
      last_compute_ms_ = out.compute_ms;
      emit previewReady(out.report, static_cast<double>(since_request_.nsecsElapsed()) / 1e6);
    }
  } else {
    setBusy(false);
    const double latency_ms = static_cast<double>(since_request_.nsecsElapsed()) / 1e6;
    last_compute_ms_ = out.compute_ms;
    if (running_.request.sweep) sweep_after_ = Job{running_.request, out.generation, Stage::sweep, latest_};
    emit modelReady(out.report, latency_ms);
  }
  startNext();
}

void WhatIfRunner::setBusy(bool busy) {
  if (busy == busy_) return;
  busy_ = busy;
  emit busyChanged(busy);
}

}  // namespace attnscope::gui
