#pragma once
// Batched tridiagonal solves along one axis of a 3D array.
//
// Row i of each line of length n reads
//     a[i] * x[i-1] + b[i] * x[i] + c[i] * x[i+1] = d[i],    i = 0 .. n-1
// with a[0] and c[n-1] ignored. Two flavours:
//   * constant coefficients: one matrix for every line along the axis (the ADI
//     case). It is factorised once (ThomasFactor) and the factorisation is
//     shared by all lines, so the solve reads and writes only d.
//   * general coefficients: arrays a, b, c with the same layout as d, one
//     matrix per line (the library case).
// Both solve in place: d is overwritten with x. Thomas' algorithm without
// pivoting is stable for diagonally dominant or symmetric positive definite
// matrices, which is what ADI produces; a zero pivot is reported, not divided by.

#include <adi/common.hpp>
#include <adi/error.hpp>
#include <adi/grid.hpp>

#include <vector>

namespace adi {

/// The three diagonals of one line's matrix, kept in double so that the
/// factorisation of a float matrix is as accurate as the float storage allows.
struct LineMatrix {
  std::vector<double> a, b, c;
  LineMatrix() = default;
  explicit LineMatrix(index_t n) : a(n, 0.0), b(n, 1.0), c(n, 0.0) {}
  index_t size() const { return static_cast<index_t>(b.size()); }
  /// y = A x for a dense check.
  std::vector<double> multiply(const std::vector<double>& x) const;
};

/// Thomas factorisation of a LineMatrix:  pivots p[i] = b[i] - a[i] * cp[i-1],
/// cp[i] = c[i] / p[i],  inv[i] = 1 / p[i]. Forward sweep
/// y[i] = (d[i] - a[i] y[i-1]) * inv[i]; back substitution x[i] = y[i] - cp[i] x[i+1].
/// Computed in double, stored in T.
template <class T>
class ThomasFactor {
 public:
  ThomasFactor() = default;
  /// Throws NumericalError on a (near-)zero pivot.
  static ThomasFactor factor(const LineMatrix& m);

  index_t size() const { return static_cast<index_t>(inv_.size()); }
  const T* lower() const { return a_.data(); }
  const T* upper_over_pivot() const { return cp_.data(); }
  const T* inv_pivot() const { return inv_.data(); }
  /// The matrix this factorisation came from (double), for the device
  /// backends that use their own algorithm on the same matrix.
  const LineMatrix& matrix() const { return matrix_; }

 private:
  std::vector<T> a_, cp_, inv_;
  LineMatrix matrix_;
};

namespace cpu {

/// d <- A^{-1} d for every line along `axis` (OpenMP across lines; y and z
/// lines are vectorised across their x-neighbours).
template <class T>
void solve_constant(Axis axis, const ThomasFactor<T>& f, T* d, const Layout3& layout);

/// d <- A^{-1} d with per-point coefficients a, b, c stored with the same
/// layout as d. Throws NumericalError on a zero or non-finite pivot, or on a
/// solution that is not finite (NaN or Inf in d: as adi::cuda::solve_general),
/// after finishing the other lines: d is then partially overwritten.
template <class T>
void solve_general(Axis axis, const T* a, const T* b, const T* c, T* d, const Layout3& layout);

/// The cyclic (periodic) systems along `axis`: row i couples nodes i - 1 and
/// i + 1 modulo n, so a at node 0 is the coefficient of node n - 1 and c at
/// node n - 1 that of node 0 (a periodic axis: n distinct nodes). n >= 3.
/// Sherman-Morrison on the line's own Thomas sweep (two right-hand sides).
/// Throws NumericalError on a zero or non-finite pivot or a non-finite
/// solution, as solve_general.
template <class T>
void solve_cyclic(Axis axis, const T* a, const T* b, const T* c, T* d, const Layout3& layout);

}  // namespace cpu
}  // namespace adi
