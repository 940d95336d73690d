#include <adi/scheme.hpp>

#include <cmath>
#include <sstream>

namespace adi {

void HeatProblem::validate() const {
  const char* names[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    if (n[a] < 3) {
      std::ostringstream s;
      s << "n" << names[a] << " = " << n[a] << ": a grid axis needs at least 3 nodes (two boundary nodes and one "
                                              "interior node)";
      ADI_THROW(InvalidArgument, s.str());
    }
    if (!(length[a] > 0.0) || !std::isfinite(length[a])) {
      std::ostringstream s;
      s << "domain length along " << names[a] << " = " << length[a] << ": expected a finite value > 0";
      ADI_THROW(InvalidArgument, s.str());
    }
    if (!(alpha[a] >= 0.0) || !std::isfinite(alpha[a])) {
      std::ostringstream s;
      s << "diffusivity along " << names[a] << " = " << alpha[a] << ": expected a finite value >= 0";
      ADI_THROW(InvalidArgument, s.str());
    }
  }
  if (!(dt > 0.0) || !std::isfinite(dt)) {
    std::ostringstream s;
    s << "dt = " << dt << ": expected a finite value > 0";
    ADI_THROW(InvalidArgument, s.str());
  }
  if (!(theta >= 0.5 && theta <= 1.0)) {
    std::ostringstream s;
    s << "theta = " << theta
      << ": expected 0.5 <= theta <= 1 (below 1/2 the 3D Douglas scheme is not unconditionally stable)";
    ADI_THROW(InvalidArgument, s.str());
  }
}

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

}  // namespace adi
