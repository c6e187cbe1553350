// SPDX-License-Identifier: Apache-2.0
// Timeline page: kernel selector, modeled/measured toggles, what the box colours say and a reset-zoom button
// over a TimelineView.
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
  QComboBox* colorByBox() const { return color_by_; }

 private:
  void syncKernels();

  TimelineModel* model_;
  TimelineView* view_;
  QComboBox* kernel_;
  QComboBox* color_by_;
  QStringList kernel_names_;
};

}  // namespace attnscope::gui
