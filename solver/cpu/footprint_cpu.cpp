// The CPU backend's arrays, before they are allocated (adi/footprint.hpp).

#include <adi/detail/entry_points.hpp>
#include <adi/footprint.hpp>
#include <adi/step_plan.hpp>

namespace adi::cpu {

StepperFootprint footprint(const HeatProblem& p, Precision precision, int ranks, const SolverOptions& options) {
  StepperFootprint f = footprint_base(p, precision, ranks);
  const bool constant_tables = plan_step(p).constant_tables();
  // A rank of the general path whose axis is split keeps the interior's
  // coefficients of the two reduced unknowns (alpha, beta: two more arrays)
  // when its lines differ (a K or 1/c field); with constant coefficients
  // they are one line's worth (general_local_cpu.cpp).
  if (ranks > 1 && !constant_tables && p.material.lines_vary()) f.stepper_arrays += 2.0;
  // The classic stepper pads its rows only where ADI_ROW_ALIGN asks.
  const std::size_t elem = precision == Precision::F32 ? 4 : 8;
  const double pad = options.row_align > 0 && constant_tables && ranks == 1
                         ? static_cast<double>(options.device_row_pitch(p.n[0], elem)) / static_cast<double>(p.n[0])
                         : 1.0;
  f.host_bytes = f.stepper_arrays * f.stepper_field * pad;
  return f;
}

}  // namespace adi::cpu
