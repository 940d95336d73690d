#include <adi/analytic.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace adi {

namespace {
constexpr double kPi = 3.14159265358979323846;

// The 1D mode of one axis sampled at its nodes; exactly zero on Dirichlet faces.
std::vector<double> axis_shape(const HeatProblem& p, const AnalyticMode& m, int a) {
  const index_t n = p.n[a];
  const double h = p.spacing(a);
  std::vector<double> f(n);
  for (index_t i = 0; i < n; ++i) {
    const double x = m.k[a] * h * static_cast<double>(i);
    f[i] = m.cosine[a] ? std::cos(x) : std::sin(x);
  }
  if (p.lo[a] == Boundary::Dirichlet) f[0] = 0.0;
  if (p.hi[a] == Boundary::Dirichlet) f[n - 1] = 0.0;
  return f;
}
}  // namespace

AnalyticMode analytic_mode(const HeatProblem& p) {
  AnalyticMode m;
  std::array<double, 3> mu{};
  for (int a = 0; a < 3; ++a) {
    const bool lo_d = p.lo[a] == Boundary::Dirichlet, hi_d = p.hi[a] == Boundary::Dirichlet;
    // Same kind on both faces: half a wavelength across the box; mixed: a quarter.
    m.k[a] = (lo_d == hi_d ? kPi : kPi / 2.0) / p.length[a];
    m.cosine[a] = !lo_d;
    m.decay_rate += p.alpha[a] * m.k[a] * m.k[a];
    const double s = std::sin(0.5 * m.k[a] * p.spacing(a));
    mu[a] = -4.0 * p.mesh_ratio(a) * s * s;  // eigenvalue of dt * L_a on this mode
  }
  m.amplification = step_amplification(p, mu);
  return m;
}

double analytic_shape(const HeatProblem& p, const AnalyticMode& m, index_t i, index_t j, index_t k) {
  const index_t idx[3] = {i, j, k};
  double v = 1.0;
  for (int a = 0; a < 3; ++a) {
    if ((idx[a] == 0 && p.lo[a] == Boundary::Dirichlet) || (idx[a] == p.n[a] - 1 && p.hi[a] == Boundary::Dirichlet))
      return 0.0;
    const double x = m.k[a] * p.spacing(a) * static_cast<double>(idx[a]);
    v *= m.cosine[a] ? std::cos(x) : std::sin(x);
  }
  return v;
}

template <class T>
void fill_analytic_box(const HeatProblem& p, const std::array<index_t, 3>& begin, const std::array<index_t, 3>& size,
                       std::vector<T>& u) {
  const AnalyticMode m = analytic_mode(p);
  const auto fx = axis_shape(p, m, 0), fy = axis_shape(p, m, 1), fz = axis_shape(p, m, 2);
  const index_t nx = size[0], ny = size[1], nz = size[2];
  u.resize(static_cast<std::size_t>(nx * ny * nz));
#pragma omp parallel for schedule(static)
  for (index_t k = 0; k < nz; ++k)
    for (index_t j = 0; j < ny; ++j) {
      const double yz = fy[begin[1] + j] * fz[begin[2] + k];
      T* row = u.data() + (k * ny + j) * nx;
      for (index_t i = 0; i < nx; ++i) row[i] = static_cast<T>(fx[begin[0] + i] * yz);
    }
}

template <class T>
void fill_analytic(const HeatProblem& p, std::vector<T>& u) {
  fill_analytic_box(p, {{0, 0, 0}}, p.n, u);
}

template <class T>
ErrorSums compare_box_with_mode(const HeatProblem& p, const std::array<index_t, 3>& begin,
                                const std::array<index_t, 3>& size, const T* values, double scale) {
  const AnalyticMode m = analytic_mode(p);
  const auto fx = axis_shape(p, m, 0), fy = axis_shape(p, m, 1), fz = axis_shape(p, m, 2);
  const index_t nx = size[0], ny = size[1], nz = size[2];
  double emax = 0.0, esq = 0.0, rmax = 0.0;
  bool finite = true;
#pragma omp parallel for schedule(static) reduction(max : emax, rmax) reduction(+ : esq) reduction(&& : finite)
  for (index_t k = 0; k < nz; ++k)
    for (index_t j = 0; j < ny; ++j) {
      const double yz = scale * fy[begin[1] + j] * fz[begin[2] + k];
      const T* row = values + (k * ny + j) * nx;
      for (index_t i = 0; i < nx; ++i) {
        const double ref = fx[begin[0] + i] * yz;
        const double v = static_cast<double>(row[i]);
        finite = finite && std::isfinite(v);
        const double e = std::abs(v - ref);
        emax = std::max(emax, e);
        esq += e * e;
        rmax = std::max(rmax, std::abs(ref));
      }
    }
  ErrorSums out;
  out.max_abs = emax;
  out.sum_sq = esq;
  out.ref_max = rmax;
  out.finite = finite;
  return out;
}

ErrorNorms ErrorSums::norms(index_t points) const {
  ErrorNorms out;
  // A NaN must never compare as small.
  out.max_abs = finite ? max_abs : std::numeric_limits<double>::infinity();
  out.rms = finite ? std::sqrt(sum_sq / static_cast<double>(points)) : std::numeric_limits<double>::infinity();
  out.ref_max = ref_max;
  return out;
}

template <class T>
ErrorNorms compare_with_mode(const HeatProblem& p, const std::vector<T>& u, double scale) {
  return compare_box_with_mode(p, {{0, 0, 0}}, p.n, u.data(), scale).norms(p.points());
}

template void fill_analytic<float>(const HeatProblem&, std::vector<float>&);
template void fill_analytic<double>(const HeatProblem&, std::vector<double>&);
template ErrorNorms compare_with_mode<float>(const HeatProblem&, const std::vector<float>&, double);
template ErrorNorms compare_with_mode<double>(const HeatProblem&, const std::vector<double>&, double);
template void fill_analytic_box<float>(const HeatProblem&, const std::array<index_t, 3>&, const std::array<index_t, 3>&,
                                       std::vector<float>&);
template void fill_analytic_box<double>(const HeatProblem&, const std::array<index_t, 3>&,
                                        const std::array<index_t, 3>&, std::vector<double>&);
template ErrorSums compare_box_with_mode<float>(const HeatProblem&, const std::array<index_t, 3>&,
                                                const std::array<index_t, 3>&, const float*, double);
template ErrorSums compare_box_with_mode<double>(const HeatProblem&, const std::array<index_t, 3>&,
                                                 const std::array<index_t, 3>&, const double*, double);

}  // namespace adi
