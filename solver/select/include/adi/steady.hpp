#pragma once
// Steady states: L u + s = 0 (the discrete operator of discrete.hpp, every
// face kind and material; Dirichlet nodes hold their data), on any backend,
// serial or distributed.
//
// Method. The line inverses of a Douglas step with theta = 1 and a time
// step tau, P^-1 = (I - tau A_z)^-1 (I - tau A_y)^-1 (I - tau A_x)^-1 (a
// Douglas step in delta form is u + P^-1 tau C^-1 (L u + s): iterating it is
// ADI iteration, whose fixed point is the steady state), precondition
// flexible GMRES on L x = -(L u0 + s), x = P^-1 y, u = u0 + x (u0 the start
// with its Dirichlet data): right preconditioning, so what GMRES minimises
// is the true residual. With material fields in 3D the plain ADI iteration
// has no convergence guarantee (the axis operators do not commute:
// docs/SCHEMES.md); P is invertible for every tau > 0 and every material, so
// the Krylov method converges where the iteration would not. The steady
// state does not depend on c: the sweeps use a constant one (K alone).
//
// tau: a cycle of `parameters` values (by default a ratio of about 4 between
// neighbours, at most kSteadyMaxParameters), geometric between 1 / lambda_max and
// 1 / lambda_min of the axis operators (Gershgorin above, the box's lowest
// quarter wave and the smallest K below), taken in turn from one iteration
// to the next (ADI's parameter cycle; FGMRES allows a preconditioner that
// changes): one stepper per value, whatever backend builds it running the
// sweeps and the residual (its right-hand side phase, the scheme's own
// rows). The Krylov vectors live on the host, this rank's box each, dot
// products reduced over the ranks.
//
// Converged: the relative residual ||L u + s|| / ||L u0' + s|| <= tolerance,
// u0' the start's Dirichlet data with 0 elsewhere (the residual of the data
// alone), both in the volume-weighted L2 norm, computed from the stepper's
// own right-hand side (the scheme's rows).

#include <adi/factory.hpp>
#include <adi/stepper.hpp>

#include <adi/footprint.hpp>

#include <functional>
#include <string>
#include <vector>

namespace adi {

/// The most sweep parameters (and steppers) a steady solve builds.
constexpr int kSteadyMaxParameters = 12;

struct SteadyOptions {
  double tolerance = 1e-10;       ///< relative residual to reach
  index_t max_iterations = 2000;  ///< GMRES iterations (each one set of sweeps and one residual)
  int restart = 50;               ///< Krylov vectors per restart cycle (each twice: FGMRES keeps V and Z)
  int parameters = 0;             ///< sweep parameters tau taken in turn (one stepper each; 0: from the spectral range)
};

struct SteadyResult {
  bool converged = false;
  index_t iterations = 0;       ///< sweeps (GMRES iterations)
  double residual = 0.0;        ///< the final relative residual
  double imbalance_W = 0.0;     ///< sum of vol (L u + s) [W]: the net heat the steady field does not balance
  std::vector<double> history;  ///< the relative residual at the start, every restart and the end (true residual)
  std::vector<index_t> history_iterations;  ///< the sweeps done at each entry of history
  std::vector<double> estimates;  ///< GMRES's residual estimate of every iteration (relative)
  std::vector<double> taus;     ///< the parameter of each cycle
  /// Temperature-dependent properties: the linear solves (Picard iterations,
  /// K at the last iterate) and the last one's change of the field relative
  /// to its largest value (converged: also <= the tolerance).
  int outer_iterations = 1;
  double outer_change = 0.0;
};

/// The most Picard iterations of a steady solve with temperature-dependent properties.
constexpr int kSteadyMaxOuter = 100;

/// Adds to f (a stepper's footprint on backend b, adi/footprint.hpp) what a
/// steady solve of p allocates beside it: one stepper of the same kind for
/// each sweep parameter (kSteadyMaxParameters counted), and on the host
/// this rank's share of the Krylov vectors in double (V and Z of a restart
/// cycle, 8 work vectors).
void add_steady_footprint(StepperFootprint& f, Backend b, const HeatProblem& p, int ranks);

/// "" if p has a steady state, else why not (one line): every face insulated,
/// flux or periodic (no face fixes the level), or time tables (a steady
/// state has no time).
std::string steady_state_refusal(const HeatProblem& p);

/// The steady state of p from `u` (this rank's box of the start field,
/// packed, x fastest; a distributed `spec` builds one box per rank, all ranks
/// call this together), in place. `progress(iteration, relative residual)`
/// is called after every restart cycle (may be empty). With
/// temperature-dependent properties (p.material.temperature, one process):
/// Picard iterations of linear solves, K at the last iterate, until the
/// field changes by at most the tolerance (SteadyResult::outer_iterations).
template <class T>
SteadyResult solve_steady(const HeatProblem& p, const StepperSpec& spec, std::vector<T>& u, const SteadyOptions& o,
                          const std::function<void(index_t, double)>& progress = {});

}  // namespace adi
