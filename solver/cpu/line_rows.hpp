#pragma once
// Internal to the CPU backend: one line's tridiagonal (or cyclic
// tridiagonal) solve from its rows, written to be read — the oracle for the
// device kernels' variable-coefficient solves.
#include <adi/common.hpp>
#include <adi/discrete.hpp>

#include <cmath>
#include <limits>

namespace adi::cpu::detail {

/// Row i of (I - tau A) along a whole-grid line (adi/discrete.hpp): the node
/// at offset o, rows s apart, n = e.n nodes; the identity at a Fixed end.
/// K at the node and its neighbours (the wrapped node on a periodic axis; at
/// a Mirror end the missing neighbour is not used, the node stands in), or
/// kconst everywhere when K is null; rho = 1 / c at the node.
template <class T>
void conductive_row(index_t i, index_t o, index_t s, const AxisEnds<T>& e, const T* K, T kconst, T rho, T tau,
                    T& a, T& b, T& c) {
  if (fixed_row(i, e)) {
    a = c = T(0);
    b = T(1);
    return;
  }
  const bool wrap = e.lo == LineEnd::Wrap;
  const index_t om = i > 0 ? o - s : (wrap ? o + (e.n - 1) * s : o);
  const index_t op = i < e.n - 1 ? o + s : (wrap ? o - (e.n - 1) * s : o);
  const T kc = K ? K[o] : kconst, km = K ? K[om] : kc, kp = K ? K[op] : kc;
  implicit_row(row_coupling<T>(i, e, km, kc, kp, rho), tau, a, b, c);
}

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

/// A pivot thomas() and cyclic() accept: finite and non-zero. Written with
/// & instead of && so that the batched loops below stay branch-free.
template <class T>
inline bool good_pivot(T piv) {
  return (std::fabs(static_cast<double>(piv)) <= std::numeric_limits<double>::max()) & (piv != T(0));
}

/// thomas() on `cnt` lines at once, stored [row][line] with row pitch B
/// (line l's row i at i * B + l). Each line gets exactly thomas()'s
/// operations in thomas()'s order, so its result is bit-identical to
/// thomas() on that line alone (tested); the inner loops run across the
/// lines, which are adjacent in memory. Returns false if any line has a
/// zero or non-finite pivot.
template <class T>
bool thomas_batch(index_t n, index_t B, index_t cnt, const T* a, const T* b, const T* c, T* d, T* cp) {
  bool ok = true;
  for (index_t l = 0; l < cnt; ++l) {
    const T piv = b[l];
    ok &= good_pivot(piv);
    const T inv = T(1) / piv;
    cp[l] = n > 1 ? c[l] * inv : T(0);
    d[l] *= inv;
  }
  for (index_t i = 1; i < n; ++i) {
    const index_t r = i * B, q = r - B;
    for (index_t l = 0; l < cnt; ++l) {
      const T piv = b[r + l] - a[r + l] * cp[q + l];
      ok &= good_pivot(piv);
      const T inv = T(1) / piv;
      cp[r + l] = i + 1 < n ? c[r + l] * inv : T(0);
      d[r + l] = (d[r + l] - a[r + l] * d[q + l]) * inv;
    }
  }
  for (index_t i = n - 2; i >= 0; --i) {
    const index_t r = i * B, q = r + B;
    for (index_t l = 0; l < cnt; ++l) d[r + l] -= cp[r + l] * d[q + l];
  }
  return ok;
}

/// cyclic() on `cnt` lines at once, laid out as in thomas_batch (bb and z
/// likewise; lo, hi, g and f are scratch of cnt): cyclic()'s operations in
/// its order for each line, bit-identical to it. Needs n >= 3.
template <class T>
bool cyclic_batch(index_t n, index_t B, index_t cnt, const T* a, const T* b, const T* c, T* d, T* cp, T* z, T* bb,
                  T* lo, T* hi, T* g, T* f) {
  const index_t last = (n - 1) * B;
  for (index_t l = 0; l < cnt; ++l) {
    lo[l] = a[l];
    hi[l] = c[last + l];
    g[l] = -b[l];
  }
  for (index_t i = 0; i < n; ++i)
    for (index_t l = 0; l < cnt; ++l) {
      bb[i * B + l] = b[i * B + l];
      z[i * B + l] = T(0);
    }
  for (index_t l = 0; l < cnt; ++l) {
    bb[l] = b[l] - g[l];
    bb[last + l] = b[last + l] - hi[l] * lo[l] / g[l];
    z[l] = g[l];
    z[last + l] = hi[l];
  }
  bool ok = true;
  for (index_t l = 0; l < cnt; ++l) {
    const T piv = bb[l];
    ok &= good_pivot(piv);
    const T inv = T(1) / piv;
    cp[l] = c[l] * inv;
    d[l] *= inv;
    z[l] *= inv;
  }
  for (index_t i = 1; i < n; ++i) {
    const index_t r = i * B, q = r - B;
    for (index_t l = 0; l < cnt; ++l) {
      const T piv = bb[r + l] - a[r + l] * cp[q + l];
      ok &= good_pivot(piv);
      const T inv = T(1) / piv;
      cp[r + l] = i + 1 < n ? c[r + l] * inv : T(0);
      d[r + l] = (d[r + l] - a[r + l] * d[q + l]) * inv;
      z[r + l] = (z[r + l] - a[r + l] * z[q + l]) * inv;
    }
  }
  for (index_t i = n - 2; i >= 0; --i) {
    const index_t r = i * B, q = r + B;
    for (index_t l = 0; l < cnt; ++l) {
      d[r + l] -= cp[r + l] * d[q + l];
      z[r + l] -= cp[r + l] * z[q + l];
    }
  }
  for (index_t l = 0; l < cnt; ++l) {
    const T rr = lo[l] / g[l];
    const T den = T(1) + z[l] + rr * z[last + l];
    ok &= good_pivot(den);
    f[l] = (d[l] + rr * d[last + l]) / den;
  }
  for (index_t i = 0; i < n; ++i)
    for (index_t l = 0; l < cnt; ++l) d[i * B + l] -= f[l] * z[i * B + l];
  return ok;
}

}  // namespace adi::cpu::detail
