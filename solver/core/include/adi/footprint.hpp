#pragma once
// What a stepper will allocate, estimated from the problem before anything
// is allocated (adi3d run checks it against the memory there is). Each
// backend models its own arrays (cpu::footprint, cuda::footprint:
// adi/detail/entry_points.hpp), select adds the steady solver's
// (stepper_footprint, adi/factory.hpp), the app its own copy of the field.

#include <adi/backend.hpp>
#include <adi/problem.hpp>

namespace adi {

struct StepperFootprint {
  double field_bytes = 0;          ///< one whole-grid field in the run's precision
  int material_fields = 0;         ///< K, c, q arrays the stepper holds (distinct fields of the material)
  double stepper_field = 0;        ///< one of the stepper's arrays: the whole grid, or rank 0's box
  double stepper_arrays = 0;       ///< how many of them the stepper holds
  double host_bytes = 0;           ///< host memory of the stepper (and of the fields on their way to a device)
  double device_bytes = 0;         ///< device memory (CUDA), 0 on the CPU
  double device_bytes_rows16 = 0;  ///< the same with rows padded to 16 bytes only (ADI_ROW_ALIGN=16)
};

/// What every backend's model starts from: the field's size, the distinct
/// material fields, and the stepper's arrays (u, the work array and one per
/// material field) of one whole grid, or with `ranks` > 1 of rank 0's
/// sub-box: 1/ranks of the grid, plus the node more that uneven splits give
/// the first ranks and the ghost planes (a quarter more bounds both for
/// boxes of 8 planes). Sizes in double, so absurd grids do not overflow.
StepperFootprint footprint_base(const HeatProblem& p, Precision precision, int ranks);

}  // namespace adi
