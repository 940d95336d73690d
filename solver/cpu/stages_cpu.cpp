// The CPU stepper's stages on discrete.hpp's rows (the plan's axis tables
// and field rows: K, c and q fields, heat sources, flux / convective /
// periodic faces, moving Dirichlet values, flat axes) and the Strang
// factors. The line solves run in batches of adjacent lines, each line bit
// for bit the per-line Thomas / Sherman-Morrison of line_rows.hpp: this is
// the oracle for the device and distributed backends. The constant tables'
// right-hand side is scheme.hpp's (stepper_cpu.cpp).

#include "stepper_cpu.hpp"

#include "line_rows.hpp"
#include "tridiag_cpu.hpp"

#include <adi/dirichlet.hpp>
#include <adi/discrete.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

namespace adi::cpu {

// w = dt (sum_a A_a u + beta(t*) + q f(t*) / c) at every node that is not
// Dirichlet; the Dirichlet nodes get their increments' right-hand side.
template <class T>
void CpuStepper<T>::rhs() {
  if (plan_.constant_tables()) {
    douglas_rhs(u_.data(), w_.data(), layout_, p_);
    return;
  }
  const Layout3& L = layout_;
  const double t0 = this->time(), tstar = t0 + p_.theta * p_.dt;
  const T dt = static_cast<T>(p_.dt);
  // beta of the Mirror ends at t*: 2 q_in / h (per unit volume; times 1/c at the node).
  T beta[3][2];
  face_betas(p_, tstar, beta);
  const T qf = static_cast<T>(p_.source_table.at(tstar));
  const T qconst = static_cast<T>(p_.source);
  const T rho_const = static_cast<T>(1.0 / p_.capacity);
  const index_t nx = L.n[0], ny = L.n[1], nz = L.n[2];
  const T* u = u_.data();
  T* w = w_.data();
  // Interior points (no end of any axis within one node): both neighbours
  // along every axis are the next nodes and no Mirror, Robin or Fixed rule
  // applies, so the general loop below reduces to the same expressions
  // without branches, which detail::interior_rhs_run evaluates over the
  // inner x run of a row, vectorised. Same operations in the same order,
  // including the terms that vanish there (gr = 0, bsum = 0): bit-identical.
  const bool live[3] = {!p_.flat(0), !p_.flat(1), !p_.flat(2)};
  detail::RhsRun<T> run;
  for (int a = 0; a < 3; ++a) {
    run.live[a] = live[a];
    run.stride[a] = L.stride[a];
    run.inv_h2[a] = ends_[a].inv_h2;
    run.sm[a] = ends_[a].sm;
    run.sp[a] = ends_[a].sp;
    run.K[a] = conductivity(a);
    run.kconst[a] = static_cast<T>(p_.alpha[a]);
  }
  run.rho = rho_.empty() ? nullptr : rho_.data();
  run.rho_const = rho_const;
  run.q = q_.empty() ? nullptr : q_.data();
  run.qconst = qconst;
  run.qf = qf;
  run.dt = dt;
  auto inside = [](index_t c, index_t n) { return c >= 1 && c + 1 < n; };
#pragma omp parallel
  {
    detail::RunScratch<T> scratch(nx);  // interior_rhs_run's
#pragma omp for collapse(2) schedule(static)
    for (index_t k = 0; k < nz; ++k)
      for (index_t j = 0; j < ny; ++j) {
        // The x run [1, nx - 1) of an interior row goes to interior_rhs_run;
        // its ends and every other row to the general loop.
        const bool row_inside = live[0] && nx >= 3 && (!live[1] || inside(j, ny)) && (!live[2] || inside(k, nz));
        if (row_inside) detail::interior_rhs_run(run, u, w, L.offset(1, j, k), nx - 2, scratch, {{1, j, k}});
        for (index_t i = 0; i < nx; ++i) {
          if (row_inside && i == 1) i = nx - 1;  // the run above
          const index_t idx[3] = {i, j, k};
          const index_t o = L.offset(i, j, k);
          bool fixed = false;
          for (int a = 0; a < 3; ++a)
            if (!p_.flat(a) && fixed_row(idx[a], ends_[a])) fixed = true;
          if (fixed) {
            w[o] = T(0);
            continue;
          }
          const T rho = rho_.empty() ? rho_const : rho_[o];
          const T uc = u[o];
          T acc = T(0), bsum = T(0);
          for (int a = 0; a < 3; ++a) {
            if (p_.flat(a)) continue;
            const AxisEnds<T>& e = ends_[a];
            const index_t ia = idx[a], na = e.n, s = L.stride[a];
            // Neighbour offsets: wrap on a periodic axis, the inner node mirrored at a Mirror end.
            index_t om = ia > 0 ? o - s : (e.lo == LineEnd::Wrap ? o + (na - 1) * s : o + s);
            index_t op = ia < na - 1 ? o + s : (e.hi == LineEnd::Wrap ? o - (na - 1) * s : o - s);
            const T* K = conductivity(a);
            const T kc = K ? K[o] : static_cast<T>(p_.alpha[a]);
            const T km = K ? K[om] : kc, kp = K ? K[op] : kc;
            acc += row_apply(row_coupling<T>(ia, e, km, kc, kp, rho), u[om], uc, u[op]);
            if (ia == 0 && e.lo == LineEnd::Mirror) bsum += beta[a][0];
            if (ia == na - 1 && e.hi == LineEnd::Mirror) bsum += beta[a][1];
          }
          const T q = q_.empty() ? qconst : q_[o];
          w[o] = dt * (acc + rho * (bsum + q * qf));
        }
      }
  }
  if (dirichlet_.moving) {
    const auto df = dirichlet_.increments(p_, t0, t0 + p_.dt);
    dirichlet_rhs(dirichlet_, df, w, {{L.stride[0], L.stride[1], L.stride[2]}});
  }
}

// d <- (I - theta dt A_a)^{-1} d along every line of axis a; with acc, the
// solution is added into acc instead (the fused update u += D).
template <class T>
void CpuStepper<T>::solve(int a, T* acc) {
  if (p_.flat(a)) {
    if (acc)
      for (std::size_t q = 0; q < w_.size(); ++q) acc[q] += w_[q];
    return;
  }
  const Layout3& L = layout_;
  if (!p_.material.lines_vary() && !p_.periodic(a)) {
    solve_constant_fused(static_cast<Axis>(a), factor_[a], w_.data(), acc, L);
    return;
  }
  const index_t n = L.n[a], s = L.stride[a];
  const T tdt = tau_[a];
  const T rho_const = static_cast<T>(1.0 / p_.capacity);
  const T* K = conductivity(a);
  const T kconst = static_cast<T>(p_.alpha[a]);
  const AxisEnds<T>& e = ends_[a];
  const LineMatrix* cm = cyclic_[a].get();  // constant coefficients on a periodic axis
  // Its lines share one matrix: their line-independent part once (bit for
  // bit cyclic_batch's, see CyclicShared).
  detail::CyclicShared<T> shared;
  if (cm) {
    std::vector<T> ca(static_cast<std::size_t>(n)), cb(ca.size()), cc(ca.size());
    for (index_t i = 0; i < n; ++i) {
      ca[static_cast<std::size_t>(i)] = static_cast<T>(cm->a[i]);
      cb[static_cast<std::size_t>(i)] = static_cast<T>(cm->b[i]);
      cc[static_cast<std::size_t>(i)] = static_cast<T>(cm->c[i]);
    }
    shared = detail::CyclicShared<T>::of(n, ca.data(), cb.data(), cc.data());
  }
  bool ok = true;
  // Batches of B lines adjacent along x (y along x lines), laid out
  // [row][line] (thomas_batch, cyclic_batch). One y or z line at a time
  // touched a new cache line per row for w and each of K at three nodes
  // and 1/c; a batch reads B adjacent values of each, and the solves run
  // across the batch's lines. Every line gets the per-line solve's
  // operations in their order: bit-identical to it (TridiagBatches in
  // test_tridiag). 192^3 with a K field on 2 cores, fp64: y 106 -> 27 ms,
  // x 50 -> 34 ms.
  constexpr index_t B = 128 / sizeof(T);  // two cache lines of a row
  const int u_axis = a == 0 ? 1 : 0, v_axis = 3 - a - u_axis;
  const index_t nu = L.n[u_axis], su = L.stride[u_axis], nv = L.n[v_axis], sv = L.stride[v_axis];
  const index_t per_v = (nu + B - 1) / B, tasks = nv * per_v;
  const bool periodic = p_.periodic(a);
  const T* rho_f = rho_.empty() ? nullptr : rho_.data();
#pragma omp parallel reduction(&& : ok)
  {
    const std::size_t nb = static_cast<std::size_t>(n * B);
    std::vector<T> ra(nb), rb(nb), rc(nb), d(nb), cp(nb), z(periodic ? nb : 0), bb(periodic ? nb : 0);
    std::vector<T> lo(B), hi(B), g(B), f(B);
#pragma omp for schedule(static)
    for (index_t t = 0; t < tasks; ++t) {
      const index_t u0 = (t % per_v) * B, cnt = std::min(B, nu - u0);
      const index_t base = (t / per_v) * sv + u0 * su;
      for (index_t i = 0; i < n; ++i) {
        const index_t row = base + i * s;
        T* di = d.data() + i * B;
        T* ai = ra.data() + i * B;
        T* bi = rb.data() + i * B;
        T* ci = rc.data() + i * B;
        if (cm) {  // the rows are the shared matrix's: only d
          for (index_t l = 0; l < cnt; ++l) di[l] = w_[row + l * su];
        } else if (i > 0 && i + 1 < n) {  // no end of its line: conductive_row without its branches
          detail::interior_rows(w_.data(), K, kconst, rho_f, rho_const, detail::row_sm(e, i), detail::row_sp(e, i),
                                tdt, row, su, s, cnt, di, ai, bi, ci);
        } else {
          for (index_t l = 0; l < cnt; ++l) {
            const index_t o = row + l * su;
            di[l] = w_[o];
            const T rho = rho_.empty() ? rho_const : rho_[o];
            detail::conductive_row(i, o, s, e, K, kconst, rho, tdt, ai[l], bi[l], ci[l]);
          }
        }
      }
      const bool good =
          cm         ? detail::cyclic_batch_shared(shared, B, cnt, d.data(), f.data())
          : periodic ? detail::cyclic_batch(n, B, cnt, ra.data(), rb.data(), rc.data(), d.data(), cp.data(), z.data(),
                                            bb.data(), lo.data(), hi.data(), g.data(), f.data())
                     : detail::thomas_batch(n, B, cnt, ra.data(), rb.data(), rc.data(), d.data(), cp.data());
      ok = ok && good;
      for (index_t i = 0; i < n; ++i) {
        const index_t row = base + i * s;
        const T* di = d.data() + i * B;
        if (acc)
          for (index_t l = 0; l < cnt; ++l) acc[row + l * su] += di[l];
        else
          for (index_t l = 0; l < cnt; ++l) w_[row + l * su] = di[l];
      }
    }
  }
  if (!ok)
    ADI_THROW(NumericalError, std::string("line solve along ") + axis_name(static_cast<Axis>(a)) +
                                  ": zero or non-finite pivot (non-finite or extreme material values?)");
}

// The Strang step's Dirichlet terms (split.hpp), from the field at the
// step's start: at every node of each Dirichlet plane, r / |S| (S: the axes
// whose Dirichlet faces hold the node) and g(t^{n+1}).
template <class T>
void CpuStepper<T>::split_dirichlet_terms() {
  const Layout3& L = layout_;
  const double t0 = this->time(), tstar = t0 + p_.theta * p_.dt;
  const auto df = dirichlet_.increments(p_, t0, t0 + p_.dt);
  // g(t^{n+1}) at the time the next step starts from (time()), bit for bit.
  const auto f1 = split_table_values(p_, this->time_at(this->step_index() + 1));
  T beta[3][2];
  face_betas(p_, tstar, beta);
  const T sq_f = static_cast<T>(strang_source_share(p_) * p_.source_table.at(tstar));
  const T rho_const = static_cast<T>(1.0 / p_.capacity), qconst = static_cast<T>(p_.source);
  const T dt = static_cast<T>(p_.dt);
  for (std::size_t f = 0; f < split_.planes.size(); ++f) {
    const SplitDirichlet::Plane& pl = split_.planes[f];
#pragma omp parallel for collapse(2) schedule(static)
    for (index_t c2 = 0; c2 < pl.n2; ++c2)
      for (index_t c1 = 0; c1 < pl.n1; ++c1) {
        index_t idx[3];
        idx[pl.axis] = pl.plane;
        idx[pl.o1] = c1;
        idx[pl.o2] = c2;
        const index_t o = L.offset(idx[0], idx[1], idx[2]);
        const T rho = rho_.empty() ? rho_const : rho_[o];
        const T sq = (q_.empty() ? qconst : q_[o]) * sq_f;
        int fixed = 0;
        T flows = T(0);
        for (int b = 0; b < 3; ++b) {
          if (p_.flat(b)) {  // tangential, with no operator: its share of the source
            flows += rho * (T(0) + sq);
            continue;
          }
          const AxisEnds<T>& e = ends_[b];
          const index_t ib = idx[b], nb = e.n, s = L.stride[b];
          if (fixed_row(ib, e)) {
            ++fixed;
            continue;
          }
          const index_t om = ib > 0 ? o - s : (e.lo == LineEnd::Wrap ? o + (nb - 1) * s : o + s);
          const index_t op = ib < nb - 1 ? o + s : (e.hi == LineEnd::Wrap ? o - (nb - 1) * s : o - s);
          const T* K = conductivity(b);
          const T kc = K ? K[o] : static_cast<T>(p_.alpha[b]);
          const T km = K ? K[om] : kc, kp = K ? K[op] : kc;
          T bt = T(0);
          if (ib == 0 && e.lo == LineEnd::Mirror) bt += beta[b][0];
          if (ib == nb - 1 && e.hi == LineEnd::Mirror) bt += beta[b][1];
          flows += split_flow(row_coupling<T>(ib, e, km, kc, kp, rho), u_[om], u_[o], u_[op], rho, bt, sq);
        }
        const std::size_t q = static_cast<std::size_t>(c1 + pl.n1 * c2);
        const int own = pl.owner[q];
        split_r_[f][q] = split_dirichlet_share(own >= 0 ? pl.value[q] * df[own] : 0.0, flows, dt, fixed);
        split_g1_[f][q] = own >= 0 ? static_cast<T>(pl.value[q] * f1[own]) : u_[o];
      }
  }
}

// One factor along axis a in delta form: w = tau (A_a u + s_a(t*)) (tau =
// fraction dt), the fraction of r / |S| at the ends held by a's Dirichlet
// faces; then u += (I - theta tau A_a)^{-1} w.
template <class T>
void CpuStepper<T>::factor(int a) {
  const Layout3& L = layout_;
  const double tstar = this->time() + p_.theta * p_.dt;
  T beta[3][2];
  face_betas(p_, tstar, beta);
  const T sq_f = static_cast<T>(strang_source_share(p_) * p_.source_table.at(tstar));
  const T rho_const = static_cast<T>(1.0 / p_.capacity), qconst = static_cast<T>(p_.source);
  const T tau = static_cast<T>(frac_[a] * p_.dt), frac = static_cast<T>(frac_[a]);
  const AxisEnds<T>& e = ends_[a];
  const index_t na = e.n, s = L.stride[a];
  const T* K = conductivity(a);
  const T kconst = static_cast<T>(p_.alpha[a]);
  const T* u = u_.data();
  T* w = w_.data();
  if (p_.flat(a)) {  // no operator: the factor's share of the source alone
    if (!p_.has_source()) return;
    const index_t total = static_cast<index_t>(u_.size());
#pragma omp parallel for schedule(static)
    for (index_t o = 0; o < total; ++o)
      u_[o] += tau * ((rho_.empty() ? rho_const : rho_[o]) * ((q_.empty() ? qconst : q_[o]) * sq_f));
    return;
  }
  const SplitDirichlet::Plane* end_plane[2] = {split_.find(2 * a), split_.find(2 * a + 1)};
  std::size_t end_index[2] = {0, 0};
  for (int side = 0; side < 2; ++side)
    for (std::size_t f = 0; f < split_.planes.size(); ++f)
      if (&split_.planes[f] == end_plane[side]) end_index[side] = f;
  const index_t nx = L.n[0], ny = L.n[1], nz = L.n[2];
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < nz; ++k)
    for (index_t j = 0; j < ny; ++j)
      for (index_t i = 0; i < nx; ++i) {
        const index_t idx[3] = {i, j, k};
        const index_t o = L.offset(i, j, k), ia = idx[a];
        if (fixed_row(ia, e)) {
          const int side = ia == 0 ? 0 : 1;
          const SplitDirichlet::Plane& pl = *end_plane[side];
          const std::size_t q = static_cast<std::size_t>(idx[pl.o1] + pl.n1 * idx[pl.o2]);
          w[o] = frac * split_r_[end_index[side]][q];
          continue;
        }
        const T rho = rho_.empty() ? rho_const : rho_[o];
        const index_t om = ia > 0 ? o - s : (e.lo == LineEnd::Wrap ? o + (na - 1) * s : o + s);
        const index_t op = ia < na - 1 ? o + s : (e.hi == LineEnd::Wrap ? o - (na - 1) * s : o - s);
        const T kc = K ? K[o] : kconst;
        const T km = K ? K[om] : kc, kp = K ? K[op] : kc;
        T bt = T(0);
        if (ia == 0 && e.lo == LineEnd::Mirror) bt += beta[a][0];
        if (ia == na - 1 && e.hi == LineEnd::Mirror) bt += beta[a][1];
        const T sq = (q_.empty() ? qconst : q_[o]) * sq_f;
        w[o] = tau * split_flow(row_coupling<T>(ia, e, km, kc, kp, rho), u[om], u[o], u[op], rho, bt, sq);
      }
  solve(a, u_.data());
}

// Every Dirichlet node back to its data, g(t^{n+1}).
template <class T>
void CpuStepper<T>::split_reset() {
  const Layout3& L = layout_;
  for (std::size_t f = 0; f < split_.planes.size(); ++f) {
    const SplitDirichlet::Plane& pl = split_.planes[f];
    for (index_t c2 = 0; c2 < pl.n2; ++c2)
      for (index_t c1 = 0; c1 < pl.n1; ++c1) {
        index_t idx[3];
        idx[pl.axis] = pl.plane;
        idx[pl.o1] = c1;
        idx[pl.o2] = c2;
        u_[L.offset(idx[0], idx[1], idx[2])] = split_g1_[f][static_cast<std::size_t>(c1 + pl.n1 * c2)];
      }
  }
}

#define ADI_CPU_STAGES(T)                             \
  template void CpuStepper<T>::rhs();                 \
  template void CpuStepper<T>::solve(int, T*);        \
  template void CpuStepper<T>::split_dirichlet_terms(); \
  template void CpuStepper<T>::factor(int);           \
  template void CpuStepper<T>::split_reset();
ADI_CPU_STAGES(float)
ADI_CPU_STAGES(double)
#undef ADI_CPU_STAGES

}  // namespace adi::cpu
