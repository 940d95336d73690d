#pragma once
// The kernels of one MPI rank's box of the general problem on its GPU
// (general_local_cuda.cu, which says what each phase runs and why; included
// once, by it: the anonymous namespace is that translation unit's, compiled
// with -fmad=false so that the per-node arithmetic is the oracle's).

#include <adi/discrete.hpp>

#include "general_rows.cuh"
#include "split_kernels.cuh"

namespace adi::box {

namespace {

using cuda::general::BoxParams;
using cuda::general::GeneralParams;
using cuda::general::kPivotErrorX;

constexpr int kThreads = 256;

template <class T>
__device__ ADI_FORCEINLINE index_t lower(const BoxParams<T>& B, int a, index_t o, index_t i) {
  return cuda::general::box_lower(B, a, o, i);
}
template <class T>
__device__ ADI_FORCEINLINE index_t upper(const BoxParams<T>& B, int a, index_t o, index_t i) {
  return cuda::general::box_upper(B, a, o, i);
}

// w = dt (sum_a A_a u + rho (beta + q f)) at node (i, j, k) of the box, 0 at
// a Dirichlet node: GeneralCpuLocal::rhs's per-node form, global indices.
// Nodes [lo, hi) of the box (the whole box, or one of its face planes).
struct NodeRange {
  index_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
};
template <class T>
__global__ void __launch_bounds__(kThreads)
    box_rhs_kernel(const T* __restrict__ u, T* __restrict__ w, BoxParams<T> B, NodeRange R) {
  const GeneralParams<T>& P = B.P;
  const index_t i = R.lo[0] + static_cast<index_t>(blockIdx.x) * 32 + threadIdx.x;
  const index_t j = R.lo[1] + static_cast<index_t>(blockIdx.y) * 8 + threadIdx.y;
  if (i >= R.hi[0] || j >= R.hi[1]) return;
  for (index_t k = R.lo[2] + blockIdx.z; k < R.hi[2]; k += gridDim.z) {
    const index_t o = i * P.stride[0] + j * P.stride[1] + k * P.stride[2];
    const auto loc = [&](int a) { return a == 0 ? i : a == 1 ? j : k; };
    bool fixed = false;
#pragma unroll
    for (int a = 0; a < 3; ++a)
      if (!P.flat[a] && fixed_row(B.begin[a] + loc(a), P.ends[a])) fixed = true;
    if (fixed) {
      w[o] = T(0);
      continue;
    }
    const T rho = P.rho ? P.rho[o] : P.rho_const;
    const T uc = u[o];
    T acc = T(0), bsum = T(0);
#pragma unroll
    for (int a = 0; a < 3; ++a) {
      if (P.flat[a]) continue;
      const AxisEnds<T>& e = P.ends[a];
      const index_t gi = B.begin[a] + loc(a);
      const index_t om = lower(B, a, o, loc(a)), op = upper(B, a, o, loc(a));
      const T* K = P.K[a];
      const T kc = K ? K[o] : P.kconst[a];
      const T km = K ? K[om] : kc, kp = K ? K[op] : kc;
      acc += row_apply(row_coupling<T>(gi, e, km, kc, kp, rho), u[om], uc, u[op]);
      if (gi == 0 && e.lo == LineEnd::Mirror) bsum += P.beta[a][0];
      if (gi == e.n - 1 && e.hi == LineEnd::Mirror) bsum += P.beta[a][1];
    }
    const T q = P.q ? P.q[o] : P.qconst;
    w[o] = P.dt * (acc + rho * (bsum + q * P.qf));
  }
}

// Row (a, b, c) of (I - theta dt A_a) at local index i of the line whose
// node i is at offset o: the identity at a Dirichlet node.
template <class T>
__device__ ADI_FORCEINLINE void box_row(const BoxParams<T>& B, int a, index_t o, index_t i, T& ra, T& rb, T& rc) {
  const GeneralParams<T>& P = B.P;
  const AxisEnds<T>& e = P.ends[a];
  const index_t gi = B.begin[a] + i;
  if (fixed_row(gi, e)) {
    ra = rc = T(0);
    rb = T(1);
    return;
  }
  const index_t om = lower(B, a, o, i), op = upper(B, a, o, i);
  const T* K = P.K[a];
  const T kc = K ? K[o] : P.kconst[a], km = K ? K[om] : kc, kp = K ? K[op] : kc;
  const T rho = P.rho ? P.rho[o] : P.rho_const;
  implicit_row(row_coupling<T>(gi, e, km, kc, kp, rho), P.theta_dt, ra, rb, rc);
}

__device__ ADI_FORCEINLINE bool good_pivot(double p) { return isfinite(p) && p != 0.0; }

// The partition method's first half for one line per thread (GeneralCpuLocal::
// reduce, the same operations in the same order): rows 1 .. m-2 eliminated
// with x_0 = F and x_{m-1} = L as known values, three right-hand sides (d,
// -a_1 e_1, -c_{m-2} e_{m-2}) on one factorisation; r, alpha, beta of the
// interior into w, al, be (cp: the sweep's c'), the two reduced rows of the
// line into rows[v * lines + line]. Lines first .. first + lines - 1 (a batch).
template <class T>
__global__ void __launch_bounds__(kThreads)
    box_reduce_kernel(T* __restrict__ w, T* __restrict__ al, T* __restrict__ be, T* __restrict__ cp,
                      BoxParams<T> B, int a, index_t first, index_t lines, T* __restrict__ rows,
                      int* __restrict__ error) {
  const index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (line >= lines) return;
  const GeneralParams<T>& P = B.P;
  const index_t base = cuda::general::line_base(P, a, first + line), s = P.stride[a], m = P.n[a];
  T out[kReducedValues] = {};
  T a0, b0, c0, an, bn, cn;
  box_row(B, a, base, 0, a0, b0, c0);
  const T d0 = w[base];
  if (m == 1) {
    out[0] = a0, out[1] = b0, out[2] = c0, out[3] = d0;
  } else {
    const index_t ol = base + (m - 1) * s;
    box_row(B, a, ol, m - 1, an, bn, cn);
    const T dn = w[ol];
    bool ok = true;
    T r1 = T(0), a1 = T(0), b1 = T(1);  // x_1 = r_1 + alpha_1 F + beta_1 L (m = 2: x_1 = L)
    T rm = T(0), am = T(1), bm = T(0);  // x_{m-2} likewise (m = 2: x_0 = F)
    if (m >= 3) {
      // Forward: row 1, then 2 .. m-2; f (alpha) starts as -a_1 e_1, g (beta)
      // as -c_{m-2} e_{m-2}, both 0 elsewhere.
      T ra, rb, rc;
      index_t o = base + s;
      box_row(B, a, o, 1, ra, rb, rc);
      ok = ok && good_pivot(static_cast<double>(rb));
      T inv = T(1) / rb;
      T cprev = rc * inv;
      T dprev = w[o] * inv;
      T fprev = -ra * inv;
      T gprev = (m == 3 ? -rc : T(0)) * inv;
      cp[o] = cprev, w[o] = dprev, al[o] = fprev, be[o] = gprev;
      for (index_t i = 2; i < m - 1; ++i) {
        o += s;
        box_row(B, a, o, i, ra, rb, rc);
        const T piv = rb - ra * cprev;
        ok = ok && good_pivot(static_cast<double>(piv));
        inv = T(1) / piv;
        cprev = rc * inv;
        dprev = (w[o] - ra * dprev) * inv;
        fprev = (T(0) - ra * fprev) * inv;
        gprev = ((i == m - 2 ? -rc : T(0)) - ra * gprev) * inv;
        cp[o] = cprev, w[o] = dprev, al[o] = fprev, be[o] = gprev;
      }
      // Back: rows m-3 .. 1 (row m-2 is final); the values of row i + 1 ride along.
      rm = dprev, am = fprev, bm = gprev;
      T dn1 = dprev, fn1 = fprev, gn1 = gprev;
      for (index_t i = m - 3; i >= 1; --i) {
        o -= s;
        const T c = cp[o];
        dn1 = w[o] - c * dn1;
        fn1 = al[o] - c * fn1;
        gn1 = be[o] - c * gn1;
        w[o] = dn1, al[o] = fn1, be[o] = gn1;
      }
      r1 = dn1, a1 = fn1, b1 = gn1;
    }
    out[0] = a0;
    out[1] = b0 + c0 * a1;
    out[2] = c0 * b1;
    out[3] = d0 - c0 * r1;
    out[4] = an * am;
    out[5] = bn + an * bm;
    out[6] = cn;
    out[7] = dn - an * rm;
    if (!ok) atomicOr(error, kPivotErrorX << a);
  }
#pragma unroll
  for (int v = 0; v < kReducedValues; ++v) rows[v * lines + line] = out[v];
}

// The reduced system of each line along a split axis, one thread per line,
// from the all-gather of every rank's reduced rows (g: rank q's block at q
// kReducedValues lines, value v of a line at v lines + line), as the host's
// solve_reduced_line (detail/general_local.hpp) does it: the same rows, and
// Thomas / cyclic Sherman-Morrison / the ring of two unknowns with
// line_thomas.hpp's operations in their order (-fmad=false: the same bits).
// The N unknowns of a line live in scratch z, value v of unknown i at
// (v N + i) lines + line (adjacent lines adjacent: coalesced); co: cnt[P]
// then off[P + 1] (reduced_layout). Out: F of every line, then L.
template <class T>
__global__ void __launch_bounds__(kThreads)
    box_reduced_kernel(const T* __restrict__ g, index_t lines, const index_t* __restrict__ co, int P, int ring,
                       int me, T* __restrict__ z, T* __restrict__ FL, int a, int* __restrict__ error) {
  const index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (line >= lines) return;
  const index_t* cnt = co;
  const index_t* off = co + P;
  const index_t N = off[P];
  const auto at = [&](int v, index_t i) -> T& { return z[(v * N + i) * lines + line]; };
  enum { A, Bd, C, D, CP, Z, BB };
  for (int q = 0; q < P; ++q) {
    const T* blk = g + static_cast<index_t>(q) * kReducedValues * lines;
    for (index_t r = 0; r < cnt[q]; ++r) {
      const index_t i = off[q] + r;
      at(A, i) = blk[(4 * r + 0) * lines + line];
      at(Bd, i) = blk[(4 * r + 1) * lines + line];
      at(C, i) = blk[(4 * r + 2) * lines + line];
      at(D, i) = blk[(4 * r + 3) * lines + line];
    }
  }
  bool ok = true;
  if (!ring || N >= 3) {
    // Thomas (ring: on the rows with the corners folded in, and the
    // Sherman-Morrison vector z as a second right-hand side).
    T lo = T(0), hi = T(0), gm = T(0);
    if (ring) {
      lo = at(A, 0), hi = at(C, N - 1), gm = -at(Bd, 0);
      for (index_t i = 0; i < N; ++i) at(BB, i) = at(Bd, i), at(Z, i) = T(0);
      at(BB, 0) = at(Bd, 0) - gm;
      at(BB, N - 1) = at(Bd, N - 1) - hi * lo / gm;
      at(Z, 0) = gm;
      at(Z, N - 1) = hi;
    }
    const int b = ring ? BB : Bd;
    T piv = at(b, 0);
    ok = good_pivot(static_cast<double>(piv));
    T inv = T(1) / piv;
    at(CP, 0) = ring || N > 1 ? at(C, 0) * inv : T(0);
    at(D, 0) *= inv;
    if (ring) at(Z, 0) *= inv;
    for (index_t i = 1; i < N; ++i) {
      piv = at(b, i) - at(A, i) * at(CP, i - 1);
      ok = ok && good_pivot(static_cast<double>(piv));
      inv = T(1) / piv;
      at(CP, i) = i + 1 < N ? at(C, i) * inv : T(0);
      at(D, i) = (at(D, i) - at(A, i) * at(D, i - 1)) * inv;
      if (ring) at(Z, i) = (at(Z, i) - at(A, i) * at(Z, i - 1)) * inv;
    }
    for (index_t i = N - 2; i >= 0; --i) {
      at(D, i) -= at(CP, i) * at(D, i + 1);
      if (ring) at(Z, i) -= at(CP, i) * at(Z, i + 1);
    }
    if (ring) {
      const T r = lo / gm;
      const T den = T(1) + at(Z, 0) + r * at(Z, N - 1);
      ok = ok && good_pivot(static_cast<double>(den));
      const T f = (at(D, 0) + r * at(D, N - 1)) / den;
      for (index_t i = 0; i < N; ++i) at(D, i) -= f * at(Z, i);
    }
  } else {  // a ring of two unknowns: both couplings of a row reach the other unknown
    const T a01 = at(A, 0) + at(C, 0), a10 = at(A, 1) + at(C, 1);
    const T det = at(Bd, 0) * at(Bd, 1) - a01 * a10;
    ok = good_pivot(static_cast<double>(det));
    const T x0 = (at(D, 0) * at(Bd, 1) - a01 * at(D, 1)) / det;
    const T x1 = (at(Bd, 0) * at(D, 1) - a10 * at(D, 0)) / det;
    at(D, 0) = x0;
    at(D, 1) = x1;
  }
  FL[line] = at(D, off[me]);
  FL[lines + line] = at(D, off[me] + cnt[me] - 1);
  if (!ok) atomicOr(error, kPivotErrorX << a);
}

// The partition method's second half: the line's solution from its first and
// last unknowns F, L (the reduced systems' solution, from the host): x_0 = F,
// x_{m-1} = L, x_i = r_i + alpha_i F + beta_i L; into w, or added into u.
// Lines first .. first + lines - 1, F and L of line first + l at FL[l],
// FL[lines + l].
template <class T>
__global__ void __launch_bounds__(kThreads)
    box_finish_kernel(T* __restrict__ w, T* __restrict__ u, const T* __restrict__ al, const T* __restrict__ be,
                      BoxParams<T> B, int a, index_t first, index_t lines, const T* __restrict__ FL, int add) {
  const index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (line >= lines) return;
  const GeneralParams<T>& P = B.P;
  const index_t base = cuda::general::line_base(P, a, first + line), s = P.stride[a], m = P.n[a];
  const T F = FL[line], L = FL[lines + line];
  for (index_t i = 0; i < m; ++i) {
    const index_t o = base + i * s;
    const T x = i == 0 ? F : i == m - 1 ? L : w[o] + al[o] * F + be[o] * L;
    if (add)
      u[o] += x;
    else
      w[o] = x;
  }
}

// u += w over the box (a flat axis' solve with the fused update).
template <class T>
__global__ void __launch_bounds__(kThreads) box_add_kernel(const T* __restrict__ w, T* __restrict__ u, BoxParams<T> B) {
  const GeneralParams<T>& P = B.P;
  const index_t i = static_cast<index_t>(blockIdx.x) * 32 + threadIdx.x;
  const index_t j = static_cast<index_t>(blockIdx.y) * 8 + threadIdx.y;
  if (i >= P.n[0] || j >= P.n[1]) return;
  for (index_t k = blockIdx.z; k < P.n[2]; k += gridDim.z) {
    const index_t o = i * P.stride[0] + j * P.stride[1] + k * P.stride[2];
    u[o] += w[o];
  }
}

}  // namespace

}  // namespace adi::box
