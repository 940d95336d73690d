#pragma once
// Temperature-dependent materials (docs/SCHEMES.md, "Temperature-dependent
// materials"): each node is one of a few materials (a region field of ids,
// or one material everywhere), and a material's conductivity (per axis) and
// heat capacity are constants or piecewise-linear tables of temperature.
//
// The state below holds K(u) and c(u) of every node at the temperatures it
// was last evaluated at, and serves them as FieldSources: the material
// fields of HeatProblem::material. Steppers read them as they read any
// field and re-read them on Stepper::reload_material; the nonlinear step
// (adi/temperature_stepper.hpp) evaluates the state at the step's midpoint
// temperatures before each solve.

#include <adi/common.hpp>
#include <adi/problem.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace adi {

namespace detail {

/// PropertyTable::at on raw arrays: n points (t, v), n == 1 a constant (v[0]
/// at any u, NaN too); false outside [t[0], t[n-1]] or for NaN. Shared by the
/// host and the CUDA evaluation (nonlinear_material.cu, built without FMA
/// contraction): the same operations in the same order give the same bits.
/// The segment [t[k], t[k+1]] of a table of n >= 2 points that holds u in
/// [t[0], t[n-1]] (k = n - 2 at the last point): a binary search.
ADI_HD inline int table_segment(const double* t, int n, double u) {
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (u < t[mid])
      hi = mid;
    else
      lo = mid;
  }
  return lo;
}

ADI_HD inline bool table_at(const double* t, const double* v, int n, double u, double& out) {
  if (n == 1) {
    out = v[0];
    return true;
  }
  if (!(u >= t[0] && u <= t[n - 1])) return false;
  const int lo = table_segment(t, n, u), hi = lo + 1;
  const double w = (u - t[lo]) / (t[hi] - t[lo]);
  out = v[lo] + w * (v[hi] - v[lo]);
  return true;
}

/// PropertyTable::mean on raw arrays: the enthalpy chord of [a, b], each
/// linear piece's integral its length times its midpoint value.
ADI_HD inline bool table_mean(const double* t, const double* v, int n, double a, double b, double& out) {
  if (n == 1) {
    out = v[0];
    return true;
  }
  double va = 0.0, vb = 0.0;
  if (!table_at(t, v, n, a, va) || !table_at(t, v, n, b, vb)) return false;
  if (a == b) {
    out = va;
    return true;
  }
  const double lo = a < b ? a : b, hi = a < b ? b : a;
  double sum = 0.0, x = lo;
  int k = 0;
  while (k < n && t[k] <= lo) ++k;
  for (; x < hi; ++k) {
    const double y = k < n && t[k] < hi ? t[k] : hi;
    double vm = 0.0;
    table_at(t, v, n, 0.5 * (x + y), vm);
    sum += (y - x) * vm;
    x = y;
  }
  out = sum / (hi - lo);
  return true;
}

/// The temperature x with int_{u0}^{x} v du = e on a table of n >= 2
/// points (v > 0): walked segment by segment from u0, the last segment's
/// quadratic c(x0) d + s d^2 / 2 = r solved as d = 2 r / (c(x0) + sqrt(c(x0)^2
/// + 2 s r)) (no cancellation; its root is real where the segment holds r,
/// since c(x0 + d)^2 = c(x0)^2 + 2 s r > 0). False when x would leave the
/// table, or u0 is outside it, or e is not finite. The inverse of the
/// enthalpy that the non-iterated nonlinear steps apply (TemperatureState::
/// conserve_enthalpy); host and device alike.
ADI_HD inline bool table_enthalpy_inverse(const double* t, const double* v, int n, double u0, double e,
                                          double& out) {
  double cx = 0.0;
  if (n < 2 || !(e - e == 0.0) || !table_at(t, v, n, u0, cx)) return false;
  int k = table_segment(t, n, u0);
  double x = u0;
  if (e >= 0.0) {
    for (; k < n - 1; ++k) {
      const double room = 0.5 * (cx + v[k + 1]) * (t[k + 1] - x);
      if (e <= room) {
        const double s = (v[k + 1] - v[k]) / (t[k + 1] - t[k]);
        const double d = 2.0 * e / (cx + sqrt(cx * cx + 2.0 * s * e));
        out = x + d < t[k + 1] ? x + d : t[k + 1];
        return true;
      }
      e -= room;
      x = t[k + 1];
      cx = v[k + 1];
    }
    return false;
  }
  for (; k >= 0; --k) {
    const double room = 0.5 * (v[k] + cx) * (x - t[k]);
    if (-e <= room) {
      const double s = (v[k + 1] - v[k]) / (t[k + 1] - t[k]);
      const double d = 2.0 * e / (cx + sqrt(cx * cx + 2.0 * s * e));
      out = x + d > t[k] ? x + d : t[k];
      return true;
    }
    e += room;
    x = t[k];
    cx = v[k];
  }
  return false;
}

}  // namespace detail

/// A property as a function of temperature: piecewise linear through
/// (t[i], v[i]), t strictly increasing, at least two points; or a constant
/// (t empty, one value). A table has no value outside [t.front(),
/// t.back()]: the run stops there instead of extrapolating or clamping.
struct PropertyTable {
  std::vector<double> t, v;
  static PropertyTable constant_value(double value) { return PropertyTable{{}, {value}}; }
  bool constant() const { return t.empty(); }
  /// Its points for detail::table_at / table_mean (1: a constant).
  int points() const { return constant() ? 1 : static_cast<int>(t.size()); }
  /// The value at temperature u into out; false (out untouched) when u is
  /// outside the table or not finite.
  bool at(double u, double& out) const;
  /// The mean over [a, b] (a != b in any order), (1 / (b - a)) int_a^b v: the
  /// chord of the enthalpy H = int v du, summed segment by segment (no
  /// cancellation of H(b) - H(a)); the value at a when a == b. False when a
  /// or b is outside the table or not finite.
  bool mean(double a, double b, double& out) const;
  /// Throws InvalidArgument naming `what` unless: a constant is one finite
  /// value > 0; a table has >= 2 points, finite temperatures strictly
  /// increasing, finite values > 0.
  void validate(const std::string& what) const;
};

/// One material: its conductivity per axis and heat capacity.
struct TemperatureMaterial {
  std::string name;
  std::array<PropertyTable, 3> conductivity;
  PropertyTable capacity;
  bool depends_on_temperature() const;
};

class TemperatureState {
 public:
  /// `index`: per node the position of its material in `materials` (values
  /// 0 .. m - 1; nullptr: every node is materials[0]), read on the first
  /// evaluate. `isotropic`: every material's conductivity is the same on all
  /// axes (one field serves the three).
  TemperatureState(const std::array<index_t, 3>& n, std::shared_ptr<const FieldSource> index,
                   std::vector<TemperatureMaterial> materials, bool isotropic);

  /// K and c of every node at temperatures u (the whole grid, packed x
  /// fastest). Throws NumericalError naming the node, its material, the
  /// property and the temperature when u is outside one of its tables (or
  /// not finite); the state is then unchanged.
  template <class T>
  void evaluate(const T* u);
  /// The coefficients of a step from u0 to u1 (the iteration's latest
  /// iterate): K at the midpoint (u0 + u1) / 2 and c the enthalpy chord
  /// (H(u1) - H(u0)) / (u1 - u0) (PropertyTable::mean), so that a step that
  /// conserves sum c (u1 - u0) conserves the enthalpy once u1 is the step's
  /// result. u1 == u0: evaluate(u0). Throws as evaluate, for u0 and u1.
  template <class T>
  void evaluate_step(const T* u0, const T* u1);
  /// The same on one rank's nodes: idx per axis the ascending global indices
  /// (its box and ghost layers, as load_box_field reads them), u0 and u1
  /// packed over idx[0] x idx[1] x idx[2], x fastest. `collective`: every
  /// process makes this call together (the region field may be read
  /// collectively). The fields then serve reads of those nodes only.
  template <class T>
  void evaluate_on(const std::array<std::vector<index_t>, 3>& idx, const T* u0, const T* u1, bool collective);
  /// Whether some material's heat capacity is a table (else
  /// conserve_enthalpy changes nothing).
  bool capacity_varies() const;
  /// After a linear step from u0 to v with the coefficients of the step
  /// from u0 to u1 (evaluate_step / evaluate_on), whose conserved sum is
  /// c (v - u0) with c the enthalpy chord of [u0, u1]: v becomes the
  /// temperature whose enthalpy is H(u0) + c (v - u0)
  /// (detail::table_enthalpy_inverse), so that the sum of H changes as the
  /// step's conserved sum does, whatever u1 was. Nodes of a constant c keep
  /// v, and so do the nodes of the faces `fixed` marks (lo x, hi x, lo y,
  /// ..., true: Dirichlet; their values are the faces'). `at`: per value of
  /// u0, u1 and v its position among the nodes of the last evaluation (one
  /// rank's box among its nodes); nullptr: the same order. Throws
  /// NumericalError naming the node when the enthalpy leaves its heat
  /// capacity table (v is then partly updated).
  template <class T>
  void conserve_enthalpy(const T* u0, const T* u1, T* v, std::size_t count, const std::array<bool, 6>& fixed,
                         const std::vector<std::size_t>* at = nullptr) const;
  /// Whether evaluate has run: before it the fields hold each table's value
  /// at its first temperature (so that a stepper can be built, and checked,
  /// before its field is set).
  bool evaluated() const { return evaluated_; }
  /// While set, a temperature outside a table takes the value at the
  /// table's nearer end instead of failing: for the steady solve's
  /// intermediate iterates, which are not states of the run (its final
  /// evaluation is strict).
  void set_clamped(bool on) { clamped_ = on; }

  /// The fields: conductivity along axis a (the same source for all axes
  /// when isotropic) and the heat capacity.
  std::shared_ptr<const FieldSource> conductivity(int axis) const { return k_src_[isotropic_ ? 0 : axis]; }
  std::shared_ptr<const FieldSource> capacity() const { return c_src_; }
  const std::vector<TemperatureMaterial>& materials() const { return materials_; }
  /// The per-node material positions (nullptr: one material).
  const std::shared_ptr<const FieldSource>& index_source() const { return index_src_; }
  bool isotropic() const { return isotropic_; }
  const std::array<index_t, 3>& extents() const { return n_; }

 private:
  class Property;
  void use_nodes(const std::array<std::vector<index_t>, 3>& idx, bool collective);
  void serve(int which, const std::array<std::vector<index_t>, 3>& idx, double* out, bool collective);
  template <class T>
  void evaluate_nodes(const T* u0, const T* u1);
  std::array<index_t, 3> n_;
  std::shared_ptr<const FieldSource> index_src_;
  std::vector<TemperatureMaterial> materials_;
  bool isotropic_ = true;
  bool evaluated_ = false;
  bool clamped_ = false;
  /// The nodes the values are held for (ascending global indices per axis:
  /// the whole grid, or a rank's box and ghost layers), set by the first
  /// read or evaluation; their material positions.
  bool nodes_ready_ = false;
  std::array<std::vector<index_t>, 3> nodes_;
  std::vector<std::int32_t> index_;
  std::exception_ptr failed_;  // the read of failed_nodes_' positions failed
  std::array<std::vector<index_t>, 3> failed_nodes_;
  /// values_[0..2]: K per axis (only [0] when isotropic), values_[3]: c.
  std::array<std::vector<double>, 4> values_;
  std::array<std::shared_ptr<const FieldSource>, 3> k_src_;
  std::shared_ptr<const FieldSource> c_src_;
};

}  // namespace adi
