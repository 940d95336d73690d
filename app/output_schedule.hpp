#pragma once
// Which steps of a run write an output, a checkpoint or a log line, from the
// config alone: output.every / every_time / initial / final,
// checkpoint.every, log.every and the number of steps. Pure (no file, no
// clock, no stepper), so it is unit-tested (tests/unit/app/test_output_schedule.cpp).
//
// Time is always t = t0 + (step - s0) dt on the run's time axis (t = step *
// dt for a fresh run from t = 0; io::TimeAxis), never a running sum, and every
// decision is a function of the step only, so a run restarted at step k (a
// checkpoint stores the step and the axis) schedules exactly the steps after
// k that the uninterrupted run schedules. A restart that changed dt (a new
// segment of the axis) schedules output.every_time by the new times.
//
// The wall-clock events are not here: checkpoint.every_seconds and, with
// log.every = 0, a log line about every 2 s (0.25 s on a terminal); the
// step loop adds them at the steps it stops at.

#include <adi/io/config.hpp>

#include <vector>

namespace adi::app {

class OutputSchedule {
 public:
  /// `have_output`: the run writes an output file (output.file is set).
  OutputSchedule(const io::RunConfig& c, bool have_output);

  index_t steps() const { return steps_; }
  double time_of(index_t s) const { return axis_.time_of(s, dt_); }

  /// Step s writes an output: step 0 if output.initial; multiples of
  /// output.every; the first step whose time reaches each multiple of
  /// output.every_time; the last step if output.final.
  bool output_due(index_t s) const;
  /// Step s is a multiple of checkpoint.every.
  bool checkpoint_due(index_t s) const;
  /// Step s is a multiple of log.every, or the last step.
  bool log_due(index_t s) const;
  /// log.every = 0: log lines follow the wall clock (and the last step).
  bool log_by_wall_clock() const { return log_every_ == 0; }

  /// The first step after s that is due for an output, a checkpoint or a
  /// log line, or the last step: the step loop never steps past it.
  index_t next_event(index_t s) const;

  /// output.every_time outputs land on the first step whose time reaches
  /// each multiple of every_time; t = step * dt, and dt is never changed per
  /// step (the factorised line matrices depend on it, and restarts rely on
  /// t = step * dt), so when every_time is not a whole number of steps the
  /// outputs come up to one dt late. The run logs this; here, the facts.
  struct OffTime {
    double requested;  ///< the multiple of every_time
    double actual;     ///< the time of the step that writes it
  };
  /// True when output.every_time is set and is not a whole number of dt (up
  /// to round-off): some output times differ from the requested ones.
  bool outputs_off_time() const;
  /// The first `max` every_time outputs whose time differs from the
  /// multiple they stand for (empty when !outputs_off_time()).
  std::vector<OffTime> off_time_outputs(std::size_t max) const;

  struct Entry {
    index_t step;
    bool output, checkpoint, log;
    bool operator==(const Entry& o) const {
      return step == o.step && output == o.output && checkpoint == o.checkpoint && log == o.log;
    }
  };
  /// What a run from step `start` does, walking next_event as the step loop
  /// does: first `start` itself (an output if due there: a restarted run
  /// writes it when the file lacks it), then every step after it with
  /// something due. Wall-clock events excluded.
  std::vector<Entry> list(index_t start) const;

 private:
  /// Which multiple of output.every_time step s has reached.
  long long time_index(index_t s) const;

  index_t steps_;
  double dt_;
  io::TimeAxis axis_;
  bool have_output_;
  index_t output_every_;
  double output_every_time_;
  bool output_initial_, output_final_;
  index_t checkpoint_every_;
  index_t log_every_;
};

}  // namespace adi::app
