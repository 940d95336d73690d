// Probes (io/point_probes.hpp): trilinear interpolation that is exact at
// nodes, periodic wrap, points outside the box; and the nodal heat flux
// (io/heat_flux.hpp) of profiles whose face fluxes are all equal.

#include <adi/io/io.hpp>
#include <adi/radiation.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <regex>
#include <string>
#include <vector>

using namespace adi;
using namespace adi::io;

namespace {

std::vector<double> random_field(const std::array<index_t, 3>& n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(-3.0, 7.0);
  std::vector<double> u(static_cast<std::size_t>(n[0] * n[1] * n[2]));
  for (double& v : u) v = d(g);
  return u;
}

unsigned fresh_seed() {
  const unsigned s = std::random_device{}();
  std::printf("seed %u\n", s);
  return s;
}

ProbePoint point(const std::string& name, double x, double y, double z) {
  ProbePoint p;
  p.name = name;
  p.x = {{x, y, z}};
  p.where = "case.yaml:7:5";
  return p;
}

/// The trilinear value computed independently of the code under test (what
/// numpy / scipy's RegularGridInterpolator do): cell by floor, weights, the
/// eight corners summed in long double. Periodic axes wrap.
double reference(const RunConfig& c, const std::vector<double>& u, const std::array<double, 3>& x) {
  const HeatProblem& p = c.problem;
  index_t i0[3], i1[3];
  long double w[3];
  for (int a = 0; a < 3; ++a) {
    if (p.flat(a)) {
      i0[a] = i1[a] = 0;
      w[a] = 0;
      continue;
    }
    const long double t = (static_cast<long double>(x[a]) - c.origin[a]) / p.spacing(a);
    index_t i = static_cast<index_t>(std::floor(t));
    const index_t n = p.n[a];
    if (!p.periodic(a) && i >= n - 1) i = n - 2;
    w[a] = t - i;
    i0[a] = p.periodic(a) ? i % n : i;
    i1[a] = p.periodic(a) ? (i + 1) % n : i + 1;
  }
  long double s = 0;
  for (int c8 = 0; c8 < 8; ++c8) {
    index_t k[3];
    long double f = 1;
    for (int a = 0; a < 3; ++a) {
      const bool up = (c8 >> a) & 1;
      k[a] = up ? i1[a] : i0[a];
      f *= up ? w[a] : 1 - w[a];
    }
    if (f == 0) continue;
    s += f * u[static_cast<std::size_t>(k[0] + p.n[0] * (k[1] + p.n[1] * k[2]))];
  }
  return static_cast<double>(s);
}

const char* kBox = R"(grid: {nx: 13, ny: 7, nz: 10}
domain: {lx: 0.03, ly: 0.018, lz: 0.0075, origin: [0.001, -0.002, 0.0]}
boundary: {x: dirichlet, y: periodic, z: insulated}
time: {dt: 1e-3, steps: 3}
initial: {value: 0}
)";

}  // namespace

TEST(PointProbes, AtNodesTheFieldValueBitForBit) {
  const RunConfig c = parse_config(kBox, "case.yaml");
  const auto& n = c.problem.n;
  const auto u = random_field(n, fresh_seed());
  for (index_t k = 0; k < n[2]; ++k)
    for (index_t j = 0; j < n[1]; ++j)
      for (index_t i = 0; i < n[0]; ++i) {
        // Coordinates as a user types them: decimals, not o + i h exactly.
        char buf[3][32];
        const index_t idx[3] = {i, j, k};
        double x[3];
        for (int a = 0; a < 3; ++a) {
          std::snprintf(buf[a], sizeof buf[a], "%.12g", c.origin[a] + idx[a] * c.problem.spacing(a));
          x[a] = std::strtod(buf[a], nullptr);
        }
        const ProbeStencil s = locate_probe(c, point("p", x[0], x[1], x[2]), "probes.points.p");
        ASSERT_EQ(s.corners(), 1) << i << " " << j << " " << k;
        const double v = probe_value(s, u.data(), n);
        const double want = u[static_cast<std::size_t>(i + n[0] * (j + n[1] * k))];
        ASSERT_EQ(std::memcmp(&v, &want, sizeof v), 0) << "node " << i << " " << j << " " << k << ": " << v
                                                        << " != " << want;
      }
  // The periodic axis' far face is node 0 again.
  const double yend = c.origin[1] + c.problem.length[1];
  const ProbeStencil s = locate_probe(c, point("p", c.origin[0], yend, c.origin[2]), "probes.points.p");
  EXPECT_EQ(s.corners(), 1);
  EXPECT_EQ(probe_value(s, u.data(), n), u[0]);
}

TEST(PointProbes, BetweenNodesTrilinear) {
  const RunConfig c = parse_config(kBox, "case.yaml");
  const auto& n = c.problem.n;
  const unsigned seed = fresh_seed();
  const auto u = random_field(n, seed);
  std::mt19937_64 g(seed + 1);
  for (int trial = 0; trial < 2000; ++trial) {
    std::array<double, 3> x;
    for (int a = 0; a < 3; ++a) {
      std::uniform_real_distribution<double> d(c.origin[a], c.origin[a] + c.problem.length[a]);
      x[a] = d(g);
    }
    const ProbeStencil s = locate_probe(c, point("p", x[0], x[1], x[2]), "probes.points.p");
    const double v = probe_value(s, u.data(), n), want = reference(c, u, x);
    // Relative to the corner values: a sum of mixed signs may cancel to a small value.
    double scale = 0.0;
    for (int q = 0; q < s.corners(); ++q) {
      const auto k = s.corner(q);
      scale = std::max(scale, std::fabs(u[static_cast<std::size_t>(k[0] + n[0] * (k[1] + n[1] * k[2]))]));
    }
    ASSERT_NEAR(v, want, 1e-14 * scale) << "at " << x[0] << " " << x[1] << " " << x[2];
  }
  // A linear field is reproduced exactly by trilinear interpolation (to round-off).
  std::vector<double> lin(u.size());
  for (index_t k = 0; k < n[2]; ++k)
    for (index_t j = 0; j < n[1]; ++j)
      for (index_t i = 0; i < n[0]; ++i)
        lin[static_cast<std::size_t>(i + n[0] * (j + n[1] * k))] = 1.0 + 2.0 * i + 3.0 * k;
  const double x = c.origin[0] + 4.25 * c.problem.spacing(0), z = c.origin[2] + 6.5 * c.problem.spacing(2);
  const ProbeStencil s = locate_probe(c, point("p", x, c.origin[1] + 0.3 * c.problem.spacing(1), z), "k");
  EXPECT_EQ(s.corners(), 8);
  EXPECT_NEAR(probe_value(s, lin.data(), n), 1.0 + 2.0 * 4.25 + 3.0 * 6.5, 1e-13);
}

TEST(PointProbes, PeriodicWrapsBetweenLastNodeAndFirst) {
  const RunConfig c = parse_config(kBox, "case.yaml");
  const auto& n = c.problem.n;
  const auto u = random_field(n, fresh_seed());
  const double h = c.problem.spacing(1);
  const double y = c.origin[1] + (n[1] - 1 + 0.25) * h;  // between node n - 1 and node 0 (at ly)
  const ProbeStencil s = locate_probe(c, point("p", c.origin[0], y, c.origin[2]), "k");
  EXPECT_EQ(s.lo[1], n[1] - 1);
  EXPECT_EQ(s.hi[1], 0);
  EXPECT_NEAR(probe_value(s, u.data(), n), 0.75 * u[static_cast<std::size_t>(n[0] * (n[1] - 1))] + 0.25 * u[0], 1e-14);
}

TEST(PointProbes, OutsideTheBoxIsAConfigErrorAtItsKey) {
  const RunConfig c = parse_config(kBox, "case.yaml");
  for (const auto& p : {point("junction", 0.0, 0.0, 0.001), point("junction", 0.01, 0.0, 0.0076),
                        point("junction", 0.01, 0.0161, 0.001)}) {
    try {
      (void)locate_probe(c, p, "probes.points.junction");
      FAIL() << "expected a ConfigError";
    } catch (const ConfigError& e) {
      const std::string m = e.what();
      EXPECT_TRUE(std::regex_search(m, std::regex("^case\\.yaml:7:5: probes\\.points\\.junction: .*outside the box")))
          << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
}

TEST(PointProbes, FlatAxisCoordinateWithinItsExtent) {
  const RunConfig c = parse_config(
      "grid: {nx: 9, ny: 5, nz: 1}\ndomain: {lz: 0.1}\ntime: {dt: 1e-3, steps: 1}\ninitial: {value: 0}\n", "c.yaml");
  const auto u = random_field(c.problem.n, fresh_seed());
  const ProbeStencil s = locate_probe(c, point("p", 0.5, 0.5, 0.05), "k");
  EXPECT_EQ(s.lo[2], 0);
  EXPECT_EQ(s.w[2], 0.0);
  EXPECT_EQ(probe_value(s, u.data(), c.problem.n), u[4 + 9 * 2]);
  EXPECT_THROW((void)locate_probe(c, point("p", 0.5, 0.5, 0.2), "k"), ConfigError);
}

TEST(PointProbes, ConfigKeysAndErrors) {
  const std::string base = std::string(kBox) + "output: {file: out.h5}\n";
  const RunConfig c = parse_config(base + "probes: {points: {junction: [0.015, 0.005, 0.00375], edge: [0.001, 0, 0]}, "
                                          "every: 5, csv: true}\n",
                                   "case.yaml");
  ASSERT_EQ(c.probes.points.size(), 2u);
  EXPECT_EQ(c.probes.points[0].name, "junction");
  EXPECT_EQ(c.probes.points[1].name, "edge");
  EXPECT_EQ(c.probes.every, 5);
  EXPECT_EQ(probes_csv_path(c), "out.probes.csv");
  EXPECT_NE(c.resolved_yaml.find("probes:"), std::string::npos);
  // The resolved config reads back to the same probes.
  const RunConfig again = parse_config(c.resolved_yaml, "resolved.yaml");
  ASSERT_EQ(again.probes.points.size(), 2u);
  EXPECT_EQ(again.probes.points[0].x, c.probes.points[0].x);
  auto expect_error = [&](const std::string& probes, const std::string& re) {
    try {
      const RunConfig bad = parse_config(base + probes, "case.yaml");
      (void)locate_probes(bad);
      FAIL() << "expected a ConfigError matching " << re;
    } catch (const ConfigError& e) {
      EXPECT_TRUE(std::regex_search(e.what(), std::regex(re))) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  };
  expect_error("probes: {points: {a: [0.01, 0, 0], a: [0.02, 0, 0]}}\n", "case\\.yaml:7:36: .*duplicate key 'a'");
  expect_error("probes: {points: {a: [0.01, 0]}}\n", "case\\.yaml:7:22: probes\\.points\\.a: expected the point's");
  expect_error("probes: {points: {'a/b': [0.01, 0, 0]}}\n", "case\\.yaml:7:19: probes\\.points\\.a/b: expected a probe name");
  expect_error("probes: {points: {a: [0.01, 0, 0]}, every: 0}\n", "case\\.yaml:7:44: probes\\.every: expected a number of steps >= 1");
  expect_error("probes: {points: {a: [0.5, 0, 0]}}\n", "case\\.yaml:7:19: probes\\.points\\.a: the point \\(0\\.5, 0, 0\\) m "
                                                     "is outside the box");
}

// ---- the heat flux --------------------------------------------------------------

namespace {

/// q at every node of a steady linear profile u = u0 + b x along x; the
/// other axes are insulated (their component must be 0 exactly).
std::vector<double> flux_of_linear(const std::string& text, double u0, double b) {
  const RunConfig c = parse_config(text, "case.yaml");
  const HeatProblem& p = c.problem;
  std::vector<double> u(static_cast<std::size_t>(p.points()));
  for (index_t k = 0; k < p.n[2]; ++k)
    for (index_t j = 0; j < p.n[1]; ++j)
      for (index_t i = 0; i < p.n[0]; ++i) u[static_cast<std::size_t>(i + p.n[0] * (j + p.n[1] * k))] = u0 + b * i * p.spacing(0);
  const FluxConductivity K(p, {{0, 0, 0}}, p.n);
  return heat_flux_whole(p, 0.0, u.data(), K);
}

void expect_uniform(const std::vector<double>& q, double qx) {
  for (std::size_t n = 0; n < q.size() / 3; ++n) {
    ASSERT_NEAR(q[3 * n], qx, 1e-12 * std::fabs(qx)) << "node " << n;
    ASSERT_EQ(q[3 * n + 1], 0.0) << "node " << n;
    ASSERT_EQ(q[3 * n + 2], 0.0) << "node " << n;
  }
}

}  // namespace

TEST(HeatFlux, DirichletSlabIsMinusKOverL) {
  // u = 0 at x = 0, 1 at x = L = 0.4: q_x = -K / L everywhere, boundary nodes too.
  const auto q = flux_of_linear(R"(grid: {nx: 11, ny: 4, nz: 3}
domain: {lx: 0.4}
material: {conductivity: 2.5, heat_capacity: 1}
boundary: {x: dirichlet, default: insulated}
time: {dt: 1e-3, steps: 1}
initial: {value: 0}
)", 0.0, 1.0 / 0.4);
  expect_uniform(q, -2.5 / 0.4);
}

TEST(HeatFlux, FluxAndConvectiveFacesCarryTheSameFlux) {
  // F = 30 W/m^2 into the box at x = 0 (along +x), out through a convective
  // face at x = L: -K b = F, and h (u(L) - u_inf) = F.
  const double K = 1.5, F = 30.0, h = 12.0, L = 0.2, b = -F / K, u0 = 300.0;
  const double uinf = u0 + b * L - F / h;
  char text[512];
  std::snprintf(text, sizeof text, R"(grid: {nx: 9, ny: 3, nz: 1}
domain: {lx: %.17g}
material: {conductivity: %.17g, heat_capacity: 1}
boundary: {x: {lo: {type: neumann, flux: %.17g}, hi: {type: convective, h: %.17g, ambient: %.17g}}, default: insulated}
time: {dt: 1e-3, steps: 1}
initial: {value: 0}
)",
                L, K, F, h, uinf);
  expect_uniform(flux_of_linear(text, u0, b), F);
  // The same slab mirrored: flux in at x = L is along -x.
  std::snprintf(text, sizeof text, R"(grid: {nx: 9, ny: 3, nz: 1}
domain: {lx: %.17g}
material: {conductivity: %.17g, heat_capacity: 1}
boundary: {x: {hi: {type: neumann, flux: %.17g}, lo: {type: convective, h: %.17g, ambient: %.17g}}, default: insulated}
time: {dt: 1e-3, steps: 1}
initial: {value: 0}
)",
                L, K, F, h, u0 - F / h);
  expect_uniform(flux_of_linear(text, u0, F / K), -F);
}

TEST(HeatFlux, PeriodicWrapsAndInteriorIsTheMeanOfTwoFaces) {
  const RunConfig c = parse_config(R"(grid: {nx: 6, ny: 3, nz: 3}
material: {conductivity: 2.0, heat_capacity: 1}
boundary: {x: periodic, default: insulated}
time: {dt: 1e-3, steps: 1}
initial: {value: 0}
)",
                                   "case.yaml");
  const HeatProblem& p = c.problem;
  const auto u = random_field(p.n, fresh_seed());
  const FluxConductivity K(p, {{0, 0, 0}}, p.n);
  const auto q = heat_flux_whole(p, 0.0, u.data(), K);
  const double hx = p.spacing(0);
  for (index_t i = 0; i < 6; ++i) {
    const double um = u[static_cast<std::size_t>((i + 5) % 6)], uc = u[static_cast<std::size_t>(i)],
                 up = u[static_cast<std::size_t>((i + 1) % 6)];
    EXPECT_NEAR(q[3 * i], 0.5 * (-2.0 * (uc - um) / hx - 2.0 * (up - uc) / hx), 1e-12) << i;
  }
}

TEST(HeatFlux, RadiatingFaceCarriesTheSameFlux) {
  // x = 0 held at T1, x = L radiating (and convecting) into surroundings: at
  // the linear profile through the root T_L of K (T1 - T_L) / L = eps sigma
  // (T_L^4 - T_r^4) + h (T_L - u_inf), every node's q_x is that flux, the
  // radiating face's node included.
  const double K = 20.0, L = 0.05, T1 = 1000.0, eps = 0.8, Tr = 300.0, h = 15.0, uinf = 290.0;
  const double s = kStefanBoltzmann;
  double TL = T1;
  for (int i = 0; i < 100; ++i) {
    const double f = K * (T1 - TL) / L - eps * s * (std::pow(TL, 4) - std::pow(Tr, 4)) - h * (TL - uinf);
    TL -= f / (-K / L - 4.0 * eps * s * TL * TL * TL - h);
  }
  char text[600];
  std::snprintf(text, sizeof text, R"(grid: {nx: 11, ny: 3, nz: 1}
domain: {lx: %.17g}
material: {conductivity: %.17g, heat_capacity: 1}
boundary: {x: {lo: {type: dirichlet, value: %.17g}, hi: {type: convective, h: %.17g, ambient: %.17g, radiation: {emissivity: %.17g, ambient: %.17g}}}, default: insulated}
time: {dt: 1e-3, steps: 1}
initial: {value: 300}
)",
                L, K, T1, h, uinf, eps, Tr);
  expect_uniform(flux_of_linear(text, T1, (TL - T1) / L), K * (T1 - TL) / L);
}

TEST(HeatFlux, TemperatureDependentConductivityAtTheNodesTemperatures) {
  // K(T) = k0 (1 + beta T) between fixed faces at the Kirchhoff profile
  // (theta = k0 (T + beta T^2 / 2) linear in x): q_x tends to (theta(Ta) -
  // theta(Tb)) / L at every node, second order.
  const double k0 = 0.5, beta = 0.004, Ta = 300.0, Tb = 600.0;
  auto theta = [&](double T) { return k0 * (T + 0.5 * beta * T * T); };
  const double exact = (theta(Ta) - theta(Tb)) / 1.0;
  double last = 0.0;
  for (const index_t nx : {21, 41}) {
    char text[600];
    std::snprintf(text, sizeof text, R"(grid: {nx: %d, ny: 3, nz: 1}
material: {materials: {m: {conductivity: [[250, %.17g], [650, %.17g]], heat_capacity: 1}}}
boundary: {x: dirichlet, default: insulated}
time: {dt: 1e-3, steps: 1}
initial: {value: 300}
)",
                  static_cast<int>(nx), k0 * (1 + beta * 250.0), k0 * (1 + beta * 650.0));
    RunConfig c = parse_config(text, "case.yaml");
    attach_fields(c, false);
    const HeatProblem& p = c.problem;
    std::vector<double> u(static_cast<std::size_t>(p.points()));
    for (index_t j = 0; j < p.n[1]; ++j)
      for (index_t i = 0; i < nx; ++i) {
        const double th = theta(Ta) + (theta(Tb) - theta(Ta)) * static_cast<double>(i) / static_cast<double>(nx - 1);
        u[static_cast<std::size_t>(i + nx * j)] = (std::sqrt(1.0 + 2.0 * beta * th / k0) - 1.0) / beta;
      }
    FluxConductivity Kf(p, {{0, 0, 0}}, p.n);
    GhostedBox<double> whole;
    whole.size = p.n;
    whole.box = u.data();
    Kf.update(p, whole);
    const auto q = heat_flux_whole(p, 0.0, u.data(), Kf);
    double worst = 0.0;
    for (std::size_t n = 0; n < q.size() / 3; ++n) {
      worst = std::max(worst, std::fabs(q[3 * n] - exact));
      ASSERT_EQ(q[3 * n + 1], 0.0);
    }
    EXPECT_LT(worst, 1e-2 * std::fabs(exact));
    if (last > 0.0) {
      EXPECT_GT(last / worst, 3.5) << "not second order: " << last << " then " << worst;
    }
    last = worst;
  }
}
