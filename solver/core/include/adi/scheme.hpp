#pragma once
// The 3D heat equation u_t = div(alpha grad u) with constant anisotropic
// diffusivity on a box, discretised on nx*ny*nz nodes that include the
// boundary nodes, and the Douglas ADI scheme in delta form:
//
//     (I - theta dt Lx) D1 = dt (Lx + Ly + Lz) u^n
//     (I - theta dt Ly) D2 = D1
//     (I - theta dt Lz) D  = D2
//     u^{n+1} = u^n + D
//
// theta = 1/2 is second order in time and unconditionally stable in 3D
// (the amplification factor of every Fourier mode lies in [-1, 1]);
// theta = 1 is Douglas-Rachford (first order, strongly damping). theta < 1/2
// loses unconditional stability in 3D and is refused.
//
// Boundaries, per face: Dirichlet nodes keep their initial values (D = 0
// there: their RHS is zero and their matrix row is the identity); zero-flux
// Neumann uses a mirrored ghost node u[-1] = u[1], so the boundary row of the
// second difference is 2 (u[1] - u[0]) / h^2. Both keep the sine and cosine
// modes exact discrete eigenvectors, which is what the round-off check uses.
//
// This header is the constant-coefficient fast path (the constant-tables
// plan of step_plan.hpp runs it bit for bit as before). The general problem — K, c, q
// fields, heat sources, flux/convective/periodic faces, moving Dirichlet
// values, flat axes — is written row by row in discrete.hpp and dirichlet.hpp.

#include <adi/common.hpp>
#include <adi/error.hpp>
#include <adi/grid.hpp>
#include <adi/problem.hpp>
#include <adi/tridiag.hpp>

#include <array>
#include <string>

namespace adi {

/// The line matrix (I - theta dt L_a) along axis a, boundary rows included.
LineMatrix douglas_line_matrix(const HeatProblem& p, Axis a);

/// The unknowns of a classic problem: the box of nodes between its Dirichlet
/// y and z faces (x stays whole: every row keeps its alignment). Node
/// (i, j, k) of the box is node (i, lo[1] + j, lo[2] + k) of the grid; lo[a]
/// is 1 where the low face of axis a is Dirichlet, n[a] the grid's extent
/// less one for each Dirichlet face. A Dirichlet face's nodes have D = 0 in
/// every step (their RHS is 0, their matrix row the identity), so a step on
/// the box, with the face rows read as ghosts, leaves the same field.
struct UnknownBox {
  std::array<index_t, 3> lo{{0, 0, 0}};
  std::array<index_t, 3> n{{0, 0, 0}};
  /// Which faces of the box are ghost faces (a Dirichlet face outside it).
  std::array<bool, 3> lo_ghost{{false, false, false}}, hi_ghost{{false, false, false}};
};
UnknownBox unknown_box(const HeatProblem& p);

/// Rows lo .. lo + n - 1 of m as a line of their own: the couplings to the
/// rows left out dropped. Exact for rows next to a Dirichlet row: that row's
/// unknown is 0 (D = 0 on the face), and Thomas after an identity first row
/// does the same arithmetic as Thomas on the rows after it (p_1 = b_1 - a_1
/// * 0, and the back substitution subtracts c * 0).
LineMatrix sub_line_matrix(const LineMatrix& m, index_t lo, index_t n);

/// Coefficients of the explicit right-hand side dt * (Lx + Ly + Lz) u,
/// in the working precision, passed by value to CPU loops and CUDA kernels.
template <class T>
struct RhsCoefficients {
  T c[3];           ///< dt * alpha_a / h_a^2
  int lo_neumann[3];  ///< 1 if the low face of axis a is zero-flux
  int hi_neumann[3];
  int lo_fixed[3];    ///< 1 if the low face is Dirichlet (its nodes get D = 0)
  int hi_fixed[3];
  /// 1 if the low (high) face of axis a is a cut between two ranks of a
  /// distributed grid rather than a face of the domain: the node at index 0
  /// (n - 1) is an ordinary interior node, and its outer neighbour is read
  /// from the ghost plane at index -1 (n), which a halo exchange fills. Such
  /// a face is neither fixed nor mirrored. All 0 for a whole grid.
  int lo_ghost[3];
  int hi_ghost[3];
  /// 1 if axis a is periodic and whole on this grid (n distinct nodes, node
  /// n-1 next to node 0): the neighbours wrap, u[-1] = u[n-1], u[n] = u[0].
  /// Such an axis has no fixed, mirrored or ghost face.
  int periodic[3];
  /// Flux / convective x faces folded into the CUDA RHS kernels (the general
  /// path's classic mode; read only when xfaces is 1): a node at i = 0
  /// (i = n-1) on no Dirichlet face gets xb[0] - xg[0] u (xb[1] - xg[1] u)
  /// added: dt / c times the face's heat inflow beta and conductance g_r
  /// (adi::row_coupling, discrete.hpp). Those nodes are a row apart, so a
  /// kernel of their own reads one 32-byte sector per node (65 us of an
  /// 1.9 ms step at 512^3 fp32); the RHS has them in registers.
  T xg[2];
  T xb[2];
  int xfaces;
};
template <class T>
RhsCoefficients<T> rhs_coefficients(const HeatProblem& p);
/// The coefficients of one rank's sub-box: the problem's, with the faces
/// marked in lo_ghost / hi_ghost turned into ghost faces (see RhsCoefficients).
template <class T>
RhsCoefficients<T> rhs_coefficients(const HeatProblem& p, const std::array<bool, 3>& lo_ghost,
                                    const std::array<bool, 3>& hi_ghost);

/// One axis' contribution c * (u[-] - 2 u + u[+]) written as
/// c * ((um - uc) + (up - uc)): differences first, so that the smooth part
/// cancels exactly before it is scaled (matters in fp32).
template <class T>
ADI_HD ADI_FORCEINLINE T second_difference(T um, T uc, T up, T c) {
  return c * ((um - uc) + (up - uc));
}

/// The Douglas right-hand side at one node given its six neighbours, where
/// the caller has already mirrored neighbours across Neumann faces. The same
/// function runs in the CPU loops and in the CUDA kernels, so both backends do
/// the same arithmetic in the same order.
template <class T>
ADI_HD ADI_FORCEINLINE T douglas_rhs(T uc, T xm, T xp, T ym, T yp, T zm, T zp, const RhsCoefficients<T>& k) {
  return second_difference(xm, uc, xp, k.c[0]) + second_difference(ym, uc, yp, k.c[1]) +
         second_difference(zm, uc, zp, k.c[2]);
}

/// True when node index i on an axis of n nodes lies on a Dirichlet face
/// (never on a ghost face: that node is interior to the whole grid).
template <class T>
ADI_HD ADI_FORCEINLINE bool on_fixed_face(const RhsCoefficients<T>& k, int axis, index_t i, index_t n) {
  return (i == 0 && k.lo_fixed[axis] && !k.lo_ghost[axis]) || (i == n - 1 && k.hi_fixed[axis] && !k.hi_ghost[axis]);
}

/// Index of the lower/upper neighbour with Neumann mirroring (u[-1] = u[1],
/// u[n] = u[n-2]). At a Dirichlet face the neighbour is never used.
ADI_HD ADI_FORCEINLINE index_t lower_neighbour(index_t i) { return i == 0 ? 1 : i - 1; }
ADI_HD ADI_FORCEINLINE index_t upper_neighbour(index_t i, index_t n) { return i == n - 1 ? n - 2 : i + 1; }

/// The same on axis a of a sub-box: across a ghost face the neighbour is the
/// ghost plane (index -1 or n), on a periodic axis the node at the other end,
/// elsewhere the mirrored node as above. Without ghost faces and periodic
/// axes these are exactly lower_neighbour(i) / upper_neighbour(i, n).
template <class T>
ADI_HD ADI_FORCEINLINE index_t lower_neighbour(const RhsCoefficients<T>& k, int axis, index_t i, index_t n) {
  if (i != 0 || k.lo_ghost[axis]) return i - 1;
  return k.periodic[axis] ? n - 1 : 1;
}
template <class T>
ADI_HD ADI_FORCEINLINE index_t upper_neighbour(const RhsCoefficients<T>& k, int axis, index_t i, index_t n) {
  if (i != n - 1 || k.hi_ghost[axis]) return i + 1;
  return k.periodic[axis] ? 0 : n - 2;
}

/// Amplification factor of one Douglas step for a mode whose eigenvalues of
/// dt*L_a are mu_a (<= 0): g = 1 + sum(mu) / prod(1 - theta mu_a).
double douglas_amplification(const std::array<double, 3>& mu, double theta);
/// The same for the Strang step (split.hpp): the product of its theta
/// factors' amplifications, (1 + (1 - theta) m) / (1 - theta m) with m = mu_a
/// times the factor's fraction of dt.
double strang_amplification(const std::array<double, 3>& mu, double theta);
/// The amplification of the scheme p runs (HeatProblem::scheme_in_use()).
double step_amplification(const HeatProblem& p, const std::array<double, 3>& mu);

/// Most negative eigenvalue of dt*L_a on axis a (its highest grid frequency):
/// -4 lambda_a sin^2(phi), phi from the axis' faces (Dirichlet-Dirichlet:
/// (n-2) pi / (2(n-1)); Neumann-Neumann: pi/2; mixed: (2n-3) pi / (4(n-1))).
double highest_mode_eigenvalue(const HeatProblem& p, int axis);

/// How one step treats the grid's highest frequencies, an accuracy (not a
/// stability) check. The modes looked at are the 7 "corners": every axis
/// either at its highest frequency or smooth (not all smooth). For such a
/// mode the exact solution decays by exp(sum mu) over dt, Douglas by g. With
/// theta = 1/2 and lambda = alpha dt / h^2 large, g tends to -1 for a mode
/// high along one axis and to +1 for one high along all three (1 - 12 lambda
/// / (1 + 2 lambda)^3), also with theta = 1: grid-scale features of the data
/// (a sharp initial field, a jump at a Dirichlet face) then decay over many
/// steps, oscillating, where physically they are gone within one.
/// "poor": some corner has |g| > 0.9 (less than 10 % damping per step) while
/// its exact factor is below 0.1. For an isotropic grid and theta = 1/2 that
/// starts at lambda ~ 3.1 (the 3-axis corner) and at lambda ~ 9.5 for a
/// single axis (|g| = (2 lambda - 1) / (2 lambda + 1)).
struct HighFrequencyDamping {
  double g = 0.0;                ///< the worst corner's amplification factor
  double exact = 1.0;            ///< its exact decay factor over one step
  std::array<bool, 3> axes{};    ///< the axes at their highest frequency in that corner
  bool poor = false;
  double dt_ok = 0.0;            ///< largest dt (all else equal) with no poor corner; 0 if none was found
};
HighFrequencyDamping high_frequency_damping(const HeatProblem& p);

}  // namespace adi

namespace adi::cpu {
/// w = dt (Lx + Ly + Lz) u with the problem's boundary rules (0 on Dirichlet
/// faces, mirrored neighbours on Neumann faces); u and w share `layout`,
/// whose extents must be the problem's.
template <class T>
void douglas_rhs(const T* u, T* w, const Layout3& layout, const HeatProblem& p);
/// The same on a sub-box described by its coefficients alone: `layout` holds
/// the box's own nodes; along an axis with a ghost face u must also be
/// readable at index -1 (lo_ghost) or n (hi_ghost) of that axis, i.e. the
/// allocation has ghost planes around the box and u points at node (0, 0, 0).
template <class T>
void douglas_rhs(const T* u, T* w, const Layout3& layout, const RhsCoefficients<T>& k);
}  // namespace adi::cpu
