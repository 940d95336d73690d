// Heat flows (adi/heat_flows.hpp): the balance dE/dt = faces + source closes
// to round-off on awkward grids with every face kind, material fields and
// tables; exact flows of a slab at its linear steady profile and of a
// convective face at a uniform field; dE/dt equals the CPU stepper's own
// right-hand side summed with the weights (an oracle the meter shares no
// code with); the stepper entry point (stepper_heat_flows.hpp) agrees.
#include <adi/factory.hpp>
#include <adi/heat_flows.hpp>
#include <adi/problem.hpp>
#include <adi/radiation.hpp>
#include <adi/temperature.hpp>
#include <adi/stepper.hpp>
#include <adi/stepper_heat_flows.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <vector>

namespace {

using adi::Boundary;
using adi::HeatFlows;
using adi::HeatProblem;
using adi::index_t;

std::shared_ptr<const adi::FieldSource> field(const HeatProblem& p, const char* name, std::vector<double> v) {
  return std::make_shared<adi::ArrayField>(name, p.n, std::move(v));
}

unsigned seed() {
  const unsigned s = std::random_device{}();
  std::printf("seed %u\n", s);
  return s;
}

adi::TimeTable table() {
  adi::TimeTable t;
  t.t = {0.0, 0.5, 2.0};
  t.v = {1.0, 3.0, 0.5};
  return t;
}

/// Every face kind on the live axes: Dirichlet with a table (x_lo), flux with
/// a table (x_hi), convective with a table (y_lo), insulated (y_hi),
/// Dirichlet from the field (z_lo), convective (z_hi); a periodic axis when
/// asked; K with 100x jumps (anisotropic on x), c and q fields, the source
/// with a table.
HeatProblem mixed(const std::array<index_t, 3>& n, int periodic_axis, std::mt19937& rng) {
  HeatProblem p;
  p.n = n;
  p.length = {0.7, 0.5, 0.6};
  p.lo = {Boundary::Dirichlet, Boundary::Robin, Boundary::Dirichlet};
  p.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Robin};
  p.lo_data[0].value_from_initial = false;
  p.lo_data[0].value = 40.0;
  p.lo_data[0].table = table();
  p.hi_data[0].flux = 1500.0;
  p.hi_data[0].table = table();
  p.lo_data[1].h = 25.0;
  p.lo_data[1].ambient = 15.0;
  p.lo_data[1].table = table();
  p.hi_data[2].h = 300.0;
  p.hi_data[2].ambient = -5.0;
  if (periodic_axis >= 0) p.lo[periodic_axis] = p.hi[periodic_axis] = Boundary::Periodic;
  for (int a = 0; a < 3; ++a)
    if (p.flat(a)) p.lo[a] = p.hi[a] = Boundary::Dirichlet;
  for (int a = 0; a < 3; ++a)
    if (a == periodic_axis || p.flat(a)) p.lo_data[a] = p.hi_data[a] = adi::FaceData{};
  std::uniform_real_distribution<double> U(0.0, 1.0);
  const std::size_t m = static_cast<std::size_t>(p.points());
  std::vector<double> k(m), kx(m), c(m), q(m);
  for (std::size_t i = 0; i < m; ++i) {
    k[i] = U(rng) < 0.3 ? 100.0 * (1 + U(rng)) : 1 + U(rng);
    kx[i] = 0.5 + U(rng);
    c[i] = 1e3 * (1 + U(rng));
    q[i] = 1e4 * (U(rng) - 0.3);
  }
  p.material.conductivity = {field(p, "Kx", kx), field(p, "K", k), field(p, "K", k)};
  p.material.conductivity[2] = p.material.conductivity[1];  // isotropic y, z: one array
  p.material.capacity = field(p, "c", c);
  p.material.source = field(p, "q", q);
  p.source_table = table();
  p.dt = 1e-3;
  p.validate();
  return p;
}

std::vector<double> random_field(const HeatProblem& p, std::mt19937& rng) {
  std::uniform_real_distribution<double> U(-20.0, 80.0);
  std::vector<double> u(static_cast<std::size_t>(p.points()));
  for (double& x : u) x = U(rng);
  return u;
}

void expect_balance(const HeatFlows& f, const char* what) {
  SCOPED_TRACE(what);
  EXPECT_GT(f.scale(), 0.0);
  EXPECT_LE(f.relative_residual(), 1e-10) << "residual " << f.residual() << " of scale " << f.scale();
  std::printf("%s: faces %.6g %.6g %.6g %.6g %.6g %.6g source %.6g dE/dt %.6g residual %.3g (relative %.3g)\n", what,
              f.face[0][0], f.face[0][1], f.face[1][0], f.face[1][1], f.face[2][0], f.face[2][1], f.source, f.dEdt,
              f.residual(), f.relative_residual());
}

}  // namespace

TEST(HeatFlows, BalanceClosesWithEveryFaceKind) {
  std::mt19937 rng(seed());
  for (const double t : {0.0, 0.3, 1.7, 5.0}) {
    const HeatProblem p = mixed({7, 5, 6}, -1, rng);
    const std::vector<double> u = random_field(p, rng);
    expect_balance(adi::heat_flows(p, u.data(), t), "7x5x6");
  }
}

TEST(HeatFlows, BalanceClosesWithAFlatAxis) {
  std::mt19937 rng(seed());
  const HeatProblem p = mixed({9, 1, 7}, -1, rng);
  const std::vector<double> u = random_field(p, rng);
  const HeatFlows f = adi::heat_flows(p, u.data(), 0.8);
  expect_balance(f, "9x1x7");
  EXPECT_EQ(f.face[1][0], 0.0);
  EXPECT_EQ(f.face[1][1], 0.0);
}

TEST(HeatFlows, BalanceClosesWithAPeriodicAxis) {
  std::mt19937 rng(seed());
  for (int a = 0; a < 3; ++a) {
    const HeatProblem p = mixed({6, 5, 7}, a, rng);
    const std::vector<double> u = random_field(p, rng);
    const HeatFlows f = adi::heat_flows(p, u.data(), 0.4);
    expect_balance(f, a == 0 ? "periodic x" : a == 1 ? "periodic y" : "periodic z");
    EXPECT_EQ(f.face[a][0], 0.0);
    EXPECT_EQ(f.face[a][1], 0.0);
  }
}

TEST(HeatFlows, FloatFieldsBalanceToo) {
  std::mt19937 rng(seed());
  const HeatProblem p = mixed({7, 5, 6}, 2, rng);
  const std::vector<double> u = random_field(p, rng);
  const std::vector<float> uf(u.begin(), u.end());
  expect_balance(adi::heat_flows(p, uf.data(), 1.1), "float");
}

// The split of a grid into boxes with ghost layers (what the ranks of a
// distributed run measure) sums to the whole grid's flows.
TEST(HeatFlows, BoxesSumToTheWholeGrid) {
  std::mt19937 rng(seed());
  const HeatProblem p = mixed({7, 5, 6}, 1, rng);
  const std::vector<double> u = random_field(p, rng);
  const HeatFlows whole = adi::heat_flows(p, u.data(), 0.6);
  HeatFlows sum;
  const index_t ycut[3] = {0, 2, 5}, zcut[4] = {0, 1, 4, 6};
  for (int by = 0; by < 2; ++by)
    for (int bz = 0; bz < 3; ++bz) {
      const std::array<index_t, 3> b{{0, ycut[by], zcut[bz]}}, s{{7, ycut[by + 1] - ycut[by], zcut[bz + 1] - zcut[bz]}};
      const adi::HeatFlowMeter m(p, b, s);
      std::vector<double> g(static_cast<std::size_t>(m.ghosted_points()), 0.0);
      for (index_t k = -1; k <= s[2]; ++k)
        for (index_t j = -1; j <= s[1]; ++j)
          for (index_t i = -1; i <= s[0]; ++i) {
            const index_t gi = std::min<index_t>(std::max<index_t>(i, 0), 6);
            const index_t gj = (b[1] + j + 5) % 5;  // y periodic
            const index_t gk = std::min<index_t>(std::max<index_t>(b[2] + k, 0), 5);
            g[static_cast<std::size_t>(m.offset(i, j, k))] = u[static_cast<std::size_t>(gi + 7 * (gj + 5 * gk))];
          }
      sum += m.measure(g.data(), 0.6);
    }
  for (int a = 0; a < 3; ++a)
    for (int side = 0; side < 2; ++side)
      EXPECT_NEAR(sum.face[a][side], whole.face[a][side], 1e-12 * whole.scale());
  EXPECT_NEAR(sum.dEdt, whole.dEdt, 1e-12 * whole.scale());
  EXPECT_NEAR(sum.source, whole.source, 1e-12 * whole.scale());
}

// dE/dt against the CPU stepper's right-hand side (its own rows, not the
// meter's): w_rhs = dt (A u + (b + q f) / c) at body nodes, 0 at Dirichlet
// ones; sum w c w_rhs / dt is dE/dt. Data without tables, so that the
// stepper's t* does not matter; the Dirichlet values do not move.
TEST(HeatFlows, RateEqualsTheSteppersRightHandSide) {
  std::mt19937 rng(seed());
  for (const int periodic : {-1, 1}) {
    HeatProblem p = mixed({7, 5, 6}, periodic, rng);
    p.source_table = {};
    p.scheme = adi::SchemeType::Douglas;  // its Rhs phase is the whole right-hand side
    for (int a = 0; a < 3; ++a) p.lo_data[a].table = p.hi_data[a].table = {};
    const std::vector<double> u = random_field(p, rng);
    auto st = adi::make_stepper<double>(p, adi::Backend::Cpu);
    st->set_field(u.data());
    st->run_phase(adi::Phase::Rhs);
    std::vector<double> w(u.size()), c(u.size());
    st->get_work(w.data());
    p.material.capacity->read({{0, 0, 0}}, p.n, c.data());
    const adi::EnergyWeights ew = adi::energy_weights(p);
    double rate = 0.0;
    for (index_t k = 0; k < p.n[2]; ++k)
      for (index_t j = 0; j < p.n[1]; ++j)
        for (index_t i = 0; i < p.n[0]; ++i) {
          const std::size_t o = static_cast<std::size_t>(i + p.n[0] * (j + p.n[1] * k));
          rate += ew.volume(i, j, k) * c[o] * w[o] / p.dt;
        }
    const HeatFlows f = adi::heat_flows(p, u.data(), 0.0);
    EXPECT_NEAR(f.dEdt, rate, 1e-11 * f.scale());
    const adi::HeatFlowMeter m = adi::make_heat_flow_meter(*st);
    const HeatFlows g = adi::measure_heat_flows(*st, m);
    EXPECT_EQ(g.dEdt, f.dEdt);
    EXPECT_EQ(g.face[0][1], f.face[0][1]);
  }
}

// Dirichlet 1 at x_lo, 0 at x_hi, insulated elsewhere, at the linear steady
// profile: K A / L in at x_lo, out at x_hi, nothing stored.
TEST(HeatFlows, SlabAtItsLinearProfileIsExact) {
  HeatProblem p;
  p.n = {11, 4, 5};
  p.length = {0.5, 0.3, 0.2};
  p.alpha = {3.0, 7.0, 5.0};
  p.capacity = 2e6;
  p.lo = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  std::vector<double> u(static_cast<std::size_t>(p.points()));
  for (index_t k = 0; k < 5; ++k)
    for (index_t j = 0; j < 4; ++j)
      for (index_t i = 0; i < 11; ++i) u[static_cast<std::size_t>(i + 11 * (j + 4 * k))] = 1.0 - i / 10.0;
  const HeatFlows f = adi::heat_flows(p, u.data(), 0.0);
  const double KAL = 3.0 * 0.3 * 0.2 / 0.5;
  EXPECT_NEAR(f.face[0][0], KAL, 1e-13 * KAL);
  EXPECT_NEAR(f.face[0][1], -KAL, 1e-13 * KAL);
  EXPECT_NEAR(f.dEdt, 0.0, 1e-13 * KAL);
  for (int a = 1; a < 3; ++a) EXPECT_EQ(f.face[a][0] + f.face[a][1], 0.0);
  EXPECT_EQ(f.source, 0.0);
  EXPECT_EQ(adi::heat_flow_face_kind(p, 1, 0), "insulated");
  EXPECT_EQ(adi::heat_flow_face_kind(p, 0, 1), "dirichlet");
}

// A convective face at a uniform field: h A (u_inf - u), the rest insulated.
TEST(HeatFlows, ConvectiveFaceAtAUniformField) {
  HeatProblem p;
  p.n = {6, 7, 5};
  p.length = {0.4, 0.3, 0.25};
  p.lo = {Boundary::Neumann, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Robin};
  p.hi_data[2].h = 35.0;
  p.hi_data[2].ambient = 20.0;
  const std::vector<double> u(static_cast<std::size_t>(p.points()), 70.0);
  const HeatFlows f = adi::heat_flows(p, u.data(), 0.0);
  const double expect = 35.0 * 0.4 * 0.3 * (20.0 - 70.0);
  EXPECT_NEAR(f.face[2][1], expect, 1e-13 * std::fabs(expect));
  EXPECT_NEAR(f.dEdt, expect, 1e-13 * std::fabs(expect));
  EXPECT_EQ(adi::heat_flow_face_kind(p, 2, 1), "convective");
}

// A radiating face (beside a convective exchange) at a uniform field:
// eps sigma (T_inf^4 - u^4) A + h A (u_inf - u), into dE/dt too.
TEST(HeatFlows, RadiatingFaceAtAUniformField) {
  HeatProblem p;
  p.n = {6, 7, 5};
  p.length = {0.4, 0.3, 0.25};
  p.lo = {Boundary::Neumann, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Robin};
  p.hi_data[2].h = 35.0;
  p.hi_data[2].ambient = 290.0;
  p.hi_data[2].emissivity = 0.7;
  p.hi_data[2].radiation_ambient = 250.0;
  p.lo_data[0].emissivity = 0.4;  // an otherwise insulated face
  p.lo_data[0].radiation_ambient = 300.0;
  const std::vector<double> u(static_cast<std::size_t>(p.points()), 700.0);
  const HeatFlows f = adi::heat_flows(p, u.data(), 0.0);
  const double s = adi::kStefanBoltzmann;
  const double z = (0.7 * s * (std::pow(250.0, 4) - std::pow(700.0, 4)) + 35.0 * (290.0 - 700.0)) * 0.4 * 0.3;
  const double x = 0.4 * s * (std::pow(300.0, 4) - std::pow(700.0, 4)) * 0.3 * 0.25;
  EXPECT_NEAR(f.face[2][1], z, 1e-13 * std::fabs(z));
  EXPECT_NEAR(f.face[0][0], x, 1e-13 * std::fabs(x));
  EXPECT_NEAR(f.dEdt, x + z, 1e-13 * std::fabs(x + z));
  EXPECT_EQ(adi::heat_flow_face_kind(p, 2, 1), "convective+radiation");
  EXPECT_EQ(adi::heat_flow_face_kind(p, 0, 0), "radiation");
}

// K(T) = k0 (1 + beta T) between two fixed faces at the Kirchhoff profile
// (theta(T) = k0 (T + beta T^2 / 2) linear in x): the flows at the instant
// take each node's K at its own temperature; the balance closes, and the
// flow into the body at x_lo tends to (theta(Ta) - theta(Tb)) A / L
// (second order: the harmonic means of the nodes' K).
TEST(HeatFlows, TemperatureDependentConductivityAtTheNodesTemperatures) {
  const double k0 = 0.5, beta = 0.004, Ta = 300.0, Tb = 600.0;
  auto theta = [&](double T) { return k0 * (T + 0.5 * beta * T * T); };
  double last_err = 0.0;
  for (const index_t nx : {21, 41}) {
    HeatProblem p;
    p.n = {nx, 4, 3};
    p.length = {1.0, 0.3, 0.2};
    p.lo = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
    p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
    adi::TemperatureMaterial m;
    m.name = "k(T)";
    m.conductivity.fill(adi::PropertyTable{{250.0, 650.0}, {k0 * (1 + beta * 250.0), k0 * (1 + beta * 650.0)}});
    m.capacity = adi::PropertyTable::constant_value(1.0);
    auto st = std::make_shared<adi::TemperatureState>(p.n, nullptr, std::vector<adi::TemperatureMaterial>{m}, true);
    p.material.temperature = st;
    p.material.conductivity = {st->conductivity(0), st->conductivity(1), st->conductivity(2)};
    p.material.capacity = st->capacity();
    std::vector<double> u(static_cast<std::size_t>(p.points()));
    for (index_t k = 0; k < p.n[2]; ++k)
      for (index_t j = 0; j < p.n[1]; ++j)
        for (index_t i = 0; i < nx; ++i) {
          const double x = static_cast<double>(i) / static_cast<double>(nx - 1);
          const double th = theta(Ta) + (theta(Tb) - theta(Ta)) * x;
          u[static_cast<std::size_t>(i + nx * (j + p.n[1] * k))] = (std::sqrt(1.0 + 2.0 * beta * th / k0) - 1.0) / beta;
        }
    const HeatFlows f = adi::heat_flows(p, u.data(), 0.0);
    expect_balance(f, "K(T) slab");
    const double exact = (theta(Ta) - theta(Tb)) * 0.3 * 0.2;
    EXPECT_NEAR(f.face[0][0], exact, 1e-3 * std::fabs(exact));
    EXPECT_NEAR(f.face[0][1], -exact, 1e-3 * std::fabs(exact));
    const double err = std::fabs(f.face[0][0] - exact);
    if (last_err > 0.0) {
      EXPECT_GT(last_err / err, 3.5) << "not second order: " << last_err << " then " << err;
    }
    last_err = err;
  }
}
