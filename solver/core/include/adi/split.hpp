#pragma once
// The Strang-split Crank-Nicolson step (SchemeType::Strang): stable for every
// material. docs/SCHEMES.md has the argument and the measurements; in short:
//
// With the operators of discrete.hpp, A_a = C^-1 L_a along axis a, one step
// from t^n applies the one-dimensional theta factors
//
//     S_a(tau):  (I - theta tau A_a) u' = (I + (1 - theta) tau A_a) u + tau s_a(t*)
//
// in the order x (dt/2) y (dt/2) z (dt) y (dt/2) x (dt/2), each in delta
// form: w = tau (A_a u + s_a), (I - theta tau A_a) d = w, u += d (the line
// solves' fused update). s_a is axis a's face data beta (flux, convective
// ambient: only at a's own Mirror ends) plus a third of the volume source
// q f / c; all data at t* = t^n + theta dt. A flat axis' factors add only
// their share of the source (its operator is 0), so a 2D run is the 3D run
// of a uniform, insulated third axis to round-off.
//
// Stability. Every L_a is symmetric with the node volumes as weights
// (discrete.hpp: trapezoidal weights w_i, the face conductance of a pair
// counted once by both rows) and negative semi-definite (the Robin term
// -g_r only adds to the diagonal), so A_a is self-adjoint and <= 0 in
// <u, v> = sum_i w_i c_i u_i v_i over the unknown nodes, whatever K and c
// are. Each factor's amplification (I - theta tau A_a)^-1 (I + (1 - theta)
// tau A_a) then has its eigenvalues (1 + (1 - theta) z) / (1 - theta z),
// z <= 0, in [-1, 1] for theta >= 1/2, with orthogonal eigenvectors in that
// inner product: it is a contraction, and so is any product of them. The
// step's spectral radius is <= 1 for every K, c, dt and face kind
// (test_split: dense step matrices). The Douglas step is not (3D, fields).
//
// Order. A symmetric composition of second-order factors is second order;
// the known weakness of splitting, the boundary data, is handled as follows.
// A Dirichlet node is an ordinary node of every line that lies in its face
// (its tangential axes T): those factors move it with the tangential
// operators, so the interior sees boundary values consistent with each
// stage. Its own factors (the axes S whose faces hold it) add
//
//     r = g(t^{n+1}) - g(t^n) - dt sum_{b in T} F_b(g(t^n)),  F_b = A_b g + s_b,
//
// shared 1/|S| per fixed axis and, within an axis, by the fractions of its
// factors, and after the step every Dirichlet node is set to g(t^{n+1})
// exactly (the data). Without r the intermediate values are O(dt) off and
// the max-norm error stops converging at dt ~ h; without the tangential
// motion the splitting error is O(dt^2 / h^2) next to the faces.
// Measured: order 2.0 in the max norm on the manufactured solution with K, c,
// q fields and moving Dirichlet faces (adi3d validate).
//
// Conservation: each factor conserves sum w c u up to its own axis' face
// flows and its share of the source (the same telescoping as discrete.hpp),
// so with insulated faces a step changes the energy by exactly dt Q f(t*).
//
// Cost: five line solves a step (four in 2D), each with its own explicit
// part; the Douglas step has three and one right-hand side.

#include <adi/common.hpp>
#include <adi/dirichlet.hpp>
#include <adi/discrete.hpp>
#include <adi/problem.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace adi {

/// One factor of a step: the axis and its time step as a fraction of dt.
struct SplitFactor {
  int axis = 0;
  double fraction = 1.0;
};

/// The factors of one Strang step, in order (above), flat axes included.
std::vector<SplitFactor> strang_sequence(const HeatProblem& p);
/// The fraction of dt of each axis' factors (each axis has one): 1/2 for x
/// and y, 1 for z.
std::array<double, 3> strang_fractions(const HeatProblem& p);
/// The share of the volume source of each axis (over its factors): 1/3.
double strang_source_share(const HeatProblem& p);

/// F_b at a node, per unit time: the axis' operator on u plus rho (beta +
/// sq), beta the node's face data along b (0 away from b's Mirror ends), sq
/// the share of q f. Every backend's factors and Dirichlet terms use it.
template <class T>
ADI_HD ADI_FORCEINLINE T split_flow(const RowCoupling<T>& r, T um, T uc, T up, T rho, T beta, T sq) {
  return row_apply(r, um, uc, up) + rho * (beta + sq);
}

/// The Dirichlet nodes of a box as the Strang step sees them, one plane per
/// Dirichlet face the box touches (the planes of DirichletData, same order
/// and geometry): which face owns each node and, where that face moves, its
/// value V (so that g(t^{n+1}) - g(t^n) = V df[owner]). Host data; the
/// backends keep r / |S| and g(t^{n+1}) per plane node (split_planes).
struct SplitDirichlet {
  struct Plane {
    int id = 0;               ///< 2 axis + side of the face
    int axis = 0, side = 0;   ///< the face
    index_t plane = 0;        ///< box-local index of the plane along `axis`
    int o1 = 0, o2 = 0;       ///< in-plane axes, o1 < o2 (o1 fastest)
    index_t n1 = 0, n2 = 0;
    std::vector<std::int8_t> owner;  ///< n1 n2: the owning face's id where it moves, -1 otherwise
    std::vector<double> value;       ///< n1 n2: V of that face (0 where owner is -1)
  };
  std::vector<Plane> planes;
  bool moving = false;  ///< some node's owner moves
  /// The plane of face id (2 axis + side), or nullptr.
  const Plane* find(int id) const {
    for (const Plane& p : planes)
      if (p.id == id) return &p;
    return nullptr;
  }
};

/// From the box's DirichletData (build_dirichlet): every node of each face
/// plane looked up in the faces in priority order.
SplitDirichlet split_dirichlet(const DirichletData& d);

/// f_F(t) of the six faces' tables (1 for a face without one): a moving
/// node's data g(t) = V f_F(t), as impose_dirichlet writes it.
std::array<double, 6> split_table_values(const HeatProblem& p, double t);

/// r of the Strang step (above) at a Dirichlet node: vdf = V df (0 for a
/// face that does not move), flows = sum over the tangential axes of
/// split_flow at g(t^n) (the field at the step's start: its Dirichlet nodes
/// hold g(t^n)). Divided among the node's `fixed` axes.
template <class T>
ADI_HD ADI_FORCEINLINE T split_dirichlet_share(double vdf, T flows, T dt, int fixed) {
  return (static_cast<T>(vdf) - dt * flows) / static_cast<T>(fixed);
}

}  // namespace adi
