#pragma once
// Exact solves of constant-coefficient lines whose rows are split among P
// ranks (the reduced-system method), planned here as pure code: the MPI
// stepper only moves the numbers this plan says to move.
//
// Rank p owns rows r0 .. r1-1 (m = r1 - r0 rows) of every line along the
// axis. Its rows read A_p x_p = d_p - a[r0] X_prev e_first - c[r1-1] X_next e_last,
// where A_p is the m x m diagonal block of the line matrix, X_prev = x[r0-1]
// is the last unknown of the previous rank and X_next = x[r1] the first of
// the next. By linearity
//
//     x_p = y + alpha X_prev + beta X_next,     y = A_p^{-1} d_p,
//     alpha = -a[r0] A_p^{-1} e_first,  beta = -c[r1-1] A_p^{-1} e_last,
//
// and because the matrix is the same for every line, alpha and beta are
// computed once here (in double). Each rank therefore
//   1. solves its block with the ordinary local solver (cpu::solve_constant
//      or the CUDA ConstantSolver, on its own layout): y;
//   2. contributes two numbers per line, y at its first and last row
//      (the "reduction to two unknowns per rank"), to one all-gather over
//      the ranks of the axis: one message per direction however many lines;
//   3. computes X_prev and X_next of every line from the 2P gathered values
//      (below) and applies x = y + alpha X_prev + beta X_next pointwise.
//
// The interface unknowns z_{2q} = x[first row of q], z_{2q+1} = x[last row
// of q] satisfy, taking the first and last rows of each rank's formula,
//     z_{2q}   - alpha_first(q) z_{2q-1} - beta_first(q) z_{2q+2} = y_first(q)
//     z_{2q+1} - alpha_last(q)  z_{2q-1} - beta_last(q)  z_{2q+2} = y_last(q)
// (alpha = 0 on the first rank, beta = 0 on the last). This 2P x 2P system R
// is nonsingular whenever the line matrix is (a null vector would extend to
// a null vector of the whole matrix). A rank with a single row has
// first = last: its second equation is replaced by z_{2q+1} - z_{2q} = 0
// (= y_last - y_first, exactly 0 because both are the same value), i.e.
// R z = S g with g the gathered values and S the identity except for those
// rows. The plan stores the two rows of W = R^{-1} S that rank p needs,
//     X_prev = z_{2p-1} = sum_k w_prev[k] g_k,   X_next = z_{2p+2} = sum_k w_next[k] g_k,
// computed once by Gaussian elimination in long double: 4P multiply-adds per
// line, the same order as a tridiagonal solve of the 2P reduced rows, with
// no per-line factorisation, and single-row ranks need no special case
// later. With P = 1 there is nothing to exchange and the plan is the plain
// local solve (alpha = beta = 0).
//
// Stability: the line matrices of the Douglas scheme are strictly
// diagonally dominant by rows, so every block A_p is too (Thomas needs no
// pivoting), |alpha|, |beta| < 1, and the reduced system is the Schur
// complement of a diagonally dominant matrix: the corrections are well
// conditioned and the result agrees with a single-rank solve to round-off.

#include <adi/common.hpp>
#include <adi/decomposition.hpp>
#include <adi/tridiag.hpp>

#include <vector>

namespace adi {

struct DistributedLinePlan {
  int parts = 1;        ///< P: ranks along the axis
  int part = 0;         ///< p: this rank's position along it
  index_t begin = 0;    ///< r0: first row of the line this rank owns
  index_t size = 0;     ///< m: rows it owns
  LineMatrix local;     ///< A_p (a[0] = c[m-1] = 0: the couplings are in alpha/beta)
  std::vector<double> alpha, beta;      ///< m each (0 on the first / last rank)
  std::vector<double> w_prev, w_next;   ///< 2P each: rows 2p-1 and 2p+2 of W = R^{-1} S (0 at the ends)

  bool coupled() const { return parts > 1; }
  /// Values gathered per line: y_first and y_last of every rank.
  int gathered() const { return 2 * parts; }

  /// Plans rank `part`'s share of `global` split as `split`. Throws
  /// NumericalError on a singular block or reduced system.
  static DistributedLinePlan build(const LineMatrix& global, const Split1D& split, int part);
};

/// X_prev and X_next of one line from its gathered values g_k, k = 0 .. n-1,
/// found at g[k * stride] (the all-gather's layout puts the lines of one
/// value next to each other: stride = lines). The same function runs on the
/// CPU and in the CUDA correction kernel.
template <class T>
ADI_HD ADI_FORCEINLINE void interface_values(const T* g, index_t stride, int n, const T* w_prev, const T* w_next,
                                             T& x_prev, T& x_next) {
  T p = T(0), q = T(0);
  for (int k = 0; k < n; ++k) {
    const T v = g[k * stride];
    p += w_prev[k] * v;
    q += w_next[k] * v;
  }
  x_prev = p;
  x_next = q;
}

}  // namespace adi
