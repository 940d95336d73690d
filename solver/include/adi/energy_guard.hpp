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

class EnergyGuard {
 public:
  EnergyGuard() = default;
  /// `single`: the run computes in float32 (round-off then allows more).
  EnergyGuard(bool active, bool single, const HeatProblem& p) : active_(active), single_(single), p_(p) {}
  bool active() const { return active_; }
  /// The growth allowed over the lowest energy seen, relative: round-off of
  /// the field (random-walk drift over a million steps stays far below).
  double tolerance() const { return single_ ? 1e-3 : 1e-6; }
  /// Records the energy of `step`; "" while it has not grown, else the
  /// one-line reason to stop.
  std::string observe(const FieldStats& s, index_t step, double t);

 private:
  bool active_ = false, single_ = false;
  HeatProblem p_;
  bool seen_ = false;
  double lowest_ = 0.0, first_ = 0.0;
  index_t lowest_step_ = 0;
};

}  // namespace adi
