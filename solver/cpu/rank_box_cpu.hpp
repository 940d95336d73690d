#pragma once
// Internal to the CPU backend: what every CPU rank box holds and moves
// whatever its plan (detail/rank_box.hpp) — u and w with one ghost layer on
// both sides of every split axis (LocalStorage), the box and its planes to
// and from packed host arrays, host buffers, the field statistics. Interface
// is the plan's rank-box interface (LocalBackend: local_cpu.cpp;
// GeneralLocal: general_local_cpu.cpp), whose line solves the derived box adds.
#include <adi/decomposition.hpp>
#include <adi/box/rank_box.hpp>
#include <adi/stepper.hpp>

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace adi::box {

template <class T, class Interface>
class CpuRankBox : public Interface {
 public:
  void set_field(const T* packed) override { copy_box(const_cast<T*>(packed), U(), true); }
  void get_field(T* packed) override { copy_box(packed, U(), false); }
  void set_work(const T* packed) override { copy_box(const_cast<T*>(packed), W(), true); }
  void get_work(T* packed) override { copy_box(packed, W(), false); }

  /// max |u|, NaN / Inf, and sum w c u^2 over the box's own nodes (c: the
  /// constant, or 1 / inverse_capacity() where the derived box has a field).
  FieldStats field_stats() override {
    const Layout3& L = st_.layout;
    const T* u = U();
    const T* R = inverse_capacity();
    const EnergyWeights ew = ew_;
    double m = 0.0, energy = 0.0;
    bool finite = true;
#pragma omp parallel for collapse(2) reduction(max : m) reduction(&& : finite) reduction(+ : energy) schedule(static)
    for (index_t k = 0; k < L.n[2]; ++k)
      for (index_t j = 0; j < L.n[1]; ++j) {
        const T* row = u + L.offset(0, j, k);
        for (index_t i = 0; i < L.n[0]; ++i) {
          const double v = static_cast<double>(row[i]);
          finite = finite && std::isfinite(v);
          m = std::max(m, std::abs(v));
          energy += ew.volume(i, j, k) * (R ? 1.0 / static_cast<double>(R[L.offset(i, j, k)]) : ew.capacity) * v * v;
        }
      }
    return FieldStats{m, finite, energy};
  }

  T* host_buffer(int slot, std::size_t n) override {
    std::vector<T>& b = buffers_[slot];
    if (b.size() < n) b.resize(n);
    return b.data();
  }

  void pack_face(int axis, int side, T* host) override {
    plane_copy(U(), axis, side ? st_.layout.n[axis] - 1 : 0, host, true, 0, n_o2(axis));
  }
  void unpack_ghost(int axis, int side, const T* host) override {
    plane_copy(U(), axis, side ? st_.layout.n[axis] : -1, const_cast<T*>(host), false, 0, n_o2(axis));
  }

 protected:
  /// The box of `part` in the grid of `global`, ghost layers on the axes of `ghosts`.
  CpuRankBox(const HeatProblem& global, const LocalPart& part, const std::array<bool, 3>& ghosts)
      : st_(LocalStorage::make(part.box.size, ghosts, 1)), ew_(energy_weights(global, part.box.begin)) {
    u_.assign(static_cast<std::size_t>(st_.elements), T(0));
    w_.assign(static_cast<std::size_t>(st_.elements), T(0));
  }

  /// Weigh the energy with the grid of `global` (a derived box calls this
  /// with its own copy of the problem: a stretched axis' weights point into
  /// its coordinates, which must outlive the box).
  void weigh_with(const HeatProblem& global, const std::array<index_t, 3>& begin) {
    ew_ = energy_weights(global, begin);
  }

  /// 1 / c over the storage, node (0, 0, 0) at index 0 (null: the constant c).
  virtual const T* inverse_capacity() const { return nullptr; }

  /// "CPU, N OpenMP threads per rank".
  static std::string threads_per_rank() {
    std::ostringstream s;
    const int t = omp_get_max_threads();
    s << "CPU, " << t << " OpenMP thread" << (t == 1 ? "" : "s") << " per rank";
    return s.str();
  }

  T* U() { return u_.data() + st_.origin; }
  T* W() { return w_.data() + st_.origin; }
  index_t n_o2(int axis) const { return st_.layout.n[axis == 2 ? 1 : 2]; }

  // The box <-> a packed array (x fastest).
  void copy_box(T* packed, T* field, bool in) {
    const Layout3& L = st_.layout;
    const index_t nx = L.n[0], ny = L.n[1];
#pragma omp parallel for collapse(2) schedule(static)
    for (index_t k = 0; k < L.n[2]; ++k)
      for (index_t j = 0; j < ny; ++j) {
        T* row = field + L.offset(0, j, k);
        T* p = packed + nx * (j + ny * k);
        if (in) std::memcpy(row, p, sizeof(T) * nx);
        else std::memcpy(p, row, sizeof(T) * nx);
      }
  }

  // The plane at index `idx` (-1 .. n, ghosts included) along `axis`, rows
  // c_o2 in [b, e) <-> a packed array in rank_box.hpp's plane order.
  void plane_copy(T* field, int axis, index_t idx, T* packed, bool out, index_t b, index_t e) {
    const Layout3& L = st_.layout;
    const int o1 = axis == 0 ? 1 : 0, o2 = axis == 2 ? 1 : 2;
    const index_t n1 = L.n[o1];
#pragma omp parallel for schedule(static)
    for (index_t c2 = b; c2 < e; ++c2) {
      index_t c[3];
      c[axis] = idx;
      c[o2] = c2;
      c[o1] = 0;
      T* f = field + L.offset(c[0], c[1], c[2]);
      const index_t s1 = L.stride[o1];
      T* p = packed + n1 * (c2 - b);
      if (out)
        for (index_t c1 = 0; c1 < n1; ++c1) p[c1] = f[c1 * s1];
      else
        for (index_t c1 = 0; c1 < n1; ++c1) f[c1 * s1] = p[c1];
    }
  }

  LocalStorage st_;
  std::vector<T> u_, w_;

 private:
  EnergyWeights ew_;
  std::map<int, std::vector<T>> buffers_;  // host_buffer's
};

}  // namespace adi::box
