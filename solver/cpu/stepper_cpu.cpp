// The CPU (OpenMP) stepper, the oracle for CUDA and MPI: one class for
// every problem. This file: the stepper's skeleton (the plan's set-up, the
// stages in order, field I/O and statistics, the phase clock) and the
// constant tables' seven-point right-hand side (scheme.hpp);
// stages_cpu.cpp: the stages on discrete.hpp's rows.

#include "stepper_cpu.hpp"

#include "tridiag_cpu.hpp"

#include <adi/scheme.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace adi::cpu {

template <class T>
void douglas_rhs(const T* u, T* w, const Layout3& L, const RhsCoefficients<T>& kc) {
  L.validate("douglas_rhs field");
  const index_t nx = L.n[0], ny = L.n[1], nz = L.n[2], sx = L.stride[0];
#pragma omp parallel for collapse(2) schedule(static)
  for (index_t k = 0; k < nz; ++k)
    for (index_t j = 0; j < ny; ++j) {
      T* wr = w + L.offset(0, j, k);
      if (on_fixed_face(kc, 1, j, ny) || on_fixed_face(kc, 2, k, nz)) {
        for (index_t i = 0; i < nx; ++i) wr[i * sx] = T(0);
        continue;
      }
      const T* uc = u + L.offset(0, j, k);
      const T* ym = u + L.offset(0, lower_neighbour(kc, 1, j, ny), k);
      const T* yp = u + L.offset(0, upper_neighbour(kc, 1, j, ny), k);
      const T* zm = u + L.offset(0, j, lower_neighbour(kc, 2, k, nz));
      const T* zp = u + L.offset(0, j, upper_neighbour(kc, 2, k, nz));
      auto at = [&](index_t i) {
        const index_t o = i * sx, om = lower_neighbour(kc, 0, i, nx) * sx, op = upper_neighbour(kc, 0, i, nx) * sx;
        return douglas_rhs(uc[o], uc[om], uc[op], ym[o], yp[o], zm[o], zp[o], kc);
      };
      wr[0] = on_fixed_face(kc, 0, 0, nx) ? T(0) : at(0);
#pragma omp simd
      for (index_t i = 1; i < nx - 1; ++i) {
        const index_t o = i * sx;
        wr[o] = douglas_rhs(uc[o], uc[o - sx], uc[o + sx], ym[o], yp[o], zm[o], zp[o], kc);
      }
      if (nx > 1) wr[(nx - 1) * sx] = on_fixed_face(kc, 0, nx - 1, nx) ? T(0) : at(nx - 1);
    }
}

template <class T>
void douglas_rhs(const T* u, T* w, const Layout3& L, const HeatProblem& p) {
  L.validate("douglas_rhs field");
  for (int a = 0; a < 3; ++a)
    ADI_REQUIRE(L.n[a] == p.n[a], "douglas_rhs: field extents differ from the problem's grid");
  douglas_rhs(u, w, L, rhs_coefficients<T>(p));
}

template <class T>
std::vector<T> CpuStepper<T>::load(const FieldSource& f, const char* what, bool signed_ok) const {
  std::vector<double> v(static_cast<std::size_t>(p_.points()));
  f.read({{0, 0, 0}}, p_.n, v.data());
  check_field_values(v, what, f.name(), p_.n, signed_ok);
  return std::vector<T>(v.begin(), v.end());
}

template <class T>
CpuStepper<T>::CpuStepper(const HeatProblem& p, index_t row_pitch_align)
    : p_(p), plan_(plan_step(p)), layout_(p.layout()) {
  p_.validate();
  ADI_REQUIRE(row_pitch_align >= 1, "CPU stepper: row alignment must be >= 1 element");
  // The field arrays (K, 1/c, q) are packed: padded rows are the constant
  // tables' alone.
  if (row_pitch_align > 1 && plan_.constant_tables()) {
    const index_t a = row_pitch_align;
    layout_ = Layout3::padded(p_.n[0], p_.n[1], p_.n[2], (p_.n[0] + a - 1) / a * a, p_.n[1]);
  }
  // Whole planes, the last row's padding included.
  const auto n = static_cast<std::size_t>(layout_.n[2] * layout_.stride[2]);
  u_.assign(n, T(0));
  w_.assign(n, T(0));
  if (plan_.constant_tables())
    plan_constant_tables();
  else
    plan_rows();
}

// One factorised matrix per axis from scheme.hpp: the constant problem's
// reference bits (its Dirichlet nodes keep their initial values, so there
// is no face data to hold).
template <class T>
void CpuStepper<T>::plan_constant_tables() {
  for (int a = 0; a < 3; ++a) factor_[a] = ThomasFactor<T>::factor(douglas_line_matrix(p_, static_cast<Axis>(a)));
}

// discrete.hpp's rows (axis tables, field rows): the material's arrays, the
// face data, the scheme's sequence, and for the axis tables one matrix per
// axis.
template <class T>
void CpuStepper<T>::plan_rows() {
  load_material();
  if (p_.material.source) q_ = load(*p_.material.source, "heat source", true);
  for (int a = 0; a < 3; ++a) ends_[a] = domain_ends<T>(p_, a, scales_[a]);
  dirichlet_ = build_dirichlet(p_, {{0, 0, 0}}, p_.n);
  for (int a = 0; a < 3; ++a) tau_[a] = static_cast<T>(p_.theta * p_.dt);
  if (plan_.scheme == SchemeType::Strang) {
    seq_ = strang_sequence(p_);
    frac_ = strang_fractions(p_);
    for (int a = 0; a < 3; ++a) tau_[a] = static_cast<T>(p_.theta * frac_[a] * p_.dt);
    split_ = split_dirichlet(dirichlet_);
    for (const auto& pl : split_.planes) {
      split_r_.emplace_back(static_cast<std::size_t>(pl.n1 * pl.n2), T(0));
      split_g1_.emplace_back(static_cast<std::size_t>(pl.n1 * pl.n2), T(0));
    }
  }
  if (plan_.rows != RowProvider::AxisTables) return;
  for (int a = 0; a < 3; ++a) {
    if (p_.flat(a)) continue;
    const index_t na = p_.n[a];
    LineMatrix m(na);
    const T k = static_cast<T>(p_.alpha[a]), rho = static_cast<T>(1.0 / p_.capacity);
    const T tdt = tau_[a];
    for (index_t i = 0; i < na; ++i) {
      if (fixed_row(i, ends_[a])) continue;  // identity
      T ra, rb, rc;
      implicit_row(row_coupling<T>(i, ends_[a], k, k, k, rho), tdt, ra, rb, rc);
      m.a[i] = ra;
      m.b[i] = rb;
      m.c[i] = rc;
    }
    if (p_.periodic(a)) {
      cyclic_[a] = std::make_unique<LineMatrix>(m);
    } else {
      m.a[0] = 0.0;
      m.c[na - 1] = 0.0;
      factor_[a] = ThomasFactor<T>::factor(m);
    }
  }
}

// K per axis (an isotropic field is one array for all axes) and 1/c.
template <class T>
void CpuStepper<T>::load_material() {
  for (int a = 0; a < 3; ++a) {
    const auto& src = p_.material.conductivity[a];
    if (!src || p_.flat(a)) continue;
    k_shared_[a] = -1;
    for (int b = 0; b < a; ++b)
      if (p_.material.conductivity[b] == src && !k_[b].empty()) k_shared_[a] = b;
    if (k_shared_[a] < 0) k_[a] = load(*src, "conductivity", false);
  }
  if (p_.material.capacity) {
    rho_ = load(*p_.material.capacity, "heat capacity", false);
    for (T& r : rho_) r = T(1) / r;
  }
}

template <class T>
void CpuStepper<T>::reload_material() {
  ADI_REQUIRE(!plan_.constant_tables() && (plan_.rows != RowProvider::AxisTables || p_.material.source),
              "CPU stepper: a problem of constant coefficients has no material fields to re-read");
  load_material();
  // A source field that changes too (radiating faces: adi/radiation.hpp).
  if (p_.material.source) q_ = load(*p_.material.source, "heat source", true);
  // Moving Dirichlet faces: their W arrays are made of the in-plane operators.
  if (dirichlet_.moving) refresh_dirichlet_terms(dirichlet_, p_, {{0, 0, 0}});
}

template <class T>
std::string CpuStepper<T>::device_name() const {
  std::ostringstream s;
  s << "CPU, " << omp_get_max_threads() << " OpenMP thread" << (omp_get_max_threads() == 1 ? "" : "s");
  return s.str();
}

// Host arrays are packed (x fastest); the stepper's rows may be padded.
// in: packed -> field, else field -> packed (as the CPU ranks' copy_box).
template <class T>
void CpuStepper<T>::copy_rows(T* packed, T* field, bool in) const {
  const index_t nx = layout_.n[0], rows = layout_.n[1] * layout_.n[2], pitch = layout_.stride[1];
  const std::size_t row_bytes = sizeof(T) * static_cast<std::size_t>(nx);
  if (pitch == nx) {
    if (in) std::memcpy(field, packed, row_bytes * static_cast<std::size_t>(rows));
    else std::memcpy(packed, field, row_bytes * static_cast<std::size_t>(rows));
    return;
  }
#pragma omp parallel for schedule(static)
  for (index_t r = 0; r < rows; ++r) {
    if (in) std::memcpy(field + r * pitch, packed + r * nx, row_bytes);
    else std::memcpy(packed + r * nx, field + r * pitch, row_bytes);
  }
}

template <class T>
void CpuStepper<T>::set_field(const T* host) {
  copy_rows(const_cast<T*>(host), u_.data(), true);  // in: host is only read
}

template <class T>
void CpuStepper<T>::get_field(T* host) {
  copy_rows(host, u_.data(), false);
}

template <class T>
void CpuStepper<T>::get_work(T* host) {
  copy_rows(host, w_.data(), false);
}

template <class T>
void CpuStepper<T>::set_work(const T* host) {
  copy_rows(const_cast<T*>(host), w_.data(), true);
}

template <class T>
void CpuStepper<T>::impose_boundary_values() {
  if (plan_.constant_tables()) return;  // the initial field's values are the faces'
  impose_dirichlet(dirichlet_, this->time(), u_.data(), {{layout_.stride[0], layout_.stride[1], layout_.stride[2]}});
}

template <class T>
std::vector<Phase> CpuStepper<T>::phases() const {
  return scheme_phases(p_, plan_);
}

template <class T>
void CpuStepper<T>::run_phase(Phase ph) {
  if (plan_.scheme == SchemeType::Strang) {
    switch (ph) {
      case Phase::Rhs: split_dirichlet_terms(); break;
      case Phase::SolveX: factor(0); break;
      case Phase::SolveY: factor(1); break;
      case Phase::SolveZ: factor(2); break;
      case Phase::Step: step(); break;
      case Phase::RhsSolveX:
        split_dirichlet_terms();
        factor(0);
        break;
    }
    return;
  }
  switch (ph) {
    case Phase::Rhs: rhs(); break;
    case Phase::SolveX: solve(0, nullptr); break;
    case Phase::SolveY: solve(1, nullptr); break;
    case Phase::SolveZ: solve(2, u_.data()); break;
    case Phase::Step: step(); break;
    case Phase::RhsSolveX:
      rhs();
      solve(0, nullptr);
      break;
  }
}

template <class T>
void CpuStepper<T>::step() {
  if (plan_.scheme == SchemeType::Strang) {
    split_dirichlet_terms();
    for (const SplitFactor& f : seq_) factor(f.axis);
    split_reset();
  } else {
    rhs();
    solve(0, nullptr);
    solve(1, nullptr);
    solve(2, u_.data());
  }
  ++this->step_index_;
}

template <class T>
FieldStats CpuStepper<T>::field_stats() {
  double m = 0.0, energy = 0.0;
  bool finite = true;
  const Layout3& L = layout_;
  const T* u = u_.data();
  const T* rho = rho_.empty() ? nullptr : rho_.data();  // packed: never with padded rows
  const EnergyWeights ew = energy_weights(p_);
#pragma omp parallel for collapse(2) reduction(max : m) reduction(&& : finite) reduction(+ : energy) schedule(static)
  for (index_t k = 0; k < L.n[2]; ++k)
    for (index_t j = 0; j < L.n[1]; ++j)
      for (index_t i = 0; i < L.n[0]; ++i) {
        const index_t o = L.offset(i, j, k);
        const double v = static_cast<double>(u[o]);
        finite = finite && std::isfinite(v);
        m = std::max(m, std::abs(v));
        const double c = rho ? 1.0 / static_cast<double>(rho[o]) : ew.capacity;
        energy += ew.volume(i, j, k) * c * v * v;
      }
  return FieldStats{m, finite, energy};
}

template <class T>
std::size_t CpuStepper<T>::bytes_allocated() const {
  std::size_t b = u_.size() + w_.size() + rho_.size() + q_.size();
  for (const auto& k : k_) b += k.size();
  return sizeof(T) * b;
}

template <class T>
std::unique_ptr<Stepper<T>> make_cpu_stepper(const HeatProblem& p, const SolverOptions& o) {
  // Rows are packed unless SolverOptions::row_align asks for aligned rows
  // (taken by the constant tables only).
  return std::make_unique<CpuStepper<T>>(p, o.row_align > 0 ? o.device_row_pitch(1, sizeof(T)) : 1);
}

template class CpuStepper<float>;
template class CpuStepper<double>;
template std::unique_ptr<Stepper<float>> make_cpu_stepper<float>(const HeatProblem&, const SolverOptions&);
template std::unique_ptr<Stepper<double>> make_cpu_stepper<double>(const HeatProblem&, const SolverOptions&);
template void douglas_rhs<float>(const float*, float*, const Layout3&, const HeatProblem&);
template void douglas_rhs<double>(const double*, double*, const Layout3&, const HeatProblem&);
template void douglas_rhs<float>(const float*, float*, const Layout3&, const RhsCoefficients<float>&);
template void douglas_rhs<double>(const double*, double*, const Layout3&, const RhsCoefficients<double>&);

}  // namespace adi::cpu
