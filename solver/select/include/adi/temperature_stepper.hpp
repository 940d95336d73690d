#pragma once
// The nonlinear step of a temperature-dependent material (docs/SCHEMES.md,
// "Temperature-dependent materials"): a backend's stepper whose material
// fields are a TemperatureState's (adi/temperature.hpp), wrapped so that
// each step from u^n is
//   u^(1):   one linear step with K and c at u^n
//   u^(k+1): the linear step from u^n again with K at (u^n + u^(k)) / 2 and
//            c the enthalpy chord of [u^n, u^(k)], until two iterates agree
//            (relative 1e-12 of the step's change, or round-off), at least
//            once, at most 50 times (then NumericalError: reduce dt)
// The converged step is the linear step with midpoint coefficients (second
// order in time) whose conserved sum c (u^{n+1} - u^n) is the enthalpy's
// change H(u^{n+1}) - H(u^n). With HeatProblem::nonlinear PredictorCorrector
// u^(2) is the step (two linear steps, second order). With Extrapolated one
// linear step from u^n with the coefficients of the step from u^n to
// u* = 2 u^n - u^(n-1) (K at the extrapolated midpoint; second order); its
// first step, one after a new field and one whose u* leaves a table are
// predictor-corrector steps. Both map their last linear step's result v
// through the enthalpy (H(u) = H(u^n) + c (v - u^n), c its chord:
// TemperatureState::conserve_enthalpy), so their enthalpy balance closes to
// round-off as the iteration's does. It keeps u^(n-1)
// (Stepper::exchange_previous_field), which a checkpoint stores so that a
// restart continues bit for bit; the other two keep no history. Where the
// backend's field is on a device (Stepper::device_iterates) the iterates
// stay there. make_stepper builds it when p.material.temperature is set,
// or p.radiation (radiating faces, adi/radiation.hpp: their source is
// evaluated at the iterates as the coefficients are).

#include <adi/stepper.hpp>
#include <adi/radiation.hpp>
#include <adi/temperature.hpp>

#include <memory>
#include <vector>

namespace adi {

/// inner: the backend's stepper of nonlinear_inner_problem(original).
template <class T>
std::unique_ptr<Stepper<T>> wrap_temperature_stepper(std::unique_ptr<Stepper<T>> inner, const HeatProblem& original);

/// The problem the backend's stepper is built on: p, with radiating faces
/// its source the RadiationState's field (which applies p's source table).
HeatProblem nonlinear_inner_problem(const HeatProblem& p);

/// Whether make_stepper wraps: K or c vary with temperature, or a face radiates.
inline bool is_nonlinear(const HeatProblem& p) { return p.material.temperature != nullptr || p.radiation != nullptr; }

}  // namespace adi
