#pragma once
// adi3d._core's parts: each binds one area of the library into the module.

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

namespace adi::python {

namespace nb = nanobind;

/// Any array that speaks DLPack or the buffer protocol, read-only allowed
/// (coefficients), and one that the solve writes (the solution).
using RoArray = nb::ndarray<nb::ro>;
using RwArray = nb::ndarray<>;

void bind_solves(nb::module_& m);
void bind_problem(nb::module_& m);

}  // namespace adi::python
