#pragma once
// One tridiagonal (or cyclic tridiagonal) line solved from its rows on the
// host, written to be read: the oracle's per-line solves (cpu/line_rows.hpp
// builds its batched forms on them) and the reduced systems of the
// distributed general path on CPU ranks (detail/general_local.hpp; GPU ranks
// repeat these operations in box_reduced_kernel).
#include <adi/common.hpp>

#include <cmath>

namespace adi::detail {

/// Thomas in place on rows a, b, c (a[0] and c[n-1] ignored): d <- A^{-1} d;
/// cp is scratch of n. Returns false on a zero or non-finite pivot.
template <class T>
bool thomas(index_t n, const T* a, const T* b, const T* c, T* d, T* cp) {
  T piv = b[0];
  bool ok = std::isfinite(static_cast<double>(piv)) && piv != T(0);
  T inv = T(1) / piv;
  cp[0] = n > 1 ? c[0] * inv : T(0);
  d[0] *= inv;
  for (index_t i = 1; i < n; ++i) {
    piv = b[i] - a[i] * cp[i - 1];
    ok = ok && std::isfinite(static_cast<double>(piv)) && piv != T(0);
    inv = T(1) / piv;
    cp[i] = i + 1 < n ? c[i] * inv : T(0);
    d[i] = (d[i] - a[i] * d[i - 1]) * inv;
  }
  for (index_t i = n - 2; i >= 0; --i) d[i] -= cp[i] * d[i + 1];
  return ok;
}

/// The cyclic system: rows a, b, c plus the corners lo = A[0][n-1] (node 0's
/// coupling to node n-1, i.e. a[0]) and hi = A[n-1][0] (c[n-1]). Sherman-
/// Morrison: A = T + u v^T with T = A without its corners and with
/// b[0] - g, b[n-1] - hi lo / g (g = -b[0], which keeps T diagonally dominant
/// when A is); u = (g, 0, ..., hi), v = (1, 0, ..., lo / g). Solve T y = d and
/// T z = u with one factorisation, then x = y - z (v.y) / (1 + v.z).
/// Scratch: cp, z and bb of n each. Needs n >= 3.
template <class T>
bool cyclic(index_t n, const T* a, const T* b, const T* c, T* d, T* cp, T* z, T* bb) {
  const T lo = a[0], hi = c[n - 1];
  const T g = -b[0];
  for (index_t i = 0; i < n; ++i) bb[i] = b[i];
  bb[0] = b[0] - g;
  bb[n - 1] = b[n - 1] - hi * lo / g;
  for (index_t i = 0; i < n; ++i) z[i] = T(0);
  z[0] = g;
  z[n - 1] = hi;
  // One forward elimination for both right-hand sides.
  T piv = bb[0];
  bool ok = std::isfinite(static_cast<double>(piv)) && piv != T(0);
  T inv = T(1) / piv;
  cp[0] = c[0] * inv;
  d[0] *= inv;
  z[0] *= inv;
  for (index_t i = 1; i < n; ++i) {
    piv = bb[i] - a[i] * cp[i - 1];
    ok = ok && std::isfinite(static_cast<double>(piv)) && piv != T(0);
    inv = T(1) / piv;
    cp[i] = i + 1 < n ? c[i] * inv : T(0);
    d[i] = (d[i] - a[i] * d[i - 1]) * inv;
    z[i] = (z[i] - a[i] * z[i - 1]) * inv;
  }
  for (index_t i = n - 2; i >= 0; --i) {
    d[i] -= cp[i] * d[i + 1];
    z[i] -= cp[i] * z[i + 1];
  }
  const T r = lo / g;
  const T den = T(1) + z[0] + r * z[n - 1];
  ok = ok && std::isfinite(static_cast<double>(den)) && den != T(0);
  const T f = (d[0] + r * d[n - 1]) / den;
  for (index_t i = 0; i < n; ++i) d[i] -= f * z[i];
  return ok;
}

}  // namespace adi::detail
