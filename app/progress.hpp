#pragma once
// The run's progress as the user sees it: on a terminal one line rewritten
// in place ("step 88/250  t = ...  ETA ..."), otherwise (or with log.every
// set) plain log lines through spdlog. Rank 0 only (the others log errors).

#include "output_schedule.hpp"

#include <chrono>

namespace adi::app {

class ProgressReporter {
 public:
  using Clock = std::chrono::steady_clock;

  /// `tty`: stderr is a terminal (and this is rank 0, not quiet): the
  /// in-place line. `quiet`: no periodic lines at all. `start_step`: where
  /// this run began (the rate counts this run's steps).
  ProgressReporter(const OutputSchedule& schedule, bool tty, bool quiet, index_t start_step);

  Clock::time_point started() const { return t0_; }
  /// Seconds since the last line (with the other ranks' the step loop
  /// agrees on; the first line on a terminal is due after the first chunk).
  double since_last_line(Clock::time_point now) const;
  /// A line is due at step s, `since_last` seconds after the previous one:
  /// the schedule's log steps, or with log.every = 0 every 2 s (0.25 s on a
  /// terminal) and the last step.
  bool due(index_t s, double since_last) const;
  /// The line of step s (max_abs: the field's max|u|, just checked), as of `now`.
  void line(index_t s, double max_abs, Clock::time_point now);
  /// Erases the in-place line (before anything else is printed).
  void clear();

 private:
  const OutputSchedule& schedule_;
  bool tty_, quiet_;
  index_t start_step_;
  Clock::time_point t0_, last_line_;
  bool shown_ = false;
};

}  // namespace adi::app
