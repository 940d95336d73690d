#pragma once
// The two independent checks of the scheme against the analytic mode
// (see analytic.hpp): round-off agreement with g^n U(0), and the observed
// order of convergence to the exact solution under refinement with dt ~ h.

#include <adi/analytic.hpp>
#include <adi/stepper.hpp>

#include <functional>
#include <vector>

namespace adi {

struct RoundoffResult {
  index_t steps = 0;
  double amplification = 1.0;  ///< g per step
  ErrorNorms error;            ///< against g^steps * U(0)
};

/// Runs `steps` steps of p from the analytic mode on backend b in precision T.
template <class T>
RoundoffResult roundoff_check(const HeatProblem& p, index_t steps, Backend b);

struct ConvergenceRow {
  index_t intervals = 0;  ///< cells per axis (n - 1) on the finest axis scale
  double h = 0.0;         ///< spacing along x
  double dt = 0.0;
  index_t steps = 0;
  ErrorNorms error;       ///< against the exact solution at t_end
  double order_max = 0.0; ///< log2(err_prev / err) (0 for the first row)
  double order_rms = 0.0;
  double wall_seconds = 0.0;
};

struct ConvergenceOptions {
  std::vector<index_t> intervals{10, 20, 40, 80};  ///< cells per unit length, doubled each level
  double t_end = 0.1;                              ///< [s]
  double steps_per_interval = 1.0;                 ///< steps = round(this * intervals): dt ~ h
};

/// Refines `base` (its n and dt are replaced per level) and returns one row
/// per level. Orders are computed between successive levels.
ConvergenceRow convergence_level(const HeatProblem& base, const ConvergenceOptions& o, index_t intervals,
                                 Precision prec, Backend b);
std::vector<ConvergenceRow> convergence_study(const HeatProblem& base, const ConvergenceOptions& o,
                                              Precision prec, Backend b,
                                              const std::function<void(const ConvergenceRow&)>& on_row = {});

}  // namespace adi
