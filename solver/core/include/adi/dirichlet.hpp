#pragma once
// Dirichlet faces whose values move in time, carried exactly through the
// three solves of the Douglas step.
//
// A Dirichlet node holds g(t) = V f(t) (V: a constant, or the initial field's
// value there; f: the face's time table). Its increment over a step is
// dg = V (f(t^{n+1}) - f(t^n)). The node's row is the identity in the solve
// along its own axis, but the solves along the other axes treat it as an
// ordinary node of a line that lies entirely in the face. For D = dg to come
// out of all three solves, the right-hand side w at the node must undo the
// solves it meets:  for a node on a face of axis g, with the solve order
// x, y, z,
//
//     w = prod over the axes a != g that do not fix the node, in solve order,
//         of (I - theta dt A_a), applied to dg (the last solve's factor first)
//
// e.g. on an x face  w = (I - theta dt A_y) (I - theta dt A_z) dg,  on a z face
// w = (I - theta dt A_x)(I - theta dt A_y) dg, on an x-y edge w = (I - theta dt A_z) dg.
// The lines those operators act along lie inside the face, where dg is
// known, so w is exact: the face holds V f(t) to round-off at every step, and
// the interior sees exactly the boundary data of the unsplit scheme. (The
// usual shortcut, w = dg, loses an O(dt^2) term per step at the boundary.)
//
// Where several Dirichlet faces meet, the node belongs to the first of
// x_lo, x_hi, y_lo, y_hi, z_lo, z_hi that contains it: its value, table and
// increment are that face's. Because w is linear in the increments, each
// face's w is stored as one array per moving face that contributes to it:
// w = sum_F (f_F(t^{n+1}) - f_F(t^n)) W_F. Only faces with a table move; a
// run without tables has no W arrays at all and writes w = 0 there, as before.

#include <adi/common.hpp>
#include <adi/problem.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace adi {

/// One Dirichlet face of the domain where it meets a box [lo, lo + size) of
/// the grid. Plane arrays are indexed (c1, c2) over the in-plane axes o1 < o2
/// of the box, c1 fastest.
struct DirichletFace {
  int axis = 0, side = 0;  ///< the face: axis, 0 = lo, 1 = hi
  int id = 0;              ///< 2 axis + side (priority order)
  index_t plane = 0;       ///< box-local index of the face plane along `axis`
  int o1 = 0, o2 = 0;      ///< in-plane axes, o1 < o2
  index_t n1 = 0, n2 = 0;  ///< box extents along them
  std::vector<std::uint8_t> owned;  ///< n1 n2: this face owns the node
  std::vector<double> value;        ///< n1 n2: V at owned nodes (0 elsewhere)
  TimeTable table;                  ///< f(t) of this face
  /// The face keeps the initial field's values but the problem has no
  /// initial_field to read them from (only possible for a face that does not
  /// move): impose_dirichlet leaves its nodes as the field holds them.
  bool keep = false;
  struct Term {
    int face = 0;            ///< the moving face F whose increment multiplies w
    std::vector<double> w;   ///< n1 n2: W_F at the nodes this face owns
    /// F's values V on the face's region (the box's plane with a one-node
    /// halo in-plane, (n1 + 2)(n2 + 2)) and where the region is in the
    /// domain: what W_F is computed from.
    std::vector<double> region_value;
    std::vector<std::uint8_t> region_valid;
  };
  std::vector<Term> terms;  ///< empty unless some face contributing here moves
  index_t index(index_t c1, index_t c2) const { return c1 + n1 * c2; }
};

struct DirichletData {
  std::vector<DirichletFace> faces;  ///< the domain's Dirichlet faces the box touches, in priority order
  bool moving = false;               ///< some term exists: w at Dirichlet nodes is not always 0
  /// f_F(t1) - f_F(t0) of the six faces (0 for faces without a table).
  std::array<double, 6> increments(const HeatProblem& p, double t0, double t1) const;
};

/// The Dirichlet faces of `p` on the box [lo, lo + size) of its grid, their
/// values V (from p.initial_field or the constants) and, when some face
/// moves, the W arrays. Reads K, c and the initial field through their
/// FieldSources on the face planes with a one-node halo (no communication:
/// a rank computes its own part). Throws InvalidArgument when a moving face
/// takes its values from the initial field and p.initial_field is null.
DirichletData build_dirichlet(const HeatProblem& p, const std::array<index_t, 3>& lo,
                              const std::array<index_t, 3>& size);

/// Recomputes the W arrays of d (built by build_dirichlet for the box at
/// `lo`) from the material p's fields hold now: a material that changes
/// during the run (temperature-dependent properties) changes the in-plane
/// operators W is made of.
void refresh_dirichlet_terms(DirichletData& d, const HeatProblem& p, const std::array<index_t, 3>& lo);

/// Sets every Dirichlet node of the box (packed x fastest, extents `size`,
/// at `field` with element strides `stride`) to V f(t): what a fresh run
/// starts from (a constant `value:` face, or a table with f(0) != 1). Faces
/// that keep the initial values without an initial_field (DirichletFace::keep)
/// keep the field's current values.
template <class T>
void impose_dirichlet(const DirichletData& d, double t, T* field, const std::array<index_t, 3>& stride);

/// w at the Dirichlet nodes of the box for the step t0 -> t1: 0, or
/// sum_F df_F W_F. Faces are written in reverse priority so that the owner
/// writes last.
template <class T>
void dirichlet_rhs(const DirichletData& d, const std::array<double, 6>& df, T* w, const std::array<index_t, 3>& stride);

}  // namespace adi
