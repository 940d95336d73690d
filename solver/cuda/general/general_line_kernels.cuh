#pragma once
// The line solves of the general problem on the GPU, one thread per line,
// rows on the fly (general_rows.cuh): Thomas, the cyclic line of a periodic
// axis, the constant factor of an axis, and the x <-> y transposition and
// the sum that the x solve uses. y and z lines are assigned to threads
// x-index fastest, so a warp reads 32 neighbouring elements of one row
// (coalesced); x lines run on the transposed grid. These are the oracle's
// operations on the device; the fast families are general_lanes_kernel.cuh's.
// The sources that include these kernels are compiled with -fmad=false: the
// host build does not contract a * b + c into fused multiply-adds, so
// neither may the device, or fp64 results drift from the oracle by more
// than the last bit.

#include "general_rows.cuh"

namespace adi::cuda::general {

__device__ ADI_FORCEINLINE bool bad_pivot(double p) { return !isfinite(p) || p == 0.0; }

// Thomas with rows on the fly (detail::thomas of line_rows.hpp): the forward
// sweep leaves d' in w and c' in cp (a scratch grid of the same layout); the
// back substitution writes x to w, or adds it into acc (the fused u += D).
template <class T>
__global__ void general_thomas_kernel(T* __restrict__ w, T* __restrict__ cp, T* __restrict__ acc,
                                      GeneralParams<T> P, int a, index_t lines, int* __restrict__ error) {
  const index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (line >= lines) return;
  const index_t base = line_base(P, a, line), s = P.stride[a], n = P.n[a];
  const LineRows<T> rows{P, a, base};
  T ra, rb, rc;
  rows.row(0, ra, rb, rc);
  T piv = rb;
  bool ok = !bad_pivot(static_cast<double>(piv));
  T inv = T(1) / piv;
  T cprev = n > 1 ? rc * inv : T(0);
  T dprev = w[base] * inv;
  cp[base] = cprev;
  w[base] = dprev;
  for (index_t i = 1; i < n; ++i) {
    const index_t o = base + i * s;
    rows.row(i, ra, rb, rc);
    piv = rb - ra * cprev;
    ok = ok && !bad_pivot(static_cast<double>(piv));
    inv = T(1) / piv;
    cprev = i + 1 < n ? rc * inv : T(0);
    dprev = (w[o] - ra * dprev) * inv;
    cp[o] = cprev;
    w[o] = dprev;
  }
  // dprev is x[n-1].
  T x = dprev;
  if (acc) acc[base + (n - 1) * s] += x;
  for (index_t i = n - 2; i >= 0; --i) {
    const index_t o = base + i * s;
    x = w[o] - cp[o] * x;
    if (acc)
      acc[o] += x;
    else
      w[o] = x;
  }
  if (!ok) atomicOr(error, kPivotErrorX << a);
}

// The cyclic line of a periodic axis: Sherman-Morrison exactly as
// detail::cyclic (line_rows.hpp) — one forward sweep for d and z (z in a
// second scratch grid), back substitution of both, then x = y - f z.
template <class T>
__global__ void general_cyclic_kernel(T* __restrict__ w, T* __restrict__ cp, T* __restrict__ zs,
                                      T* __restrict__ acc, GeneralParams<T> P, int a, index_t lines,
                                      int* __restrict__ error) {
  const index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (line >= lines) return;
  const index_t base = line_base(P, a, line), s = P.stride[a], n = P.n[a];
  const LineRows<T> rows{P, a, base};
  T a0, b0, c0, an, bn, cn;
  rows.row(0, a0, b0, c0);
  rows.row(n - 1, an, bn, cn);
  const T lo = a0, hi = cn;
  const T g = -b0;
  // Row 0.
  T piv = b0 - g;
  bool ok = !bad_pivot(static_cast<double>(piv));
  T inv = T(1) / piv;
  T cprev = c0 * inv;
  T dprev = w[base] * inv;
  T zprev = g * inv;
  cp[base] = cprev;
  w[base] = dprev;
  zs[base] = zprev;
  for (index_t i = 1; i < n; ++i) {
    const index_t o = base + i * s;
    T ra, rb, rc;
    if (i == n - 1) {
      ra = an;
      rb = bn - hi * lo / g;
      rc = cn;
    } else {
      rows.row(i, ra, rb, rc);
    }
    const T zi = i == n - 1 ? hi : T(0);
    piv = rb - ra * cprev;
    ok = ok && !bad_pivot(static_cast<double>(piv));
    inv = T(1) / piv;
    cprev = i + 1 < n ? rc * inv : T(0);
    dprev = (w[o] - ra * dprev) * inv;
    zprev = (zi - ra * zprev) * inv;
    cp[o] = cprev;
    w[o] = dprev;
    zs[o] = zprev;
  }
  const T dn = dprev, zn = zprev;
  T dx = dn, zx = zn;
  for (index_t i = n - 2; i >= 0; --i) {
    const index_t o = base + i * s;
    dx = w[o] - cp[o] * dx;
    zx = zs[o] - cp[o] * zx;
    w[o] = dx;
    zs[o] = zx;
  }
  // dx, zx are y[0], z[0].
  const T r = lo / g;
  const T den = T(1) + zx + r * zn;
  ok = ok && !bad_pivot(static_cast<double>(den));
  const T f = (dx + r * dn) / den;
  for (index_t i = 0; i < n; ++i) {
    const index_t o = base + i * s;
    const T xi = w[o] - f * zs[o];
    if (acc)
      acc[o] += xi;
    else
      w[o] = xi;
  }
  if (!ok) atomicOr(error, kPivotErrorX << a);
}

// Constant coefficients, not periodic: the host's ThomasFactor (computed in
// double, stored in T) applied exactly as cpu::solve_constant_fused does, so
// these axes match the oracle bit for bit. fa, fcp, finv: n values each.
template <class T>
__global__ void general_factor_kernel(T* __restrict__ w, T* __restrict__ acc, const T* __restrict__ fa,
                                      const T* __restrict__ fcp, const T* __restrict__ finv, GeneralParams<T> P,
                                      int a, index_t lines) {
  const index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (line >= lines) return;
  const index_t base = line_base(P, a, line), s = P.stride[a], n = P.n[a];
  T prev = w[base] * finv[0];
  w[base] = prev;
  for (index_t i = 1; i < n; ++i) {
    const index_t o = base + i * s;
    prev = (w[o] - fa[i] * prev) * finv[i];
    w[o] = prev;
  }
  if (acc) acc[base + (n - 1) * s] += prev;
  for (index_t i = n - 2; i >= 0; --i) {
    const index_t o = base + i * s;
    prev = w[o] - fcp[i] * prev;
    w[o] = prev;
    if (acc) acc[o] += prev;
  }
}

// Per plane k (grid.z), out = in^T for an R x C row-major matrix: out[c R + r]
// = in[r C + c]. The x solve runs on the x <-> y transposed grid, where its
// lines are y-fastest across threads (coalesced), instead of one strided row
// per thread. 32 x 32 tiles through shared memory, padded to 33 columns so
// the column reads of a warp hit 32 different banks.
constexpr int kTransposeTile = 32, kTransposeRows = 8;
template <class T>
__global__ void general_transpose_kernel(const T* __restrict__ in, T* __restrict__ out, index_t R, index_t C) {
  __shared__ T tile[kTransposeTile][kTransposeTile + 1];
  const index_t plane = static_cast<index_t>(blockIdx.z) * R * C;
  const index_t c0 = static_cast<index_t>(blockIdx.x) * kTransposeTile;
  const index_t r0 = static_cast<index_t>(blockIdx.y) * kTransposeTile;
  for (int dy = threadIdx.y; dy < kTransposeTile; dy += kTransposeRows) {
    const index_t r = r0 + dy, c = c0 + threadIdx.x;
    if (r < R && c < C) tile[dy][threadIdx.x] = in[plane + r * C + c];
  }
  __syncthreads();
  for (int dy = threadIdx.y; dy < kTransposeTile; dy += kTransposeRows) {
    const index_t c = c0 + dy, r = r0 + threadIdx.x;
    if (r < R && c < C) out[plane + c * R + r] = tile[threadIdx.x][dy];
  }
}

/// acc += w over the grid (a flat axis' "solve" with the fused update).
template <class T>
__global__ void general_add_kernel(const T* __restrict__ w, T* __restrict__ acc, index_t count) {
  const index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t < count) acc[t] += w[t];
}

}  // namespace adi::cuda::general
