#pragma once
// Device side of the segmented plan (adi/segmented.hpp): the per-thread
// modified Thomas sweeps over a segment held in registers, and the reduced
// system solved by two affine scans across the S threads that own a line's
// segments (shuffles of width S: several lines can share a warp).

#include <adi/segmented.hpp>

#include <cuda_runtime.h>

namespace adi::cuda {

/// The plan's tables on the device, segment-minor: the entry of segment s,
/// local row j is at [j * S + s], so the 32 lanes of a warp that own
/// different segments read consecutive words, and lanes that own the same
/// segment read one broadcast word.
template <class T>
struct PlanView {
  const T* fw_mul;
  const T* fw_ms;
  const T* bw_c;
  const T* fin_a;
  const T* fin_c;
  const T* bw0_mul;  // [s]
  const T* red_inv;  // [r], r = 2s (first) or 2s+1 (last)
  const T* red_a;
  const T* red_c;
  int n;  // rows of the real line
  int I;  // rows per segment (the kernel's compile-time I must equal it)
  int S;  // segments per line
};

// Table reads. The tables are tiny and every read hits L1, but they are
// loop-invariant in the persistent kernels, and left to itself the compiler
// hoists all 5*I of them out of the tile loop into registers, which then
// crowd out the data (and spill). A volatile load is re-issued per tile.
__device__ __forceinline__ float ro(const float* p) {
  float v;
  asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}
__device__ __forceinline__ double ro(const double* p) {
  double v;
  asm volatile("ld.global.nc.f64 %0, [%1];" : "=d"(v) : "l"(p));
  return v;
}

/// Forward and backward modified-Thomas sweeps over one segment. After it,
/// d[0] and d[I-1] are the right-hand sides of the segment's two reduced rows.
/// Only the forward chain is serial (one FMA per row: fw_mul * d_j is off it).
template <class T, int I>
__device__ __forceinline__ void local_sweeps(T (&d)[I], const PlanView<T>& p, int s) {
  static_assert(I >= 2, "segments need at least two rows");
  const int S = p.S;
  d[0] *= ro(p.fw_mul + s);
  d[1] *= ro(p.fw_mul + S + s);
#pragma unroll
  for (int j = 2; j < I; ++j) d[j] = ro(p.fw_mul + j * S + s) * d[j] - ro(p.fw_ms + j * S + s) * d[j - 1];
#pragma unroll
  for (int j = I - 3; j >= 1; --j) d[j] -= ro(p.bw_c + j * S + s) * d[j + 1];
  if (I >= 3) d[0] = ro(p.bw0_mul + s) * (d[0] - ro(p.bw_c + s) * d[1]);
}

/// Solves the reduced system of the line whose segment s (= this lane's
/// position in its group of S lanes) has reduced right-hand sides (first,
/// last); returns the solution in place. All 32 lanes must call it together.
/// Forward: y_r = red_inv_r d_r + red_a_r y_{r-1}. A lane composes its two rows
/// into one affine map and an inclusive Hillis-Steele scan composes the maps
/// across the group (log2 S shuffle steps). Backward likewise with a suffix scan.
template <class T>
__device__ __forceinline__ void reduced_solve(T& first, T& last, const PlanView<T>& p, int s) {
  const unsigned full = 0xffffffffu;
  const int S = p.S;
  const int r0 = 2 * s, r1 = 2 * s + 1;
  const T A0 = ro(p.red_a + r0), A1 = ro(p.red_a + r1);
  const T B0 = ro(p.red_inv + r0) * first, B1 = ro(p.red_inv + r1) * last;
  T alpha = A1 * A0, beta = A1 * B0 + B1;  // y_{r1} = alpha * y_{r0-1} + beta
  for (int o = 1; o < S; o <<= 1) {
    const T a_up = __shfl_up_sync(full, alpha, o, S);
    const T b_up = __shfl_up_sync(full, beta, o, S);
    if (s >= o) {
      beta = beta + alpha * b_up;
      alpha = alpha * a_up;
    }
  }
  T y_prev = __shfl_up_sync(full, beta, 1, S);
  if (s == 0) y_prev = T(0);
  const T y0 = A0 * y_prev + B0, y1 = beta;
  const T C0 = ro(p.red_c + r0), C1 = ro(p.red_c + r1);
  T gamma = C0 * C1, delta = y0 + C0 * y1;  // z_{r0} = gamma * z_{r0 of s+1} + delta
  for (int o = 1; o < S; o <<= 1) {
    const T g_dn = __shfl_down_sync(full, gamma, o, S);
    const T d_dn = __shfl_down_sync(full, delta, o, S);
    if (s + o < S) {
      delta = delta + gamma * d_dn;
      gamma = gamma * g_dn;
    }
  }
  T z_next = __shfl_down_sync(full, delta, 1, S);
  if (s == S - 1) z_next = T(0);
  first = delta;
  last = y1 + C1 * z_next;
}

/// Back substitution of the segment's interior from its solved first/last unknowns.
template <class T, int I>
__device__ __forceinline__ void finish_segment(T (&d)[I], const PlanView<T>& p, int s, T zf, T zl) {
  const int S = p.S;
#pragma unroll
  for (int j = 1; j <= I - 2; ++j) d[j] = d[j] - ro(p.fin_a + j * S + s) * zf - ro(p.fin_c + j * S + s) * zl;
  d[0] = zf;
  d[I - 1] = zl;
}

}  // namespace adi::cuda
