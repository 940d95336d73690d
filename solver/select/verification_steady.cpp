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
/// A wall of layers K 1 | 1000 | 1 along x between Dirichlet 1 and 0 (5 x 4
/// nodes across, insulated), interfaces at a1 and a2, and its exact steady
/// state u = 1 - R(x) / R(L), R(x) the integral of 1 / K from 0 to x. x: the
/// nodes of a stretched axis, or empty: 31 uniform nodes on [0, 1], layers of
/// nodes 0..9, 10..19, 20..30 (the interfaces midway between 9|10, 19|20).
HeatProblem layered_wall(std::vector<double>& exact, std::vector<double> x = {}, double a1 = 9.5 / 30,
                         double a2 = 19.5 / 30) {
  HeatProblem p;
  const bool uniform = x.empty();
  if (uniform)
    for (int i = 0; i <= 30; ++i) x.push_back(static_cast<double>(i) / 30.0);
  const index_t nx = static_cast<index_t>(x.size());
  p.n = {nx, 5, 4};
  p.length = {x.back() - x.front(), 0.3, 0.2};
  if (!uniform) p.coordinates[0] = x;
  p.lo = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  p.lo_data[0].value_from_initial = false;
  p.lo_data[0].value = 1.0;
  p.hi_data[0].value_from_initial = false;
  p.hi_data[0].value = 0.0;
  auto Kat = [&](double v) { return v < a1 ? 1.0 : v < a2 ? 1000.0 : 1.0; };
  std::vector<double> kv(static_cast<std::size_t>(p.points()));
  for (index_t q = 0; q < p.points(); ++q) kv[static_cast<std::size_t>(q)] = Kat(x[static_cast<std::size_t>(q % nx)]);
  auto K = field(p, "K layers", kv);
  p.material.conductivity = {K, K, K};
  auto R = [&](double v) {
    return std::min(v, a1) + std::max(0.0, std::min(v, a2) - a1) / 1000.0 + std::max(0.0, v - a2);
  };
  exact.assign(static_cast<std::size_t>(p.points()), 0.0);
  for (index_t q = 0; q < p.points(); ++q)
    exact[static_cast<std::size_t>(q)] = 1.0 - R(x[static_cast<std::size_t>(q % nx)]) / R(x.back());
  return p;
}

/// layered_wall's p run to its steady state: max |u - exact| (1e-10).
Check layered_check(HeatProblem p, const std::vector<double>& exact, const StepperSpec& spec, const std::string& name) {
  p.theta = 1.0;  // Douglas-Rachford: strongly damping, straight to the steady state
  p.dt = 50.0;
  std::vector<double> u0(static_cast<std::size_t>(p.points()), 0.0);
  const std::vector<double> u = steady(p, spec, u0, 20, 200);
  Check c;
  c.name = name + grid_name(p);
  c.quantity = "max abs err vs exact piecewise-linear profile";
  c.hi = 1e-10;
  if (root()) c.value = max_abs_diff(u, exact);
  return finish(c);
}
}  // namespace

Check layered_steady(const StepperSpec& spec) {
  std::vector<double> exact;
  const HeatProblem p = layered_wall(exact);
  return layered_check(p, exact, spec, "layered medium, K 1 | 1000 | 1, steady state ");
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


Check stretched_layers(const StepperSpec& spec) {
  // Gaps 0.05 in the outer layers, 0.0005 in the middle one; the gap that
  // crosses each interface has it at its midpoint and is as long as the
  // gaps on one side, so the spacing jumps 100x at the next node.
  std::vector<double> x;
  for (int i = 0; i <= 8; ++i) x.push_back(0.05 * i);             // 0 .. 0.40
  for (int k = 0; k <= 20; ++k) x.push_back(0.45 + 0.0005 * k);   // 0.45 .. 0.46
  for (int k = 0; k <= 11; ++k) x.push_back(0.4605 + 0.05 * k);   // 0.4605 .. 1.0105
  std::vector<double> exact;
  const HeatProblem p = layered_wall(exact, x, 0.425, 0.46025);
  return layered_check(p, exact, spec, "stretched grid, gaps jumping 100x at layers K 1 | 1000 | 1, steady state ");
}

Check stretched_equal_gaps(const StepperSpec& spec) {
  // Gaps of 1/8 (exact in binary) on every axis, the periodic z included;
  // K, c and q fields, convective, Dirichlet and flux faces.
  HeatProblem p;
  p.n = {17, 9, 12};
  p.length = {2.0, 1.0, 1.5};
  p.lo = {Boundary::Robin, Boundary::Neumann, Boundary::Periodic};
  p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Periodic};
  p.lo_data[0].h = 2.0;
  p.lo_data[0].ambient = 0.5;
  p.lo_data[1].flux = 0.8;
  p.dt = 0.02;
  auto K = field(p, "K", sample(p, [](double x, double y, double z) { return 1.0 + 0.5 * std::sin(x + 2 * y) * std::cos(z); }));
  p.material.conductivity = {K, K, K};
  p.material.capacity = field(p, "c", sample(p, [](double x, double y, double) { return 1.5 + 0.5 * std::cos(x * y); }));
  p.material.source = field(p, "q", sample(p, [](double x, double, double z) { return std::sin(3 * x) * std::cos(z); }));
  const std::vector<double> u0 = sample(p, [](double x, double y, double z) { return std::cos(x) + y * z; });
  HeatProblem s = p;
  for (int a = 0; a < 3; ++a) {
    const index_t cells = s.periodic(a) ? s.n[a] : s.n[a] - 1;
    for (index_t i = 0; i <= cells; ++i) s.coordinates[a].push_back(0.125 * static_cast<double>(i));
  }
  const index_t steps = 6;
  const std::vector<double> uu = run<double>(p, spec, u0, steps), us = run<double>(s, spec, u0, steps);
  Check c;
  c.name = "stretched rows with equal gaps (1/8) = the uniform rows " + grid_name(p);
  c.quantity = "max |stretched - uniform| after 6 steps";
  c.hi = 0.0;
  if (root()) c.value = max_abs_diff(us, uu);
  return finish(c);
}

}  // namespace adi::verify
