// Radiating faces (radiation.hpp).

#include <adi/radiation.hpp>

#include "node_set.hpp"

#include <adi/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace adi {

namespace {

const char* face_name(int f) {
  static const char* names[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  return names[f];
}

}  // namespace

/// The source field: the state's values on its node set (or, before an
/// evaluation, the problem's own source) for any part of the node set.
class RadiationState::Field final : public FieldSource {
 public:
  explicit Field(RadiationState* s) : s_(s) {}
  std::string name() const override { return "heat source (with radiating faces)"; }
  void read(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size, double* out) const override {
    read_indices(detail::box_indices(lo, size, s_->n_, name()), out, false);
  }
  void read_indices(const std::array<std::vector<index_t>, 3>& idx, double* out, bool collective) const override {
    s_->serve(idx, out, collective);
  }

 private:
  RadiationState* s_;
};

RadiationState::RadiationState(const HeatProblem& p)
    : n_(p.n), theta_(p.theta), q_const_(p.source), q_field_(p.material.source), q_table_(p.source_table) {
  bool any = false;
  for (int a = 0; a < 3; ++a) {
    for (int side = 0; side < 2; ++side) {
      h_[static_cast<std::size_t>(2 * a + side)] = p.flat(a) ? p.spacing(a) : p.end_gap(a, side);
      const FaceData& d = side ? p.hi_data[a] : p.lo_data[a];
      const int f = 2 * a + side;
      if (!(d.emissivity > 0.0)) continue;
      const Boundary b = side ? p.hi[a] : p.lo[a];
      if (p.flat(a) || p.periodic(a) || b == Boundary::Dirichlet)
        ADI_THROW(InvalidArgument, std::string("radiation on face ") + face_name(f) +
                                       ": only an insulated, flux or convective face of an axis with faces radiates");
      ADI_REQUIRE(d.emissivity <= 1.0 && std::isfinite(d.radiation_ambient) && d.radiation_ambient >= 0.0,
                  std::string("radiation on face ") + face_name(f) + ": emissivity in (0, 1], ambient >= 0 K");
      eps_[static_cast<std::size_t>(f)] = d.emissivity;
      amb_[static_cast<std::size_t>(f)] = d.radiation_ambient;
      any = true;
    }
  }
  ADI_REQUIRE(any, "RadiationState: no face radiates");
  src_ = std::make_shared<Field>(this);
}

// The node set becomes idx; the problem's own source is read on it, never
// collectively: the nonlinear step evaluates this state after the
// coefficients, which may have failed on another rank (the failure is
// agreed after both), so no rank may wait here for the others.
void RadiationState::use_nodes(const std::array<std::vector<index_t>, 3>& idx, bool /*collective*/) {
  if (nodes_ready_ && idx == nodes_) return;
  const std::size_t points = idx[0].size() * idx[1].size() * idx[2].size();
  std::vector<double> q(points, q_const_);
  if (q_field_) q_field_->read_indices(idx, q.data(), false);
  nodes_ = idx;
  q_user_ = std::move(q);
  values_ = q_user_;
  nodes_ready_ = true;
  evaluated_ = false;
}

void RadiationState::serve(const std::array<std::vector<index_t>, 3>& idx, double* out, bool collective) {
  if (!evaluated_) {
    // Before an evaluation (a stepper being built): the problem's own
    // source, read where the reader asks.
    const std::size_t points = idx[0].size() * idx[1].size() * idx[2].size();
    if (q_field_)
      q_field_->read_indices(idx, out, collective);
    else
      std::fill(out, out + points, q_const_);
    return;
  }
  detail::gather_nodes(nodes_, values_, idx, out, "the radiation source");
}

template <class T>
void RadiationState::evaluate(const T* u0, const T* u1, double t, const std::array<double, 6>& slope) {
  const std::array<std::vector<index_t>, 3> all{detail::all_indices(n_[0]), detail::all_indices(n_[1]), detail::all_indices(n_[2])};
  use_nodes(all, false);
  evaluate_nodes(u0, u1, t, slope);
}

template <class T>
void RadiationState::evaluate_on(const std::array<std::vector<index_t>, 3>& idx, const T* u0, const T* u1, double t,
                                 bool collective, const std::array<double, 6>& slope) {
  use_nodes(idx, collective);
  evaluate_nodes(u0, u1, t, slope);
}

template <class T>
void RadiationState::evaluate_nodes(const T* u0, const T* u1, double t, const std::array<double, 6>& slope) {
  const double f = q_table_.at(t);
  std::vector<double> next(q_user_.size());
  for (std::size_t q = 0; q < next.size(); ++q) next[q] = q_user_[q] * f;
  const std::size_t n0 = nodes_[0].size(), n1 = nodes_[1].size(), n2 = nodes_[2].size();
  const double w0 = 1.0 - theta_, w1 = theta_;
  for (int face = 0; face < 6; ++face) {
    const double eps = eps_[static_cast<std::size_t>(face)];
    if (!(eps > 0.0)) continue;
    const int a = face / 2, side = face % 2;
    const index_t plane = side ? n_[a] - 1 : 0;
    const auto at = std::lower_bound(nodes_[a].begin(), nodes_[a].end(), plane);
    if (at == nodes_[a].end() || *at != plane) continue;  // this rank's nodes do not reach the face
    const std::size_t pa = static_cast<std::size_t>(at - nodes_[a].begin());
    const double scale = 2.0 / h_[static_cast<std::size_t>(face)];
    const double es = eps * kStefanBoltzmann;
    const double a4 = std::pow(amb_[static_cast<std::size_t>(face)], 4);
    const double H = slope[static_cast<std::size_t>(face)];
    for (std::size_t k = 0; k < n2; ++k)
      for (std::size_t j = 0; j < n1; ++j)
        for (std::size_t i = 0; i < n0; ++i) {
          const std::size_t ijk[3] = {i, j, k};
          if (ijk[a] != pa) continue;
          const std::size_t q = i + n0 * (j + n1 * k);
          const double x0 = static_cast<double>(u0[q]), x1 = static_cast<double>(u1[q]);
          if (!(x0 > 0.0 && x1 > 0.0 && std::isfinite(x0) && std::isfinite(x1))) {
            // u0 fine and u1 not: an iterate of the step left it, not the
            // data (the step's first estimate takes the radiation at u0).
            const bool stepped = x0 > 0.0 && std::isfinite(x0);
            char node[200], buf[500];
            std::snprintf(node, sizeof node,
                          "temperature %.6g at node (i, j, k) = (%lld, %lld, %lld) of the radiating face %s is not an "
                          "absolute temperature (> 0 K)",
                          stepped ? x1 : x0, static_cast<long long>(nodes_[0][i]), static_cast<long long>(nodes_[1][j]),
                          static_cast<long long>(nodes_[2][k]), face_name(face));
            if (stepped)
              std::snprintf(buf, sizeof buf,
                            "%s: a step from %.6g K reached it, the radiation cooling the node further in one step "
                            "than it can (time.dt above the face's radiative time scale, c h / (4 eps sigma T^3)); "
                            "reduce time.dt",
                            node, x0);
            else
              std::snprintf(buf, sizeof buf,
                            "%s: radiation needs temperatures in kelvin (a field in degrees Celsius?), or the last "
                            "step took it there (then reduce time.dt)",
                            node);
            ADI_THROW(NumericalError, buf);
          }
          next[q] += detail::radiation_term(x0, x1, es, a4, w0, w1, H, scale);
        }
  }
  values_.swap(next);
  evaluated_ = true;
}

template <class T>
std::array<double, 6> RadiationState::slopes(const T* u) const {
  return slopes_on({detail::all_indices(n_[0]), detail::all_indices(n_[1]), detail::all_indices(n_[2])}, u);
}

template <class T>
std::array<double, 6> RadiationState::slopes_on(const std::array<std::vector<index_t>, 3>& idx, const T* u) const {
  std::array<double, 6> s{};
  const std::size_t n0 = idx[0].size(), n1 = idx[1].size(), n2 = idx[2].size();
  for (int face = 0; face < 6; ++face) {
    const double eps = eps_[static_cast<std::size_t>(face)];
    if (!(eps > 0.0)) continue;
    const int a = face / 2, side = face % 2;
    const index_t plane = side ? n_[a] - 1 : 0;
    const auto at = std::lower_bound(idx[a].begin(), idx[a].end(), plane);
    if (at == idx[a].end() || *at != plane) continue;
    const std::size_t pa = static_cast<std::size_t>(at - idx[a].begin());
    double top = 0.0;
    for (std::size_t k = 0; k < n2; ++k)
      for (std::size_t j = 0; j < n1; ++j)
        for (std::size_t i = 0; i < n0; ++i) {
          const std::size_t ijk[3] = {i, j, k};
          if (ijk[a] != pa) continue;
          top = std::max(top, std::fabs(static_cast<double>(u[i + n0 * (j + n1 * k)])));
        }
    s[static_cast<std::size_t>(face)] = 4.0 * eps * kStefanBoltzmann * top * top * top;
  }
  return s;
}

template void RadiationState::evaluate<float>(const float*, const float*, double, const std::array<double, 6>&);
template void RadiationState::evaluate<double>(const double*, const double*, double, const std::array<double, 6>&);
template void RadiationState::evaluate_on<float>(const std::array<std::vector<index_t>, 3>&, const float*,
                                                 const float*, double, bool, const std::array<double, 6>&);
template void RadiationState::evaluate_on<double>(const std::array<std::vector<index_t>, 3>&, const double*,
                                                  const double*, double, bool, const std::array<double, 6>&);
template std::array<double, 6> RadiationState::slopes<float>(const float*) const;
template std::array<double, 6> RadiationState::slopes<double>(const double*) const;
template std::array<double, 6> RadiationState::slopes_on<float>(const std::array<std::vector<index_t>, 3>&,
                                                                const float*) const;
template std::array<double, 6> RadiationState::slopes_on<double>(const std::array<std::vector<index_t>, 3>&,
                                                                 const double*) const;

}  // namespace adi
