// The distributed line-solve plan (distributed_line.hpp): pure code, no MPI.

#include <adi/distributed_line.hpp>

#include <cmath>
#include <sstream>

namespace adi {

namespace {

using Real = long double;

/// A_p^{-1} e_r for the m x m block `A` (Thomas in long double; the block is
/// diagonally dominant, so no pivoting). Throws on a zero pivot.
std::vector<Real> block_column(const LineMatrix& A, index_t r) {
  const index_t m = A.size();
  std::vector<Real> cp(m), y(m, 0.0L);
  y[r] = 1.0L;
  Real prev_cp = 0.0L, prev_y = 0.0L;
  for (index_t i = 0; i < m; ++i) {
    const Real a = i > 0 ? A.a[i] : 0.0L;
    const Real piv = A.b[i] - a * prev_cp;
    if (!(std::fabs(piv) > 1e-300L) || !std::isfinite(static_cast<double>(piv)))
      ADI_THROW(NumericalError, "distributed line solve: zero pivot in a rank's block of the line matrix");
    cp[i] = (i + 1 < m ? A.c[i] : 0.0L) / piv;
    y[i] = (y[i] - a * prev_y) / piv;
    prev_cp = cp[i];
    prev_y = y[i];
  }
  for (index_t i = m - 2; i >= 0; --i) y[i] -= cp[i] * y[i + 1];
  return y;
}

}  // namespace

DistributedLinePlan DistributedLinePlan::build(const LineMatrix& global, const Split1D& split, int part) {
  const index_t n = global.size();
  ADI_REQUIRE(split.n == n, "distributed line plan: the split is for another line length");
  ADI_REQUIRE(split.parts >= 1 && split.parts <= n, "distributed line plan: more parts than rows");
  ADI_REQUIRE(part >= 0 && part < split.parts, "distributed line plan: part outside the split");
  const int P = split.parts;
  DistributedLinePlan plan;
  plan.parts = P;
  plan.part = part;

  // Every part's block and its alpha/beta (each rank needs all of them for
  // the reduced system; P is small, so this is cheap).
  std::vector<std::vector<Real>> alpha(P), beta(P);
  std::vector<LineMatrix> blocks(P);
  for (int q = 0; q < P; ++q) {
    const index_t r0 = split.begin(q), m = split.size(q);
    LineMatrix A(m);
    for (index_t i = 0; i < m; ++i) {
      A.a[i] = i > 0 ? global.a[r0 + i] : 0.0;
      A.b[i] = global.b[r0 + i];
      A.c[i] = i + 1 < m ? global.c[r0 + i] : 0.0;
    }
    alpha[q].assign(m, 0.0L);
    beta[q].assign(m, 0.0L);
    if (q > 0 && global.a[r0] != 0.0) {
      alpha[q] = block_column(A, 0);
      for (auto& v : alpha[q]) v *= -static_cast<Real>(global.a[r0]);
    }
    if (q < P - 1 && global.c[r0 + m - 1] != 0.0) {
      beta[q] = block_column(A, m - 1);
      for (auto& v : beta[q]) v *= -static_cast<Real>(global.c[r0 + m - 1]);
    }
    blocks[q] = std::move(A);
  }
  plan.begin = split.begin(part);
  plan.size = split.size(part);
  plan.local = blocks[part];
  // Pivots of the rank's own block are checked (ThomasFactor will use them).
  (void)block_column(plan.local, 0);
  plan.alpha.assign(alpha[part].begin(), alpha[part].end());
  plan.beta.assign(beta[part].begin(), beta[part].end());
  const int K = 2 * P;
  plan.w_prev.assign(K, 0.0);
  plan.w_next.assign(K, 0.0);
  if (P == 1) return plan;

  // R z = S g (see the header), solved for W = R^{-1} S by Gaussian
  // elimination with partial pivoting on [R | S].
  std::vector<Real> M(static_cast<std::size_t>(K) * 2 * K, 0.0L);
  auto R = [&](int r, int c) -> Real& { return M[static_cast<std::size_t>(r) * 2 * K + c]; };
  auto S = [&](int r, int c) -> Real& { return M[static_cast<std::size_t>(r) * 2 * K + K + c]; };
  for (int q = 0; q < P; ++q) {
    const index_t m = split.size(q);
    const int f = 2 * q, l = 2 * q + 1;
    R(f, f) = 1.0L;
    S(f, f) = 1.0L;
    if (q > 0) R(f, f - 1) = -alpha[q][0];
    if (q < P - 1) R(f, l + 1) = -beta[q][0];
    if (m > 1) {
      R(l, l) = 1.0L;
      S(l, l) = 1.0L;
      if (q > 0) R(l, f - 1) = -alpha[q][m - 1];
      if (q < P - 1) R(l, l + 1) = -beta[q][m - 1];
    } else {  // first = last: z_l - z_f = g_l - g_f (= 0)
      R(l, l) = 1.0L;
      R(l, f) = -1.0L;
      S(l, l) = 1.0L;
      S(l, f) = -1.0L;
    }
  }
  for (int c = 0; c < K; ++c) {
    int piv = c;
    for (int r = c + 1; r < K; ++r)
      if (std::fabs(R(r, c)) > std::fabs(R(piv, c))) piv = r;
    if (!(std::fabs(R(piv, c)) > 1e-300L))
      ADI_THROW(NumericalError, "distributed line solve: the reduced system is singular");
    if (piv != c)
      for (int j = 0; j < 2 * K; ++j) std::swap(R(c, j), R(piv, j));
    for (int r = 0; r < K; ++r) {
      if (r == c || R(r, c) == 0.0L) continue;
      const Real f = R(r, c) / R(c, c);
      for (int j = c; j < 2 * K; ++j) R(r, j) -= f * R(c, j);
    }
  }
  auto W = [&](int r, int k) { return static_cast<double>(S(r, k) / R(r, r)); };
  for (int k = 0; k < K; ++k) {
    if (part > 0) plan.w_prev[k] = W(2 * part - 1, k);
    if (part < P - 1) plan.w_next[k] = W(2 * part + 2, k);
  }
  return plan;
}

}  // namespace adi
