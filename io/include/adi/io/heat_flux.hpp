#pragma once
// The heat flux q = -K grad u at the nodes (`output.fields: [u, heat_flux]`),
// from the scheme's own face fluxes (discrete.hpp). Along axis a (spacing
// h) the flux through the face between nodes i and i + 1 is
//
//     F_{i+1/2} = -K_{i+1/2} (u_{i+1} - u_i) / h,
//     K_{i+1/2} = harmonic_mean(K_i, K_{i+1})   (axis a's conductivity)
//
// and node i's component q_a is the mean of the fluxes through the two faces
// of its control volume [x_{i-1/2}, x_{i+1/2}]:
//
//     interior node, or any node of a periodic axis:  q_a = (F_{i-1/2} + F_{i+1/2}) / 2
//     node on a Dirichlet face:      the one face it has, q_a = F_{1/2} (lo) or F_{n-3/2} (hi)
//     node on a flux face:           the half cell's two faces: the boundary's flux and the inner face's,
//                                    boundary flux along +a = +F f(t) at lo, -F f(t) at hi (F into the domain)
//     node on a convective face:     likewise with the boundary flux h (u - u_inf f(t)) out of the domain:
//                                    -h (u_0 - u_inf f(t)) at lo, +h (u_{n-1} - u_inf f(t)) at hi
//     flat axis (n = 1):             q_a = 0 (no heat flows along it)
//
//     a radiating face adds -eps sigma (u^4 - T_inf^4) into the domain to its
//     boundary flux (radiation.hpp)
//
// Face data are taken at the output step's time t (the field's time); a
// temperature-dependent K (temperature.hpp) at each node's temperature. A
// steady 1D profile has the same flux through every face, so q_a is exact
// there, across material interfaces midway between nodes too (the harmonic
// mean makes the face flux continuous). Components are stored (qx, qy, qz),
// fastest: a field of shape (nz, ny, nx, 3), W/m^2.
//
// The functions work on a box of the grid (the whole grid, or one rank's
// part) with the one plane beyond each end along each axis that its faces
// need (ghost planes: a neighbouring rank's nodes, or the wrapped node of a
// periodic axis the box does not hold whole).

#include <adi/common.hpp>
#include <adi/problem.hpp>

#include <array>
#include <vector>

namespace adi::io {

/// Values of a box of the grid, packed x fastest, and the plane just
/// outside each of its ends along each axis (global index begin - 1 and
/// begin + size along a, wrapped on a periodic axis), each packed x fastest
/// over the other two axes. A ghost is needed (non-null) where the box ends
/// inside the grid, or on a periodic axis the box does not hold whole.
template <class V>
struct GhostedBox {
  std::array<index_t, 3> begin{{0, 0, 0}};
  std::array<index_t, 3> size{{0, 0, 0}};
  const V* box = nullptr;
  std::array<std::array<const V*, 2>, 3> ghost{};
  /// Whether the plane beyond end `side` along axis a is a ghost (not a face of the domain).
  static bool needs_ghost(const HeatProblem& p, const std::array<index_t, 3>& begin,
                          const std::array<index_t, 3>& size, int a, int side) {
    if (p.flat(a)) return false;
    if (p.periodic(a)) return size[a] < p.n[a];
    return side == 0 ? begin[a] > 0 : begin[a] + size[a] < p.n[a];
  }
};

/// The conductivity fields of a problem on a box, with the ghost planes the
/// face fluxes need, read once from their sources (FieldSource::read: a
/// hyperslab per piece); axes with a constant K hold nothing.
class FluxConductivity {
 public:
  FluxConductivity() = default;
  FluxConductivity(const HeatProblem& p, const std::array<index_t, 3>& begin, const std::array<index_t, 3>& size);
  // Moved, not copied: the boxes point into the storage.
  FluxConductivity(FluxConductivity&&) = default;
  FluxConductivity& operator=(FluxConductivity&&) = default;
  FluxConductivity(const FluxConductivity&) = delete;
  FluxConductivity& operator=(const FluxConductivity&) = delete;
  /// Axis a's field, or nullptr for the constant p.alpha[a].
  const GhostedBox<double>* axis(int a) const { return slot_[a] < 0 ? nullptr : &box_[static_cast<std::size_t>(slot_[a])]; }
  /// Temperature-dependent conductivity (p.material.temperature): K of each
  /// node (box and ghost planes) at its temperature in u, from its
  /// material's table (a value past a table's end by round-off takes the
  /// end's; further, NumericalError). Nothing to do otherwise.
  template <class T>
  void update(const HeatProblem& p, const GhostedBox<T>& u);

 private:
  struct Storage {
    std::vector<double> box;
    std::array<std::array<std::vector<double>, 2>, 3> ghost;
  };
  std::vector<Storage> data_;
  std::vector<int> slot_axis_;  // the axis a slot's table is (temperature-dependent)
  Storage mat_;                 // the material positions (temperature-dependent)
  std::vector<GhostedBox<double>> box_;
  std::array<int, 3> slot_{{-1, -1, -1}};
};

/// q = -K grad u at every node of the box u describes (u.size), at time t,
/// into out: 3 values a node, (qx, qy, qz) fastest, nodes x fastest.
template <class T>
void heat_flux(const HeatProblem& p, double t, const GhostedBox<T>& u, const FluxConductivity& K, T* out);

/// The same for the whole grid (packed x fastest), into a new array of
/// 3 * points values.
template <class T>
std::vector<T> heat_flux_whole(const HeatProblem& p, double t, const T* u, const FluxConductivity& K);

}  // namespace adi::io
