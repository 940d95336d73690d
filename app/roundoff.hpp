#pragma once
// The round-off check's verdict, shared by `adi3d validate` and `adi3d run`.
//
// The check: a run from the analytic mode (an exact eigenvector of the
// discrete operator) must end at g^n U(0), g being the Douglas step's
// amplification factor, up to round-off. Its value is
// max|U - g^n U(0)| / max|g^n U(0)| (ErrorNorms::rel_max of the comparison
// with scale g^n), relative to the mode's amplitude at the end, so it does
// not grow as the field decays.
//
// Tolerance: validate's, 1e-12 in fp64 and 1e-5 in fp32 for its 25 steps,
// and for a run of n > 25 steps n/25 times that: the round-off of n steps
// accumulates about linearly (measured on 21 x 19 x 17, alpha = 0.01,
// dt = 1e-3: fp64 4.9e-15 after 100 steps, 4.7e-14 after 1000, 4.7e-13 after
// 10^4, 2.4e-12 after 5 10^4; fp32 8.3e-7, 1.5e-6, 3.0e-6, 1.6e-5), so a
// fixed 1e-12 would fail a correct fp64 run after about 2 10^4 steps. A
// wrong step misses by orders of magnitude more (its error is O(h^2) or
// O(1), not O(n eps)).
//
// Not checked when the mode has decayed below the precision's normal range
// (a long fp32 run: g^n U(0) < 1.2e-38): subnormal values keep too few bits
// for a relative comparison, and they flush to zero.

#include <adi/analytic.hpp>
#include <adi/common.hpp>

#include <string>

namespace adi::app {

/// validate's tolerance (n <= 25 steps), scaled linearly beyond 25 steps.
double roundoff_tolerance(Precision p, index_t steps);

struct RoundoffVerdict {
  enum class Kind { Ok, Missed, NotChecked } kind = Kind::Ok;
  double value = 0.0;      ///< max relative |U - g^n U(0)|
  double tolerance = 0.0;
  std::string note;        ///< why it was not checked ("" otherwise)
  bool missed() const { return kind == Kind::Missed; }
};

/// The verdict on `discrete` (the comparison with g^n U(0)) after `steps` steps.
RoundoffVerdict roundoff_verdict(const ErrorNorms& discrete, Precision p, index_t steps);

}  // namespace adi::app
