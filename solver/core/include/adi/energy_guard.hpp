#pragma once
// The energy guard of a run (issue: "a run that goes unstable is stopped"):
// in a problem that feeds no energy in — no source, every heat flux 0, every
// convective ambient 0, every Dirichlet node at 0 — the exact solution's
// discrete energy sum w c u^2 (FieldStats::energy) never grows, and neither
// does a stable scheme's (split.hpp: each Strang factor is a contraction in
// that norm; the Douglas step is one for commuting operators). So a run
// whose energy rises above the lowest value it had is unstable: it stops
// with exit 4 and a line naming the step, the growth and what to do, before
// anything is written from the field. Pure (no stepper, no MPI): `adi3d run`
// (app/run_driver.cpp) and the Python Problem feed it the stats they gather
// anyway.

#include <adi/common.hpp>
#include <adi/problem.hpp>
#include <adi/stepper.hpp>

#include <array>
#include <string>
#include <vector>

namespace adi {

/// Whether p feeds no energy in (above); `field_faces_zero`: the Dirichlet
/// faces that keep the initial field's values hold 0 there.
bool energy_cannot_grow(const HeatProblem& p, bool field_faces_zero);

/// Whether every node of the Dirichlet faces that keep the initial field's
/// values is 0 in `field` (the whole grid, packed x fastest).
template <class T>
bool field_faces_zero(const HeatProblem& p, const std::vector<T>& field);

/// Problems with data (a source, inflow, Dirichlet values): the energy may
/// grow, but not faster than the data feed it. With E = sum w c u^2 and
/// c du/dt = L u + s (L symmetric, negative semidefinite in the w inner
/// product, Robin terms included; s the source and every face's data,
/// Dirichlet couplings K g / h^2 included),
///   d sqrt(E) / dt <= ||s / c||_{wc} <= rate,
/// and each Strang factor (a contraction plus tau s_a) keeps the same bound
/// step by step; so sqrt(E(t)) <= sqrt(E(t0)) + dirichlet + (t - t0) rate,
/// `dirichlet` bounding the Dirichlet nodes' own share of E. `rate` is an
/// upper bound (every table at its largest |value|, c at its smallest).
/// The partial sums of one box (data_bound_parts); a distributed run sums
/// q2 and takes the min / max over its ranks before data_bound.
struct DataBoundParts {
  double q2 = 0.0;  ///< sum of w q^2 over the box [W^2 / m^3]
  double c_min = 0.0, c_max = 0.0, k_max = 0.0;
};
DataBoundParts data_bound_parts(const HeatProblem& p, const std::array<index_t, 3>& begin,
                                const std::array<index_t, 3>& size);
struct DataBound {
  double rate = 0.0;       ///< bound on d sqrt(E) / dt
  double dirichlet = 0.0;  ///< bound on the Dirichlet nodes' sqrt(E)
};
/// `u_max`: max|u| of the start (a Dirichlet face that keeps the initial values).
DataBound data_bound(const HeatProblem& p, const DataBoundParts& all, double u_max);

class EnergyGuard {
 public:
  EnergyGuard() = default;
  /// `single`: the run computes in float32 (round-off then allows more).
  EnergyGuard(bool active, bool single, const HeatProblem& p) : active_(active), single_(single), p_(p) {}
  /// A problem with data: the growth may not exceed kDataBoundMargin times
  /// the bound of DataBound (an unstable step grows geometrically and passes
  /// it within a few steps; a stable one stays below it by the theorem).
  EnergyGuard(const DataBound& b, bool single, const HeatProblem& p)
      : active_(true), single_(single), bounded_(true), bound_(b), p_(p) {}
  static constexpr double kDataBoundMargin = 4.0;
  bool active() const { return active_; }
  /// The growth allowed over the lowest energy seen, relative: round-off of
  /// the field (random-walk drift over a million steps stays far below).
  double tolerance() const { return single_ ? 1e-3 : 1e-6; }
  /// Records the energy of `step`; "" while it has not grown, else the
  /// one-line reason to stop.
  std::string observe(const FieldStats& s, index_t step, double t);

 private:
  std::string unstable(const std::string& head) const;
  bool active_ = false, single_ = false, bounded_ = false;
  DataBound bound_;
  double t0_ = 0.0;
  HeatProblem p_;
  bool seen_ = false;
  double lowest_ = 0.0, first_ = 0.0;
  index_t lowest_step_ = 0;
};

}  // namespace adi
