#pragma once
// Checks of the general problem (materials, sources, every face type,
// periodic and flat axes) against oracles that do not share the scheme's
// code: exact discrete eigenvectors, manufactured solutions, exact steady
// states and exact balance laws. Each check builds its problem, runs it on
// the stepper a StepperSpec asks for (any backend, serial or distributed:
// collective then, every rank gets the same result) and reports one number
// against its tolerance. `adi3d validate` prints them; the test suite holds
// every backend to them.

#include <adi/factory.hpp>

#include <string>
#include <vector>

namespace adi::verify {

struct Check {
  std::string name;      ///< what was run, e.g. "periodic Fourier mode 37x29x23"
  Precision precision = Precision::F64;
  std::string quantity;  ///< what `value` is, e.g. "max rel err vs g^n U0"
  double value = 0.0;
  double lo = 0.0, hi = 0.0;  ///< accepted range (inclusive)
  bool ok = false;
  std::string detail;    ///< errors per level, etc.
};

/// A Fourier mode on periodic axes (and a sine/cosine on the others) with
/// constant coefficients is an eigenvector of the discrete operator: after
/// n steps U = g^n U0 (fp64 1e-12, fp32 1e-5 relative).
Check periodic_fourier(Precision prec, const StepperSpec& spec);

/// u = exp(-lambda t) phi(x) with K varying 10x along x (another profile per
/// axis), c varying, q derived analytically, mixed Dirichlet (moving, from
/// the initial field) and insulated faces, on odd non-cubic grids: observed
/// order of the max error between the two finest levels, 1.9 .. 2.1 (fp64).
/// `stretched`: every axis stretched by a smooth map, refined with the grid
/// (x geometric from its lo face, 1.1 per cell on the finest grid).
Check manufactured_materials(const StepperSpec& spec, bool stretched = false);

/// A 1D profile along x for each moving face type with time-dependent data
/// (Robin with a moving ambient at x_lo and a heat flux at x_hi; or moving
/// Dirichlet values on both), periodic y and z, a q field: observed order
/// 1.9 .. 2.1 (fp64). kind: Boundary::Robin (Robin lo + flux hi) or
/// Boundary::Dirichlet.
/// `scheme`: the problem's (Auto: Douglas here, constant coefficients).
/// `stretched`: x geometric from its hi face, y and z periodic waves.
Check manufactured_faces(Boundary kind, const StepperSpec& spec, SchemeType scheme = SchemeType::Auto,
                         bool stretched = false);

/// A slab of three layers (K 1 | 1000 | 1) on a grid whose gaps jump 100x
/// across each interface (the interfaces at the midpoints of the gaps that
/// cross them), fixed faces, run to steady state: the exact piecewise-linear
/// profile at the nodes to 1e-10.
Check stretched_layers(const StepperSpec& spec);

/// A stretched axis whose gaps are all equal (a power of two) against the
/// uniform axis: the stretched rows are the uniform ones operation for
/// operation, so the fields agree bit for bit (max |difference| = 0).
Check stretched_equal_gaps(const StepperSpec& spec);

/// Three layers along x with K jumping 1000x between them (interfaces midway
/// between nodes), fixed values on the x faces, run to steady state: the
/// discrete solution equals the piecewise-linear exact one (flux continuous)
/// to 1e-10.
Check layered_steady(const StepperSpec& spec);

/// A slab with a convective (Robin) face at x_lo and a fixed value at x_hi:
/// the steady state equals the 1D analytic profile to 1e-10.
Check robin_steady(const StepperSpec& spec);
/// The steady solver (steady.hpp): the layered wall to its exact profile,
/// and a chip-like inclusion whose heat balance closes to the tolerance.
Check steady_solve_layered(const StepperSpec& spec);
Check steady_solve_balance(const StepperSpec& spec);

/// All faces insulated (and one periodic axis), c and q fields: the energy
/// sum_i w_i c_i u_i (trapezoidal weights) grows per step by exactly
/// dt sum_i w_i q_i f(t*) (relative 1e-12 fp64 of the total change, 1e-5 fp32).
Check conservation(Precision prec, const StepperSpec& spec, bool stretched = false);

/// Flux and Robin faces, no source: per step the energy changes by exactly
/// dt times the boundary heat flow the scheme defines (the explicit flow at
/// t* plus the implicit Robin part theta dt h_c of each stage's increment at
/// its face); Douglas: needs Stepper::get_work (the stages); Strang: the
/// field after each factor (run_phase); fp64 1e-12.
Check energy_balance(const StepperSpec& spec, bool stretched = false);

/// nz = 1 against nz = 5 with insulated z faces and a z-independent field:
/// equal to round-off (fp64 1e-12, fp32 1e-5).
Check flat_axis(Precision prec, const StepperSpec& spec);

/// A constant K field / c field gives the constant input's result (round-off),
/// with either scheme.
Check constant_field(Precision prec, const StepperSpec& spec);

/// The issue-51 inclusion (K 1000x, c 70x, insulated, random start, dt = 1,
/// 100 steps) on the default scheme: the energy never grows (1e-12 relative
/// per step, fp64).
Check inclusion_stability(const StepperSpec& spec);

/// A uniform insulated box with a tabled source: u^N equals u^0 + dt sum q
/// f(t^n + theta dt) / c (1e-12), for both schemes: the data's time.
Check source_table_time(double theta, const StepperSpec& spec);

/// Temperature-dependent materials (adi/temperature.hpp), single process:
/// K = k0 (1 + beta T) between fixed faces marched to steady state against
/// the Kirchhoff transform's exact profile, observed order 1.9 .. 2.1 in
/// space; a 3D transient with K(T) and c(T), observed order 1.9 .. 2.1 in
/// time against dt / 32; and with insulated faces and a source, two
/// materials and c(T) tables with kinks, the enthalpy sum w H(u) grows per
/// step by dt sum w q to 1e-10.
Check kirchhoff_slab(const StepperSpec& spec);
/// The same slab by solve_steady (Picard iterations of linear solves).
Check kirchhoff_steady_solve(const StepperSpec& spec);
Check temperature_time_order(const StepperSpec& spec, NonlinearStep how = NonlinearStep::Iterate);
Check enthalpy_balance(const StepperSpec& spec, NonlinearStep how = NonlinearStep::Iterate);

/// Radiating faces (adi/radiation.hpp), single process: a plate between a
/// fixed face and a radiating one by solve_steady, its profile against the
/// root of its scalar energy balance to 1e-10; a lumped body cooling by
/// radiation, observed order 1.9 .. 2.1 in time against the exact T(t);
/// and per step the energy change equal to dt times the source and the
/// faces' theta-weighted exchange (computed from the step's ends) to 1e-10.
Check radiating_plate(const StepperSpec& spec);
Check radiating_lumped_body(const StepperSpec& spec);
Check radiation_energy_balance(const StepperSpec& spec);

/// All of the above (both precisions where a check has them; the
/// temperature checks where the spec is not distributed).
std::vector<Check> all_checks(const StepperSpec& spec);

}  // namespace adi::verify
