// adi3d._core: the extension module behind `import adi3d` (nanobind).
// Library errors become Python exceptions with the library's one-line
// message: bad arguments ValueError, a zero pivot or a non-finite value
// ArithmeticError, a missing backend or device RuntimeError, a bad config
// ValueError naming file:line:column and key, a file problem OSError.

#include "bindings.hpp"

#include <adi/solver.hpp>
#include <adi/version.hpp>
#ifdef ADI_PYTHON_WITH_IO
#include <adi/io/io.hpp>
#endif

#include <nanobind/stl/string.h>

namespace nb = nanobind;
using namespace adi::python;

NB_MODULE(_core, m) {
  m.doc() = "adi3d's compiled core: batched tridiagonal solves and the ADI heat solver";
  // Most derived last: nanobind tries the latest registered translator first.
  nb::exception<adi::Error>(m, "Error", PyExc_RuntimeError);
  nb::exception<adi::InvalidArgument>(m, "InvalidArgument", PyExc_ValueError);
  nb::exception<adi::NumericalError>(m, "NumericalError", PyExc_ArithmeticError);
  nb::exception<adi::BackendUnavailable>(m, "BackendUnavailable", PyExc_RuntimeError);
#ifdef ADI_PYTHON_WITH_IO
  nb::exception<adi::io::ConfigError>(m, "ConfigError", PyExc_ValueError);
  nb::exception<adi::io::IoError>(m, "IoError", PyExc_OSError);
#endif

  m.def("cuda_built", [] { return adi::backend_built(adi::Backend::Cuda); },
        "Whether this build has the CUDA backend.");
  m.def("cuda_unavailable_reason", [] { return adi::cuda_unavailable_reason(); },
        "Why no CUDA device is usable (empty if one is).");
  m.attr("version") = ADI_VERSION;
  m.attr("git_hash") = ADI_GIT_HASH;
  bind_solves(m);
#ifdef ADI_PYTHON_WITH_IO
  bind_problem(m);
#endif
}
