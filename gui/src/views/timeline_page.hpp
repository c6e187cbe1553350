// SPDX-License-Identifier: Apache-2.0
// Timeline page: kernel selector, modeled/measured toggles and a reset-zoom button over a TimelineView.
#pragma once
#include <QWidget>

#include "models/timeline_model.hpp"

class QComboBox;

namespace attnscope::gui {

class TimelineView;

class TimelinePage : public QWidget {
  Q_OBJECT
 public:
  TimelinePage(TimelineModel* model, QWidget* parent = nullptr);
  TimelineView* view() const { return view_; }

 private:
  void syncKernels();

  TimelineModel* model_;
  TimelineView* view_;
  QComboBox* kernel_;
  QStringList kernel_names_;
};

}  // namespace attnscope::gui
