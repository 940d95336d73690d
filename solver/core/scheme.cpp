#include <adi/scheme.hpp>

#include <cmath>
#include <sstream>

namespace adi {

LineMatrix douglas_line_matrix(const HeatProblem& p, Axis axis) {
  const int ax = axis_index(axis);
  const index_t n = p.n[ax];
  const double r = p.theta * p.mesh_ratio(ax);  // theta dt alpha / h^2
  LineMatrix m(n);
  for (index_t i = 0; i < n; ++i) {
    m.a[i] = -r;
    m.b[i] = 1.0 + 2.0 * r;
    m.c[i] = -r;
  }
  // Boundary rows. Dirichlet: identity (D = 0 on the face). Neumann: the
  // mirrored ghost doubles the inward coupling.
  if (p.lo[ax] == Boundary::Dirichlet) {
    m.b[0] = 1.0;
    m.c[0] = 0.0;
  } else {
    m.c[0] = -2.0 * r;
  }
  m.a[0] = 0.0;
  if (p.hi[ax] == Boundary::Dirichlet) {
    m.a[n - 1] = 0.0;
    m.b[n - 1] = 1.0;
  } else {
    m.a[n - 1] = -2.0 * r;
  }
  m.c[n - 1] = 0.0;
  return m;
}

UnknownBox unknown_box(const HeatProblem& p) {
  UnknownBox b;
  b.n = p.n;
  for (int a = 1; a < 3; ++a) {
    if (p.flat(a) || p.periodic(a)) continue;
    const bool lo = p.lo[a] == Boundary::Dirichlet, hi = p.hi[a] == Boundary::Dirichlet;
    // n >= 3 on a non-flat axis (HeatProblem::validate): one unknown at least
    if (lo) b.lo[a] = 1, b.n[a] -= 1, b.lo_ghost[a] = true;
    if (hi) b.n[a] -= 1, b.hi_ghost[a] = true;
  }
  return b;
}

LineMatrix sub_line_matrix(const LineMatrix& m, index_t lo, index_t n) {
  ADI_REQUIRE(lo >= 0 && n >= 1 && lo + n <= m.size(), "sub_line_matrix: rows outside the line");
  LineMatrix s(n);
  for (index_t i = 0; i < n; ++i) {
    s.a[i] = m.a[lo + i];
    s.b[i] = m.b[lo + i];
    s.c[i] = m.c[lo + i];
  }
  s.a[0] = 0.0;
  s.c[n - 1] = 0.0;
  return s;
}

template <class T>
RhsCoefficients<T> rhs_coefficients(const HeatProblem& p) {
  RhsCoefficients<T> k{};
  for (int a = 0; a < 3; ++a) {
    k.c[a] = static_cast<T>(p.mesh_ratio(a));
    k.lo_neumann[a] = p.lo[a] == Boundary::Neumann;
    k.hi_neumann[a] = p.hi[a] == Boundary::Neumann;
    k.lo_fixed[a] = p.lo[a] == Boundary::Dirichlet;
    k.hi_fixed[a] = p.hi[a] == Boundary::Dirichlet;
    k.lo_ghost[a] = 0;
    k.hi_ghost[a] = 0;
    k.periodic[a] = p.periodic(a) ? 1 : 0;
  }
  return k;
}
template <class T>
RhsCoefficients<T> rhs_coefficients(const HeatProblem& p, const std::array<bool, 3>& lo_ghost,
                                    const std::array<bool, 3>& hi_ghost) {
  RhsCoefficients<T> k = rhs_coefficients<T>(p);
  for (int a = 0; a < 3; ++a) {
    if (lo_ghost[a]) k.lo_ghost[a] = 1, k.lo_fixed[a] = 0, k.lo_neumann[a] = 0;
    if (hi_ghost[a]) k.hi_ghost[a] = 1, k.hi_fixed[a] = 0, k.hi_neumann[a] = 0;
  }
  return k;
}
template RhsCoefficients<float> rhs_coefficients<float>(const HeatProblem&);
template RhsCoefficients<double> rhs_coefficients<double>(const HeatProblem&);
template RhsCoefficients<float> rhs_coefficients<float>(const HeatProblem&, const std::array<bool, 3>&,
                                                        const std::array<bool, 3>&);
template RhsCoefficients<double> rhs_coefficients<double>(const HeatProblem&, const std::array<bool, 3>&,
                                                          const std::array<bool, 3>&);

double douglas_amplification(const std::array<double, 3>& mu, double theta) {
  const double denom = (1.0 - theta * mu[0]) * (1.0 - theta * mu[1]) * (1.0 - theta * mu[2]);
  return 1.0 + (mu[0] + mu[1] + mu[2]) / denom;
}

double strang_amplification(const std::array<double, 3>& mu, double theta) {
  // x and y twice at dt / 2, z once at dt (split.hpp's sequence).
  auto factor = [&](double m) { return (1.0 + (1.0 - theta) * m) / (1.0 - theta * m); };
  const double gx = factor(0.5 * mu[0]), gy = factor(0.5 * mu[1]);
  return gx * gx * gy * gy * factor(mu[2]);
}

double step_amplification(const HeatProblem& p, const std::array<double, 3>& mu) {
  return p.scheme_in_use() == SchemeType::Strang ? strang_amplification(mu, p.theta)
                                                 : douglas_amplification(mu, p.theta);
}

double highest_mode_eigenvalue(const HeatProblem& p, int a) {
  const double pi = 3.14159265358979323846;
  const double m = static_cast<double>(p.n[a] - 1);
  const bool dl = p.lo[a] == Boundary::Dirichlet, dh = p.hi[a] == Boundary::Dirichlet;
  const double phi = dl && dh ? (m - 1.0) * pi / (2.0 * m) : !dl && !dh ? pi / 2.0 : (2.0 * m - 1.0) * pi / (4.0 * m);
  const double s = std::sin(phi);
  return -4.0 * p.mesh_ratio(a) * s * s;
}

namespace {
// The worst of the 7 corners for mesh ratios scaled by `scale` (dt * scale).
HighFrequencyDamping worst_corner(const HeatProblem& p, double scale) {
  HighFrequencyDamping w;
  double worst = -1.0;
  std::array<double, 3> top{};
  for (int a = 0; a < 3; ++a) top[a] = scale * highest_mode_eigenvalue(p, a);
  for (int mask = 1; mask < 8; ++mask) {
    std::array<double, 3> mu{};
    double sum = 0.0;
    for (int a = 0; a < 3; ++a)
      if (mask & (1 << a)) mu[a] = top[a], sum += top[a];
    const double g = step_amplification(p, mu);
    const double exact = std::exp(sum);
    const bool poor = std::fabs(g) > 0.9 && exact < 0.1;
    // The worst corner: a poor one first, then the largest |g| among those the
    // exact solution damps (exact < 0.1), so the message names what matters.
    const double key = (poor ? 2.0 : exact < 0.1 ? 1.0 : 0.0) + std::fabs(g) / 4.0;
    if (key > worst) {
      worst = key;
      w.g = g;
      w.exact = exact;
      for (int a = 0; a < 3; ++a) w.axes[a] = (mask >> a) & 1;
      w.poor = poor;
    }
  }
  return w;
}
}  // namespace

HighFrequencyDamping high_frequency_damping(const HeatProblem& p) {
  HighFrequencyDamping r = worst_corner(p, 1.0);
  if (!r.poor) {
    r.dt_ok = p.dt;
    return r;
  }
  // Largest dt without a poor corner: step down geometrically to a good one,
  // then bisect (poor-ness is not monotone in dt over the whole range, but it
  // is once lambda is below the poor region, which the first good step finds).
  double bad = 1.0, good = 0.0;
  for (double s = 0.9; s > 1e-12; s *= 0.9) {
    if (!worst_corner(p, s).poor) {
      good = s;
      break;
    }
    bad = s;
  }
  if (good > 0.0) {
    for (int it = 0; it < 60; ++it) {
      const double mid = 0.5 * (good + bad);
      (worst_corner(p, mid).poor ? bad : good) = mid;
    }
    r.dt_ok = good * p.dt;
  }
  return r;
}

}  // namespace adi
