#pragma once
// Internal to the CPU backend: one line's tridiagonal (or cyclic
// tridiagonal) solve from its rows, written to be read — the oracle for the
// device kernels' variable-coefficient solves.
#include <adi/common.hpp>
#include <adi/discrete.hpp>
#include <adi/detail/line_thomas.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

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

/// harmonic_mean (adi/problem.hpp) as selects: the division and both
/// comparisons are evaluated whatever the operands (s > 0 as the quiet
/// isgreater), so that a loop of it can be if-converted and vectorised.
/// GCC still sinks the multiply under a branch of its own and, under the
/// default -ftrapping-math, will not speculate it back: the sources that
/// vectorise these loops are built with -fno-trapping-math
/// (solver/cpu/CMakeLists.txt). The selected value is harmonic_mean's for
/// every input, bit for bit (isgreater and > agree on every input; only the
/// FP flags differ).
template <class T>
inline T harmonic_mean_select(T a, T b) {
  const T s = a + b;
  const T h = T(2) * a * b / s;
  const T hs = std::isgreater(s, T(0)) ? h : T(0);  // a quiet comparison: it cannot trap
  return a == b ? a : hs;
}

/// row_coupling (adi/discrete.hpp) of a row that is no end of its line (no
/// Mirror, Robin or Fixed rule applies: gr = 0), branch-free, with the same
/// operations in the same order: bit-identical. sm, sp: the row's scales
/// (1 / h^2 both on a uniform axis); kTwo: they may differ (a stretched
/// axis), else sp is sm and its product with rho is computed once.
template <class T, bool kTwo = false>
inline void interior_coupling(T sm, T sp, T km, T kc, T kp, T rho, T& gm, T& gp) {
  const T smr = sm * rho;
  const T spr = kTwo ? sp * rho : smr;
  gm = harmonic_mean_select(km, kc) * smr;
  gp = harmonic_mean_select(kc, kp) * spr;
}

/// row_apply of interior_coupling's row: gr = 0 stays in the sum (0 * u can
/// be -0 or NaN), as in row_apply.
template <class T>
inline T interior_apply(T gm, T gp, T um, T uc, T up) {
  const T gr = T(0);
  return gm * (um - uc) + gp * (up - uc) - gr * uc;
}

/// implicit_row of interior_coupling's row (gr = 0 in the diagonal's sum).
template <class T>
inline void interior_implicit_row(T gm, T gp, T tau, T& a, T& b, T& c) {
  const T gr = T(0);
  a = -tau * gm;
  c = -tau * gp;
  b = T(1) + tau * (gm + gp + gr);
}

/// interior_coupling at node o of a line whose rows are s apart, K and rho
/// read there when they are fields (kField, kRho), else the constants.
template <class T, bool kField, bool kRho, bool kTwo = false>
inline void node_coupling(const T* K, T kconst, const T* rho, T rho_const, T sm, T sp, index_t o, index_t s, T& gm,
                          T& gp) {
  T r, kc, km, kp;
  if constexpr (kRho)
    r = rho[o];
  else
    r = rho_const;
  if constexpr (kField) {
    kc = K[o];
    km = K[o - s];
    kp = K[o + s];
  } else {
    kc = kconst;
    km = kc;
    kp = kc;
  }
  interior_coupling<T, kTwo>(sm, sp, km, kc, kp, r, gm, gp);
}

/// Calls f(integral_constant<bool, a>, integral_constant<bool, b>): the two
/// run-time flags as the template arguments of the loops below.
template <class F>
inline void with_flags(bool a, bool b, F&& f) {
  using Y = std::true_type;
  using N = std::false_type;
  if (a && b)
    f(Y{}, Y{});
  else if (a)
    f(Y{}, N{});
  else if (b)
    f(N{}, Y{});
  else
    f(N{}, N{});
}

// The vectorised loops below are plain function templates that take every
// scalar by value: nothing a loop reads can alias its stores, so the
// compiler has nothing to reload or version (read through a lambda's
// captured references, a scalar may alias the float arrays stored to).

template <class T, bool kField, bool kRho, bool kTwo>
void interior_rows_loop(const T* w, const T* K, T kconst, const T* rho, T rho_const, T sm, T sp, T tau, index_t row,
                        index_t su, index_t s, index_t cnt, T* d, T* a, T* b, T* c) {
#pragma omp simd
  for (index_t l = 0; l < cnt; ++l) {
    const index_t o = row + l * su;
    d[l] = w[o];
    T gm, gp;
    node_coupling<T, kField, kRho, kTwo>(K, kconst, rho, rho_const, sm, sp, o, s, gm, gp);
    interior_implicit_row(gm, gp, tau, a[l], b[l], c[l]);
  }
}

/// Rows of `cnt` lines at offsets o = row + l su (rows s apart along the
/// line) that are no end of their lines: d[l] = w[o] and the row of
/// (I - tau A) in a[l], b[l], c[l], conductive_row's operations bit for bit,
/// vectorised across the lines. K and rho may be null (kconst, rho_const).
/// sm, sp: the row's scales (AxisEnds: 1 / h^2 both on a uniform axis, the
/// row's own on a stretched one: the same for every line of the batch).
template <class T>
void interior_rows(const T* w, const T* K, T kconst, const T* rho, T rho_const, T sm, T sp, T tau, index_t row,
                   index_t su, index_t s, index_t cnt, T* d, T* a, T* b, T* c) {
  with_flags(K != nullptr, rho != nullptr, [&](auto kf, auto kr) {
    if (sm != sp)
      interior_rows_loop<T, decltype(kf)::value, decltype(kr)::value, true>(w, K, kconst, rho, rho_const, sm, sp, tau,
                                                                          row, su, s, cnt, d, a, b, c);
    else
      interior_rows_loop<T, decltype(kf)::value, decltype(kr)::value, false>(w, K, kconst, rho, rho_const, sm, sm,
                                                                           tau, row, su, s, cnt, d, a, b, c);
  });
}

/// The scales of row i of a line of axis e (global index): a stretched
/// axis' own, else 1 / h^2.
template <class T>
inline T row_sm(const AxisEnds<T>& e, index_t i) {
  return e.sm ? e.sm[i] : e.inv_h2;
}
template <class T>
inline T row_sp(const AxisEnds<T>& e, index_t i) {
  return e.sp ? e.sp[i] : e.inv_h2;
}

/// What interior_rhs_run needs of the grid and the problem, per axis a:
/// live (not flat), the stride, 1 / h^2 (a stretched axis: its scales sm, sp
/// per global node, AxisEnds') and the conductivity (K null: kconst); rho =
/// 1 / c and q may be null (rho_const, qconst).
template <class T>
struct RhsRun {
  bool live[3] = {false, false, false};
  index_t stride[3] = {1, 1, 1};
  T inv_h2[3] = {T(0), T(0), T(0)};
  const T* sm[3] = {nullptr, nullptr, nullptr};
  const T* sp[3] = {nullptr, nullptr, nullptr};
  const T* K[3] = {nullptr, nullptr, nullptr};
  T kconst[3] = {T(0), T(0), T(0)};
  const T* rho = nullptr;
  T rho_const = T(1);
  const T* q = nullptr;
  T qconst = T(0), qf = T(1), dt = T(0);
};

/// Scratch of interior_rhs_run for runs of up to m nodes, one per thread:
/// the sum, the face means of a K field along the run (x, m + 1 faces) and
/// across it (y: the faces below and above the run). The faces above row j
/// are the faces below row j + 1: kept, with the offset of the run they
/// serve (y_next), so that a thread's next run, when it is that row's, reads
/// them instead of dividing again. Each face's mean is then computed once
/// along x and y (z: twice, from both planes). The means are the same
/// operations on the same operands as node_coupling's: the face between
/// nodes o and o + s is harmonic_mean_select(K[o], K[o + s]) for both.
template <class T>
struct RunScratch {
  std::vector<T> acc, fx, ylo, yhi;
  index_t y_next = -1;         // the o0 whose faces below yhi holds (-1: none)
  index_t y_m = 0;             // ... for a run of y_m nodes
  const T* y_field = nullptr;  // ... of this K field
  explicit RunScratch(index_t m)
      : acc(static_cast<std::size_t>(m)), fx(static_cast<std::size_t>(m) + 1), ylo(static_cast<std::size_t>(m)),
        yhi(static_cast<std::size_t>(m)) {}
};

/// acc[t] += (A_a u) at node o0 + t: one axis of interior_rhs_run, whose
/// scales sm, sp are the same for every node of the run (an axis across it).
template <class T, bool kField, bool kRho, bool kTwo>
void interior_axis_loop(const T* u, const T* K, T kconst, const T* rho, T rho_const, T sm, T sp, index_t s, index_t o0,
                        index_t m, T* acc) {
#pragma omp simd
  for (index_t t = 0; t < m; ++t) {
    const index_t o = o0 + t;
    T gm, gp;
    node_coupling<T, kField, kRho, kTwo>(K, kconst, rho, rho_const, sm, sp, o, s, gm, gp);
    acc[t] += interior_apply(gm, gp, u[o - s], u[o], u[o + s]);
  }
}

/// interior_axis_loop along the run of a stretched axis: node o0 + t's own
/// scales smv[t], spv[t].
template <class T, bool kField, bool kRho>
void interior_axis_loop_along(const T* u, const T* K, T kconst, const T* rho, T rho_const, const T* smv,
                              const T* spv, index_t s, index_t o0, index_t m, T* acc) {
#pragma omp simd
  for (index_t t = 0; t < m; ++t) {
    const index_t o = o0 + t;
    T gm, gp;
    node_coupling<T, kField, kRho, true>(K, kconst, rho, rho_const, smv[t], spv[t], o, s, gm, gp);
    acc[t] += interior_apply(gm, gp, u[o - s], u[o], u[o + s]);
  }
}

/// interior_axis_loop with the faces' means given: node o0 + t's lower face
/// lo[t], its upper face hi[t] (for x: lo = f, hi = f + 1).
template <class T, bool kRho, bool kTwo>
void interior_faces_loop(const T* u, const T* lo, const T* hi, const T* rho, T rho_const, T sm, T sp, index_t s,
                         index_t o0, index_t m, T* acc) {
#pragma omp simd
  for (index_t t = 0; t < m; ++t) {
    const index_t o = o0 + t;
    T r;
    if constexpr (kRho)
      r = rho[o];
    else
      r = rho_const;
    const T scm = sm * r;  // interior_coupling's products
    const T scp = kTwo ? sp * r : scm;
    const T gm = lo[t] * scm, gp = hi[t] * scp;
    acc[t] += interior_apply(gm, gp, u[o - s], u[o], u[o + s]);
  }
}

/// f[t] = harmonic_mean_select(K[o0 + t - s], K[o0 + t]) for t in [0, m).
template <class T>
void face_means(const T* K, index_t s, index_t o0, index_t m, T* f) {
#pragma omp simd
  for (index_t t = 0; t < m; ++t) f[t] = harmonic_mean_select(K[o0 + t - s], K[o0 + t]);
}

/// w = dt (acc + rho (0 + q f)) at node o0 + t: the end of interior_rhs_run.
template <class T, bool kRho, bool kQ>
void interior_finish_loop(const T* acc, const T* rho, T rho_const, const T* q, T qconst, T qf, T dt, index_t o0,
                          index_t m, T* w) {
  const T bsum = T(0);
#pragma omp simd
  for (index_t t = 0; t < m; ++t) {
    const index_t o = o0 + t;
    T r, qq;
    if constexpr (kRho)
      r = rho[o];
    else
      r = rho_const;
    if constexpr (kQ)
      qq = q[o];
    else
      qq = qconst;
    w[o] = dt * (acc[t] + r * (bsum + qq * qf));
  }
}

/// w = dt (sum_a A_a u + q f / c) at the m nodes from offset o0 on, all of
/// them at least one node from every end of every live axis (no Mirror,
/// Robin or Fixed rule applies; beta = 0): the general loop's operations in
/// its order (x, y, z), bit for bit. The terms go axis by axis into acc
/// (scratch of m), so that each inner loop is branch-free and vectorises;
/// the per-node loop with the axes inside did not (GCC: "control flow in
/// loop"), and ran fp32 no faster than fp64.
/// g0: the global indices (x, y, z) of node o0 (a stretched axis' scales
/// are by global node: along the run for x, one per run for y and z).
template <class T>
void interior_rhs_run(const RhsRun<T>& P, const T* u, T* w, index_t o0, index_t m, RunScratch<T>& sc,
                      const std::array<index_t, 3>& g0) {
  T* acc = sc.acc.data();
  for (index_t t = 0; t < m; ++t) acc[t] = T(0);
  const T* rho = P.rho;
  bool y_kept = false;
  for (int ax = 0; ax < 3; ++ax) {
    if (!P.live[ax]) continue;
    const T* K = P.K[ax];
    const index_t s = P.stride[ax];
    if (ax == 0 && P.sm[0]) {  // a stretched x: the scales vary along the run
      const T* smv = P.sm[0] + g0[0];
      const T* spv = P.sp[0] + g0[0];
      with_flags(K != nullptr, rho != nullptr, [&](auto kf, auto kr) {
        interior_axis_loop_along<T, decltype(kf)::value, decltype(kr)::value>(u, K, P.kconst[0], rho, P.rho_const,
                                                                              smv, spv, s, o0, m, acc);
      });
      continue;
    }
    // One pair of scales for the run (1 / h^2 both on a uniform axis).
    const T sm = P.sm[ax] ? P.sm[ax][g0[ax]] : P.inv_h2[ax], sp = P.sp[ax] ? P.sp[ax][g0[ax]] : P.inv_h2[ax];
    if (K && ax < 2) {
      // A K field along x or y: each face's mean once (RunScratch).
      const T *lo, *hi;
      if (ax == 0) {
        face_means(K, s, o0, m + 1, sc.fx.data());
        lo = sc.fx.data();
        hi = lo + 1;
      } else {
        if (sc.y_next == o0 && sc.y_m == m && sc.y_field == K)
          std::swap(sc.ylo, sc.yhi);  // the previous row's faces above are this row's below
        else
          face_means(K, s, o0, m, sc.ylo.data());
        face_means(K, s, o0 + s, m, sc.yhi.data());
        lo = sc.ylo.data();
        hi = sc.yhi.data();
        y_kept = true;
      }
      if (sm != sp) {
        if (rho)
          interior_faces_loop<T, true, true>(u, lo, hi, rho, P.rho_const, sm, sp, s, o0, m, acc);
        else
          interior_faces_loop<T, false, true>(u, lo, hi, rho, P.rho_const, sm, sp, s, o0, m, acc);
      } else if (rho) {
        interior_faces_loop<T, true, false>(u, lo, hi, rho, P.rho_const, sm, sm, s, o0, m, acc);
      } else {
        interior_faces_loop<T, false, false>(u, lo, hi, rho, P.rho_const, sm, sm, s, o0, m, acc);
      }
      continue;
    }
    with_flags(K != nullptr, rho != nullptr, [&](auto kf, auto kr) {
      if (sm != sp)
        interior_axis_loop<T, decltype(kf)::value, decltype(kr)::value, true>(u, K, P.kconst[ax], rho, P.rho_const,
                                                                              sm, sp, s, o0, m, acc);
      else
        interior_axis_loop<T, decltype(kf)::value, decltype(kr)::value, false>(u, K, P.kconst[ax], rho, P.rho_const,
                                                                               sm, sm, s, o0, m, acc);
    });
  }
  sc.y_next = y_kept ? o0 + P.stride[1] : -1;
  sc.y_m = m;
  sc.y_field = y_kept ? P.K[1] : nullptr;
  const T* q = P.q;
  with_flags(rho != nullptr, q != nullptr, [&](auto kr, auto kq) {
    interior_finish_loop<T, decltype(kr)::value, decltype(kq)::value>(acc, rho, P.rho_const, q, P.qconst, P.qf, P.dt,
                                                                      o0, m, w);
  });
}

// thomas() and cyclic(), one line from its rows: adi/detail/line_thomas.hpp
// (shared with the CUDA backend's host-side reduced solves).
using adi::detail::cyclic;
using adi::detail::thomas;

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

/// thomas_batch for lines that share one matrix (constant coefficients):
/// the pivots' reciprocals and cp once, by thomas_batch's operations in its
/// order; each line then pays only its two sweeps, bit for bit
/// thomas_batch's.
template <class T>
struct ThomasShared {
  index_t n = 0;
  std::vector<T> a, inv, cp;  ///< per row: sub-diagonal, 1 / pivot, cp
  bool ok = true;              ///< every pivot good

  /// From the rows a, b, c of one line (n >= 1).
  static ThomasShared of(index_t n, const T* a, const T* b, const T* c) {
    ThomasShared S;
    const std::size_t m = static_cast<std::size_t>(n);
    S.n = n;
    S.a.assign(a, a + n);
    S.inv.resize(m);
    S.cp.resize(m);
    T* inv = S.inv.data();
    T* cp = S.cp.data();
    S.ok &= good_pivot(b[0]);
    inv[0] = T(1) / b[0];
    cp[0] = n > 1 ? c[0] * inv[0] : T(0);
    for (index_t i = 1; i < n; ++i) {
      const T piv = b[i] - a[i] * cp[i - 1];
      S.ok &= good_pivot(piv);
      inv[i] = T(1) / piv;
      cp[i] = i + 1 < n ? c[i] * inv[i] : T(0);
    }
    return S;
  }
};

/// thomas_batch on `cnt` lines of S's matrix, d laid out as there. Returns S.ok.
template <class T>
bool thomas_batch_shared(const ThomasShared<T>& S, index_t B, index_t cnt, T* d) {
  const index_t n = S.n;
  const T* a = S.a.data();
  const T* inv = S.inv.data();
  const T* cp = S.cp.data();
  for (index_t l = 0; l < cnt; ++l) d[l] *= inv[0];
  for (index_t i = 1; i < n; ++i) {
    const index_t r = i * B, q = r - B;
    for (index_t l = 0; l < cnt; ++l) d[r + l] = (d[r + l] - a[i] * d[q + l]) * inv[i];
  }
  for (index_t i = n - 2; i >= 0; --i) {
    const index_t r = i * B, q = r + B;
    for (index_t l = 0; l < cnt; ++l) d[r + l] -= cp[i] * d[q + l];
  }
  return S.ok;
}

/// cyclic_batch for lines that share one matrix (constant coefficients on
/// a periodic axis). What does not depend on the right-hand side (the
/// pivots, cp, z = T^{-1} u, the denominator) is computed once here, by
/// cyclic_batch's operations in its order; each line then pays only its
/// own sweeps and the correction, so every line's result is bit for bit
/// cyclic_batch's. It also keeps fp32 lines fast: z decays along the line
/// into subnormal numbers, on which x86 arithmetic is ~100 times slower,
/// and was recomputed for every line (192^3 fp32 periodic: 100 ms a solve).
template <class T>
struct CyclicShared {
  index_t n = 0;
  std::vector<T> a, inv, cp, z;  ///< per row: sub-diagonal, 1 / pivot, cp, z
  T rr = T(0), den = T(1);
  bool ok = true;  ///< every pivot and the denominator good

  /// From the rows a, b, c of one line (n >= 3).
  static CyclicShared of(index_t n, const T* a, const T* b, const T* c) {
    CyclicShared S;
    const std::size_t m = static_cast<std::size_t>(n);
    S.n = n;
    S.a.assign(a, a + n);
    S.inv.resize(m);
    S.cp.resize(m);
    S.z.assign(m, T(0));
    std::vector<T> bbv(b, b + n);
    T* bb = bbv.data();
    T* inv = S.inv.data();
    T* cp = S.cp.data();
    T* z = S.z.data();
    const T lo = a[0], hi = c[n - 1], g = -b[0];
    bb[0] = b[0] - g;
    bb[n - 1] = b[n - 1] - hi * lo / g;
    z[0] = g;
    z[n - 1] = hi;
    S.ok &= good_pivot(bb[0]);
    inv[0] = T(1) / bb[0];
    cp[0] = c[0] * inv[0];
    z[0] *= inv[0];
    for (index_t i = 1; i < n; ++i) {
      const T piv = bb[i] - a[i] * cp[i - 1];
      S.ok &= good_pivot(piv);
      inv[i] = T(1) / piv;
      cp[i] = i + 1 < n ? c[i] * inv[i] : T(0);
      z[i] = (z[i] - a[i] * z[i - 1]) * inv[i];
    }
    for (index_t i = n - 2; i >= 0; --i) z[i] -= cp[i] * z[i + 1];
    S.rr = lo / g;
    S.den = T(1) + z[0] + S.rr * z[n - 1];
    S.ok &= good_pivot(S.den);
    return S;
  }
};

/// cyclic_batch on `cnt` lines of S's matrix, d laid out as there (f:
/// scratch of cnt). Returns S.ok.
template <class T>
bool cyclic_batch_shared(const CyclicShared<T>& S, index_t B, index_t cnt, T* d, T* f) {
  const index_t n = S.n, last = (n - 1) * B;
  const T* a = S.a.data();
  const T* inv = S.inv.data();
  const T* cp = S.cp.data();
  const T* z = S.z.data();
  for (index_t l = 0; l < cnt; ++l) d[l] *= inv[0];
  for (index_t i = 1; i < n; ++i) {
    const index_t r = i * B, q = r - B;
    for (index_t l = 0; l < cnt; ++l) d[r + l] = (d[r + l] - a[i] * d[q + l]) * inv[i];
  }
  for (index_t i = n - 2; i >= 0; --i) {
    const index_t r = i * B, q = r + B;
    for (index_t l = 0; l < cnt; ++l) d[r + l] -= cp[i] * d[q + l];
  }
  for (index_t l = 0; l < cnt; ++l) f[l] = (d[l] + S.rr * d[last + l]) / S.den;
  for (index_t i = 0; i < n; ++i)
    for (index_t l = 0; l < cnt; ++l) d[i * B + l] -= f[l] * z[i];
  return S.ok;
}

}  // namespace adi::cpu::detail
