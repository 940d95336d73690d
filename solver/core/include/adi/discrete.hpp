#pragma once
// The discrete operator of the general problem (problem.hpp), row by row, as
// small host/device functions: the CPU oracle and the device kernels compute
// every row of every line from these, so all backends do the same arithmetic.
//
// Along axis a (spacing h), at node i with capacity c_i, the conservative
// flux form is
//
//     (A_a u)_i = gm (u_{i-1} - u_i) + gp (u_{i+1} - u_i) - gr u_i  (+ beta_i)
//
//     gm = K_{i-1/2} / (c_i h^2),  gp = K_{i+1/2} / (c_i h^2),
//     K_{i+1/2} = harmonic_mean(K_i, K_{i+1})   (series conductance: the
//                 discrete flux is continuous across an interface midway
//                 between nodes, and exact for a piecewise-linear profile)
//
// and the Douglas step in delta form is
//
//     w = dt ( sum_a A_a u^n + beta(t*) + q f(t*) / c ),   t* = t^n + theta dt
//     (I - theta dt A_x) D1 = w,  (I - theta dt A_y) D2 = D1,  (I - theta dt A_z) D = D2
//     u^{n+1} = u^n + D
//
// The right-hand side is the Crank-Nicolson one for theta = 1/2 and the
// factorisation error is theta^2 dt^2 (A_x A_y + ...) D = O(dt^3): second
// order. Time-dependent data (tables, sources) are taken at t*, the midpoint.
//
// How a line ends (LineEnd), at node 0 (and likewise at node n - 1):
//   Fixed  — a Dirichlet node: identity row; its increment comes from the
//            face data (see dirichlet.hpp), never from the stencil.
//   Mirror — an insulated, flux or convective (Robin) face: the half cell
//            [0, h/2] balances   c_0 (h/2) du_0/dt = K_{1/2} (u_1 - u_0)/h
//            + q_in,  q_in = flux (Neumann) or h_c (u_inf - u_0) (Robin).
//            That is the ghost node u_{-1} = u_1 (+ data), K_{-1} = K_1, so
//            gm = 0, gp = 2 K_{1/2}/(c_0 h^2), gr = 2 h_c/(c_0 h) (Robin) and
//            beta_0 = 2 q_data / (c_0 h). Second order, exactly conservative
//            with trapezoidal weights (w_0 = 1/2), and exact for the linear
//            steady profile of a slab.
//   Open   — the neighbour is a real node that this box does not own: the
//            ghost plane of a distributed run (filled by a halo exchange).
//   Wrap   — a periodic axis: node 0's lower neighbour is node n - 1.
// A stretched axis (HeatProblem::coordinates): finite volumes on the node
// grid. Node i owns [x_{i-1/2}, x_{i+1/2}] (the midpoints), of length
// V_i = (d_- + d_+) / 2 with d_- = x_i - x_{i-1}, d_+ = x_{i+1} - x_i, and
//
//     gm = K_{i-1/2} / (c_i V_i d_-),  gp = K_{i+1/2} / (c_i V_i d_+),
//
// each face's conductance K_{i+1/2} / d_+ with the harmonic mean of the two
// half cells of length d_+ / 2 on either side of the face: a material
// interface at a node midpoint is exact. The rows read sm_i = 1 / (V_i d_-)
// and sp_i = 1 / (V_i d_+) (AxisScales) where a uniform axis has 1 / h^2;
// at a Mirror end the missing gap is the inward one (V = d, then the half
// cell's doubling above gives 2 / d^2), at a Wrap end the wrap's gap, and
// the Robin and flux terms use the end gap d for h (1 / V_0 = 2 / d). A
// uniform axis has the same rows, operation for operation.
//
// Conservation: with trapezoidal weights w_i (1/2 at Fixed/Mirror ends) every
// A_a without Robin terms satisfies sum_i w_i c_i (A_a v)_i = boundary flux
// terms only (the interior telescopes), and so does each implicit solve:
// c D_a - theta dt c A_a D_a = c D_{a-1} summed with w gives
// E(D_a) = E(D_{a-1}) + theta dt E(A_a D_a). With insulated faces that is 0,
// so E(D) = E(w) = dt E(q f / c) exactly: the step conserves energy to
// round-off, whatever the splitting error.

#include <adi/common.hpp>
#include <adi/problem.hpp>

#include <limits>
#include <string>
#include <vector>

namespace adi {

enum class LineEnd : int { Fixed = 0, Mirror = 1, Open = 2, Wrap = 3 };

/// The end of a line at a domain face of kind b (a face between ranks is
/// Open, set by the distributed backends).
inline LineEnd line_end(Boundary b) {
  return b == Boundary::Dirichlet ? LineEnd::Fixed : b == Boundary::Periodic ? LineEnd::Wrap : LineEnd::Mirror;
}

/// One axis of a (sub-)box as the row functions see it.
template <class T>
struct AxisEnds {
  index_t n = 0;  ///< nodes along the axis in the box (1: flat axis, no operator)
  LineEnd lo = LineEnd::Fixed, hi = LineEnd::Fixed;
  T inv_h2 = T(0);                  ///< 1 / h^2 (NaN on a stretched axis: sm, sp instead)
  T lo_robin = T(0), hi_robin = T(0);  ///< 2 h_c / h at a Robin end [W/(m^3 K)], 0 otherwise
  /// A stretched axis: sm_i = 1 / (V_i d_-), sp_i = 1 / (V_i d_+) per node
  /// of the whole axis (global index), in an AxisScales that outlives this;
  /// null on a uniform axis.
  const T* sm = nullptr;
  const T* sp = nullptr;
};

/// The storage of a stretched axis' sm and sp (AxisEnds).
template <class T>
struct AxisScales {
  std::vector<T> sm, sp;
};

namespace detail {
template <class T>
AxisEnds<T> ends_of(const HeatProblem& p, int a) {
  AxisEnds<T> e;
  e.n = p.n[a];
  if (p.flat(a)) return e;
  const double h = p.spacing(a);
  e.inv_h2 = p.stretched(a) ? std::numeric_limits<T>::quiet_NaN() : static_cast<T>(1.0 / (h * h));
  e.lo = line_end(p.lo[a]);
  e.hi = line_end(p.hi[a]);
  if (p.lo[a] == Boundary::Robin) e.lo_robin = static_cast<T>(2.0 * p.lo_data[a].h / p.end_gap(a, 0));
  if (p.hi[a] == Boundary::Robin) e.hi_robin = static_cast<T>(2.0 * p.hi_data[a].h / p.end_gap(a, 1));
  return e;
}

/// sm, sp of a stretched line of m nodes at coordinates x (m values, m + 1
/// on a periodic line: the last node 0's image), into s: the gaps below and
/// above each node, at a non-periodic end the inward one for the missing
/// gap (the Mirror rule; a Fixed end's row is not used).
template <class T>
void stretch_scales(const double* x, index_t m, bool wrap, AxisScales<T>& s) {
  auto gap = [&](index_t i) { return x[i + 1] - x[i]; };
  s.sm.resize(static_cast<std::size_t>(m));
  s.sp.resize(static_cast<std::size_t>(m));
  for (index_t i = 0; i < m; ++i) {
    const double dp = i < m - 1 ? gap(i) : (wrap ? gap(m - 1) : gap(m - 2));
    const double dm = i > 0 ? gap(i - 1) : (wrap ? gap(m - 1) : gap(0));
    const double v = 0.5 * (dm + dp);
    s.sm[static_cast<std::size_t>(i)] = static_cast<T>(1.0 / (v * dm));
    s.sp[static_cast<std::size_t>(i)] = static_cast<T>(1.0 / (v * dp));
  }
}
}  // namespace detail

/// Axis a of the whole domain of p as the row functions see it (n the global
/// node count; a flat axis keeps only n). Every general-path backend builds
/// its rows from these ends, a rank of a distributed run with global indices.
/// This overload serves uniform axes only: a stretched one throws (a path
/// that was not taught its rows refuses instead of computing a uniform
/// grid's); the other overload serves both.
template <class T>
AxisEnds<T> domain_ends(const HeatProblem& p, int a) {
  if (p.stretched(a))
    ADI_THROW(InvalidArgument, std::string("a stretched ") + "xyz"[a] +
                                   " axis (grid coordinates) is not supported on this path: use uniform spacing");
  return detail::ends_of<T>(p, a);
}

/// domain_ends with a stretched axis' sm and sp, kept in `scales` (which
/// must outlive the ends and not be resized; left empty on a uniform axis).
template <class T>
AxisEnds<T> domain_ends(const HeatProblem& p, int a, AxisScales<T>& scales) {
  AxisEnds<T> e = detail::ends_of<T>(p, a);
  scales.sm.clear();
  scales.sp.clear();
  if (p.flat(a) || !p.stretched(a)) return e;
  detail::stretch_scales(p.coordinates[a].data(), p.n[a], p.periodic(a), scales);
  e.sm = scales.sm.data();
  e.sp = scales.sp.data();
  return e;
}

/// beta of the Mirror ends at time t (t* of the step): 2 q_in / h per unit
/// volume (times 1/c at the node) on a flux face, 2 h_c T_amb / h on a
/// convective one, each with its table's factor at t; 0 elsewhere.
template <class T>
void face_betas(const HeatProblem& p, double t, T (&beta)[3][2]) {
  for (int a = 0; a < 3; ++a) {
    beta[a][0] = beta[a][1] = T(0);
    if (p.flat(a) || p.periodic(a)) continue;
    for (int side = 0; side < 2; ++side) {
      const double h = p.end_gap(a, side);
      const Boundary b = side ? p.hi[a] : p.lo[a];
      const FaceData& d = side ? p.hi_data[a] : p.lo_data[a];
      const double f = d.table.at(t);
      if (b == Boundary::Neumann) beta[a][side] = static_cast<T>(2.0 * d.flux * f / h);
      if (b == Boundary::Robin) beta[a][side] = static_cast<T>(2.0 * d.h * d.ambient * f / h);
    }
  }
}

/// The couplings of one row: (A u)_i = gm (u_- - u_i) + gp (u_+ - u_i) - gr u_i.
template <class T>
struct RowCoupling {
  T gm = T(0), gp = T(0), gr = T(0);
};

/// Row i of a line of n nodes (0 < n; callers skip Fixed rows). km, kc, kp:
/// conductivity of the lower neighbour, the node, the upper neighbour as the
/// caller found them (for a Mirror end the caller may pass anything for the
/// missing neighbour: it is not used; for Wrap the node at the other end; for
/// Open the ghost). rho = 1 / c_i.
template <class T>
ADI_HD ADI_FORCEINLINE RowCoupling<T> row_coupling(index_t i, const AxisEnds<T>& e, T km, T kc, T kp, T rho) {
  RowCoupling<T> r;
  // A uniform axis: sm = sp = inv_h2, the same operations as ever.
  const T sm = (e.sm ? e.sm[i] : e.inv_h2) * rho, sp = (e.sp ? e.sp[i] : e.inv_h2) * rho;
  const bool at_lo = i == 0, at_hi = i == e.n - 1;
  const bool mirror_lo = at_lo && e.lo == LineEnd::Mirror, mirror_hi = at_hi && e.hi == LineEnd::Mirror;
  T gm = mirror_lo ? T(0) : harmonic_mean(km, kc) * sm;
  T gp = mirror_hi ? T(0) : harmonic_mean(kc, kp) * sp;
  // The mirrored half cell: the inward conductance counts twice (half the volume).
  if (mirror_lo) gp = gp + gp;
  if (mirror_hi) gm = gm + gm;
  T gr = T(0);
  if (mirror_lo) gr = gr + e.lo_robin * rho;
  if (mirror_hi) gr = gr + e.hi_robin * rho;
  r.gm = gm;
  r.gp = gp;
  r.gr = gr;
  return r;
}

/// Whether row i of the axis is a Dirichlet (identity) row.
template <class T>
ADI_HD ADI_FORCEINLINE bool fixed_row(index_t i, const AxisEnds<T>& e) {
  return (i == 0 && e.lo == LineEnd::Fixed) || (i == e.n - 1 && e.hi == LineEnd::Fixed);
}

/// dt (A_a u)_i without beta: the stencil part of the right-hand side.
template <class T>
ADI_HD ADI_FORCEINLINE T row_apply(const RowCoupling<T>& r, T um, T uc, T up) {
  return r.gm * (um - uc) + r.gp * (up - uc) - r.gr * uc;
}

/// Row i of (I - theta dt A_a): sub-diagonal a, diagonal b, super-diagonal c
/// (identity for a Fixed row).
template <class T>
ADI_HD ADI_FORCEINLINE void implicit_row(const RowCoupling<T>& r, T theta_dt, T& a, T& b, T& c) {
  a = -theta_dt * r.gm;
  c = -theta_dt * r.gp;
  b = T(1) + theta_dt * (r.gm + r.gp + r.gr);
}

}  // namespace adi
