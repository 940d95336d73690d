// The CPU (OpenMP) backend of the Douglas step: the oracle for CUDA.

#include "stepper_cpu.hpp"

#include "general_stepper.hpp"

#include "tridiag_cpu.hpp"

#include <adi/scheme.hpp>

#include <omp.h>

#include <algorithm>
#include <chrono>
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
CpuStepper<T>::CpuStepper(const HeatProblem& p, index_t row_pitch_align) : p_(p), layout_(p.layout()) {
  p_.validate();
  ADI_REQUIRE(row_pitch_align >= 1, "CPU stepper: row alignment must be >= 1 element");
  if (row_pitch_align > 1) {
    const index_t a = row_pitch_align;
    layout_ = Layout3::padded(p_.n[0], p_.n[1], p_.n[2], (p_.n[0] + a - 1) / a * a, p_.n[1]);
  }
  for (int a = 0; a < 3; ++a) factor_[a] = ThomasFactor<T>::factor(douglas_line_matrix(p_, static_cast<Axis>(a)));
  // Whole planes, the last row's padding included.
  const auto n = static_cast<std::size_t>(layout_.n[2] * layout_.stride[2]);
  u_.assign(n, T(0));
  w_.assign(n, T(0));
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
void CpuStepper<T>::run_phase(Phase ph) {
  switch (ph) {
    case Phase::Rhs: douglas_rhs(u_.data(), w_.data(), layout_, p_); break;
    case Phase::SolveX: solve_constant(Axis::X, factor_[0], w_.data(), layout_); break;
    case Phase::SolveY: solve_constant(Axis::Y, factor_[1], w_.data(), layout_); break;
    case Phase::SolveZ: solve_constant_fused(Axis::Z, factor_[2], w_.data(), u_.data(), layout_); break;
    case Phase::Step: step(); break;
    case Phase::RhsSolveX:
      run_phase(Phase::Rhs);
      run_phase(Phase::SolveX);
      break;
  }
}

template <class T>
void CpuStepper<T>::step() {
  run_phase(Phase::Rhs);
  run_phase(Phase::SolveX);
  run_phase(Phase::SolveY);
  run_phase(Phase::SolveZ);
  ++this->step_index_;
}

template <class T>
FieldStats CpuStepper<T>::field_stats() {
  double m = 0.0, energy = 0.0;
  bool finite = true;
  const Layout3& L = layout_;
  const T* u = u_.data();
  const EnergyWeights ew = energy_weights(p_);
#pragma omp parallel for collapse(2) reduction(max : m) reduction(&& : finite) reduction(+ : energy) schedule(static)
  for (index_t k = 0; k < L.n[2]; ++k)
    for (index_t j = 0; j < L.n[1]; ++j)
      for (index_t i = 0; i < L.n[0]; ++i) {
        const double v = static_cast<double>(u[L.offset(i, j, k)]);
        finite = finite && std::isfinite(v);
        m = std::max(m, std::abs(v));
        energy += ew.volume(i, j, k) * ew.capacity * v * v;
      }
  return FieldStats{m, finite, energy};
}

template <class T>
std::vector<double> CpuStepper<T>::time_phase(Phase p, int warmup, int reps) {
  for (int r = 0; r < warmup; ++r) run_phase(p);
  std::vector<double> ms;
  ms.reserve(reps);
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run_phase(p);
    const auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return ms;
}

template <class T>
std::unique_ptr<Stepper<T>> make_cpu_stepper(const HeatProblem& p, const SolverOptions& o) {
  // Problems of the original kind keep their bit-for-bit path. Their rows
  // are packed unless SolverOptions::row_align asks for aligned rows.
  if (p.classic())
    return std::make_unique<CpuStepper<T>>(p, o.row_align > 0 ? o.device_row_pitch(1, sizeof(T)) : 1);
  return std::make_unique<GeneralCpuStepper<T>>(p);
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
