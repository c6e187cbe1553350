// SPDX-License-Identifier: Apache-2.0
#include "models/whatif_runner.hpp"

#include <QtConcurrent/QtConcurrentRun>
#include <exception>

namespace attnscope::gui {

WhatIfRunner::WhatIfRunner(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &WhatIfRunner::onFinished);
}

WhatIfRunner::~WhatIfRunner() {
  watcher_.waitForFinished();
}

void WhatIfRunner::request(const WhatIfRequest& request) {
  ++generation_;
  queued_ = Job{request, generation_, false};
  sweep_after_.reset();
  since_request_.start();
  setBusy(true);
  if (!in_flight_) startNext();
}

WhatIfRunner::Outcome WhatIfRunner::run(const Job& job) {
  Outcome out;
  out.generation = job.generation;
  out.is_sweep = job.is_sweep;
  try {
    if (job.is_sweep) {
      out.points = computeSweep(job.request);
    } else {
      out.report = computeModel(job.request);
    }
  } catch (const std::exception& e) {
    out.error = QString::fromStdString(e.what());
  }
  return out;
}

void WhatIfRunner::startNext() {
  std::optional<Job> next;
  if (queued_) {
    next = std::move(queued_);
    queued_.reset();
  } else if (sweep_after_ && sweep_after_->generation == generation_) {
    next = std::move(sweep_after_);
    sweep_after_.reset();
    emit sweepStarted();
  }
  if (!next) {
    emit idle();
    return;
  }
  running_ = *next;
  in_flight_ = true;
  watcher_.setFuture(QtConcurrent::run(&WhatIfRunner::run, running_));
}

void WhatIfRunner::onFinished() {
  in_flight_ = false;
  const Outcome out = watcher_.result();
  if (out.generation != generation_) {
    ++stale_dropped_;  // a newer request is queued: this answer is to an old question
  } else if (!out.error.isEmpty()) {
    if (!out.is_sweep) setBusy(false);
    emit failed(out.error);
  } else if (out.is_sweep) {
    emit sweepReady(out.points, running_.request.tiles.br, running_.request.tiles.bc);
  } else {
    setBusy(false);
    const double latency_ms = static_cast<double>(since_request_.nsecsElapsed()) / 1e6;
    if (running_.request.sweep) sweep_after_ = Job{running_.request, out.generation, true};
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
