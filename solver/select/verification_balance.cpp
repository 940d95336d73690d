// Checks of verification.hpp by balance laws and stability: energy
// conservation and the energy balance with sources and faces, a flat axis,
// a constant field, a stiff inclusion, the source table's time.

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

Check conservation(Precision prec, const StepperSpec& spec, bool stretched) {
  HeatProblem p;
  p.n = {19, 14, 11};
  p.length = {1.0, 0.7, 0.55};
  p.lo = {Boundary::Neumann, Boundary::Periodic, Boundary::Neumann};
  p.hi = {Boundary::Neumann, Boundary::Periodic, Boundary::Neumann};
  p.dt = 0.01;
  if (stretched) {  // every axis, the periodic y too; gaps up to 4x apart
    stretch_axis(p, 0, geometric_lo(1.08, p.n[0] - 1));
    stretch_axis(p, 1, periodic_wave(0.6));
    stretch_axis(p, 2, clustered_both(0.6));
  }
  const std::vector<double> cv = sample(p, [](double x, double y, double z) { return 2.0 + std::sin(3 * x + y) * std::cos(2 * z); });
  const std::vector<double> kv = sample(p, [](double x, double y, double z) { return 1.0 + 0.8 * std::cos(x - 2 * y + z); });
  const std::vector<double> qv = sample(p, [](double x, double y, double z) { return 10.0 * std::exp(-10 * ((x - 0.4) * (x - 0.4) + (y - 0.3) * (y - 0.3) + z * z)); });
  auto K = field(p, "K", kv);
  p.material.conductivity = {K, K, K};
  p.material.capacity = field(p, "c", cv);
  p.material.source = field(p, "q", qv);
  p.source_table.t = {0.0, 0.1, 0.2};
  p.source_table.v = {1.0, 3.0, 0.5};
  const index_t steps = 15;
  const std::vector<double> u0 = sample(p, [](double x, double y, double) { return std::cos(3 * x) + y; });
  const std::vector<double> u = run_prec(prec, p, spec, u0, steps);
  Check c;
  c.name = std::string("energy conservation, insulated + periodic faces, c, K, q fields ") +
           (stretched ? "stretched " : "") + grid_name(p);
  c.precision = prec;
  c.quantity = "|dE - dt sum w q f| / |dE|";
  c.hi = prec == Precision::F64 ? 1e-12 : 1e-5;
  if (root()) {
    double expected = 0.0;
    const std::vector<double> ones(qv.size(), 1.0);
    const double Q = energy(p, qv, ones);
    for (index_t n = 0; n < steps; ++n) expected += p.dt * Q * p.source_table.at((static_cast<double>(n) + p.theta) * p.dt);
    // u0 as the stepper saw it (rounded to the precision).
    std::vector<double> u0r(u0);
    if (prec == Precision::F32)
      for (double& v : u0r) v = static_cast<float>(v);
    const double dE = energy(p, u, cv) - energy(p, u0r, cv);
    c.value = std::abs(dE - expected) / std::abs(expected);
    std::ostringstream s;
    s << "dE = " << dE << ", dt sum w q f = " << expected;
    c.detail = s.str();
  }
  return finish(c);
}

Check energy_balance(const StepperSpec& spec, bool stretched) {
  HeatProblem p;
  p.n = {17, 13, 9};
  p.length = {1.0, 0.75, 0.5};
  p.lo = {Boundary::Robin, Boundary::Neumann, Boundary::Periodic};
  p.hi = {Boundary::Neumann, Boundary::Robin, Boundary::Periodic};
  if (stretched) {
    stretch_axis(p, 0, geometric_hi(1.1, p.n[0] - 1));
    stretch_axis(p, 1, clustered_both(0.5));
    stretch_axis(p, 2, periodic_wave(0.5));
  }
  p.lo_data[0].h = 3.0;
  p.lo_data[0].ambient = 1.5;
  p.lo_data[0].table.t = {0.0, 0.05};
  p.lo_data[0].table.v = {1.0, 2.0};
  p.hi_data[0].flux = -0.7;
  p.lo_data[1].flux = 0.4;
  p.lo_data[1].table.t = {0.0, 0.1};
  p.lo_data[1].table.v = {0.0, 1.0};
  p.hi_data[1].h = 1.2;
  p.hi_data[1].ambient = -0.5;
  p.dt = 0.01;
  const std::vector<double> cv = sample(p, [](double x, double y, double z) { return 1.5 + 0.5 * std::cos(2 * x + y - z); });
  const std::vector<double> kv = sample(p, [](double x, double y, double) { return 0.5 + x * x + 0.3 * y; });
  auto K = field(p, "K", kv);
  p.material.conductivity = {K, K, K};
  p.material.capacity = field(p, "c", cv);
  const index_t steps = 6;
  std::vector<double> u = sample(p, [](double x, double y, double z) { return std::sin(2 * x) + y * z; });
  auto st = make_stepper<double>(p, spec);
  st->scatter_field(root() ? u.data() : nullptr);
  double worst = 0.0;
  // A face node's area: its control volumes along the in-plane axes.
  const EnergyWeights ew = energy_weights(p);
  auto face_sum = [&](const std::vector<double>& v, int axis, int side) {
    double s = 0.0;
    const index_t plane = side ? p.n[axis] - 1 : 0;
    for (index_t k = 0; k < p.n[2]; ++k)
      for (index_t j = 0; j < p.n[1]; ++j)
        for (index_t i = 0; i < p.n[0]; ++i) {
          const index_t idx[3] = {i, j, k};
          if (idx[axis] != plane) continue;
          double w = 1.0;
          for (int a = 0; a < 3; ++a)
            if (a != axis) w *= ew.axis_volume(a, idx[a]);
          s += w * v[(k * p.n[1] + j) * p.n[0] + i];
        }
    return s;
  };
  std::vector<double> u1(u.size()), D[3];
  const std::vector<double> ones(u.size(), 1.0);
  // Heat into the domain through axis a's faces per unit time, for a stage
  // whose implicit part sees u + theta d (d: the stage's increment).
  auto axis_flow = [&](int a, double tstar, const std::vector<double>& uu, const std::vector<double>* d) {
    double flow = 0.0;
    if (p.periodic(a)) return flow;
    for (int side = 0; side < 2; ++side) {
      const Boundary b = side ? p.hi[a] : p.lo[a];
      const FaceData& fd = side ? p.hi_data[a] : p.lo_data[a];
      const double f = fd.table.at(tstar);
      if (b == Boundary::Neumann) flow += fd.flux * f * face_sum(ones, a, side);
      if (b == Boundary::Robin)
        flow += fd.h * (fd.ambient * f * face_sum(ones, a, side) - face_sum(uu, a, side) -
                        (d ? p.theta * face_sum(*d, a, side) : 0.0));
    }
    return flow;
  };
  if (p.scheme_in_use() == SchemeType::Strang) {
    // Factor by factor: each moves the energy by its fraction of dt times its
    // own axis' face flows (split.hpp).
    std::vector<double> before(u.size()), d(u.size());
    for (index_t n = 0; n < steps; ++n) {
      const double tstar = (static_cast<double>(n) + p.theta) * p.dt;
      double expected = 0.0;
      st->run_phase(Phase::Rhs);  // the Dirichlet terms (none here)
      before = u;
      for (const SplitFactor& f : strang_sequence(p)) {
        st->run_phase(f.axis == 0 ? Phase::SolveX : f.axis == 1 ? Phase::SolveY : Phase::SolveZ);
        st->gather_field(root() ? u1.data() : nullptr);
        if (root()) {
          for (std::size_t q = 0; q < u.size(); ++q) d[q] = u1[q] - before[q];
          expected += f.fraction * p.dt * axis_flow(f.axis, tstar, before, &d);
          before = u1;
        }
      }
      st->set_step_index(st->step_index() + 1);
      if (root()) {
        const double dE = energy(p, u1, cv) - energy(p, u, cv);
        worst = std::max(worst, std::abs(dE - expected) / std::abs(expected));
      }
      u = u1;
    }
    Check c;
    c.name = std::string("energy balance, flux + convective faces, K and c fields ") + (stretched ? "stretched " : "") +
             grid_name(p);
    c.quantity = "|dE - dt flow| / |dt flow| (worst step)";
    c.hi = 1e-12;
    c.value = worst;
    return finish(c);
  }
  for (index_t n = 0; n < steps; ++n) {
    // Stages: rhs, x, y; the z solve adds D into u.
    st->run_phase(Phase::Rhs);
    st->run_phase(Phase::SolveX);
    D[0].resize(u.size());
    st->get_work(D[0].data());
    st->run_phase(Phase::SolveY);
    D[1].resize(u.size());
    st->get_work(D[1].data());
    st->run_phase(Phase::SolveZ);
    st->set_step_index(st->step_index() + 1);
    st->gather_field(root() ? u1.data() : nullptr);
    if (root()) {
      D[2].resize(u.size());
      for (std::size_t q = 0; q < u.size(); ++q) D[2][q] = u1[q] - u[q];
      const double tstar = (static_cast<double>(n) + p.theta) * p.dt;
      double flow = 0.0;  // heat into the domain over the step, as the scheme defines it
      for (int a = 0; a < 3; ++a) {
        if (p.periodic(a)) continue;
        for (int side = 0; side < 2; ++side) {
          const Boundary b = side ? p.hi[a] : p.lo[a];
          const FaceData& d = side ? p.hi_data[a] : p.lo_data[a];
          const double f = d.table.at(tstar);
          if (b == Boundary::Neumann) flow += d.flux * f * face_sum(ones, a, side);
          if (b == Boundary::Robin)
            flow += d.h * (d.ambient * f * face_sum(ones, a, side) - face_sum(u, a, side) -
                           p.theta * face_sum(D[a], a, side));
        }
      }
      const double dE = energy(p, u1, cv) - energy(p, u, cv);
      worst = std::max(worst, std::abs(dE - p.dt * flow) / std::abs(p.dt * flow));
    }
    u = u1;
  }
  Check c;
  c.name = std::string("energy balance, flux + convective faces, K and c fields ") + (stretched ? "stretched " : "") +
           grid_name(p);
  c.quantity = "|dE - dt flow| / |dt flow| (worst step)";
  c.hi = 1e-12;
  c.value = worst;
  return finish(c);
}

Check flat_axis(Precision prec, const StepperSpec& spec) {
  HeatProblem p3;
  p3.n = {23, 17, 5};
  p3.length = {1.0, 0.8, 0.4};
  p3.lo = {Boundary::Dirichlet, Boundary::Robin, Boundary::Neumann};
  p3.hi = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann};
  p3.lo_data[1].h = 2.0;
  p3.lo_data[1].ambient = 0.3;
  p3.hi_data[1].value_from_initial = false;
  p3.hi_data[1].value = 1.0;
  p3.dt = 5e-3;
  auto kf = [](double x, double y, double) { return 1.0 + 0.5 * std::sin(2 * x + y); };
  auto K3 = field(p3, "K", sample(p3, kf));
  p3.material.conductivity = {K3, K3, K3};
  HeatProblem p2 = p3;
  p2.n[2] = 1;
  auto K2 = field(p2, "K", sample(p2, kf));
  p2.material.conductivity = {K2, K2, K2};
  auto init = [](double x, double y, double) { return std::cos(2 * x) * (1 + y); };
  const index_t steps = 20;
  Check c;
  c.name = "2D (nz = 1) vs 3D with insulated z faces, each scheme " + grid_name(p2) + " / " + grid_name(p3);
  c.precision = prec;
  c.quantity = "max rel diff";
  c.hi = prec == Precision::F64 ? 1e-12 : 1e-5;
  for (SchemeType scheme : {SchemeType::Douglas, SchemeType::Strang}) {
    p2.scheme = p3.scheme = scheme;
    const std::vector<double> u3 = run_prec(prec, p3, spec, sample(p3, init), steps);
    const std::vector<double> u2 = run_prec(prec, p2, spec, sample(p2, init), steps);
    if (root()) {
      const std::size_t plane = static_cast<std::size_t>(p2.points());
      double m = 0.0;
      for (index_t k = 0; k < p3.n[2]; ++k)
        for (std::size_t q = 0; q < plane; ++q) m = std::max(m, std::abs(u3[k * plane + q] - u2[q]));
      c.value = std::max(c.value, m / max_abs(u2));
    }
  }
  return finish(c);
}

Check constant_field(Precision prec, const StepperSpec& spec) {
  HeatProblem pc;
  pc.n = {21, 18, 13};
  pc.length = {1.0, 0.9, 0.6};
  pc.alpha = {0.7, 0.7, 0.7};
  pc.capacity = 2.0;
  pc.lo = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Robin};
  pc.hi = {Boundary::Dirichlet, Boundary::Robin, Boundary::Dirichlet};
  pc.lo_data[2].h = 1.0;
  pc.hi_data[1].h = 4.0;
  pc.hi_data[1].ambient = 2.0;
  pc.source = 0.5;
  pc.dt = 4e-3;
  HeatProblem pf = pc;
  auto K = field(pf, "K", std::vector<double>(static_cast<std::size_t>(pf.points()), 0.7));
  pf.material.conductivity = {K, K, K};
  pf.material.capacity = field(pf, "c", std::vector<double>(static_cast<std::size_t>(pf.points()), 2.0));
  pf.material.source = field(pf, "q", std::vector<double>(static_cast<std::size_t>(pf.points()), 0.5));
  const std::vector<double> u0 = sample(pc, [](double x, double y, double z) { return x * (1 - x) + y * z; });
  const index_t steps = 12;
  Check c;
  c.name = "constant K, c, q given as fields vs as constants, each scheme " + grid_name(pc);
  c.precision = prec;
  c.quantity = "max rel diff";
  c.hi = prec == Precision::F64 ? 1e-12 : 1e-5;
  for (SchemeType scheme : {SchemeType::Douglas, SchemeType::Strang}) {
    pc.scheme = pf.scheme = scheme;
    const std::vector<double> a = run_prec(prec, pc, spec, u0, steps), b = run_prec(prec, pf, spec, u0, steps);
    if (root()) c.value = std::max(c.value, max_abs_diff(a, b) / max_abs(a));
  }
  return finish(c);
}

Check inclusion_stability(const StepperSpec& spec) {
  // An insulated 15^3 box with a 5^3 inclusion in the middle, K 1000x and c
  // 70x its surroundings, no source: the exact solution's energy decays.
  // The Douglas step's spectral radius reaches 106 here (docs/SCHEMES.md);
  // the default (Strang) step must not let the energy grow, at dt = 1 (the
  // inclusion's lambda = K dt / (c h^2) ~ 2800, the matrix's ~ 200).
  HeatProblem p;
  p.n = {15, 15, 15};
  p.length = {1.0, 1.0, 1.0};
  for (int a = 0; a < 3; ++a) p.lo[a] = p.hi[a] = Boundary::Neumann;
  p.dt = 1.0;
  const index_t steps = 100;
  auto inside = [&](index_t q) {
    const index_t i = q % 15, j = (q / 15) % 15, k = q / 225;
    return i >= 5 && i < 10 && j >= 5 && j < 10 && k >= 5 && k < 10;
  };
  std::vector<double> kv(static_cast<std::size_t>(p.points())), cv(kv.size()), u0(kv.size());
  std::mt19937_64 rng(20261205);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  for (index_t q = 0; q < p.points(); ++q) {
    kv[q] = inside(q) ? 1000.0 : 1.0;
    cv[q] = inside(q) ? 70.0 : 1.0;
    u0[q] = uni(rng);
  }
  auto K = field(p, "K inclusion", kv);
  p.material.conductivity = {K, K, K};
  p.material.capacity = field(p, "c inclusion", cv);
  auto st = make_stepper<double>(p, spec);
  std::vector<double> u(u0);
  st->scatter_field(root() ? u.data() : nullptr);
  double prev = st->field_stats().energy, worst = -1.0, e0 = prev;
  for (index_t n = 0; n < steps; ++n) {
    st->step();
    const FieldStats fs = st->field_stats();
    worst = std::max(worst, fs.finite ? fs.energy / prev - 1.0 : std::numeric_limits<double>::infinity());
    prev = fs.energy;
  }
  const FieldStats last = st->field_stats();
  Check c;
  c.name = std::string("stability: K 1000x, c 70x inclusion, insulated, dt = 1, ") + scheme_name(p.scheme_in_use()) +
           " " + grid_name(p);
  c.quantity = "largest energy growth of a step (relative)";
  c.lo = -1.0;
  c.hi = 1e-12;
  c.value = worst;
  std::ostringstream s;
  s << steps << " steps: energy " << e0 << " -> " << prev << ", max |u| " << last.max_abs;
  c.detail = s.str();
  return finish(c);
}

Check source_table_time(double theta, const StepperSpec& spec) {
  // A uniform field in an insulated box with a uniform source q f(t): no
  // operator acts, so u^N = u^0 + dt sum_n q f(t^n + theta dt) / c exactly,
  // the time at which every scheme evaluates its data (README).
  HeatProblem p;
  p.n = {7, 6, 5};
  p.length = {1.0, 0.8, 0.6};
  for (int a = 0; a < 3; ++a) p.lo[a] = p.hi[a] = Boundary::Neumann;
  p.theta = theta;
  p.capacity = 2.5;
  p.source = 3.0;
  p.source_table.t = {0.0, 0.35, 1.0};
  p.source_table.v = {1.0, -2.0, 4.0};
  p.dt = 0.1;
  const index_t steps = 9;
  double expected = 0.7;
  for (index_t n = 0; n < steps; ++n)
    expected += p.dt * p.source * p.source_table.at((static_cast<double>(n) + theta) * p.dt) / p.capacity;
  Check c;
  c.name = "source table read at t + theta dt, theta = " + std::to_string(theta).substr(0, 3) + ", each scheme";
  c.quantity = "max abs err vs u0 + dt sum q f / c";
  c.hi = 1e-12;
  for (SchemeType scheme : {SchemeType::Douglas, SchemeType::Strang}) {
    p.scheme = scheme;
    const std::vector<double> u = run<double>(p, spec, std::vector<double>(static_cast<std::size_t>(p.points()), 0.7), steps);
    if (root())
      for (double v : u) c.value = std::max(c.value, std::abs(v - expected));
  }
  return finish(c);
}


}  // namespace adi::verify
