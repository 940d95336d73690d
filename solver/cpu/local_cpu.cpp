// One rank's box on the CPU (OpenMP): the whole-grid CPU backend's loops
// (cpu::douglas_rhs, cpu::solve_constant) run on the box's layout, whose
// strides are those of the allocation with its ghost layers.

#include <adi/detail/local_backend.hpp>

#include "tridiag_cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>
#include <vector>

namespace adi::mpi::detail {

LocalProblem LocalProblem::make(const HeatProblem& p, const Decomposition& d, int rank) {
  LocalProblem lp;
  lp.global = p;
  lp.part = d.part(rank);
  for (int a = 0; a < 3; ++a) {
    lp.ghosts[a] = d.is_split(a);
    lp.plans[a] = DistributedLinePlan::build(douglas_line_matrix(p, static_cast<Axis>(a)), d.split(a),
                                             lp.part.coords[a]);
  }
  return lp;
}

namespace {

template <class T>
std::vector<T> to_t(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <class T>
class CpuLocal final : public LocalBackend<T> {
 public:
  explicit CpuLocal(const LocalProblem& lp)
      : lp_(lp), st_(LocalStorage::make(lp.size(), lp.ghosts, 1)) {
    for (int a = 0; a < 3; ++a) {
      const DistributedLinePlan& pl = lp_.plans[a];
      factor_[a] = ThomasFactor<T>::factor(pl.local);
      alpha_[a] = to_t<T>(pl.alpha);
      beta_[a] = to_t<T>(pl.beta);
      w_prev_[a] = to_t<T>(pl.w_prev);
      w_next_[a] = to_t<T>(pl.w_next);
    }
    u_.assign(static_cast<std::size_t>(st_.elements), T(0));
    w_.assign(static_cast<std::size_t>(st_.elements), T(0));
  }

  Backend kind() const override { return Backend::Cpu; }
  std::string device_name() const override {
    std::ostringstream s;
    const int t = omp_get_max_threads();
    s << "CPU, " << t << " OpenMP thread" << (t == 1 ? "" : "s") << " per rank";
    return s.str();
  }
  std::size_t bytes_allocated() const override { return sizeof(T) * (u_.size() + w_.size()); }

  void set_field(const T* packed) override { copy_box(const_cast<T*>(packed), U(), true); }
  void get_field(T* packed) override { copy_box(packed, U(), false); }
  void set_work(const T* packed) override { copy_box(const_cast<T*>(packed), W(), true); }
  void get_work(T* packed) override { copy_box(packed, W(), false); }

  FieldStats field_stats() override {
    const Layout3& L = st_.layout;
    const T* u = U();
    double m = 0.0, energy = 0.0;
    bool finite = true;
    const EnergyWeights ew = energy_weights(lp_.global, lp_.part.box.begin);
#pragma omp parallel for collapse(2) reduction(max : m) reduction(&& : finite) reduction(+ : energy) schedule(static)
    for (index_t k = 0; k < L.n[2]; ++k)
      for (index_t j = 0; j < L.n[1]; ++j) {
        const T* row = u + L.offset(0, j, k);
        for (index_t i = 0; i < L.n[0]; ++i) {
          const double v = static_cast<double>(row[i]);
          finite = finite && std::isfinite(v);
          m = std::max(m, std::abs(v));
          energy += ew.volume(i, j, k) * ew.capacity * v * v;
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
    plane_copy(U(), axis, side ? lp_.size()[axis] - 1 : 0, host, true, 0, n_o2(axis));
  }
  void unpack_ghost(int axis, int side, const T* host) override {
    plane_copy(U(), axis, side ? lp_.size()[axis] : -1, const_cast<T*>(host), false, 0, n_o2(axis));
  }
  void rhs(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& hi) override {
    const Layout3& L = st_.layout;
    const index_t o = L.offset(lo[0], lo[1], lo[2]);
    cpu::douglas_rhs(U() + o, W() + o, sub_layout(L, lo, hi), lp_.rhs_coefficients_of<T>(lo, hi));
  }
  void solve_local_fused_z() override { cpu::solve_constant_fused(Axis::Z, factor_[2], W(), U(), st_.layout); }
  void solve_local(int axis, index_t b, index_t e) override {
    std::array<index_t, 3> lo, hi;
    line_range(st_.layout, axis, b, e, lo, hi);
    const index_t o = st_.layout.offset(lo[0], lo[1], lo[2]);
    cpu::solve_constant(static_cast<Axis>(axis), factor_[axis], W() + o, sub_layout(st_.layout, lo, hi));
  }
  void pack_ends(int axis, index_t b, index_t e, T* host) override {
    const index_t L = st_.layout.n[other_axes(axis)[0]] * (e - b);
    plane_copy(W(), axis, 0, host, true, b, e);
    plane_copy(W(), axis, lp_.size()[axis] - 1, host + L, true, b, e);
  }
  void upload_gathered(int axis, index_t, index_t, const T* gathered) override { gathered_[axis] = gathered; }
  void correct(int axis, index_t b, index_t e, bool add_to_u) override {
    ADI_REQUIRE(axis == 1 || axis == 2, "distributed solves split y or z lines only");
    const T* gathered = gathered_[axis];
    const Layout3& Lo = st_.layout;
    const index_t n1 = Lo.n[0];
    const index_t L = n1 * (e - b);  // lines of the batch: (i, c2), c2 = b .. e-1
    const int K = lp_.plans[axis].gathered();
    xp_.resize(static_cast<std::size_t>(L));
    xn_.resize(static_cast<std::size_t>(L));
    const T* wp = w_prev_[axis].data();
    const T* wn = w_next_[axis].data();
#pragma omp parallel for schedule(static)
    for (index_t l = 0; l < L; ++l) interface_values(gathered + l, L, K, wp, wn, xp_[l], xn_[l]);
    // x = y + alpha_r X_prev + beta_r X_next, in memory order: rows of x.
    const T* al = alpha_[axis].data();
    const T* be = beta_[axis].data();
    T* w = W();
    T* u = U();
    const index_t kb = axis == 1 ? b : 0, ke = axis == 1 ? e : Lo.n[2];
    const index_t jb = axis == 2 ? b : 0, je = axis == 2 ? e : Lo.n[1];
#pragma omp parallel for collapse(2) schedule(static)
    for (index_t k = kb; k < ke; ++k)
      for (index_t j = jb; j < je; ++j) {
        T* wr = w + Lo.offset(0, j, k);
        T* ur = u + Lo.offset(0, j, k);
        // The row along the line is j for y lines, k for z lines; the line
        // of node (i, j, k) is i + n1 (c2 - b) with c2 the other index.
        const index_t r = axis == 1 ? j : k;
        const index_t base = n1 * ((axis == 1 ? k : j) - b);
        const T a = al[r], bb = be[r];
        for (index_t i = 0; i < n1; ++i) {
          const T x = wr[i] + a * xp_[base + i] + bb * xn_[base + i];
          if (add_to_u) ur[i] += x;
          else wr[i] = x;
        }
      }
  }
  void record(int) override {}
  bool done(int) override { return true; }
  void synchronize() override {}

 private:
  T* U() { return u_.data() + st_.origin; }
  T* W() { return w_.data() + st_.origin; }

  // The box <-> a packed array.
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

  index_t n_o2(int axis) const { return st_.layout.n[other_axes(axis)[1]]; }

  // The plane at index `idx` (-1 .. n, ghosts included) along `axis`, rows
  // c_o2 in [b, e) <-> a packed array in the (o1 fastest, o2) order of
  // local_backend.hpp.
  void plane_copy(T* field, int axis, index_t idx, T* packed, bool out, index_t b, index_t e) {
    const Layout3& L = st_.layout;
    const auto o = other_axes(axis);
    const index_t n1 = L.n[o[0]];
#pragma omp parallel for schedule(static)
    for (index_t c2 = b; c2 < e; ++c2) {
      index_t c[3];
      c[axis] = idx;
      c[o[1]] = c2;
      c[o[0]] = 0;
      T* f = field + L.offset(c[0], c[1], c[2]);
      const index_t s1 = L.stride[o[0]];
      T* p = packed + n1 * (c2 - b);
      if (out)
        for (index_t c1 = 0; c1 < n1; ++c1) p[c1] = f[c1 * s1];
      else
        for (index_t c1 = 0; c1 < n1; ++c1) f[c1 * s1] = p[c1];
    }
  }

  LocalProblem lp_;
  LocalStorage st_;
  ThomasFactor<T> factor_[3];
  std::vector<T> alpha_[3], beta_[3], w_prev_[3], w_next_[3];
  std::vector<T> u_, w_, xp_, xn_;
  std::map<int, std::vector<T>> buffers_;
  const T* gathered_[3] = {nullptr, nullptr, nullptr};
};

}  // namespace

template <class T>
std::unique_ptr<LocalBackend<T>> make_cpu_local(const LocalProblem& lp) {
  return std::make_unique<CpuLocal<T>>(lp);
}
template std::unique_ptr<LocalBackend<float>> make_cpu_local<float>(const LocalProblem&);
template std::unique_ptr<LocalBackend<double>> make_cpu_local<double>(const LocalProblem&);

}  // namespace adi::mpi::detail
