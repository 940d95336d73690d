// Checks of verification.hpp against steady states: a layered wall's
// exact piecewise-linear profile, a convective face's, and the steady
// solver's (solve: steady) profile and energy balance.

#include "verification_support.hpp"

#include <adi/analytic.hpp>
#include <adi/factory.hpp>
#include <adi/mpi.hpp>
#include <adi/split.hpp>
#include <adi/steady.hpp>
#include <adi/verification.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <limits>
#include <memory>
#include <sstream>

namespace adi::verify {

using namespace support;

namespace {
/// Runs p to steady state from u0 (max change per step below tol * max|u|
/// or max_steps), returning the field on rank 0.
std::vector<double> steady(const HeatProblem& p, const StepperSpec& spec, std::vector<double> u, index_t chunk,
                           index_t max_chunks) {
  auto st = make_stepper<double>(p, spec);
  st->scatter_field(root() ? u.data() : nullptr);
  st->impose_boundary_values();
  std::vector<double> prev(u.size());
  for (index_t c = 0; c < max_chunks; ++c) {
    st->advance(chunk);
    prev = u;
    st->gather_field(root() ? u.data() : nullptr);
    double change = root() ? max_abs_diff(u, prev) / std::max(max_abs(u), 1e-300) : 0.0;
    change = share(change);
    if (change < 1e-15) break;
  }
  return u;
}
}  // namespace

namespace {
/// A wall of layers K 1 | 1000 | 1 between Dirichlet 1 and 0 (31 x 5 x 4),
/// and its exact steady state.
HeatProblem layered_wall(std::vector<double>& exact) {
  HeatProblem p;
  const index_t nx = 31;
  p.n = {nx, 5, 4};
  p.length = {1.0, 0.3, 0.2};
  p.lo = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  p.lo_data[0].value_from_initial = false;
  p.lo_data[0].value = 1.0;
  p.hi_data[0].value_from_initial = false;
  p.hi_data[0].value = 0.0;
  // Layers of nodes 0..9 (K = 1), 10..19 (K = 1000), 20..30 (K = 1): the
  // interfaces lie midway between nodes 9|10 and 19|20.
  auto Kof = [&](index_t i) { return i < 10 ? 1.0 : i < 20 ? 1000.0 : 1.0; };
  std::vector<double> kv(static_cast<std::size_t>(p.points()));
  for (index_t q = 0; q < p.points(); ++q) kv[q] = Kof(q % nx);
  auto K = field(p, "K layers", kv);
  p.material.conductivity = {K, K, K};
  // Exact: piecewise linear, the same flux F through the series resistance.
  const double h = p.spacing(0);
  std::vector<double> R(nx, 0.0);  // resistance from node 0 to node i
  for (index_t i = 1; i < nx; ++i) R[i] = R[i - 1] + h / harmonic_mean(Kof(i - 1), Kof(i));
  exact.assign(static_cast<std::size_t>(p.points()), 0.0);
  for (index_t q = 0; q < p.points(); ++q) exact[q] = 1.0 - R[q % nx] / R[nx - 1];
  return p;
}
}  // namespace

Check layered_steady(const StepperSpec& spec) {
  std::vector<double> exact;
  HeatProblem p = layered_wall(exact);
  p.theta = 1.0;  // Douglas-Rachford: strongly damping, straight to the steady state
  p.dt = 50.0;
  std::vector<double> u0(static_cast<std::size_t>(p.points()), 0.0);
  const std::vector<double> u = steady(p, spec, u0, 20, 200);
  Check c;
  c.name = "layered medium, K 1 | 1000 | 1, steady state " + grid_name(p);
  c.quantity = "max abs err vs exact piecewise-linear profile";
  c.hi = 1e-10;
  if (root()) c.value = max_abs_diff(u, exact);
  return finish(c);
}

Check robin_steady(const StepperSpec& spec) {
  HeatProblem p;
  p.n = {41, 4, 3};
  p.length = {0.5, 0.1, 0.1};
  p.alpha = {2.0, 2.0, 2.0};
  p.capacity = 3.0e3;
  p.lo = {Boundary::Robin, Boundary::Periodic, Boundary::Neumann};
  p.hi = {Boundary::Dirichlet, Boundary::Periodic, Boundary::Neumann};
  const double hc = 25.0, uinf = 20.0, uR = 80.0, L = p.length[0], K = p.alpha[0];
  p.lo_data[0].h = hc;
  p.lo_data[0].ambient = uinf;
  p.hi_data[0].value_from_initial = false;
  p.hi_data[0].value = uR;
  p.theta = 1.0;
  p.dt = 1e6;
  // Steady: u linear, K u'(0) = h (u(0) - u_inf), u(L) = uR.
  // u(x) = u0 + s x, K s = h (u0 - uinf), u0 + s L = uR.
  const double s = hc * (uR - uinf) / (K + hc * L), u0v = uR - s * L;
  std::vector<double> exact = sample(p, [&](double x, double, double) { return u0v + s * x; });
  std::vector<double> init(static_cast<std::size_t>(p.points()), uinf);
  const std::vector<double> u = steady(p, spec, init, 10, 200);
  Check c;
  c.name = "convective (Robin) slab, steady state " + grid_name(p);
  c.quantity = "max rel err vs 1D analytic profile";
  c.hi = 1e-10;
  if (root()) c.value = max_abs_diff(u, exact) / max_abs(exact);
  return finish(c);
}

namespace {
/// solve_steady (steady.hpp) from the whole field u on rank 0: each rank's
/// box through a stepper of the spec; the result back on rank 0.
SteadyResult steady_solve(const HeatProblem& p, const StepperSpec& spec, std::vector<double>& u, double tol) {
  auto st = make_stepper<double>(p, spec);
  st->scatter_field(root() ? u.data() : nullptr);
  index_t pts = p.points();
  if (spec.distributed) {
    const auto& box = dynamic_cast<const mpi::DistributedStepper<double>&>(*st).part().box;
    pts = box.size[0] * box.size[1] * box.size[2];
  }
  std::vector<double> box(static_cast<std::size_t>(pts));
  st->get_field(box.data());
  SteadyOptions o;
  o.tolerance = tol;
  const SteadyResult r = solve_steady<double>(p, spec, box, o);
  st->set_field(box.data());
  st->gather_field(root() ? u.data() : nullptr);
  return r;
}
}  // namespace

Check steady_solve_layered(const StepperSpec& spec) {
  // layered_steady's wall, by the steady solver.
  std::vector<double> exact;
  const HeatProblem p = layered_wall(exact);
  std::vector<double> u(exact.size(), 0.0);
  const SteadyResult r = steady_solve(p, spec, u, 1e-12);
  Check c;
  c.name = "steady solve (solve: steady), layered K 1 | 1000 | 1 " + grid_name(p);
  c.quantity = "max abs err vs exact piecewise-linear profile";
  c.hi = 1e-10;
  if (root()) c.value = max_abs_diff(u, exact);
  c.detail = std::to_string(r.iterations) + " sweeps";
  return finish(c);
}

Check steady_solve_balance(const StepperSpec& spec) {
  // A chip-like case: a 100x inclusion that holds the source, convective
  // faces below and above, insulated sides: at the steady state the source
  // leaves through the faces; the net imbalance sum w (L u + s) is the
  // solve's residual, relative to the source power.
  HeatProblem p;
  p.n = {21, 17, 13};
  p.length = {0.02, 0.016, 0.004};
  p.lo = {Boundary::Neumann, Boundary::Neumann, Boundary::Robin};
  p.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Robin};
  p.lo_data[2].h = 5000.0;
  p.lo_data[2].ambient = 25.0;
  p.hi_data[2].h = 10.0;
  p.hi_data[2].ambient = 25.0;
  std::vector<double> kv(static_cast<std::size_t>(p.points()), 4.0), qv(kv.size(), 0.0);
  double power = 0.0;
  const EnergyWeights w = energy_weights(p);
  for (index_t k = 0; k < p.n[2]; ++k)
    for (index_t j = 0; j < p.n[1]; ++j)
      for (index_t i = 0; i < p.n[0]; ++i) {
        const std::size_t q = static_cast<std::size_t>(i + p.n[0] * (j + p.n[1] * k));
        if (i >= 6 && i <= 14 && j >= 5 && j <= 11 && k >= 8) {
          kv[q] = 400.0;
          qv[q] = 1.0e8;
          power += w.volume(i, j, k) * qv[q];
        }
      }
  auto K = field(p, "K inclusion", kv);
  p.material.conductivity = {K, K, K};
  p.material.source = field(p, "q", qv);
  std::vector<double> u(kv.size(), 25.0);
  const SteadyResult r = steady_solve(p, spec, u, 1e-10);
  Check c;
  c.name = "steady solve, 100x inclusion with its source, convective faces " + grid_name(p);
  c.quantity = "|net imbalance| / source power";
  c.hi = 1e-9;
  c.value = r.converged ? std::abs(r.imbalance_W) / power : 1.0;
  c.detail = std::to_string(r.iterations) + " sweeps, source " + std::to_string(power) + " W";
  return finish(c);
}


}  // namespace adi::verify
