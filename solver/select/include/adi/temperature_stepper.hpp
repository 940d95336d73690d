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
// change H(u^{n+1}) - H(u^n). It keeps no history, so a restart continues
// bit for bit. make_stepper builds it when p.material.temperature is set.

#include <adi/stepper.hpp>
#include <adi/temperature.hpp>

#include <memory>
#include <vector>

namespace adi {

template <class T>
std::unique_ptr<Stepper<T>> wrap_temperature_stepper(std::unique_ptr<Stepper<T>> inner);

}  // namespace adi
