#pragma once
// The analytic solution the scheme is validated against: a product of one
// mode per axis, chosen by that axis' boundary conditions so that it is an
// exact eigenvector of both the continuous and the discrete operator:
//   Dirichlet/Dirichlet: sin(pi x / L)        Neumann/Neumann: cos(pi x / L)
//   Dirichlet/Neumann:   sin(pi x / (2L))     Neumann/Dirichlet: cos(pi x / (2L))
// With all-Dirichlet faces on the unit cube this is
//   u = exp(-pi^2 (ax + ay + az) t) sin(pi x) sin(pi y) sin(pi z).
// Exact in time: u(t) = exp(-sum_a alpha_a k_a^2 t) u(0).
// Discrete: each step multiplies the mode by the Douglas amplification factor
// g, so after n steps U = g^n U(0) to round-off (the round-off check), while
// the difference to the exact solution is O(h^2 + dt^2) (the convergence check).

#include <adi/common.hpp>
#include <adi/scheme.hpp>

#include <array>
#include <cmath>
#include <vector>

namespace adi {

struct AnalyticMode {
  std::array<double, 3> k{};           ///< wavenumber per axis [1/m]
  std::array<bool, 3> cosine{};        ///< cos (true) or sin (false)
  double decay_rate = 0.0;             ///< sum alpha_a k_a^2 [1/s]
  double amplification = 1.0;          ///< discrete g of one Douglas step
};
AnalyticMode analytic_mode(const HeatProblem& p);

/// The mode's shape at node (i, j, k), t = 0 (exactly 0 on Dirichlet faces).
double analytic_shape(const HeatProblem& p, const AnalyticMode& m, index_t i, index_t j, index_t k);
/// Exact solution at time t.
inline double analytic_exact(const HeatProblem& p, const AnalyticMode& m, index_t i, index_t j, index_t k,
                             double t);

/// Fills a packed host field with the initial mode.
template <class T>
void fill_analytic(const HeatProblem& p, std::vector<T>& u);
/// The same for the sub-box of nodes begin[a] .. begin[a] + size[a] - 1
/// (x, y, z), packed x fastest into u (resized): one rank's part of a
/// distributed run, the same values as the whole field's.
template <class T>
void fill_analytic_box(const HeatProblem& p, const std::array<index_t, 3>& begin,
                       const std::array<index_t, 3>& size, std::vector<T>& u);

struct ErrorNorms {
  double max_abs = 0.0;   ///< max |u - ref|
  double rms = 0.0;       ///< sqrt(mean (u - ref)^2)
  double ref_max = 0.0;   ///< max |ref|
  double rel_max() const { return ref_max > 0 ? max_abs / ref_max : max_abs; }
};

/// Compares a packed field with scale * shape (scale = exp(-rate t) for the
/// exact solution, g^n for the discrete one).
template <class T>
ErrorNorms compare_with_mode(const HeatProblem& p, const std::vector<T>& u, double scale);

/// What compare_with_mode reduces, for one sub-box (begin, size as in
/// fill_analytic_box; values packed x fastest): maxima and a sum, so that
/// the ranks of a distributed run combine theirs (max, max, sum, and) and
/// call norms() without gathering the field.
struct ErrorSums {
  double max_abs = 0.0, ref_max = 0.0, sum_sq = 0.0;
  bool finite = true;
  ErrorNorms norms(index_t points) const;
};
template <class T>
ErrorSums compare_box_with_mode(const HeatProblem& p, const std::array<index_t, 3>& begin,
                                const std::array<index_t, 3>& size, const T* values, double scale);

inline double analytic_exact(const HeatProblem& p, const AnalyticMode& m, index_t i, index_t j, index_t k,
                             double t) {
  return analytic_shape(p, m, i, j, k) * std::exp(-m.decay_rate * t);
}

}  // namespace adi
