#pragma once
// The variable-coefficient line solve of the conductive (K/c) form along any
// axis, with every row computed on the fly from a conductivity field K and a
// heat-capacity field c -- no coefficient arrays: the library twin of the
// general stepper's implicit solves (issue #16). For every line along `axis`
// it solves
//
//     (I - tau A) x = d,
//     (A v)_i = [ K_{i+1/2} (v_{i+1} - v_i) - K_{i-1/2} (v_i - v_{i-1}) ] / (c_i h^2)
//
// with K_{i+1/2} the harmonic mean of the two nodes' K (exact flux continuity
// across a material interface between nodes). How each line ends, at node 0
// (lo) and node n - 1 (hi) -- the rows of adi/discrete.hpp, the same
// arithmetic as the stepper:
//   Fixed  -- a Dirichlet node: identity row, x = d there;
//   Mirror -- an insulated face (ghost u_{-1} = u_1, K_{-1} = K_1): the half
//             cell's inward conductance counts twice; with robin_h > 0 a
//             convective face adds 2 h_c / (c h) to the diagonal of A's negative
//             (the -h_c u part of -K du/dn = h_c (u - u_inf); the u_inf part is
//             right-hand-side data, the caller's);
//   Wrap   -- a periodic axis (both ends): node 0's lower neighbour is node
//             n - 1 (n distinct nodes, h = L / n), a cyclic system.
// A stretched line (`coordinates` instead of h): node i owns half of each
// neighbouring gap, and the rows are discrete.hpp's finite volumes
// (K_{i+1/2} / (c_i V_i (x_{i+1} - x_i)) and so on; the end gap for h at a
// Mirror end). On the CPU; the CUDA solve refuses coordinates (its rows for
// them have not run on a GPU).
// d is overwritten with x, in place. Errors: InvalidArgument for a bad
// description (h <= 0, tau < 0 or non-finite, Wrap at one end only, Open,
// a Robin coefficient on a non-Mirror end, Wrap with n < 3, null pointers),
// and for a non-finite or negative K or a non-finite or non-positive 1/c at a
// node whose row is built (after the lines are solved: d is then partly
// overwritten); NumericalError for a zero or non-finite pivot.

#include <adi/common.hpp>
#include <adi/discrete.hpp>
#include <adi/grid.hpp>

#include <vector>

namespace adi {

template <class T>
struct ConductiveLines {
  double tau = 0.0;  ///< the matrix is I - tau A: theta dt for the Douglas step [s]
  double h = 0.0;    ///< node spacing along the axis [m]
  LineEnd lo = LineEnd::Fixed, hi = LineEnd::Fixed;
  double lo_robin_h = 0.0, hi_robin_h = 0.0;  ///< h_c [W/(m^2 K)] of a convective Mirror end (0: insulated)
  /// A stretched line: its node coordinates [m], strictly increasing, n of
  /// them (n + 1 on a Wrap line: the last node 0's periodic image); h must
  /// then be 0. Empty: the uniform spacing h.
  std::vector<double> coordinates;
  /// Throws InvalidArgument naming the first bad member; n: the line length.
  void validate(index_t n) const;
  /// The row functions' view of one axis of n nodes (adi/discrete.hpp); a
  /// stretched line's scales kept in `scales`, which must outlive the ends.
  AxisEnds<T> ends(index_t n, AxisScales<T>& scales) const;
  /// ends() of a uniform line (throws InvalidArgument for coordinates).
  AxisEnds<T> ends(index_t n) const;
};

namespace detail {
template <class T>
struct NoDeduce {  // keeps a nullptr inv_c from taking part in deducing T
  using type = T;
};
}  // namespace detail

namespace cpu {

/// (I - tau A) x = d along every line of `axis` (OpenMP across lines). K and
/// inv_c (= 1 / c; nullptr for c = 1) have the same layout as d.
template <class T>
void solve_conductive(Axis axis, const T* K, const typename adi::detail::NoDeduce<T>::type* inv_c,
                      const ConductiveLines<T>& lines, T* d, const Layout3& layout);

}  // namespace cpu
}  // namespace adi
