// One rank's box of the general problem on the CPU (general_local.hpp has
// the design: ghost layers of u, K, 1/c and q; rows from discrete.hpp with
// global indices; the partition method for lines that cross ranks). The
// arithmetic of every row, of the right-hand side and of the whole-line
// solves is that of cpu::CpuStepper (stages_cpu.cpp), the oracle.

#include <adi/box/general_local.hpp>

#include "line_batches.hpp"
#include "line_rows.hpp"
#include "rank_box_cpu.hpp"

#include <adi/dirichlet.hpp>
#include <adi/discrete.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace adi::box {

namespace {

std::array<int, 2> others(int axis) {
  return axis == 0 ? std::array<int, 2>{{1, 2}} : axis == 1 ? std::array<int, 2>{{0, 2}} : std::array<int, 2>{{0, 1}};
}

std::array<bool, 3> split_axes(const Decomposition& d) {
  return {{d.is_split(0), d.is_split(1), d.is_split(2)}};
}

template <class T>
class GeneralCpuLocal final : public CpuRankBox<T, GeneralLocal<T>> {
  using Base = CpuRankBox<T, GeneralLocal<T>>;
  using Base::st_;
  using Base::U;
  using Base::u_;
  using Base::W;
  using Base::w_;

 private:
  /// A split axis whose lines share one matrix (constant coefficients):
  /// its rows and the line-independent part of reduce's elimination (the
  /// pivots' reciprocals, cp, and alpha, beta: the same for every line),
  /// computed once by reduce, used by finish instead of alpha_, beta_.
  struct SharedElimination {
    bool use = false, ok = true;
    std::vector<T> a, b, c, inv, cp, f, g;
  };

 public:
  GeneralCpuLocal(const HeatProblem& p, const Decomposition& d, int rank)
      : Base(p, d.part(rank), split_axes(d)), p_(p), part_(d.part(rank)) {
    const std::array<bool, 3> ghosts = split_axes(d);
    this->weigh_with(p_, part_.box.begin);  // its own copy of the problem: p may not outlive this box
    split_axes_ = ghosts;
    for (int a = 0; a < 3; ++a) split_[a] = d.split(a);
    const auto n = static_cast<std::size_t>(st_.elements);
    for (int a = 0; a < 3; ++a) {
      ends_[a] = domain_ends<T>(p_, a, scales_[a]);
      if (p_.flat(a)) continue;
      if (ghosts[a] && p_.material.lines_vary()) {  // else SharedElimination
        alpha_.assign(n, T(0));
        beta_.assign(n, T(0));
      }
    }
    // Material: the box and its ghost layers only (an isotropic field one
    // array); every field read before a bad one throws (load_box_material).
    {
      BoxMaterial<T> m = load_box_material<T>(p_, part_, ghosts, st_, d.ranks() > 1);
      k_ = std::move(m.k);
      k_shared_ = m.k_shared;
      rho_ = std::move(m.rho);
      q_ = std::move(m.q);
    }
    dirichlet_ = build_dirichlet(p_, part_.box.begin, part_.box.size);
    for (int a = 0; a < 3; ++a) tau_[a] = static_cast<T>(p_.theta * p_.dt);
    if (p_.scheme_in_use() == SchemeType::Strang) {
      frac_ = strang_fractions(p_);
      for (int a = 0; a < 3; ++a) tau_[a] = static_cast<T>(p_.theta * frac_[a] * p_.dt);
      strang_planes_ = split_dirichlet(dirichlet_);
      for (const auto& pl : strang_planes_.planes) {
        split_r_.emplace_back(static_cast<std::size_t>(pl.n1 * pl.n2), T(0));
        split_g1_.emplace_back(static_cast<std::size_t>(pl.n1 * pl.n2), T(0));
      }
    }
  }

  void reload_material(bool collective) override {
    BoxMaterial<T> m = load_box_material<T>(p_, part_, split_axes_, st_, collective);
    k_ = std::move(m.k);
    rho_ = std::move(m.rho);
    q_ = std::move(m.q);
    ab_axis_ = -1;  // alpha, beta of the old lines
    if (dirichlet_.moving) refresh_dirichlet_terms(dirichlet_, p_, part_.box.begin);
  }

  std::string device_name() const override { return Base::threads_per_rank() + ", general path"; }
  std::size_t bytes_allocated() const override {
    std::size_t b = u_.size() + w_.size() + rho_.size() + q_.size() + alpha_.size() + beta_.size();
    for (const auto& k : k_) b += k.size();
    return sizeof(T) * b;
  }

  index_t lines(int axis) const override {
    const auto o = others(axis);
    return st_.layout.n[o[0]] * st_.layout.n[o[1]];
  }
  void impose_boundary_values(double t) override { impose_dirichlet(dirichlet_, t, U(), strides()); }

  // w = dt (sum_a A_a u + beta(t*) + q f(t*) / c), as CpuStepper::rhs
  // with global indices: only the ranks that own a face apply its data.
  void rhs(double t0) override {
    const Layout3& L = st_.layout;
    const double tstar = t0 + p_.theta * p_.dt;
    const T dt = static_cast<T>(p_.dt);
    T beta[3][2];
    face_betas(p_, tstar, beta);
    const T qf = static_cast<T>(p_.source_table.at(tstar));
    const T qconst = static_cast<T>(p_.source);
    const T rho_const = static_cast<T>(1.0 / p_.capacity);
    const T* u = U();
    T* w = W();
    const T* R = rho_.empty() ? nullptr : rho_.data() + st_.origin;
    const T* Q = q_.empty() ? nullptr : q_.data() + st_.origin;
    const index_t b0[3] = {part_.box.begin[0], part_.box.begin[1], part_.box.begin[2]};
    // Nodes at least one node from every global end (both neighbours are the
    // next nodes, the ghost planes' at a cut) go to interior_rhs_run by x
    // runs, as in CpuStepper::rhs: the same operations, vectorised.
    cpu::detail::RhsRun<T> run;
    bool live[3];
    for (int a = 0; a < 3; ++a) {
      live[a] = !p_.flat(a);
      run.live[a] = live[a];
      run.stride[a] = L.stride[a];
      run.inv_h2[a] = ends_[a].inv_h2;
      run.sm[a] = ends_[a].sm;
      run.sp[a] = ends_[a].sp;
      run.K[a] = conductivity(a);
      run.kconst[a] = static_cast<T>(p_.alpha[a]);
    }
    run.rho = R;
    run.rho_const = rho_const;
    run.q = Q;
    run.qconst = qconst;
    run.qf = qf;
    run.dt = dt;
    auto inside = [&](int a, index_t local) { return b0[a] + local >= 1 && b0[a] + local + 1 < ends_[a].n; };
    // The x run [i0, i1) of local indices whose global index is inside.
    const index_t i0 = std::max<index_t>(0, 1 - b0[0]), i1 = std::min<index_t>(L.n[0], ends_[0].n - 1 - b0[0]);
#pragma omp parallel
    {
      cpu::detail::RunScratch<T> scratch(L.n[0]);  // interior_rhs_run's
#pragma omp for collapse(2) schedule(static)
      for (index_t k = 0; k < L.n[2]; ++k)
        for (index_t j = 0; j < L.n[1]; ++j) {
          const bool row_inside = live[0] && i1 > i0 && (!live[1] || inside(1, j)) && (!live[2] || inside(2, k));
          if (row_inside)
            cpu::detail::interior_rhs_run(run, u, w, L.offset(i0, j, k), i1 - i0, scratch,
                                          {{b0[0] + i0, b0[1] + j, b0[2] + k}});
          for (index_t i = 0; i < L.n[0]; ++i) {
            if (row_inside && i == i0) {  // the run above
              i = i1 - 1;
              continue;
            }
            const index_t loc[3] = {i, j, k};
            const index_t o = L.offset(i, j, k);
            bool fixed = false;
            for (int a = 0; a < 3; ++a)
              if (!p_.flat(a) && fixed_row(b0[a] + loc[a], ends_[a])) fixed = true;
            if (fixed) {
              w[o] = T(0);
              continue;
            }
            const T rho = R ? R[o] : rho_const;
            const T uc = u[o];
            T acc = T(0), bsum = T(0);
            for (int a = 0; a < 3; ++a) {
              if (p_.flat(a)) continue;
              const AxisEnds<T>& e = ends_[a];
              const index_t gi = b0[a] + loc[a];
              const index_t om = lower(a, o, loc[a]), op = upper(a, o, loc[a]);
              const T* K = conductivity(a);
              const T kc = K ? K[o] : static_cast<T>(p_.alpha[a]);
              const T km = K ? K[om] : kc, kp = K ? K[op] : kc;
              acc += row_apply(row_coupling<T>(gi, e, km, kc, kp, rho), u[om], uc, u[op]);
              if (gi == 0 && e.lo == LineEnd::Mirror) bsum += beta[a][0];
              if (gi == e.n - 1 && e.hi == LineEnd::Mirror) bsum += beta[a][1];
            }
            const T q = Q ? Q[o] : qconst;
            w[o] = dt * (acc + rho * (bsum + q * qf));
          }
        }
    }
    if (dirichlet_.moving) {
      const auto df = dirichlet_.increments(p_, t0, t0 + p_.dt);
      dirichlet_rhs(dirichlet_, df, w, strides());
    }
  }

  // The Strang step's pieces: CpuStepper's split_dirichlet_terms,
  // factor and split_reset with global indices and the ghost planes.
  void split_terms(double t0, double t1) override {
    const Layout3& L = st_.layout;
    const double tstar = t0 + p_.theta * p_.dt;
    const auto df = dirichlet_.increments(p_, t0, t0 + p_.dt);
    const auto f1 = split_table_values(p_, t1);
    T beta[3][2];
    face_betas(p_, tstar, beta);
    const T sq_f = static_cast<T>(strang_source_share(p_) * p_.source_table.at(tstar));
    const T rho_const = static_cast<T>(1.0 / p_.capacity), qconst = static_cast<T>(p_.source);
    const T dt = static_cast<T>(p_.dt);
    const T* u = U();
    const T* R = rho_.empty() ? nullptr : rho_.data() + st_.origin;
    const T* Q = q_.empty() ? nullptr : q_.data() + st_.origin;
    const index_t* b0 = part_.box.begin.data();
    for (std::size_t f = 0; f < strang_planes_.planes.size(); ++f) {
      const SplitDirichlet::Plane& pl = strang_planes_.planes[f];
#pragma omp parallel for collapse(2) schedule(static)
      for (index_t c2 = 0; c2 < pl.n2; ++c2)
        for (index_t c1 = 0; c1 < pl.n1; ++c1) {
          index_t loc[3];
          loc[pl.axis] = pl.plane;
          loc[pl.o1] = c1;
          loc[pl.o2] = c2;
          const index_t o = L.offset(loc[0], loc[1], loc[2]);
          const T rho = R ? R[o] : rho_const;
          const T sq = (Q ? Q[o] : qconst) * sq_f;
          int fixed = 0;
          T flows = T(0);
          for (int b = 0; b < 3; ++b) {
            if (p_.flat(b)) {
              flows += rho * (T(0) + sq);
              continue;
            }
            const AxisEnds<T>& e = ends_[b];
            const index_t gb = b0[b] + loc[b];
            if (fixed_row(gb, e)) {
              ++fixed;
              continue;
            }
            const index_t om = lower(b, o, loc[b]), op = upper(b, o, loc[b]);
            const T* K = conductivity(b);
            const T kc = K ? K[o] : static_cast<T>(p_.alpha[b]);
            const T km = K ? K[om] : kc, kp = K ? K[op] : kc;
            T bt = T(0);
            if (gb == 0 && e.lo == LineEnd::Mirror) bt += beta[b][0];
            if (gb == e.n - 1 && e.hi == LineEnd::Mirror) bt += beta[b][1];
            flows += split_flow(row_coupling<T>(gb, e, km, kc, kp, rho), u[om], u[o], u[op], rho, bt, sq);
          }
          const std::size_t q = static_cast<std::size_t>(c1 + pl.n1 * c2);
          const int own = pl.owner[q];
          split_r_[f][q] = split_dirichlet_share(own >= 0 ? pl.value[q] * df[own] : 0.0, flows, dt, fixed);
          split_g1_[f][q] = own >= 0 ? static_cast<T>(pl.value[q] * f1[own]) : u[o];
        }
    }
  }

  void factor_rhs(int a, double t0) override {
    const Layout3& L = st_.layout;
    const double tstar = t0 + p_.theta * p_.dt;
    T beta[3][2];
    face_betas(p_, tstar, beta);
    const T sq_f = static_cast<T>(strang_source_share(p_) * p_.source_table.at(tstar));
    const T rho_const = static_cast<T>(1.0 / p_.capacity), qconst = static_cast<T>(p_.source);
    const T tau = static_cast<T>(frac_[a] * p_.dt), frac = static_cast<T>(frac_[a]);
    const T* R = rho_.empty() ? nullptr : rho_.data() + st_.origin;
    const T* Q = q_.empty() ? nullptr : q_.data() + st_.origin;
    T* u = U();
    T* w = W();
    if (p_.flat(a)) {  // no operator: the factor's share of the source alone
      if (!p_.has_source()) return;
      for_box([&](index_t o) { u[o] += tau * ((R ? R[o] : rho_const) * ((Q ? Q[o] : qconst) * sq_f)); });
      return;
    }
    const AxisEnds<T>& e = ends_[a];
    const index_t b0 = part_.box.begin[a];
    const T* K = conductivity(a);
    const T kconst = static_cast<T>(p_.alpha[a]);
    std::ptrdiff_t end_plane[2] = {-1, -1};
    for (std::size_t f = 0; f < strang_planes_.planes.size(); ++f)
      if (strang_planes_.planes[f].axis == a) end_plane[strang_planes_.planes[f].side] = static_cast<std::ptrdiff_t>(f);
#pragma omp parallel for collapse(2) schedule(static)
    for (index_t k = 0; k < L.n[2]; ++k)
      for (index_t j = 0; j < L.n[1]; ++j)
        for (index_t i = 0; i < L.n[0]; ++i) {
          const index_t loc[3] = {i, j, k};
          const index_t o = L.offset(i, j, k), ga = b0 + loc[a];
          if (fixed_row(ga, e)) {
            const std::size_t f = static_cast<std::size_t>(end_plane[ga == 0 ? 0 : 1]);
            const SplitDirichlet::Plane& pl = strang_planes_.planes[f];
            w[o] = frac * split_r_[f][static_cast<std::size_t>(loc[pl.o1] + pl.n1 * loc[pl.o2])];
            continue;
          }
          const T rho = R ? R[o] : rho_const;
          const index_t om = lower(a, o, loc[a]), op = upper(a, o, loc[a]);
          const T kc = K ? K[o] : kconst;
          const T km = K ? K[om] : kc, kp = K ? K[op] : kc;
          T bt = T(0);
          if (ga == 0 && e.lo == LineEnd::Mirror) bt += beta[a][0];
          if (ga == e.n - 1 && e.hi == LineEnd::Mirror) bt += beta[a][1];
          const T sq = (Q ? Q[o] : qconst) * sq_f;
          w[o] = tau * split_flow(row_coupling<T>(ga, e, km, kc, kp, rho), u[om], u[o], u[op], rho, bt, sq);
        }
  }

  void split_reset() override {
    const Layout3& L = st_.layout;
    T* u = U();
    for (std::size_t f = 0; f < strang_planes_.planes.size(); ++f) {
      const SplitDirichlet::Plane& pl = strang_planes_.planes[f];
      for (index_t c2 = 0; c2 < pl.n2; ++c2)
        for (index_t c1 = 0; c1 < pl.n1; ++c1) {
          index_t loc[3];
          loc[pl.axis] = pl.plane;
          loc[pl.o1] = c1;
          loc[pl.o2] = c2;
          u[L.offset(loc[0], loc[1], loc[2])] = split_g1_[f][static_cast<std::size_t>(c1 + pl.n1 * c2)];
        }
    }
  }

  void solve_whole(int a, bool add_to_u) override {
    const Layout3& L = st_.layout;
    if (p_.flat(a)) {  // no operator along a: D_a = D_{a-1}
      if (add_to_u) for_box([&](index_t o) { U()[o] += W()[o]; });
      return;
    }
    const index_t n = L.n[a], s = L.stride[a];
    const bool periodic = p_.periodic(a);
    T* w = W();
    T* u = U();
    bool ok = true;
    // Batches of B lines adjacent along the first other axis, [row][line]
    // (thomas_batch / cyclic_batch: each line bit for bit the per-line
    // solve), as CpuStepper::solve.
    constexpr index_t B = kBatch;
    const LineBatches bs = batches(a);
    // Constant coefficients: every line has the same rows, so the
    // line-independent part of cyclic_batch / thomas_batch once
    // (CyclicShared, ThomasShared: bit for bit the same).
    const bool shared_rows = !p_.material.lines_vary();
    cpu::detail::CyclicShared<T> shared_ring;
    cpu::detail::ThomasShared<T> shared_line;
    if (shared_rows && bs.tasks > 0) {
      std::vector<T> ra(static_cast<std::size_t>(n)), rb(ra.size()), rc(ra.size()), d(ra.size());
      rows_batch(a, bs.at(0).base, 0, 1, 1, ra.data(), rb.data(), rc.data(), d.data());
      if (periodic)
        shared_ring = cpu::detail::CyclicShared<T>::of(n, ra.data(), rb.data(), rc.data());
      else
        shared_line = cpu::detail::ThomasShared<T>::of(n, ra.data(), rb.data(), rc.data());
    }
#pragma omp parallel reduction(&& : ok)
    {
      const std::size_t nb = static_cast<std::size_t>(n * B);
      std::vector<T> ra(nb), rb(nb), rc(nb), d(nb), cp(nb), z(periodic ? nb : 0), bb(periodic ? nb : 0);
      std::vector<T> lo(B), hi(B), g(B), f(B);
#pragma omp for schedule(static)
      for (index_t t = 0; t < bs.tasks; ++t) {
        const LineBatch b = bs.at(t);
        const index_t base = b.base, su = bs.su, cnt = b.cnt;
        bool good;
        if (shared_rows) {
          for (index_t i = 0; i < n; ++i)
            for (index_t l = 0; l < cnt; ++l) d[static_cast<std::size_t>(i * B + l)] = w[base + l * su + i * s];
          good = periodic ? cpu::detail::cyclic_batch_shared(shared_ring, B, cnt, d.data(), f.data())
                          : cpu::detail::thomas_batch_shared(shared_line, B, cnt, d.data());
        } else {
          rows_batch(a, base, su, cnt, B, ra.data(), rb.data(), rc.data(), d.data());
          good = periodic ? cpu::detail::cyclic_batch(n, B, cnt, ra.data(), rb.data(), rc.data(), d.data(), cp.data(),
                                                      z.data(), bb.data(), lo.data(), hi.data(), g.data(), f.data())
                          : cpu::detail::thomas_batch(n, B, cnt, ra.data(), rb.data(), rc.data(), d.data(), cp.data());
        }
        ok = ok && good;
        for (index_t i = 0; i < n; ++i) {
          const T* di = d.data() + i * B;
          T* dst = (add_to_u ? u : w) + base + i * s;
          if (add_to_u)
            for (index_t l = 0; l < cnt; ++l) dst[l * su] += di[l];
          else
            for (index_t l = 0; l < cnt; ++l) dst[l * su] = di[l];
        }
      }
    }
    check(ok, a);
  }

  // The interior elimination of every line (general_local.hpp): r into w,
  // alpha, beta into their arrays at the interior nodes, the two reduced rows
  // out. Batches of B lines adjacent along the first other axis, [row][line]
  // as solve_whole: each line's operations are the per-line elimination's, in
  // its order, so the result is bit for bit the same; the inner loops run
  // across lines (unit stride, vectorised) instead of down one strided line.
  void reduce(int a, index_t c2b, index_t c2e, int /*batch*/, T* out) override {
    const Layout3& L = st_.layout;
    const index_t m = L.n[a], s = L.stride[a];
    const index_t nl = (c2e - c2b) * L.n[others(a)[0]];  // the batch's lines
    T* w = W();
    T* al = alpha_.empty() ? nullptr : alpha_.data() + st_.origin;
    T* be = beta_.empty() ? nullptr : beta_.data() + st_.origin;
    bool ok = true;
    constexpr index_t B = kBatch;
    const LineBatches bs = batches(a, c2b, c2e);
    SharedElimination& E = shared_[a];
    E.use = !p_.material.lines_vary() && m >= 3 && bs.tasks > 0;
    if (E.use) share_elimination(a, bs.at(0).base, E);
    if (E.use) {
#pragma omp parallel reduction(&& : ok)
      {
        std::vector<T> d(static_cast<std::size_t>(m * B));
#pragma omp for schedule(static)
        for (index_t t = 0; t < bs.tasks; ++t) {
          const LineBatch b = bs.at(t);
          reduce_shared(a, E, b, bs.su, B, nl, d.data(), out);
        }
      }
      check(E.ok, a);
      return;
    }
    // alpha and beta of the interior depend on the line matrix alone, which
    // no step changes: once an axis' pass has written them (end_lines), its
    // later passes sweep d only and read alpha, beta back (the values the
    // full sweep would give, bit for bit: the same operations on the same
    // numbers). A pass of the other split axis overwrites them.
    const bool keep = ab_axis_ == a && al != nullptr;
    if (!keep) ab_axis_ = -1;
#pragma omp parallel reduction(&& : ok)
    {
      const std::size_t nb = static_cast<std::size_t>(m * B);
      std::vector<T> ra(nb), rb(nb), rc(nb), d(nb), f(keep ? 0 : nb), g(keep ? 0 : nb), cp(nb), iv(nb);
#pragma omp for schedule(static)
      for (index_t t = 0; t < bs.tasks; ++t) {
        const LineBatch b = bs.at(t);
        const index_t base = b.base, su = bs.su, cnt = b.cnt, line0 = b.line0;
        rows_batch(a, base, su, cnt, B, ra.data(), rb.data(), rc.data(), d.data());
        auto at = [&](std::vector<T>& x, index_t i) { return x.data() + i * B; };
        bool good = true;
        if (m >= 3) {
          // Rows 1 .. m-2 with x_0 = F and x_{m-1} = L moved to the right:
          // three right-hand sides (d, -a_1 e_1, -c_{m-2} e_{m-2}), one
          // factorisation (cp and the pivots' reciprocals iv). d every pass;
          // alpha (f) and beta (g) only when they are not kept, on the same
          // factorisation: each value's operations are those of one sweep
          // carrying all three.
          {
            T *c1 = at(cp, 1), *d1 = at(d, 1), *iv1 = at(iv, 1);
            const T *b1 = at(rb, 1), *cc1 = at(rc, 1);
            for (index_t l = 0; l < cnt; ++l) {
              const T piv = b1[l];
              good = good & cpu::detail::good_pivot(piv);
              const T inv = T(1) / piv;
              iv1[l] = inv;
              c1[l] = cc1[l] * inv;
              d1[l] *= inv;
            }
          }
          for (index_t i = 2; i < m - 1; ++i) {
            T *ci = at(cp, i), *di = at(d, i), *ivi = at(iv, i);
            const T *ai = at(ra, i), *bi = at(rb, i), *cci = at(rc, i), *cp0 = at(cp, i - 1), *d0 = at(d, i - 1);
            for (index_t l = 0; l < cnt; ++l) {
              const T piv = bi[l] - ai[l] * cp0[l];
              good = good & cpu::detail::good_pivot(piv);
              const T inv = T(1) / piv;
              ivi[l] = inv;
              ci[l] = cci[l] * inv;
              di[l] = (di[l] - ai[l] * d0[l]) * inv;
            }
          }
          for (index_t i = m - 3; i >= 1; --i) {
            T* di = at(d, i);
            const T *ci = at(cp, i), *d1 = at(d, i + 1);
            for (index_t l = 0; l < cnt; ++l) di[l] -= ci[l] * d1[l];
          }
          for (index_t i = 1; i < m - 1; ++i) {
            const index_t o = base + i * s;
            for (index_t l = 0; l < cnt; ++l) w[o + l * su] = at(d, i)[l];
          }
          if (!keep) {
            for (index_t i = 1; i < m - 1; ++i)
              for (index_t l = 0; l < cnt; ++l) at(f, i)[l] = at(g, i)[l] = T(0);
            for (index_t l = 0; l < cnt; ++l) {
              at(f, 1)[l] = -at(ra, 1)[l];
              at(g, m - 2)[l] = -at(rc, m - 2)[l];
            }
            {
              T *f1 = at(f, 1), *g1 = at(g, 1);
              const T* iv1 = at(iv, 1);
              for (index_t l = 0; l < cnt; ++l) {
                f1[l] *= iv1[l];
                g1[l] *= iv1[l];
              }
            }
            for (index_t i = 2; i < m - 1; ++i) {
              T *fi = at(f, i), *gi = at(g, i);
              const T *ai = at(ra, i), *ivi = at(iv, i), *f0 = at(f, i - 1), *g0 = at(g, i - 1);
              for (index_t l = 0; l < cnt; ++l) {
                fi[l] = (fi[l] - ai[l] * f0[l]) * ivi[l];
                gi[l] = (gi[l] - ai[l] * g0[l]) * ivi[l];
              }
            }
            for (index_t i = m - 3; i >= 1; --i) {
              T *fi = at(f, i), *gi = at(g, i);
              const T *ci = at(cp, i), *f1 = at(f, i + 1), *g1 = at(g, i + 1);
              for (index_t l = 0; l < cnt; ++l) {
                fi[l] -= ci[l] * f1[l];
                gi[l] -= ci[l] * g1[l];
              }
            }
            for (index_t i = 1; i < m - 1; ++i) {
              const index_t o = base + i * s;
              for (index_t l = 0; l < cnt; ++l) {
                al[o + l * su] = at(f, i)[l];
                be[o + l * su] = at(g, i)[l];
              }
            }
          }
        }
        ok = ok && good;
        for (index_t l = 0; l < cnt; ++l) {
          T row[kReducedValues] = {};
          if (m == 1) {
            row[0] = ra[l];
            row[1] = rb[l];
            row[2] = rc[l];
            row[3] = d[l];
          } else {
            T r1 = T(0), a1 = T(0), b1 = T(1);  // x_1 = r_1 + alpha_1 F + beta_1 L (m = 2: x_1 = L)
            T rm = T(0), am = T(1), bm = T(0);  // x_{m-2} likewise (m = 2: x_0 = F)
            if (m >= 3) {  // alpha, beta as written above or kept from the axis' last pass
              const index_t o1 = base + s + l * su, om = base + (m - 2) * s + l * su;
              r1 = at(d, 1)[l], a1 = al[o1], b1 = be[o1];
              rm = at(d, m - 2)[l], am = al[om], bm = be[om];
            }
            const T c0 = rc[l], an = at(ra, m - 1)[l];
            row[0] = ra[l];
            row[1] = rb[l] + c0 * a1;
            row[2] = c0 * b1;
            row[3] = d[l] - c0 * r1;
            row[4] = an * am;
            row[5] = at(rb, m - 1)[l] + an * bm;
            row[6] = at(rc, m - 1)[l];
            row[7] = at(d, m - 1)[l] - an * rm;
          }
          for (int q = 0; q < kReducedValues; ++q) out[q * nl + line0 + l] = row[q];
        }
      }
    }
    check(ok, a);
  }

  // The reduced system of each line (per line: it is short), then the
  // interior x = r + alpha F + beta L in batches of B adjacent lines, the
  // inner loop across lines (unit stride); each value's arithmetic as before.
  // Every batch of the axis reduced without a failure: alpha_, beta_ hold
  // the whole axis (reduce keeps them for the axis' next pass).
  void end_lines(int a) override {
    if (!alpha_.empty()) ab_axis_ = a;
  }

  void finish(int a, index_t c2b, index_t c2e, const T* gathered, bool add_to_u, bool /*rhs_only*/) override {
    const Layout3& L = st_.layout;
    const index_t m = L.n[a], s = L.stride[a];
    const index_t nl = (c2e - c2b) * L.n[others(a)[0]];  // the batch's lines
    const Split1D sp = split_[a];
    const int me = part_.coords[a];
    // Unknowns of the reduced system: min(m_q, 2) per rank q, in rank order.
    std::vector<index_t> cnt, off;
    reduced_layout(sp, cnt, off);
    const index_t N = off.back();
    const bool ring = p_.periodic(a);
    T* w = W();
    T* u = U();
    const SharedElimination& E = shared_[a];
    const T* al = alpha_.empty() ? nullptr : alpha_.data() + st_.origin;
    const T* be = beta_.empty() ? nullptr : beta_.data() + st_.origin;
    bool ok = true;
    const LineBatches bs = batches(a, c2b, c2e);
#pragma omp parallel reduction(&& : ok)
    {
      ReducedScratch<T> rs(N);
      std::vector<T> F(kBatch), Lv(kBatch);
#pragma omp for schedule(static)
      for (index_t t = 0; t < bs.tasks; ++t) {
        const LineBatch b = bs.at(t);
        const index_t base = b.base, su = bs.su, nb = b.cnt, line0 = b.line0;
        for (index_t l = 0; l < nb; ++l) {
          const bool good = solve_reduced_line(gathered, nl, line0 + l, cnt, off, ring, me, rs, F[l], Lv[l]);
          ok = ok && good;
        }
        for (index_t i = 0; i < m; ++i) {
          const index_t o0 = base + i * s;
          for (index_t l = 0; l < nb; ++l) {
            const index_t o = o0 + l * su;
            T x;
            if (i == 0)
              x = F[l];
            else if (i == m - 1)
              x = Lv[l];
            else if (E.use)
              x = w[o] + E.f[static_cast<std::size_t>(i)] * F[l] + E.g[static_cast<std::size_t>(i)] * Lv[l];
            else
              x = w[o] + al[o] * F[l] + be[o] * Lv[l];
            if (add_to_u) u[o] += x;
            else w[o] = x;
          }
        }
      }
    }
    check(ok, a);
  }

 private:
  const T* inverse_capacity() const override { return rho_.empty() ? nullptr : rho_.data() + st_.origin; }
  const T* conductivity(int a) const {
    const int b = k_shared_[a] >= 0 ? k_shared_[a] : a;
    return k_[b].empty() ? nullptr : k_[b].data() + st_.origin;
  }
  std::array<index_t, 3> strides() const {
    return {{st_.layout.stride[0], st_.layout.stride[1], st_.layout.stride[2]}};
  }

  // Neighbours along a of the node at offset o, local index i: the ghost
  // plane across a cut (a split periodic axis has cuts everywhere: its ghost
  // beyond the last node holds node 0), the other end of the box on a
  // periodic axis the rank holds whole, the mirrored inner node at a
  // domain face (unused by Mirror rows' arithmetic, never read by Fixed rows).
  index_t lower(int a, index_t o, index_t i) const {
    const index_t s = st_.layout.stride[a], m = st_.layout.n[a];
    if (i > 0 || part_.lo_cut[a]) return o - s;
    return ends_[a].lo == LineEnd::Wrap ? o + (m - 1) * s : o + s;
  }
  index_t upper(int a, index_t o, index_t i) const {
    const index_t s = st_.layout.stride[a], m = st_.layout.n[a];
    if (i < m - 1 || part_.hi_cut[a]) return o + s;
    return ends_[a].hi == LineEnd::Wrap ? o - (m - 1) * s : o - s;
  }

  // Batches of lines (line_batches.hpp), of one 128-byte row of T each.
  static constexpr index_t kBatch = cpu::detail::kLineBatchBytes / sizeof(T);
  using LineBatch = cpu::detail::LineBatch;
  using LineBatches = cpu::detail::LineBatches;
  LineBatches batches(int a, index_t v0 = 0, index_t v1 = -1) const {
    return cpu::detail::line_batches(st_.layout, a, kBatch, v0, v1);
  }

  /// Offset of node 0 of line `line` along a (line = c1 + n_o1 c2).
  index_t line_base(int a, index_t line) const {
    const auto o = others(a);
    const Layout3& L = st_.layout;
    return (line % L.n[o[0]]) * L.stride[o[0]] + (line / L.n[o[0]]) * L.stride[o[1]];
  }

  /// The rank's rows of (I - theta dt A_a) and their right-hand sides from
  /// w for `cnt` lines su apart starting at base, laid out [row][line] with
  /// pitch B (line l's row i at i * B + l).
  void rows_batch(int a, index_t base, index_t su, index_t cnt, index_t B, T* ra, T* rb, T* rc, T* d) {
    const Layout3& L = st_.layout;
    const index_t m = L.n[a], s = L.stride[a], b0 = part_.box.begin[a];
    const AxisEnds<T>& e = ends_[a];
    const T tdt = tau_[a];
    const T rho_const = static_cast<T>(1.0 / p_.capacity);
    const T kconst = static_cast<T>(p_.alpha[a]);
    const T* K = conductivity(a);
    const T* R = rho_.empty() ? nullptr : rho_.data() + st_.origin;
    const T* w = W();
    for (index_t i = 0; i < m; ++i) {
      if (b0 + i >= 1 && b0 + i + 1 < e.n) {  // no end of its line: the neighbours are the next rows
        cpu::detail::interior_rows(w, K, kconst, R, rho_const, cpu::detail::row_sm(e, b0 + i),
                                   cpu::detail::row_sp(e, b0 + i), tdt, base + i * s, su, s, cnt, d + i * B,
                                   ra + i * B, rb + i * B, rc + i * B);
        continue;
      }
      const bool fixed = fixed_row(b0 + i, e);
      for (index_t l = 0; l < cnt; ++l) {
        const index_t o = base + l * su + i * s, q = i * B + l;
        d[q] = w[o];
        if (fixed) {
          ra[q] = rc[q] = T(0);
          rb[q] = T(1);
          continue;
        }
        const index_t om = lower(a, o, i), op = upper(a, o, i);
        const T kc = K ? K[o] : kconst, km = K ? K[om] : kc, kp = K ? K[op] : kc;
        const T rho = R ? R[o] : rho_const;
        implicit_row(row_coupling<T>(b0 + i, e, km, kc, kp, rho), tdt, ra[q], rb[q], rc[q]);
      }
    }
  }

  /// The rank's rows of one line of (I - theta dt A_a), and its right-hand
  /// side from w: rows_batch for one line.
  void rows(int a, index_t base, T* ra, T* rb, T* rc, T* d) { rows_batch(a, base, 0, 1, 1, ra, rb, rc, d); }

  /// reduce's elimination of the interior rows for the right-hand sides
  /// -a_1 e_1 and -c_{m-2} e_{m-2} (alpha, beta), with one line's operations
  /// in their order, on the rows of the line at `base`: what every line of
  /// a split axis with constant coefficients shares.
  void share_elimination(int a, index_t base, SharedElimination& E) {
    const index_t m = st_.layout.n[a];
    const std::size_t n = static_cast<std::size_t>(m);
    E.a.assign(n, T(0));
    E.b.assign(n, T(0));
    E.c.assign(n, T(0));
    E.inv.assign(n, T(0));
    E.cp.assign(n, T(0));
    E.f.assign(n, T(0));
    E.g.assign(n, T(0));
    std::vector<T> d(n);
    rows_batch(a, base, 0, 1, 1, E.a.data(), E.b.data(), E.c.data(), d.data());
    T *ra = E.a.data(), *rb = E.b.data(), *rc = E.c.data(), *inv = E.inv.data(), *cp = E.cp.data();
    T *f = E.f.data(), *g = E.g.data();
    E.ok = true;
    f[1] = -ra[1];
    g[m - 2] = -rc[m - 2];
    E.ok = E.ok & cpu::detail::good_pivot(rb[1]);
    inv[1] = T(1) / rb[1];
    cp[1] = rc[1] * inv[1];
    f[1] *= inv[1];
    g[1] *= inv[1];
    for (index_t i = 2; i < m - 1; ++i) {
      const T piv = rb[i] - ra[i] * cp[i - 1];
      E.ok = E.ok & cpu::detail::good_pivot(piv);
      inv[i] = T(1) / piv;
      cp[i] = rc[i] * inv[i];
      f[i] = (f[i] - ra[i] * f[i - 1]) * inv[i];
      g[i] = (g[i] - ra[i] * g[i - 1]) * inv[i];
    }
    for (index_t i = m - 3; i >= 1; --i) {
      f[i] -= cp[i] * f[i + 1];
      g[i] -= cp[i] * g[i + 1];
    }
  }

  /// reduce for one batch of lines that share E: only d is eliminated (its
  /// operations as in the general batch), w gets r, and the two reduced rows
  /// go out (nl: the lines of reduce's batch); bit for bit the general
  /// batch's results.
  void reduce_shared(int a, const SharedElimination& E, const LineBatch& b, index_t su, index_t B, index_t nl, T* d,
                     T* out) {
    const Layout3& L = st_.layout;
    const index_t m = L.n[a], s = L.stride[a], cnt = b.cnt;
    T* w = W();
    const T *ra = E.a.data(), *rb = E.b.data(), *rc = E.c.data(), *inv = E.inv.data(), *cp = E.cp.data();
    const T *f = E.f.data(), *g = E.g.data();
    for (index_t i = 0; i < m; ++i)
      for (index_t l = 0; l < cnt; ++l) d[i * B + l] = w[b.base + l * su + i * s];
    for (index_t l = 0; l < cnt; ++l) d[B + l] *= inv[1];
    for (index_t i = 2; i < m - 1; ++i)
      for (index_t l = 0; l < cnt; ++l) d[i * B + l] = (d[i * B + l] - ra[i] * d[(i - 1) * B + l]) * inv[i];
    for (index_t i = m - 3; i >= 1; --i)
      for (index_t l = 0; l < cnt; ++l) d[i * B + l] -= cp[i] * d[(i + 1) * B + l];
    for (index_t i = 1; i < m - 1; ++i)
      for (index_t l = 0; l < cnt; ++l) w[b.base + l * su + i * s] = d[i * B + l];
    const T c0 = rc[0], an = ra[m - 1];
    for (index_t l = 0; l < cnt; ++l) {
      const T r1 = d[B + l], rm = d[(m - 2) * B + l];
      T row[kReducedValues] = {};
      row[0] = ra[0];
      row[1] = rb[0] + c0 * f[1];
      row[2] = c0 * g[1];
      row[3] = d[l] - c0 * r1;
      row[4] = an * f[m - 2];
      row[5] = rb[m - 1] + an * g[m - 2];
      row[6] = rc[m - 1];
      row[7] = d[(m - 1) * B + l] - an * rm;
      for (int q = 0; q < kReducedValues; ++q) out[q * nl + b.line0 + l] = row[q];
    }
  }

  void check(bool ok, int a) const {
    if (!ok)
      ADI_THROW(NumericalError, std::string("line solve along ") + axis_name(static_cast<Axis>(a)) +
                                    ": zero or non-finite pivot (non-finite or extreme material values?)");
  }

  template <class F>
  void for_box(F&& f) {
    const Layout3& L = st_.layout;
#pragma omp parallel for collapse(2) schedule(static)
    for (index_t k = 0; k < L.n[2]; ++k)
      for (index_t j = 0; j < L.n[1]; ++j)
        for (index_t i = 0; i < L.n[0]; ++i) f(L.offset(i, j, k));
  }


  HeatProblem p_;
  LocalPart part_;
  std::array<Split1D, 3> split_{};
  std::vector<T> alpha_, beta_;        // the interior's coefficients of F and L (split axes, lines that vary)
  int ab_axis_ = -1;                   // the split axis whose alpha_, beta_ are complete (reduce, end_lines)
  std::array<SharedElimination, 3> shared_{};
  std::array<std::vector<T>, 3> k_;    // conductivity per axis, box + ghosts (empty: constant)
  std::array<int, 3> k_shared_{{-1, -1, -1}};
  std::vector<T> rho_, q_;             // 1 / c and q, box + ghosts (empty: constant)
  std::array<bool, 3> split_axes_{};   // the axes with ghost layers
  std::array<AxisEnds<T>, 3> ends_{};  // the domain's ends (global n)
  std::array<AxisScales<T>, 3> scales_{};  // ends_' sm, sp on a stretched axis
  DirichletData dirichlet_;
  std::array<T, 3> tau_{};        // theta dt of each axis' solves (Strang: theta fraction dt)
  std::array<double, 3> frac_{};  // Strang: each axis' fraction of dt
  SplitDirichlet strang_planes_;
  std::vector<std::vector<T>> split_r_, split_g1_;  // per plane of split_: r / |S| and g(t^{n+1})
};

}  // namespace

template <class T>
std::unique_ptr<GeneralLocal<T>> make_general_cpu_local(const HeatProblem& p, const Decomposition& d, int rank) {
  return std::make_unique<GeneralCpuLocal<T>>(p, d, rank);
}
template std::unique_ptr<GeneralLocal<float>> make_general_cpu_local<float>(const HeatProblem&, const Decomposition&,
                                                                           int);
template std::unique_ptr<GeneralLocal<double>> make_general_cpu_local<double>(const HeatProblem&,
                                                                             const Decomposition&, int);

}  // namespace adi::box
