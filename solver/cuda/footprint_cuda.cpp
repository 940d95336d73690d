// The CUDA backend's arrays, before they are allocated (adi/footprint.hpp):
// what the whole-grid stepper, a GPU rank's box and the line kernels hold.

#include <adi/detail/entry_points.hpp>
#include <adi/footprint.hpp>
#include <adi/line_kernel_plan.hpp>
#include <adi/step_plan.hpp>

#include <algorithm>

namespace adi::cuda {

StepperFootprint footprint(const HeatProblem& p, Precision precision, int ranks, const SolverOptions& options) {
  StepperFootprint f = footprint_base(p, precision, ranks);
  const bool constant_tables = plan_step(p).constant_tables();
  const Material& mat = p.material;
  const double points = static_cast<double>(p.n[0]) * static_cast<double>(p.n[1]) * static_cast<double>(p.n[2]);
  const std::size_t elem = precision == Precision::F32 ? 4 : 8;
  if (!constant_tables && ranks == 1) {
    // The general path (general/general_stepper.cu): open x lines of 2 to
    // 1024 rows are solved in place; others (periodic, which may, or
    // longer) on the x-y transposed grid: one more work grid, and the x
    // conductivity and 1/c fields once more, transposed. Lines longer than
    // 1024 rows are solved one per thread, with a scratch grid (two with a
    // periodic axis). The fields pass through the host once, in double and
    // in the run's precision.
    const index_t nx = p.n[0];
    const bool x_in_place = !p.periodic(0) && nx >= 2 && nx <= 1024;
    if (!x_in_place) f.stepper_arrays += 1.0 + (mat.conductivity[0] ? 1.0 : 0.0) + (mat.capacity ? 1.0 : 0.0);
    bool long_lines = false;
    for (int a = 0; a < 3; ++a) long_lines = long_lines || p.n[a] > 1024;
    if (long_lines) f.stepper_arrays += 2.0;
    f.host_bytes += f.material_fields * (points * 8.0 + f.field_bytes);
  }
  if (!constant_tables && ranks > 1) {
    // A GPU rank of the general path (general/general_local_cuda.cu): along
    // its split axis three scratch grids (the interior's alpha, beta and the
    // sweep's c'), and per line of it 8 + 22 P values (its reduced rows,
    // their all-gather over P ranks and the reduced system's scratch of 2P
    // unknowns), i.e. (8 + 22 P) P / n fields for lines of n nodes cut P
    // ways: P = ranks and the shorter of y and z bound it. Each field passes
    // through the host once, as the box in double and in the run's precision.
    const double n_split = static_cast<double>(std::max<index_t>(1, std::min(p.n[1], p.n[2])));
    f.stepper_arrays += 3.0 + (8.0 + 22.0 * ranks) * ranks / n_split;
    f.host_bytes += f.material_fields * f.stepper_field * (1.0 + 8.0 / (precision == Precision::F32 ? 4.0 : 8.0));
  }
  // The classic line kernels (constant K and c, whatever the faces): lines
  // no block holds take the long-line kernel (LineKernelFamily::Long), whose
  // solver keeps its reduced rows, 2 per segment of kLongI rows, i.e.
  // 2 ceil(n / kLongI) / n of a field for that axis, and its nested reduced
  // solve (the same rule again) a little more. Counted for every problem:
  // an upper bound.
  for (int a = 0; a < 3; ++a) {
    const index_t n = p.n[a];
    const LineKernelPlan lp = plan_line_kernel(n, static_cast<Axis>(a), a == 0, elem);
    if (lp.family == LineKernelFamily::Long) f.stepper_arrays += 1.1 * 2.0 * lp.S / static_cast<double>(n);
  }
  // Device rows are padded (128 bytes by default): x lines of 3 fp32 nodes
  // take 32 elements a row.
  const auto row_padding = [&](const SolverOptions& so) {
    return static_cast<double>(so.device_row_pitch(p.n[0], elem)) / static_cast<double>(p.n[0]);
  };
  f.device_bytes = f.stepper_arrays * f.stepper_field * row_padding(options);
  SolverOptions rows16 = options;
  rows16.row_align = 16;
  f.device_bytes_rows16 = f.stepper_arrays * f.stepper_field * row_padding(rows16);
  return f;
}

}  // namespace adi::cuda
