#pragma once
// What a run solves: the heat equation
//
//     c(x) du/dt = div(K(x) grad u) + q(x) f(t)
//
// on a box of nx * ny * nz nodes, with a boundary condition on each face.
// Plain data, no I/O: fields (K, c, q) come through FieldSource, which io/
// implements for HDF5 files (hyperslab reads, so that an MPI rank reads only
// its own box) and which tests and the Python module implement in memory.
//
// Units (SI): K conductivity W/(m K), c volumetric heat capacity J/(m^3 K),
// q heat source W/m^3, u temperature K (or any unit: the equation is linear),
// h heat transfer coefficient W/(m^2 K), fluxes W/m^2. With c = 1 (the
// default) K is the diffusivity alpha [m^2/s] of u_t = div(alpha grad u),
// which is what a config that gives only `diffusivity:` means.
//
// Grid. A non-periodic axis of n >= 3 nodes has its two boundary nodes on
// the faces: x_i = x0 + i h, h = L / (n - 1). A periodic axis has n >= 3
// distinct nodes and no duplicated node: x_i = x0 + i h, h = L / n, node n
// is node 0. An axis with n = 1 carries no derivative at all (a 2D or 1D
// problem): nothing is computed or solved along it, and it has no faces.
//
// A stretched axis (HeatProblem::coordinates) has its nodes where the
// coordinates put them: finite volumes on the node grid, node i owning
// [x_{i-1/2}, x_{i+1/2}] between the midpoints (discrete.hpp).

#include <adi/common.hpp>
#include <adi/error.hpp>
#include <adi/grid.hpp>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace adi {

/// Kind of a face. Dirichlet: a fixed value (the node's own value from the
/// initial field, or a constant), times an optional time table. Neumann: a
/// prescribed heat flux into the domain (0: insulated, the old "neumann").
/// Robin: convective exchange, -K du/dn = h (u - u_inf). Periodic: both faces
/// of the axis together.
enum class Boundary : int { Dirichlet = 0, Neumann = 1, Robin = 2, Periodic = 3 };
constexpr const char* boundary_name(Boundary b) {
  return b == Boundary::Dirichlet ? "dirichlet"
         : b == Boundary::Neumann ? "neumann"
         : b == Boundary::Robin   ? "robin"
                                  : "periodic";
}

/// The time scheme (docs/SCHEMES.md). Douglas: the delta-form ADI step
/// (scheme.hpp), unconditionally stable when the axis operators commute
/// (constant K per axis and constant c, every face kind) and in 1D and 2D;
/// with material fields in 3D it is not. Strang: Strang-split
/// one-dimensional Crank-Nicolson (theta) factors (split.hpp), a contraction
/// in the c- and volume-weighted norm for every material. Auto: Strang when
/// K or c is a field and all three axes are live, Douglas otherwise.
enum class SchemeType : int { Auto = 0, Douglas = 1, Strang = 2 };
constexpr const char* scheme_name(SchemeType s) {
  return s == SchemeType::Douglas ? "douglas" : s == SchemeType::Strang ? "strang" : "auto";
}

/// How the nonlinear step (temperature tables, radiating faces;
/// temperature_stepper.hpp) treats its coefficients. Iterate: linear steps
/// from u^n with the coefficients of the last iterate until two iterates
/// agree to round-off (the enthalpy balance closes to round-off).
/// PredictorCorrector: two linear steps, the first with the coefficients at
/// u^n, the second with those of the step from u^n to the first's result.
/// Extrapolated: one linear step with the coefficients of the step from u^n
/// to 2 u^n - u^(n-1) (K at the extrapolated midpoint (3 u^n - u^(n-1)) / 2);
/// the first step, and a step whose extrapolation leaves a table, is a
/// predictor-corrector step; it keeps u^(n-1) (Stepper::
/// exchange_previous_field; checkpoints). Both second order, their last
/// linear step's result mapped through the enthalpy
/// (TemperatureState::conserve_enthalpy): the balance to round-off too.
enum class NonlinearStep : int { Iterate = 0, PredictorCorrector = 1, Extrapolated = 2 };
constexpr const char* nonlinear_step_name(NonlinearStep s) {
  return s == NonlinearStep::PredictorCorrector ? "predictor-corrector"
         : s == NonlinearStep::Extrapolated     ? "extrapolated"
                                                : "iterate";
}

/// A piecewise-linear factor f(t) through (t[i], v[i]), t strictly
/// increasing; constant before the first and after the last point. Empty:
/// f = 1.
struct TimeTable {
  std::vector<double> t, v;
  bool empty() const { return t.empty(); }
  double at(double time) const;
  /// Throws InvalidArgument naming `what` unless the times are finite and
  /// strictly increasing and the values finite.
  void validate(const std::string& what) const;
};

/// The data of one face (units above). Which members count depends on the
/// face's Boundary kind; the others stay 0.
struct FaceData {
  /// Dirichlet: true = the initial field's values on the face (the old
  /// behaviour), false = `value`. Either way times `table`.
  bool value_from_initial = true;
  double value = 0.0;
  double flux = 0.0;     ///< Neumann: heat flux into the domain [W/m^2], times `table`
  double h = 0.0;        ///< Robin: heat transfer coefficient [W/(m^2 K)]
  double ambient = 0.0;  ///< Robin: u_inf, times `table`
  TimeTable table;       ///< f(t) of the value / flux / ambient (empty: 1)
  /// Radiation beside a mirror face's own condition (adi/radiation.hpp):
  /// -eps sigma (u^4 - T_inf^4) [W/m^2] into the domain; emissivity 0: none.
  double emissivity = 0.0;
  double radiation_ambient = 0.0;  ///< T_inf [K], no table
};

/// A scalar field on the grid that is read by boxes: the whole grid for one
/// process, one rank's box (plus ghost planes) for a distributed run.
class FieldSource {
 public:
  virtual ~FieldSource() = default;
  /// For messages and provenance, e.g. "wall.h5:/K".
  virtual std::string name() const = 0;
  /// Nodes [lo, lo + size) of the whole grid, packed x fastest, into out.
  /// Throws (an io error, or InvalidArgument) on a bad value, naming the
  /// field and the node.
  virtual void read(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size, double* out) const = 0;
  /// The nodes whose global indices are idx[0] x idx[1] x idx[2] (each list
  /// ascending, without repeats), packed x fastest in the lists' order, into
  /// out: one rank's box with its ghost layers, wrapped pieces included
  /// (load_box_field). collective: every process of the run makes this call
  /// for this field, in the same order (a distributed stepper's
  /// construction), so the source may read collectively (parallel HDF5);
  /// it must then not throw before its collective calls on some processes
  /// only. The default reads each block of consecutive indices with read().
  virtual void read_indices(const std::array<std::vector<index_t>, 3>& idx, double* out, bool collective) const;
  /// A short fingerprint of the content for provenance ("" if unknown).
  virtual std::string checksum() const { return ""; }
};

/// A FieldSource over a packed x-fastest array in memory (tests, Python).
class ArrayField final : public FieldSource {
 public:
  ArrayField(std::string name, const std::array<index_t, 3>& n, std::vector<double> values);
  std::string name() const override { return name_; }
  void read(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size, double* out) const override;
  const std::vector<double>& values() const { return v_; }

 private:
  std::string name_;
  std::array<index_t, 3> n_;
  std::vector<double> v_;
};

class TemperatureState;  // adi/temperature.hpp
class RadiationState;    // adi/radiation.hpp

/// K, c and q: each a constant or a field.
struct Material {
  /// Conductivity per axis when it is a field (nullptr: the constant
  /// HeatProblem::alpha[a]). An isotropic field is the same pointer three times.
  std::array<std::shared_ptr<const FieldSource>, 3> conductivity{};
  std::shared_ptr<const FieldSource> capacity;  ///< nullptr: HeatProblem::capacity
  std::shared_ptr<const FieldSource> source;    ///< nullptr: HeatProblem::source
  /// Set: K and c depend on temperature, and conductivity / capacity are
  /// this state's fields (adi/temperature.hpp), which the nonlinear step
  /// re-evaluates before each solve (make_stepper wraps the backend's stepper).
  std::shared_ptr<TemperatureState> temperature;
  bool conductivity_varies() const { return conductivity[0] || conductivity[1] || conductivity[2]; }
  bool capacity_varies() const { return capacity != nullptr; }
  /// The line matrices differ from line to line (K or c is a field).
  bool lines_vary() const { return conductivity_varies() || capacity_varies(); }
};

/// The volume of node i along an axis of n nodes with spacing h: h, or h / 2
/// at either end of a non-periodic axis of n >= 3 nodes (flat: h = the box
/// length, one node).
ADI_HD inline double node_volume(index_t i, index_t n, double h, bool periodic) {
  return (n >= 3 && !periodic && (i == 0 || i == n - 1)) ? 0.5 * h : h;
}

/// The control-volume length of node i of a stretched axis of n nodes with
/// coordinates x (n + 1 on a periodic axis): half of each neighbouring gap, one
/// half gap at a non-periodic end.
ADI_HD inline double node_cell(index_t i, index_t n, const double* x, bool periodic) {
  if (periodic) return 0.5 * ((i == 0 ? x[n] - x[n - 1] : x[i] - x[i - 1]) + (x[i + 1] - x[i]));
  if (i == 0) return 0.5 * (x[1] - x[0]);
  if (i == n - 1) return 0.5 * (x[n - 1] - x[n - 2]);
  return 0.5 * ((x[i] - x[i - 1]) + (x[i + 1] - x[i]));
}

struct HeatProblem {
  std::array<index_t, 3> n{{3, 3, 3}};            ///< nodes per axis (>= 3, or 1: no derivative along it)
  std::array<double, 3> length{{1.0, 1.0, 1.0}};  ///< box edge lengths [m] (a periodic axis: its period)
  /// A stretched axis: its node positions [m], strictly increasing, with
  /// coordinates[a].back() - coordinates[a].front() = length[a]; n values,
  /// or n + 1 on a periodic axis (the last one node 0's periodic image, which
  /// gives the wrap's gap). Only differences enter the scheme. Empty: a
  /// uniform axis.
  std::array<std::vector<double>, 3> coordinates{};
  /// Constant conductivity K per axis [W/(m K)] (with capacity 1: the
  /// diffusivity [m^2/s]); ignored on an axis whose conductivity is a field.
  std::array<double, 3> alpha{{1.0, 1.0, 1.0}};
  double capacity = 1.0;  ///< constant volumetric heat capacity c [J/(m^3 K)]
  double source = 0.0;    ///< constant heat source q [W/m^3] (unless material.source)
  TimeTable source_table; ///< f(t) of the source (empty: 1)
  Material material;
  std::array<Boundary, 3> lo{{Boundary::Dirichlet, Boundary::Dirichlet, Boundary::Dirichlet}};
  std::array<Boundary, 3> hi{{Boundary::Dirichlet, Boundary::Dirichlet, Boundary::Dirichlet}};
  std::array<FaceData, 3> lo_data{}, hi_data{};
  /// The initial field, where Dirichlet faces that keep their initial values
  /// (FaceData::value_from_initial) get them when those values move in time
  /// (a table): restarts read the faces from here again. nullptr otherwise.
  std::shared_ptr<const FieldSource> initial_field;
  /// Set when a face radiates (FaceData::emissivity > 0): make_stepper
  /// wraps the backend's stepper in the nonlinear step, whose source field
  /// is this state's (adi/radiation.hpp).
  std::shared_ptr<RadiationState> radiation;
  /// Some face radiates.
  bool radiates() const {
    for (int a = 0; a < 3; ++a)
      if (lo_data[a].emissivity > 0.0 || hi_data[a].emissivity > 0.0) return true;
    return false;
  }
  double theta = 0.5;  ///< implicit weight of the scheme, in [1/2, 1]
  double dt = 1e-3;    ///< time step [s]
  SchemeType scheme = SchemeType::Auto;
  NonlinearStep nonlinear = NonlinearStep::Iterate;  ///< the nonlinear step's treatment
  /// The scheme a stepper runs: `scheme`, with Auto resolved (auto_scheme).
  SchemeType scheme_in_use() const {
    return scheme != SchemeType::Auto ? scheme : auto_scheme(material.lines_vary(), n);
  }
  /// What Auto means: Strang where the Douglas step can be unstable, three
  /// live axes whose operators do not commute (K or c a field); Douglas
  /// (stable, and free of splitting's order reduction at faces) elsewhere.
  static SchemeType auto_scheme(bool lines_vary, const std::array<index_t, 3>& n) {
    const bool three_d = n[0] > 1 && n[1] > 1 && n[2] > 1;
    return lines_vary && three_d ? SchemeType::Strang : SchemeType::Douglas;
  }

  /// True for an axis with a single node: no stencil, no solve along it.
  bool flat(int axis) const { return n[axis] == 1; }
  bool periodic(int axis) const { return lo[axis] == Boundary::Periodic; }
  /// Node spacing: L / (n - 1), or L / n on a periodic axis, or L on a flat one.
  double spacing(int axis) const {
    if (n[axis] == 1) return length[axis];
    return length[axis] / static_cast<double>(periodic(axis) ? n[axis] : n[axis] - 1);
  }
  /// The axis has node coordinates of its own (not a uniform spacing).
  bool stretched(int axis) const { return !coordinates[axis].empty(); }
  bool any_stretched() const { return stretched(0) || stretched(1) || stretched(2); }
  /// Distance from node i to node i + 1 [m] (i = n - 1 on a periodic axis:
  /// to node 0's image); spacing() on a uniform axis.
  double gap(int axis, index_t i) const {
    if (!stretched(axis)) return spacing(axis);
    const std::vector<double>& x = coordinates[axis];
    return x[static_cast<std::size_t>(i) + 1] - x[static_cast<std::size_t>(i)];
  }
  /// The gap at the lo (side 0) or hi (side 1) end of a non-periodic axis:
  /// the h of its face terms (its half cell is half of it).
  double end_gap(int axis, int side) const { return side ? gap(axis, n[axis] - 2) : gap(axis, 0); }
  /// The smallest gap of the axis (spacing() on a uniform one).
  double min_gap(int axis) const;
  /// Position of node i relative to node 0 [m].
  double node_position(int axis, index_t i) const {
    return stretched(axis) ? coordinates[axis][static_cast<std::size_t>(i)] - coordinates[axis][0]
                           : spacing(axis) * static_cast<double>(i);
  }
  /// The length of node i's control volume along the axis [m]: half of each
  /// neighbouring gap, one half gap at a face node (node_cell; node_volume,
  /// the trapezoidal weight times h, on a uniform axis); the whole length on
  /// a flat axis.
  double cell(int axis, index_t i) const;
  /// lambda_a = K_a dt / (c h_a^2), the mesh ratio per axis (constant
  /// coefficients; on a stretched axis with its smallest gap).
  double mesh_ratio(int axis) const {
    const double h = min_gap(axis);
    return (alpha[axis] / capacity) * dt / (h * h);
  }
  Layout3 layout() const { return Layout3::packed(n[0], n[1], n[2]); }
  index_t points() const { return n[0] * n[1] * n[2]; }

  /// Constant coefficients, Dirichlet (from the initial field) / insulated
  /// faces, no source, no time tables: the problem class the analytic
  /// solution (analytic.hpp) describes, and with the Douglas scheme the one
  /// of step_plan.hpp's constant tables.
  bool classic_problem() const;
  /// Some face data depend on time (a table on a face with data).
  bool has_time_dependent_faces() const;
  /// Some Dirichlet face has a nonzero increment between steps.
  bool has_moving_dirichlet() const;
  /// The source term is present (a field, or a nonzero constant).
  bool has_source() const { return material.source != nullptr || source != 0.0; }

  /// Throws InvalidArgument naming the offending parameter.
  void validate() const;
};

/// Why the CUDA backend refuses a stretched grid (HeatProblem::coordinates)
/// unless SolverOptions::cuda_stretched: its rows are built, not yet
/// verified on a GPU. One message for the memory estimate and the factory.
inline std::string stretched_on_cuda() {
  return "backend 'cuda': a stretched grid (grid coordinates) runs on the CPU (and its CPU ranks under MPI); the CUDA "
         "rows for it are built but not yet verified on a GPU: set backend: cpu, or leave it auto (ADI_CUDA_STRETCHED=1 "
         "runs them on one GPU, for that verification)";
}

/// Why an MPI run's CUDA ranks refuse a stretched grid
/// (HeatProblem::coordinates): one message for the memory estimate and the
/// distributed stepper.
inline std::string stretched_on_cuda_ranks() {
  return "backend 'cuda' under MPI: a stretched grid (grid coordinates) runs on CPU ranks (the CUDA ranks' boxes have "
         "no rows for it yet; one process runs it on a GPU): set backend: cpu (or leave it auto)";
}

/// Checks a material field's values (packed, x fastest, extents n): finite,
/// and > 0 unless `signed_ok`; throws InvalidArgument naming `what`, the
/// field, the value and its node (and dataset index) otherwise.
void check_field_values(const std::vector<double>& v, const std::string& what, const std::string& name,
                        const std::array<index_t, 3>& n, bool signed_ok);
/// check_field_values' error for value x at global node (i, j, k).
[[noreturn]] void throw_bad_field_value(const std::string& what, const std::string& name, double x,
                                        const std::array<index_t, 3>& node, bool signed_ok);

/// Harmonic mean of two conductivities: the conductance of two half cells
/// in series, which makes the discrete flux continuous across a material
/// interface midway between nodes. Exactly a when a == b (a constant field
/// reproduces the constant input), 0 when either is 0.
template <class T>
ADI_HD ADI_FORCEINLINE T harmonic_mean(T a, T b) {
  if (a == b) return a;
  const T s = a + b;
  return s > T(0) ? T(2) * a * b / s : T(0);
}

}  // namespace adi
