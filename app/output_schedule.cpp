// The output schedule (see output_schedule.hpp).

#include "output_schedule.hpp"

#include <algorithm>
#include <cmath>

namespace adi::app {

OutputSchedule::OutputSchedule(const io::RunConfig& c, bool have_output)
    : steps_(c.steps),
      dt_(c.problem.dt),
      axis_(c.axis),
      have_output_(have_output),
      output_every_(c.output.every_steps),
      output_every_time_(c.output.every_time),
      output_initial_(c.output.write_initial),
      output_final_(c.output.write_final),
      checkpoint_every_(c.checkpoint.every_steps),
      log_every_(c.log_every) {}

// Stateless, so restarts agree: step s is an every_time output step when it
// is the first whose time reaches the next multiple (the 1e-9 absorbs the
// rounding of s * dt / every_time at exact multiples).
long long OutputSchedule::time_index(index_t s) const {
  return static_cast<long long>(std::floor(time_of(s) / output_every_time_ + 1e-9));
}

bool OutputSchedule::output_due(index_t s) const {
  if (!have_output_) return false;
  if (s == 0) return output_initial_;
  if (output_every_ > 0 && s % output_every_ == 0) return true;
  if (output_every_time_ > 0 && time_index(s) > time_index(s - 1)) return true;
  return s == steps_ && output_final_;
}

bool OutputSchedule::checkpoint_due(index_t s) const { return checkpoint_every_ > 0 && s % checkpoint_every_ == 0; }

bool OutputSchedule::log_due(index_t s) const { return (log_every_ > 0 && s % log_every_ == 0) || s == steps_; }

index_t OutputSchedule::next_event(index_t s) const {
  index_t e = steps_;
  for (index_t every : {have_output_ ? output_every_ : 0, checkpoint_every_, log_every_})
    if (every > 0) e = std::min(e, (s / every + 1) * every);
  if (have_output_ && output_every_time_ > 0) {
    // A guess just before the next multiple's step, then forward to it.
    const double k = static_cast<double>(time_index(s) + 1);
    const double guess =
        static_cast<double>(axis_.s0) + std::floor((k * output_every_time_ - axis_.t0) / dt_) - 1.0;
    index_t cand = guess >= static_cast<double>(e) ? e : std::max<index_t>(s + 1, static_cast<index_t>(guess));
    while (cand < e && time_index(cand) <= time_index(s)) ++cand;
    e = std::min(e, cand);
  }
  return e;
}

bool OutputSchedule::outputs_off_time() const {
  if (!have_output_ || output_every_time_ <= 0 || dt_ <= 0) return false;
  const double r = output_every_time_ / dt_;
  return std::fabs(r - std::round(r)) > 1e-9 * std::max(1.0, r);
}

std::vector<OutputSchedule::OffTime> OutputSchedule::off_time_outputs(std::size_t max) const {
  std::vector<OffTime> out;
  if (!outputs_off_time()) return out;
  // Walk the every_time output steps as the run does (next_event), at most
  // a few hundred of them: the pattern shows early.
  index_t s = axis_.s0;
  for (int n = 0; n < 512 && out.size() < max && s < steps_; ++n) {
    const long long before = time_index(s);
    while (s < steps_ && time_index(s) == before) s = next_event(s);
    if (time_index(s) == before) break;
    const double requested = static_cast<double>(before + 1) * output_every_time_;
    if (std::fabs(time_of(s) - requested) > 1e-9 * std::max(output_every_time_, dt_))
      out.push_back({requested, time_of(s)});
  }
  return out;
}

std::vector<OutputSchedule::Entry> OutputSchedule::list(index_t start) const {
  std::vector<Entry> out;
  if (output_due(start)) out.push_back({start, true, false, false});
  for (index_t s = start; s < steps_;) {
    s = next_event(s);
    const Entry e{s, output_due(s), checkpoint_due(s), log_due(s)};
    if (e.output || e.checkpoint || e.log) out.push_back(e);
  }
  return out;
}

}  // namespace adi::app
