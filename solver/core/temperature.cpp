// Temperature-dependent materials (temperature.hpp).

#include <adi/temperature.hpp>

#include "node_set.hpp"

#include <adi/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <sstream>

namespace adi {

bool PropertyTable::at(double u, double& out) const {
  return detail::table_at(t.data(), v.data(), points(), u, out);
}

bool PropertyTable::mean(double a, double b, double& out) const {
  return detail::table_mean(t.data(), v.data(), points(), a, b, out);
}

void PropertyTable::validate(const std::string& what) const {
  std::ostringstream s;
  s.precision(10);
  if (constant()) {
    if (v.size() != 1 || !std::isfinite(v[0]) || !(v[0] > 0)) {
      s << what << ": expected one finite value > 0";
      ADI_THROW(InvalidArgument, s.str());
    }
    return;
  }
  if (t.size() != v.size()) ADI_THROW(InvalidArgument, what + ": the table has different numbers of temperatures and values");
  if (t.size() < 2) ADI_THROW(InvalidArgument, what + ": a table needs at least two (temperature, value) points");
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (!std::isfinite(t[k]) || !std::isfinite(v[k]) || !(v[k] > 0)) {
      s << what << ": point " << k << " (" << t[k] << ", " << v[k] << ") needs a finite temperature and a finite value > 0";
      ADI_THROW(InvalidArgument, s.str());
    }
    if (k > 0 && !(t[k] > t[k - 1])) {
      s << what << ": temperatures must increase strictly, but point " << k << " has " << t[k] << " after " << t[k - 1];
      ADI_THROW(InvalidArgument, s.str());
    }
  }
}

bool TemperatureMaterial::depends_on_temperature() const {
  return !conductivity[0].constant() || !conductivity[1].constant() || !conductivity[2].constant() ||
         !capacity.constant();
}

/// One property's field: the state's current values on its node set, read
/// by boxes or by index lists (any part of the node set). It points to its
/// state, which owns it: whoever reads it keeps the state alive (a
/// HeatProblem holds both).
class TemperatureState::Property final : public FieldSource {
 public:
  Property(TemperatureState* state, int which, std::string name)
      : state_(state), which_(which), name_(std::move(name)) {}
  std::string name() const override { return name_; }
  void read(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& size, double* out) const override {
    read_indices(detail::box_indices(lo, size, state_->n_, name_), out, false);
  }
  void read_indices(const std::array<std::vector<index_t>, 3>& idx, double* out, bool collective) const override {
    state_->serve(which_, idx, out, collective);
  }

 private:
  TemperatureState* state_;
  int which_;
  std::string name_;
};

TemperatureState::TemperatureState(const std::array<index_t, 3>& n, std::shared_ptr<const FieldSource> index,
                                   std::vector<TemperatureMaterial> materials, bool isotropic)
    : n_(n), index_src_(std::move(index)), materials_(std::move(materials)), isotropic_(isotropic) {
  ADI_REQUIRE(!materials_.empty(), "TemperatureState: no material");
  for (const TemperatureMaterial& m : materials_) {
    for (int a = 0; a < 3; ++a) m.conductivity[a].validate("material '" + m.name + "' conductivity");
    m.capacity.validate("material '" + m.name + "' heat capacity");
  }
  const std::string by = index_src_ ? " (by temperature, by region)" : " (by temperature)";
  for (int a = 0; a < 3; ++a)
    k_src_[a] = std::make_shared<Property>(
        this, a, (isotropic_ ? std::string("conductivity") : std::string("conductivity ") + "xyz"[a]) + by);
  c_src_ = std::make_shared<Property>(this, 3, "heat capacity" + by);
}

// The node set becomes idx (its material positions read, collectively where
// asked), each property at its table's first temperature until an
// evaluation: a stepper can be built, and checked, before its field is set.
void TemperatureState::use_nodes(const std::array<std::vector<index_t>, 3>& idx, bool collective) {
  if (nodes_ready_ && idx == nodes_) return;
  // A read that failed is not made again (with several ranks it may have
  // been collective: the others made it once).
  if (failed_ && idx == failed_nodes_) std::rethrow_exception(failed_);
  const std::size_t points = idx[0].size() * idx[1].size() * idx[2].size();
  std::vector<std::int32_t> index(points, 0);
  if (index_src_) {
    std::vector<double> v(points);
    try {
      index_src_->read_indices(idx, v.data(), collective);
    } catch (...) {
      failed_ = std::current_exception();
      failed_nodes_ = idx;
      throw;
    }
    for (std::size_t q = 0; q < points; ++q) {
      const double x = v[q];
      ADI_REQUIRE(x >= 0 && x < static_cast<double>(materials_.size()) && x == std::floor(x),
                  index_src_->name() + ": not a material's position");
      index[q] = static_cast<std::int32_t>(x);
    }
  }
  nodes_ = idx;
  index_ = std::move(index);
  nodes_ready_ = true;
  for (int w = 0; w < 4; ++w) {
    values_[w].assign(w > 0 && w < 3 && isotropic_ ? 0 : points, 0.0);
    for (std::size_t q = 0; q < values_[w].size(); ++q) {
      const TemperatureMaterial& m = materials_[static_cast<std::size_t>(index_[q])];
      values_[w][q] = (w < 3 ? m.conductivity[w] : m.capacity).v[0];
    }
  }
  evaluated_ = false;
}

void TemperatureState::serve(int which, const std::array<std::vector<index_t>, 3>& idx, double* out,
                             bool collective) {
  // The first read sets the node set: a stepper's (the whole grid, or one
  // rank's box and its ghost layers).
  if (!nodes_ready_) use_nodes(idx, collective);
  detail::gather_nodes(nodes_, values_[which < 3 && isotropic_ ? 0 : which], idx, out,
                       "the temperature-dependent fields");
}

template <class T>
void TemperatureState::evaluate(const T* u) {
  evaluate_step(u, u);
}

template <class T>
void TemperatureState::evaluate_step(const T* u0, const T* u1) {
  const std::array<std::vector<index_t>, 3> all{detail::all_indices(n_[0]), detail::all_indices(n_[1]), detail::all_indices(n_[2])};
  if (!(nodes_ready_ && nodes_ == all)) use_nodes(all, false);
  evaluate_nodes(u0, u1);
}

template <class T>
void TemperatureState::evaluate_on(const std::array<std::vector<index_t>, 3>& idx, const T* u0, const T* u1,
                                   bool collective) {
  use_nodes(idx, collective);
  evaluate_nodes(u0, u1);
}

template <class T>
void TemperatureState::evaluate_nodes(const T* u0, const T* u1) {
  const std::size_t points = index_.size();
  const std::size_t n0 = nodes_[0].size(), n1 = nodes_[1].size();
  std::array<std::vector<double>, 4> next;
  for (int w = 0; w < 4; ++w) {
    if (w > 0 && w < 3 && isotropic_) continue;
    next[w].resize(points);
    double* out = next[w].data();
    for (std::size_t q = 0; q < points; ++q) {
      const TemperatureMaterial& m = materials_[static_cast<std::size_t>(index_[q])];
      const PropertyTable& tb = w < 3 ? m.conductivity[w] : m.capacity;
      double a = static_cast<double>(u0[q]), b = static_cast<double>(u1[q]);
      if (clamped_ && !tb.constant() && std::isfinite(a) && std::isfinite(b)) {
        a = std::clamp(a, tb.t.front(), tb.t.back());
        b = std::clamp(b, tb.t.front(), tb.t.back());
      }
      // Both ends inside the table (the midpoint then is too).
      double va = 0.0, vb = 0.0;
      const bool ok = tb.at(a, va) && tb.at(b, vb);
      if (ok && (w < 3 ? tb.at(0.5 * (a + b), out[q]) : tb.mean(a, b, out[q]))) continue;
      const double x = tb.at(a, va) ? b : a;
      const index_t i = nodes_[0][q % n0], j = nodes_[1][(q / n0) % n1], k = nodes_[2][q / (n0 * n1)];
      char buf[400];
      std::snprintf(buf, sizeof buf,
                    "temperature %.6g at node (i, j, k) = (%lld, %lld, %lld) is outside the %s table of material "
                    "'%s', [%.6g, %.6g]; extend the table to the temperatures the run reaches",
                    x, static_cast<long long>(i), static_cast<long long>(j), static_cast<long long>(k),
                    w < 3 ? (isotropic_ ? "conductivity" : (w == 0 ? "conductivity x" : w == 1 ? "conductivity y"
                                                                                             : "conductivity z"))
                          : "heat capacity",
                    m.name.c_str(), tb.t.front(), tb.t.back());
      ADI_THROW(NumericalError, buf);
    }
  }
  for (int w = 0; w < 4; ++w)
    if (!next[w].empty()) values_[w].swap(next[w]);
  evaluated_ = true;
}

bool TemperatureState::capacity_varies() const {
  for (const TemperatureMaterial& m : materials_)
    if (!m.capacity.constant()) return true;
  return false;
}

template <class T>
void TemperatureState::conserve_enthalpy(const T* u0, const T* u1, T* v, std::size_t count,
                                         const std::array<bool, 6>& fixed, const std::vector<std::size_t>* at) const {
  ADI_REQUIRE(nodes_ready_, "TemperatureState::conserve_enthalpy before an evaluation");
  const std::size_t n0 = nodes_[0].size(), n1 = nodes_[1].size();
  for (std::size_t q = 0; q < count; ++q) {
    const std::size_t pos = at ? (*at)[q] : q;
    const TemperatureMaterial& m = materials_[static_cast<std::size_t>(index_[pos])];
    const PropertyTable& tb = m.capacity;
    if (tb.constant()) continue;
    const index_t g[3] = {nodes_[0][pos % n0], nodes_[1][(pos / n0) % n1], nodes_[2][pos / (n0 * n1)]};
    bool face = false;
    for (int a = 0; a < 3; ++a) face = face || (fixed[2 * a] && g[a] == 0) || (fixed[2 * a + 1] && g[a] == n_[a] - 1);
    if (face) continue;
    const double a = static_cast<double>(u0[q]), b = static_cast<double>(u1[q]);
    double c = 0.0, x = 0.0;
    if (tb.mean(a, b, c)) {
      const double e = c * (static_cast<double>(v[q]) - a);
      if (detail::table_enthalpy_inverse(tb.t.data(), tb.v.data(), tb.points(), a, e, x)) {
        v[q] = static_cast<T>(x);
        continue;
      }
    }
    const index_t i = g[0], j = g[1], k = g[2];
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "temperature %.6g at node (i, j, k) = (%lld, %lld, %lld) leaves the heat capacity table of "
                  "material '%s', [%.6g, %.6g] (the step's enthalpy from %.6g); extend the table to the "
                  "temperatures the run reaches",
                  static_cast<double>(v[q]), static_cast<long long>(i), static_cast<long long>(j),
                  static_cast<long long>(k), m.name.c_str(), tb.t.front(), tb.t.back(), a);
    ADI_THROW(NumericalError, buf);
  }
}

template void TemperatureState::conserve_enthalpy<float>(const float*, const float*, float*, std::size_t,
                                                          const std::array<bool, 6>&,
                                                          const std::vector<std::size_t>*) const;
template void TemperatureState::conserve_enthalpy<double>(const double*, const double*, double*, std::size_t,
                                                           const std::array<bool, 6>&,
                                                           const std::vector<std::size_t>*) const;
template void TemperatureState::evaluate<float>(const float*);
template void TemperatureState::evaluate<double>(const double*);
template void TemperatureState::evaluate_step<float>(const float*, const float*);
template void TemperatureState::evaluate_step<double>(const double*, const double*);
template void TemperatureState::evaluate_on<float>(const std::array<std::vector<index_t>, 3>&, const float*,
                                                    const float*, bool);
template void TemperatureState::evaluate_on<double>(const std::array<std::vector<index_t>, 3>&, const double*,
                                                     const double*, bool);

}  // namespace adi
