#pragma once
// Heat flows: where the heat of a run goes, in the scheme's own discrete
// fluxes (discrete.hpp), so that the balance closes to round-off. Pure host
// code over one box of the grid (the whole grid, or a rank's box with one
// ghost layer); stepper_heat_flows.hpp brings a stepper's field here.
//
// The semi-discrete system of every backend is c_i du_i/dt = c_i (A u)_i +
// b_i + q_i f(t) at each body node i (every node that is not a Dirichlet
// node; Dirichlet wins at edges), A = sum of the axis operators, b the
// Mirror faces' data (beta). Its stored energy is E = sum_body w_i c_i u_i,
// w_i the node volume (node_volume: h, halved at the ends of a non-periodic
// axis, the box length on a flat axis). Then, evaluated node by node:
//
//   dE/dt  = sum_body w_i (c_i (A u)_i + b_i + q_i f(t))
//   source = sum_body w_i q_i f(t)
//   face   = Mirror face (flux / convective / insulated), per face node i:
//              w_i / (h/2) * (q_in f(t))            (flux)
//              w_i / (h/2) * h_c (u_inf f(t) - u_i)  (convective)
//            i.e. the node's face area times what the half cell receives;
//            Dirichlet face of axis a, per link from a Dirichlet node d on
//            the face to the body node b next to it along a:
//              K_db (u_d - u_b) / h_a * (product of b's two other node volumes)
//            K_db the harmonic mean (discrete.hpp). A link along another
//            axis belongs to that axis' face (an edge node that is
//            Dirichlet through y feeds the y face). Periodic and flat axes
//            have no faces.
//
// Every link between two body nodes appears twice in dE/dt with opposite
// signs (the weights make the operator symmetric), so
// residual = dE/dt - sum faces - source is round-off when the face
// bookkeeping matches the operator: a check, not an identity of the code.
// It is not the change of stored energy between two steps: that differs
// from dE/dt by the time discretisation error.
//
// Temperature-dependent K (temperature.hpp) is taken at each node's own
// temperature (the flows of the instant), and a radiating face
// (radiation.hpp) adds -eps sigma (u^4 - T_inf^4) per unit area to its face
// and to dE/dt, as the step's source 2 F / h does to the half cell.

#include <adi/common.hpp>
#include <adi/problem.hpp>

#include <array>
#include <string>
#include <vector>

namespace adi {

/// The flows of one instant, in W (positive: into the body).
struct HeatFlows {
  double face[3][2] = {{0, 0}, {0, 0}, {0, 0}};  ///< [axis][lo, hi]
  double source = 0.0;                           ///< sum w q f(t)
  double dEdt = 0.0;                             ///< rate of change of stored energy
  double faces() const;
  /// dE/dt - sum faces - source.
  double residual() const { return dEdt - faces() - source; }
  /// The largest |term| of the balance (faces, source, dE/dt).
  double scale() const;
  /// |residual| / scale (0 when every term is 0).
  double relative_residual() const;
  HeatFlows& operator+=(const HeatFlows& o);
  /// The nine numbers as the output stores them: six faces (x-, x+, y-, y+,
  /// z-, z+), source, dE/dt, residual.
  std::array<double, 9> values() const;
};

/// The kind of face (axis, side) of p as the flows name it: "dirichlet",
/// "flux", "convective", "insulated" (a flux face of 0 flux without a table
/// that could change it), "periodic", or "none" on a flat axis; a radiating
/// face "radiation" (insulated otherwise), "flux+radiation" or
/// "convective+radiation".
std::string heat_flow_face_kind(const HeatProblem& p, int axis, int side);
/// "x-", "x+", ... for (axis, side).
const char* heat_flow_face_name(int axis, int side);
/// The column names of HeatFlows::values(), after "step" and "time".
std::vector<std::string> heat_flow_columns();

/// The flows of one box of the grid. The field comes with one ghost layer on
/// both sides of every non-flat axis (extent() nodes, packed x fastest): the
/// neighbours' values across a cut between ranks or a periodic wrap; at a
/// domain face the ghost is never read. The box's material (K with its
/// ghosts, q) is read once at construction.
class HeatFlowMeter {
 public:
  HeatFlowMeter(const HeatProblem& p, const std::array<index_t, 3>& begin, const std::array<index_t, 3>& size);
  /// The whole grid.
  explicit HeatFlowMeter(const HeatProblem& p) : HeatFlowMeter(p, {{0, 0, 0}}, p.n) {}

  const HeatProblem& problem() const { return p_; }
  const std::array<index_t, 3>& begin() const { return begin_; }
  const std::array<index_t, 3>& size() const { return size_; }
  /// Nodes of the ghosted box per axis: size + 2 on a non-flat axis.
  const std::array<index_t, 3>& extent() const { return ext_; }
  /// Offset of the box's local node (i, j, k) in the ghosted array (-1 and
  /// size[a] are the ghosts).
  index_t offset(index_t i, index_t j, index_t k) const {
    return (i + g_[0]) + ext_[0] * ((j + g_[1]) + ext_[1] * (k + g_[2]));
  }
  index_t ghosted_points() const { return ext_[0] * ext_[1] * ext_[2]; }

  /// The ghosted array of the box's own values (packed x fastest, extents
  /// size()), its ghosts filled where the box spans the axis: wrapped on a
  /// periodic axis, a copy of the end plane otherwise (never read). Ghosts
  /// across a cut between ranks are left for the caller (a halo exchange).
  template <class T>
  std::vector<double> ghosted(const T* box) const;

  /// This box's share of the flows at time t (faces, sources and tables at
  /// t; the Dirichlet nodes' values are the field's). Sums over the boxes of
  /// a decomposition give the whole grid's flows.
  HeatFlows measure(const double* ghosted_field, double t) const;

 private:
  HeatProblem p_;
  std::array<index_t, 3> begin_{}, size_{}, ext_{}, g_{};
  std::array<std::vector<double>, 3> k_;  // ghosted; empty: p_.alpha
  std::array<int, 3> k_of_{{0, 1, 2}};    // the k_ an axis reads (an isotropic field is read once)
  std::vector<double> q_;                 // ghosted; empty: the constant
  std::vector<double> mat_;               // ghosted material positions (temperature-dependent K)
  // (c never enters: c (A u) is the divergence of the fluxes, K alone.)
};

/// The flows of the whole field (packed x fastest) at time t.
template <class T>
HeatFlows heat_flows(const HeatProblem& p, const T* field, double t) {
  const HeatFlowMeter m(p);
  return m.measure(m.ghosted(field).data(), t);
}

}  // namespace adi
