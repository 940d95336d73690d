#include <adi/factory.hpp>
#include <adi/validation.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace adi {

template <class T>
RoundoffResult roundoff_check(const HeatProblem& p, index_t steps, Backend b) {
  auto st = make_stepper<T>(p, b);
  std::vector<T> u;
  fill_analytic(p, u);
  st->set_field(u.data());
  st->advance(steps);
  st->get_field(u.data());
  RoundoffResult r;
  r.steps = steps;
  r.amplification = analytic_mode(p).amplification;
  r.error = compare_with_mode(p, u, std::pow(r.amplification, static_cast<double>(steps)));
  return r;
}

ConvergenceRow convergence_level(const HeatProblem& base, const ConvergenceOptions& o, index_t intervals,
                                 Precision prec, Backend b) {
  HeatProblem p = base;
  // Cells per axis scale with the box so that h is the same on every axis
  // when the box is a cube and proportional otherwise.
  const double lmax = std::max({p.length[0], p.length[1], p.length[2]});
  for (int a = 0; a < 3; ++a)
    p.n[a] = std::max<index_t>(2, static_cast<index_t>(std::llround(intervals * p.length[a] / lmax))) + 1;
  ConvergenceRow row;
  row.intervals = intervals;
  row.steps = std::max<index_t>(1, static_cast<index_t>(std::llround(o.steps_per_interval * intervals)));
  p.dt = o.t_end / static_cast<double>(row.steps);
  row.h = p.spacing(0);
  row.dt = p.dt;
  const auto t0 = std::chrono::steady_clock::now();
  dispatch_precision(prec, [&](auto tag) {
    using T = decltype(tag);
    auto st = make_stepper<T>(p, b);
    std::vector<T> u;
    fill_analytic(p, u);
    st->set_field(u.data());
    st->advance(row.steps);
    st->get_field(u.data());
    row.error = compare_with_mode(p, u, std::exp(-analytic_mode(p).decay_rate * o.t_end));
  });
  row.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return row;
}

std::vector<ConvergenceRow> convergence_study(const HeatProblem& base, const ConvergenceOptions& o,
                                              Precision prec, Backend b,
                                              const std::function<void(const ConvergenceRow&)>& on_row) {
  std::vector<ConvergenceRow> rows;
  for (index_t n : o.intervals) {
    ConvergenceRow r = convergence_level(base, o, n, prec, b);
    if (!rows.empty()) {
      const ConvergenceRow& prev = rows.back();
      const double ratio = static_cast<double>(r.intervals) / static_cast<double>(prev.intervals);
      r.order_max = std::log(prev.error.max_abs / r.error.max_abs) / std::log(ratio);
      r.order_rms = std::log(prev.error.rms / r.error.rms) / std::log(ratio);
    }
    rows.push_back(r);
    if (on_row) on_row(rows.back());
  }
  return rows;
}

template RoundoffResult roundoff_check<float>(const HeatProblem&, index_t, Backend);
template RoundoffResult roundoff_check<double>(const HeatProblem&, index_t, Backend);

}  // namespace adi
