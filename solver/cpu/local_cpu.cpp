// One rank's box of the constant tables on the CPU (OpenMP): the whole-grid
// CPU backend's loops (cpu::douglas_rhs, cpu::solve_constant) run on the
// box's layout, whose strides are those of the allocation with its ghost
// layers; storage and planes are rank_box_cpu.hpp's.

#include <adi/box/local_backend.hpp>

#include "rank_box_cpu.hpp"
#include "tridiag_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace adi::box {

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
class CpuLocal final : public CpuRankBox<T, LocalBackend<T>> {
  using Base = CpuRankBox<T, LocalBackend<T>>;
  using Base::n_o2;
  using Base::plane_copy;
  using Base::st_;
  using Base::U;
  using Base::W;

 public:
  explicit CpuLocal(const LocalProblem& lp) : Base(lp.global, lp.part, lp.ghosts), lp_(lp) {
    for (int a = 0; a < 3; ++a) {
      const DistributedLinePlan& pl = lp_.plans[a];
      factor_[a] = ThomasFactor<T>::factor(pl.local);
      alpha_[a] = to_t<T>(pl.alpha);
      beta_[a] = to_t<T>(pl.beta);
      w_prev_[a] = to_t<T>(pl.w_prev);
      w_next_[a] = to_t<T>(pl.w_next);
    }
  }

  Backend kind() const override { return Backend::Cpu; }
  std::string device_name() const override { return Base::threads_per_rank(); }
  std::size_t bytes_allocated() const override { return sizeof(T) * (this->u_.size() + this->w_.size()); }

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
  LocalProblem lp_;
  ThomasFactor<T> factor_[3];
  std::vector<T> alpha_[3], beta_[3], w_prev_[3], w_next_[3];
  std::vector<T> xp_, xn_;
  const T* gathered_[3] = {nullptr, nullptr, nullptr};
};

}  // namespace

template <class T>
std::unique_ptr<LocalBackend<T>> make_cpu_local(const LocalProblem& lp) {
  return std::make_unique<CpuLocal<T>>(lp);
}
template std::unique_ptr<LocalBackend<float>> make_cpu_local<float>(const LocalProblem&);
template std::unique_ptr<LocalBackend<double>> make_cpu_local<double>(const LocalProblem&);

}  // namespace adi::box
