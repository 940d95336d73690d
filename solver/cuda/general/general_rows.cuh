#pragma once
// What every kernel of the general problem on the GPU (the rows of
// CudaStepper and of the MPI ranks' CUDA boxes) shares: its parameters, a
// line's node 0, and a line's rows (a, b, c) computed on the fly from K and
// 1/c through the row functions of discrete.hpp: the same arithmetic, in the
// same order, as CpuStepper (the oracle).
//
// Layout: the packed x-fastest grid (strides 1, nx, nx ny), the same as the
// host arrays, so set_field / get_field / Dirichlet offsets need no pitch.

#include <adi/common.hpp>
#include <adi/discrete.hpp>
#include <cstdint>

namespace adi::cuda::general {


/// Everything a general-path kernel needs, passed by value.
template <class T>
struct GeneralParams {
  index_t n[3] = {1, 1, 1};
  index_t stride[3] = {1, 1, 1};
  bool flat[3] = {true, true, true};
  AxisEnds<T> ends[3];
  const T* K[3] = {nullptr, nullptr, nullptr};  ///< conductivity per axis (nullptr: kconst)
  T kconst[3] = {T(0), T(0), T(0)};
  const T* rho = nullptr;  ///< 1 / c (nullptr: rho_const)
  T rho_const = T(1);
  const T* q = nullptr;  ///< source (nullptr: qconst)
  T qconst = T(0);
  T qf = T(1);  ///< f(t*) of the source table
  T dt = T(0);
  T theta_dt = T(0);
  T beta[3][2] = {{T(0), T(0)}, {T(0), T(0)}, {T(0), T(0)}};  ///< 2 q_in / h of Mirror ends at t*
};

/// The problem's constants and the whole domain's ends, over a grid of
/// layout L (the whole grid, or one rank's box): what the whole-grid stepper
/// and a distributed rank both start from; fields, face data and the source
/// factor are filled in by them. `stretched_ok`: a stretched axis' ends come
/// without their scales (sm, sp null), which the caller points at device
/// copies; else a stretched axis throws (domain_ends), as on every path that
/// was not taught them.
template <class T>
GeneralParams<T> general_params(const HeatProblem& p, const Layout3& L, bool stretched_ok = false) {
  GeneralParams<T> P;
  P.dt = static_cast<T>(p.dt);
  P.theta_dt = static_cast<T>(p.theta * p.dt);
  P.rho_const = static_cast<T>(1.0 / p.capacity);
  P.qconst = static_cast<T>(p.source);
  for (int a = 0; a < 3; ++a) {
    P.n[a] = L.n[a];
    P.stride[a] = L.stride[a];
    P.flat[a] = p.flat(a);
    P.kconst[a] = static_cast<T>(p.alpha[a]);
    P.ends[a] = stretched_ok ? adi::detail::ends_of<T>(p, a) : domain_ends<T>(p, a);
  }
  return P;
}

/// Bits of the device error word: a zero or non-finite pivot along axis a sets bit a.
constexpr int kPivotErrorX = 1;

/// The rows of one line: (a, b, c) of row i of (I - theta dt A_a), exactly as
/// CpuStepper::solve builds them.
template <class T>
struct LineRows {
  const GeneralParams<T>& P;
  int axis;
  index_t base;
  __device__ void row(index_t i, T& ra, T& rb, T& rc) const {
    const AxisEnds<T>& e = P.ends[axis];
    if (fixed_row(i, e)) {
      ra = rc = T(0);
      rb = T(1);
      return;
    }
    const index_t s = P.stride[axis], n = e.n;
    const index_t o = base + i * s;
    const index_t om = i > 0 ? o - s : (e.lo == LineEnd::Wrap ? o + (n - 1) * s : o + s);
    const index_t op = i < n - 1 ? o + s : (e.hi == LineEnd::Wrap ? o - (n - 1) * s : o - s);
    const T* K = P.K[axis];
    const T kc = K ? K[o] : P.kconst[axis], km = K ? K[om] : kc, kp = K ? K[op] : kc;
    const T rho = P.rho ? P.rho[o] : P.rho_const;
    implicit_row(row_coupling<T>(i, e, km, kc, kp, rho), P.theta_dt, ra, rb, rc);
  }
};

/// Line `line` of axis a -> offset of its node 0. The two other axes p1 < p2,
/// p1's index fastest across threads: for y and z lines that is x, so a warp
/// touches consecutive elements (coalesced); for x lines it is y (strided).
template <class T>
__device__ ADI_FORCEINLINE index_t line_base(const GeneralParams<T>& P, int a, index_t line) {
  const int p1 = a == 0 ? 1 : 0, p2 = a == 2 ? 1 : 2;
  const index_t c1 = line % P.n[p1], c2 = line / P.n[p1];
  return c1 * P.stride[p1] + c2 * P.stride[p2];
}

}  // namespace adi::cuda::general
