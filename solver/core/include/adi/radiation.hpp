#pragma once
// Radiating faces (docs/SCHEMES.md, "Radiation"): a face that exchanges
// F = -eps sigma (u^4 - T_inf^4) [W/m^2] with its surroundings, alone or
// beside the face's own condition (insulated, or a convective exchange).
//
// The flux enters the boundary node's equation as a volumetric source
// 2 F / h (the mirrored half cell: a flux face's beta, per face the node is
// on), so no row of any backend changes: the problem's source field becomes
// this state's q(x) f(t*) + the radiation sources, which the steppers re-read
// (Stepper::reload_material). The nonlinear step (temperature_stepper.hpp)
// evaluates it at its iterates, F_theta = (1 - theta) F(u^n) + theta F(u^(k)):
// the converged step treats the face as the theta scheme treats every other
// term (second order at theta = 1/2). The steady solve (steady.cpp) uses the
// Newton form about the iterate u: the face becomes convective with h = H
// (a slope >= every node's 4 eps sigma u^3 on the face) and the source the
// rest, -eps sigma (u^4 - T_inf^4) + H u.
//
// Temperatures are absolute (K): a radiating node at u <= 0 stops the
// evaluation (NumericalError naming the node and the face).

#include <adi/common.hpp>
#include <adi/problem.hpp>

#include <array>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace adi {

/// Stefan–Boltzmann constant [W/(m^2 K^4)] (CODATA 2018, exact).
inline constexpr double kStefanBoltzmann = 5.670374419e-8;

namespace detail {

/// What a radiating face adds to its node's source in a step from x0 to x1
/// (both > 0): scale (F_theta + H u_theta), F_theta = -es ((1 - theta) x0^4
/// + theta x1^4 - a4), es = eps sigma, a4 = T_inf^4, w0 = 1 - theta, w1 =
/// theta, scale = 2 / h. Shared by the host and the CUDA evaluation
/// (nonlinear_material.cu): the same bits.
ADI_HD inline double radiation_term(double x0, double x1, double es, double a4, double w0, double w1, double H,
                                    double scale) {
  const double x0s = x0 * x0, x1s = x1 * x1;
  const double flux = -es * (w0 * x0s * x0s + w1 * x1s * x1s - a4);
  return scale * (flux + H * (w0 * x0 + w1 * x1));
}

}  // namespace detail

class RadiationState {
 public:
  /// The radiating faces of p (FaceData::emissivity > 0) and p's source (a
  /// constant or a field, times p.source_table), which this state's field
  /// serves with the radiation added. Throws InvalidArgument when no face
  /// radiates or one that does is not a mirror face (insulated, flux or
  /// convective) of an axis that is neither flat nor periodic.
  explicit RadiationState(const HeatProblem& p);

  /// The source field q(x) f(t) + sum over the radiating faces of the node
  /// of (2 / h) (F_theta + H_f u_theta) of a step from u0 to u1 at time t
  /// (the step's t*), where u_theta = (1 - theta) u0 + theta u1 and
  /// F_theta = -eps sigma ((1 - theta) u0^4 + theta u1^4 - T_inf^4); H_f =
  /// slope[f] (0 unless given: the steady solve's Newton form). On one
  /// process the whole grid; idx: one rank's nodes (ascending global indices
  /// per axis, its box and ghost layers), u packed over them, x fastest;
  /// `collective`: every process makes this call together (accepted as
  /// TemperatureState's; the source field is read independently all the
  /// same: no rank may wait here for one whose coefficients just failed).
  /// Throws NumericalError at a radiating node whose temperature is not > 0
  /// and finite; the state is then unchanged.
  template <class T>
  void evaluate(const T* u0, const T* u1, double t, const std::array<double, 6>& slope = {});
  template <class T>
  void evaluate_on(const std::array<std::vector<index_t>, 3>& idx, const T* u0, const T* u1, double t,
                   bool collective, const std::array<double, 6>& slope = {});

  /// The largest 4 eps sigma u^3 over each radiating face's nodes of the
  /// whole grid u (0 for the others): the steady solve's H. slopes_on: over
  /// the nodes idx (u packed over them; a rank's share, to be maximised
  /// over the ranks).
  template <class T>
  std::array<double, 6> slopes(const T* u) const;
  template <class T>
  std::array<double, 6> slopes_on(const std::array<std::vector<index_t>, 3>& idx, const T* u) const;

  /// The source field the steppers read (before an evaluation: q(x), the
  /// problem's own source without its table).
  std::shared_ptr<const FieldSource> source() const { return src_; }
  /// Face 2 a + side: its emissivity (0: it does not radiate) and ambient.
  double emissivity(int face) const { return eps_[static_cast<std::size_t>(face)]; }
  double ambient(int face) const { return amb_[static_cast<std::size_t>(face)]; }
  /// What an evaluation elsewhere needs (the CUDA stepper's, on its
  /// device): the scheme's theta, the gap of face 2 a + side's nodes to the
  /// next plane (its half cell is half that), the problem's own
  /// source (a constant, or a field when source_field() is set) and its
  /// time table.
  double theta() const { return theta_; }
  double face_gap(int face) const { return h_[static_cast<std::size_t>(face)]; }
  double source_constant() const { return q_const_; }
  const std::shared_ptr<const FieldSource>& source_field() const { return q_field_; }
  const TimeTable& source_table() const { return q_table_; }

 private:
  class Field;
  void use_nodes(const std::array<std::vector<index_t>, 3>& idx, bool collective);
  void serve(const std::array<std::vector<index_t>, 3>& idx, double* out, bool collective);
  template <class T>
  void evaluate_nodes(const T* u0, const T* u1, double t, const std::array<double, 6>& slope);
  std::array<index_t, 3> n_;
  std::array<double, 6> h_{};
  std::array<double, 6> eps_{}, amb_{};
  double theta_ = 0.5;
  double q_const_ = 0.0;
  std::shared_ptr<const FieldSource> q_field_;
  TimeTable q_table_;
  bool nodes_ready_ = false;
  bool evaluated_ = false;
  std::array<std::vector<index_t>, 3> nodes_;
  std::vector<double> q_user_;  // q(x) on nodes_
  std::vector<double> values_;  // the field on nodes_
  std::shared_ptr<const FieldSource> src_;
};

}  // namespace adi
