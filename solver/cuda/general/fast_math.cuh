#pragma once
// The fast reciprocal and the face mean built on it, shared by the general
// path's line solves (general_lanes.cu) and its fast right-hand side
// (general_rhs.cu): round-off agreement with the oracle is their contract,
// not bit identity (general_stepper.cu's bit-exact kernels do not use them).

namespace adi::cuda::general {

// Reciprocals on the sweeps' critical path (the pivot chain of a line is
// sequential, so the latency per row is what the kernel waits on) and in
// the face means. fp32: the multi-function unit's approximation alone
// (MUFU.RCP, relative error < 2^-23: no Newton step, no slow-path call; an
// IEEE division was ~10 instructions and a call). fp64: the approximation
// (2^-22) refined by two Newton steps (2^-44, then below the last bit of
// the result) instead of the IEEE division's sequence and slow-path call.
// Denormal inputs flush to zero; a zero, infinite or NaN pivot gives a
// non-finite or NaN result downstream, which the output check reports.
__device__ __forceinline__ float rcp(float x) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ double rcp(double x) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  double e = fma(-x, r, 1.0);
  r = fma(r, e, r);
  e = fma(-x, r, 1.0);
  return fma(r, e, r);
}

// harmonic_mean (problem.hpp) with the fast reciprocal; K > 0 (validated),
// so a + b > 0; equal values give the value itself, exactly.
template <class T>
__device__ __forceinline__ T face_mean(T a, T b) {
  return a == b ? a : T(2) * a * b * rcp(a + b);
}

}  // namespace adi::cuda::general
