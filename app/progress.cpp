// The progress line and the periodic log lines (see progress.hpp).

#include "progress.hpp"

#include "log.hpp"
#include "util.hpp"

#include <algorithm>
#include <cstdio>

namespace adi::app {

namespace {
double seconds(ProgressReporter::Clock::duration d) { return std::chrono::duration<double>(d).count(); }
}  // namespace

ProgressReporter::ProgressReporter(const OutputSchedule& schedule, bool tty, bool quiet, index_t start_step)
    : schedule_(schedule), tty_(tty), quiet_(quiet), start_step_(start_step), t0_(Clock::now()) {
  // On a terminal the progress line shows up after the first chunk.
  last_line_ = tty_ ? t0_ - std::chrono::seconds(1) : t0_;
}

double ProgressReporter::since_last_line(Clock::time_point now) const { return seconds(now - last_line_); }

bool ProgressReporter::due(index_t s, double since_last) const {
  if (!schedule_.log_by_wall_clock()) return schedule_.log_due(s);
  return since_last >= (tty_ ? 0.25 : 2.0) || s == schedule_.steps();
}

void ProgressReporter::line(index_t s, double max_abs, Clock::time_point now) {
  const index_t steps = schedule_.steps();
  const double el = seconds(now - t0_);
  const double rate = static_cast<double>(s - start_step_) / std::max(el, 1e-9);
  const double eta = static_cast<double>(steps - s) / std::max(rate, 1e-9);
  if (tty_ && schedule_.log_by_wall_clock() && s != steps) {
    std::fprintf(stderr, "\r  step %lld/%lld  t = %.4g s  %.1f steps/s  ETA %s  max|u| = %.4g   ",
                 static_cast<long long>(s), static_cast<long long>(steps), schedule_.time_of(s), rate,
                 human_seconds(eta).c_str(), max_abs);
    std::fflush(stderr);
    shown_ = true;
  } else if (!quiet_) {
    clear();
    spdlog::info("step {}/{}  t = {:.6g} s  {:.1f} steps/s  ETA {}  max|u| = {:.6g}", s, steps, schedule_.time_of(s),
                 rate, human_seconds(eta), max_abs);
  }
  last_line_ = now;
}

void ProgressReporter::clear() {
  if (shown_) std::fprintf(stderr, "\r%100s\r", "");
  shown_ = false;
}

}  // namespace adi::app
