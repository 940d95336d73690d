// Checks of temperature-dependent materials (verification.hpp): the
// Kirchhoff-transform steady state, the order in time, the enthalpy balance.

#include "verification_support.hpp"

#include <adi/steady.hpp>
#include <adi/temperature.hpp>

namespace adi::verify {

using namespace support;

namespace {

/// K(T) and c(T) as two-point tables over [lo, hi]: exactly the linear
/// functions k0 (1 + beta T) and c0 (1 + gamma T).
PropertyTable linear_table(double v0, double slope, double lo, double hi) {
  return PropertyTable{{lo, hi}, {v0 * (1.0 + slope * lo), v0 * (1.0 + slope * hi)}};
}

/// Makes p's conductivity and capacity the state's fields.
void attach(HeatProblem& p, std::shared_ptr<const FieldSource> index, std::vector<TemperatureMaterial> mats) {
  auto st = std::make_shared<TemperatureState>(p.n, std::move(index), std::move(mats), true);
  p.material.temperature = st;
  for (int a = 0; a < 3; ++a) p.material.conductivity[a] = p.flat(a) ? nullptr : st->conductivity(a);
  p.material.capacity = st->capacity();
}

TemperatureMaterial material(const std::string& name, const PropertyTable& k, const PropertyTable& c) {
  TemperatureMaterial m;
  m.name = name;
  m.conductivity = {k, k, k};
  m.capacity = c;
  return m;
}

/// H(u) = int_{t0}^{u} v: the table's own integral, written independently
/// of PropertyTable (trapezoids of whole segments plus the partial one).
double enthalpy(const PropertyTable& t, double u) {
  if (t.constant()) return t.v[0] * u;
  double h = 0.0;
  for (std::size_t k = 0; k + 1 < t.t.size(); ++k) {
    if (u <= t.t[k]) break;
    const double b = std::min(u, t.t[k + 1]);
    const double vb = t.v[k] + (t.v[k + 1] - t.v[k]) * (b - t.t[k]) / (t.t[k + 1] - t.t[k]);
    h += 0.5 * (b - t.t[k]) * (t.v[k] + vb);
  }
  return h;
}

}  // namespace

namespace {

// K = k0 (1 + beta T) between fixed faces: theta(T) = k0 (T + beta T^2 / 2)
// is linear in x at steady state, T = (sqrt(1 + 2 beta theta / k0) - 1) / beta.
constexpr double kK0 = 0.5, kBeta = 0.004, kTa = 300.0, kTb = 600.0;

HeatProblem kirchhoff_problem(index_t nx) {
  HeatProblem p;
  p.n = {nx, 4, 3};
  p.length = {1.0, 0.2, 0.15};
  p.lo = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  p.lo_data[0].value_from_initial = p.hi_data[0].value_from_initial = false;
  p.lo_data[0].value = kTa;
  p.hi_data[0].value = kTb;
  p.theta = 1.0;
  p.dt = 0.05;
  attach(p, nullptr, {material("k(T)", linear_table(kK0, kBeta, 250.0, 650.0), linear_table(2.0, 0.001, 250.0, 650.0))});
  return p;
}

double kirchhoff_error(const HeatProblem& p, const std::vector<double>& u) {
  const auto theta = [](double T) { return kK0 * (T + 0.5 * kBeta * T * T); };
  double e = 0.0;
  for (index_t k = 0; k < p.n[2]; ++k)
    for (index_t j = 0; j < p.n[1]; ++j)
      for (index_t i = 0; i < p.n[0]; ++i) {
        const double x = coord(p, 0, i), th = theta(kTa) + (theta(kTb) - theta(kTa)) * x;
        const double exact = (std::sqrt(1.0 + 2.0 * kBeta * th / kK0) - 1.0) / kBeta;
        e = std::max(e, std::abs(u[static_cast<std::size_t>((k * p.n[1] + j) * p.n[0] + i)] - exact));
      }
  return e;
}

/// Observed order of the two finest of nx = 21, 41, 81, each steady state by `solve`.
Check kirchhoff_order(const std::string& how, const std::function<std::vector<double>(const HeatProblem&)>& solve) {
  std::vector<double> errs;
  std::ostringstream detail;
  for (index_t nx : {21, 41, 81}) {
    const HeatProblem p = kirchhoff_problem(nx);
    errs.push_back(kirchhoff_error(p, solve(p)));
    detail << (errs.size() > 1 ? ", " : "") << "nx " << nx << ": " << errs.back();
  }
  Check c;
  c.name = "K(T) = k0 (1 + beta T) slab, " + how + " vs Kirchhoff transform, nx 21, 41, 81";
  c.quantity = "observed order in space (two finest)";
  c.lo = 1.9;
  c.hi = 2.1;
  c.value = std::log2(errs[1] / errs[2]);
  c.detail = detail.str();
  return finish(c);
}

std::vector<double> linear_start(const HeatProblem& p) {
  return sample(p, [](double x, double, double) { return kTa + (kTb - kTa) * x; });
}

}  // namespace

Check kirchhoff_slab(const StepperSpec& spec) {
  return kirchhoff_order("marched to steady state", [&](const HeatProblem& p) {
    std::vector<double> u = linear_start(p);
    auto st = make_stepper<double>(p, spec);
    st->set_field(u.data());
    st->impose_boundary_values();
    std::vector<double> prev(u.size());
    for (int chunk = 0; chunk < 400; ++chunk) {
      st->advance(50);
      prev = u;
      st->get_field(u.data());
      if (max_abs_diff(u, prev) < 1e-13 * max_abs(u)) break;
    }
    return u;
  });
}

Check kirchhoff_steady_solve(const StepperSpec& spec) {
  int outer = 0;
  Check c = kirchhoff_order("solve: steady", [&](const HeatProblem& p) {
    std::vector<double> u = linear_start(p);
    SteadyOptions o;
    o.tolerance = 1e-12;
    const SteadyResult r = solve_steady<double>(p, spec, u, o);
    if (!r.converged) u.assign(u.size(), std::numeric_limits<double>::quiet_NaN());
    outer = std::max(outer, r.outer_iterations);
    return u;
  });
  c.detail += "; at most " + std::to_string(outer) + " linear solves";
  return c;
}

Check temperature_time_order(const StepperSpec& spec, NonlinearStep how) {
  HeatProblem p;
  p.nonlinear = how;
  p.n = {21, 17, 13};
  p.length = {1.0, 0.8, 0.6};
  p.dt = 0.004;
  attach(p, nullptr, {material("k(T), c(T)", linear_table(0.5, 0.004, 200.0, 500.0), linear_table(1.0, 0.002, 200.0, 500.0))});
  const std::vector<double> u0 = sample(p, [](double x, double y, double z) {
    return 300.0 + 100.0 * std::sin(kPi * x) * std::sin(kPi * y / 0.8) * std::sin(kPi * z / 0.6);
  });
  const double T = 0.04;
  auto at = [&](double dt) {
    HeatProblem q = p;
    attach(q, nullptr, p.material.temperature->materials());  // its own state
    q.dt = dt;
    return run<double>(q, spec, u0, static_cast<index_t>(std::llround(T / dt)));
  };
  const std::vector<double> ref = at(p.dt / 32);
  std::vector<double> errs;
  std::ostringstream detail;
  for (double dt : {p.dt, p.dt / 2, p.dt / 4}) {
    errs.push_back(max_abs_diff(at(dt), ref));
    detail << (errs.size() > 1 ? ", " : "") << "dt " << dt << ": " << errs.back();
  }
  Check c;
  c.name = "K(T), c(T) transient " + grid_name(p) + " (" + scheme_name(p.scheme_in_use()) +
           (how == NonlinearStep::Iterate ? "" : std::string(", ") + nonlinear_step_name(how)) +
           "), dt / 1, 2, 4 vs dt / 32";
  c.quantity = "observed order in time (two finest)";
  c.lo = 1.9;
  c.hi = 2.1;
  c.value = std::log2(errs[1] / errs[2]);
  c.detail = detail.str();
  return finish(c);
}

Check enthalpy_balance(const StepperSpec& spec, NonlinearStep how) {
  HeatProblem p;
  p.nonlinear = how;
  p.n = {15, 12, 9};
  p.length = {1.0, 0.8, 0.6};
  p.lo = {Boundary::Neumann, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Neumann};
  p.dt = 0.01;
  p.source = 50.0;
  // Two materials (x below / above 0.5); the first's c has kinks at 320 and
  // 400 K that the heating crosses.
  const PropertyTable c0{{250.0, 320.0, 400.0, 600.0}, {1.0, 1.4, 1.2, 2.0}};
  const PropertyTable c1 = linear_table(2.0, -0.001, 250.0, 600.0);
  std::vector<TemperatureMaterial> mats = {material("a", PropertyTable::constant_value(2.0), c0),
                                           material("b", linear_table(0.5, 0.004, 250.0, 600.0), c1)};
  const std::vector<double> idx = sample(p, [](double x, double, double) { return x < 0.5 ? 0.0 : 1.0; });
  attach(p, field(p, "region", idx), mats);
  std::vector<double> u = sample(p, [](double x, double y, double z) {
    return 305.0 + 12.0 * std::cos(kPi * x) + 4.0 * std::cos(kPi * y / 0.8) * std::cos(kPi * z / 0.6);
  });
  // sum w H(u) and the volume, with the weights of the conservation check.
  const std::vector<double> ones(u.size(), 1.0);
  auto H = [&](const std::vector<double>& f) {
    std::vector<double> h(f.size());
    for (std::size_t q = 0; q < f.size(); ++q) h[q] = enthalpy(mats[static_cast<std::size_t>(idx[q])].capacity, f[q]);
    return energy(p, h, ones);
  };
  const double volume = energy(p, ones, ones);
  const std::vector<double> start = u;
  const int steps = 12;
  // The worst step of `steps` steps of dt (its own state each time).
  auto worst_step = [&](double dt) {
    HeatProblem q = p;
    attach(q, field(p, "region", idx), mats);
    q.dt = dt;
    const double expected = dt * q.source * volume;
    auto st = make_stepper<double>(q, spec);
    u = start;
    st->set_field(u.data());
    double worst = 0.0, h0 = H(u);
    for (int n = 0; n < steps; ++n) {
      st->step();
      st->get_field(u.data());
      const double h1 = H(u);
      worst = std::max(worst, std::abs((h1 - h0) - expected) / expected);
      h0 = h1;
    }
    return worst;
  };
  const double worst = worst_step(p.dt);
  Check c;
  c.name = "enthalpy balance, c(T) tables with kinks, two materials, insulated, source " + grid_name(p) +
           (how == NonlinearStep::Iterate ? "" : std::string(" (") + nonlinear_step_name(how) + ")");
  c.quantity = "max per step |dH - dt sum w q| / (dt sum w q)";
  // The iteration closes it to its tolerance; the predictor-corrector and
  // the extrapolated step map their last linear step's field through the
  // enthalpy (TemperatureState::conserve_enthalpy): to round-off as well.
  c.hi = 1e-10;
  c.value = worst;
  std::ostringstream s;
  s << steps << " steps, max |u| " << max_abs(u);
  c.detail = s.str();
  return finish(c);
}

}  // namespace adi::verify
