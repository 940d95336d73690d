// Checks of radiating faces (verification.hpp, adi/radiation.hpp): a plate
// at its steady state against the root of its energy balance, a lumped body
// cooling by radiation against the exact T(t), and the energy balance of
// each step with the radiation evaluated independently from the step's ends.

#include "verification_support.hpp"

#include <adi/radiation.hpp>
#include <adi/steady.hpp>

namespace adi::verify {

using namespace support;

namespace {

/// Makes p's radiation state from its faces (what io::attach_fields does).
void attach_radiation(HeatProblem& p) { p.radiation = std::make_shared<RadiationState>(p); }

/// The plate: x_lo held at kT1, x_hi radiating (kEps, kAmb), K = kK over
/// kL; the other faces insulated. Its steady profile is linear, and the
/// face temperature T_L the root of K (T1 - T_L) / L = eps sigma (T_L^4 -
/// T_amb^4), which the discrete steady state satisfies exactly (the
/// mirrored half cell balances the same two fluxes).
constexpr double kT1 = 1000.0, kK = 20.0, kL = 0.05, kEps = 0.8, kAmb = 300.0;

double plate_root() {
  double T = kT1;
  for (int i = 0; i < 100; ++i) {
    const double f = kK * (kT1 - T) / kL - kEps * kStefanBoltzmann * (T * T * T * T - kAmb * kAmb * kAmb * kAmb);
    const double df = -kK / kL - 4.0 * kEps * kStefanBoltzmann * T * T * T;
    T -= f / df;
  }
  return T;
}

}  // namespace

Check radiating_plate(const StepperSpec& spec) {
  HeatProblem p;
  p.n = {21, 5, 4};
  p.length = {kL, 0.01, 0.008};
  p.alpha = {kK, kK, kK};
  p.capacity = 3.0e6;
  p.lo = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Neumann};
  p.lo_data[0].value_from_initial = false;
  p.lo_data[0].value = kT1;
  p.hi_data[0].emissivity = kEps;
  p.hi_data[0].radiation_ambient = kAmb;
  attach_radiation(p);
  std::vector<double> u(static_cast<std::size_t>(p.points()), kT1);
  SteadyOptions o;
  o.tolerance = 1e-13;
  const SteadyResult r = solve_steady<double>(p, spec, u, o);
  const double root_T = plate_root();
  double worst = 0.0;
  for (index_t k = 0; k < p.n[2]; ++k)
    for (index_t j = 0; j < p.n[1]; ++j)
      for (index_t i = 0; i < p.n[0]; ++i) {
        // The linear profile from T1 to the root.
        const double x = coord(p, 0, i) / kL;
        const double exact = kT1 + (root_T - kT1) * x;
        worst = std::max(worst, std::abs(u[static_cast<std::size_t>((k * p.n[1] + j) * p.n[0] + i)] - exact) / exact);
      }
  Check c;
  c.name = "radiating plate " + grid_name(p) + ", solve: steady vs the root of its energy balance";
  c.quantity = "max relative error of the profile";
  c.hi = 1e-10;
  c.value = r.converged ? worst : std::numeric_limits<double>::infinity();
  std::ostringstream s;
  s << "face " << u[static_cast<std::size_t>(p.n[0] - 1)] << " K, root " << root_T << " K, " << r.outer_iterations
    << " linear solves";
  c.detail = s.str();
  return finish(c);
}

Check radiating_lumped_body(const StepperSpec& spec) {
  // A slab of 3 nodes (y and z flat) insulated at x_lo and radiating at
  // x_hi, conducting so well (Biot number 1e-5) that it stays uniform: its
  // mean temperature (trapezoidal weights) follows c L dT/dt = -eps sigma
  // (T^4 - T_amb^4), whose exact solution G(T) = G(T0) - k t with
  // G(T) = (ln((T - a) / (T + a)) - 2 atan(T / a)) / (4 a^3) is solved by
  // bisection.
  HeatProblem p;
  p.n = {3, 1, 1};
  p.length = {0.01, 0.01, 0.01};
  p.alpha = {1.0e6, 1.0e6, 1.0e6};
  p.capacity = 1.0e6;
  p.lo = {Boundary::Neumann, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Neumann};
  const double eps = 0.9, amb = 300.0, T0 = 1000.0, t_end = 50.0;
  p.hi_data[0].emissivity = eps;
  p.hi_data[0].radiation_ambient = amb;
  const double k = eps * kStefanBoltzmann / (p.capacity * p.length[0]);
  auto G = [&](double T) { return (std::log((T - amb) / (T + amb)) - 2.0 * std::atan(T / amb)) / (4.0 * amb * amb * amb); };
  const double target = G(T0) - k * t_end;
  double lo = amb * (1.0 + 1e-12), hi = T0;
  for (int i = 0; i < 200; ++i) {
    const double m = 0.5 * (lo + hi);
    (G(m) < target ? lo : hi) = m;
  }
  const double exact = 0.5 * (lo + hi);
  std::vector<double> errs;
  std::ostringstream detail;
  for (double dt : {5.0, 2.5, 1.25}) {
    HeatProblem q = p;
    q.dt = dt;
    attach_radiation(q);
    const std::vector<double> u =
        run<double>(q, spec, std::vector<double>(3, T0), static_cast<index_t>(std::llround(t_end / dt)));
    const double mean = root() ? (0.5 * u[0] + u[1] + 0.5 * u[2]) / 2.0 : 0.0;
    errs.push_back(std::abs(mean - exact));
    detail << (errs.size() > 1 ? ", " : "") << "dt " << dt << ": " << errs.back() << " K";
  }
  Check c;
  c.name = "radiating lumped body, 1000 K to 300 K surroundings, dt 5, 2.5, 1.25 s vs exact T(t)";
  c.quantity = "observed order in time (two finest)";
  c.lo = 1.9;
  c.hi = 2.1;
  c.value = std::log2(errs[1] / errs[2]);
  detail << " (exact " << exact << " K at t = " << t_end << " s)";
  c.detail = detail.str();
  return finish(c);
}

Check radiation_energy_balance(const StepperSpec& spec) {
  // An insulated box with a source and two radiating faces (one of them
  // also convective): per step, sum w c (u1 - u0) must be dt times the
  // source's heat plus the faces' theta-weighted exchange, computed here
  // from u0 and u1 (the step's converged ends), relative to the heat moved.
  HeatProblem p;
  p.n = {13, 11, 9};
  p.length = {0.013, 0.011, 0.009};
  p.alpha = {30.0, 30.0, 30.0};
  p.capacity = 2.0e6;
  p.lo = {Boundary::Neumann, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Robin, Boundary::Neumann, Boundary::Neumann};
  p.hi_data[0].h = 40.0;
  p.hi_data[0].ambient = 320.0;
  p.hi_data[0].emissivity = 0.6;
  p.hi_data[0].radiation_ambient = 300.0;
  p.hi_data[2].emissivity = 0.9;
  p.hi_data[2].radiation_ambient = 250.0;
  p.source = 3.0e7;
  p.dt = 0.05;
  attach_radiation(p);
  std::vector<double> u = sample(p, [](double x, double y, double z) {
    return 700.0 + 80.0 * std::cos(300.0 * x) + 30.0 * std::sin(400.0 * y + 900.0 * z);
  });
  const std::vector<double> cap(u.size(), p.capacity);
  // The faces' exchange [W] of the step from a to b: per face node, its area
  // weight (the trapezoid weight of the plane) times the flux.
  auto exchange = [&](const std::vector<double>& a, const std::vector<double>& b) {
    double sum = 0.0;
    const double th = p.theta, sig = kStefanBoltzmann;
    for (int f = 0; f < 6; ++f) {
      const int ax = f / 2, side = f % 2;
      const FaceData& d = side ? p.hi_data[ax] : p.lo_data[ax];
      const Boundary kind = side ? p.hi[ax] : p.lo[ax];
      if (!(d.emissivity > 0.0) && kind != Boundary::Robin) continue;
      const index_t plane = side ? p.n[ax] - 1 : 0;
      for (index_t k = 0; k < p.n[2]; ++k)
        for (index_t j = 0; j < p.n[1]; ++j)
          for (index_t i = 0; i < p.n[0]; ++i) {
            const index_t ijk[3] = {i, j, k};
            if (ijk[ax] != plane) continue;
            double w = 1.0;
            for (int o = 0; o < 3; ++o) {
              if (o == ax) continue;
              w *= p.spacing(o) * ((ijk[o] == 0 || ijk[o] == p.n[o] - 1) ? 0.5 : 1.0);
            }
            const std::size_t q = static_cast<std::size_t>((k * p.n[1] + j) * p.n[0] + i);
            const double x0 = a[q], x1 = b[q];
            double flux = 0.0;
            if (d.emissivity > 0.0)
              flux -= d.emissivity * sig *
                      ((1.0 - th) * x0 * x0 * x0 * x0 + th * x1 * x1 * x1 * x1 -
                       std::pow(d.radiation_ambient, 4));
            if (kind == Boundary::Robin) flux -= d.h * ((1.0 - th) * x0 + th * x1 - d.ambient);
            sum += w * flux;
          }
    }
    return sum;
  };
  const std::vector<double> ones(u.size(), 1.0);
  const double heat_in = p.source * energy(p, ones, ones);
  auto st = make_stepper<double>(p, spec);
  st->set_field(u.data());
  double worst = 0.0;
  const int steps = 8;
  for (int n = 0; n < steps; ++n) {
    const std::vector<double> a = u;
    st->step();
    st->get_field(u.data());
    const double de = energy(p, u, cap) - energy(p, a, cap);
    const double expected = p.dt * (heat_in + exchange(a, u));
    worst = std::max(worst, std::abs(de - expected) / (p.dt * (heat_in + std::abs(exchange(a, u)))));
  }
  Check c;
  c.name = "radiation energy balance, two radiating faces (one convective), source " + grid_name(p);
  c.quantity = "max per step |dE - dt (Q + faces)| / (dt (Q + |faces|))";
  c.hi = 1e-10;
  c.value = worst;
  std::ostringstream s;
  s << steps << " steps, max |u| " << max_abs(u);
  c.detail = s.str();
  return finish(c);
}

}  // namespace adi::verify
