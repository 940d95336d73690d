// The round-off check's verdict (see roundoff.hpp).

#include "roundoff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace adi::app {

namespace {
/// Steps of validate's round-off cases, for which its tolerances are set.
constexpr index_t kValidateSteps = 25;
}  // namespace

double roundoff_tolerance(Precision p, index_t steps) {
  const double base = p == Precision::F64 ? 1e-12 : 1e-5;
  return base * std::max(1.0, static_cast<double>(steps) / static_cast<double>(kValidateSteps));
}

RoundoffVerdict roundoff_verdict(const ErrorNorms& discrete, Precision p, index_t steps) {
  RoundoffVerdict v;
  v.value = discrete.rel_max();
  v.tolerance = roundoff_tolerance(p, steps);
  const double normal_min = p == Precision::F64 ? std::numeric_limits<double>::min()
                                                : static_cast<double>(std::numeric_limits<float>::min());
  if (discrete.ref_max < normal_min) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "g^n U(0) has decayed to %.2g, below %s's normal range", discrete.ref_max,
                  precision_name(p));
    v.kind = RoundoffVerdict::Kind::NotChecked;
    v.note = buf;
    return v;
  }
  // NaN compares false: a NaN value misses.
  v.kind = v.value <= v.tolerance ? RoundoffVerdict::Kind::Ok : RoundoffVerdict::Kind::Missed;
  return v;
}

}  // namespace adi::app
