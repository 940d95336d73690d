#pragma once
// Internal to the CPU backend: the stepper of the general problem
// (general_stepper.cpp).
#include <adi/detail/backends.hpp>
#include <adi/dirichlet.hpp>
#include <adi/discrete.hpp>
#include <adi/split.hpp>
#include <adi/stepper.hpp>
#include <adi/tridiag.hpp>

#include <array>
#include <memory>
#include <vector>

namespace adi::cpu {

template <class T>
class GeneralCpuStepper final : public Stepper<T> {
 public:
  explicit GeneralCpuStepper(const HeatProblem& p);
  const HeatProblem& problem() const override { return p_; }
  Backend backend() const override { return Backend::Cpu; }
  std::string device_name() const override;
  void set_field(const T* host) override;
  void get_field(T* host) override;
  FieldView<T> field_view() override { return {u_.data(), layout_, false, 0}; }
  void get_work(T* host) override;
  void set_work(const T* host) override;
  void impose_boundary_values() override;
  void step() override;
  FieldStats field_stats() override;
  void run_phase(Phase p) override;
  std::vector<double> time_phase(Phase p, int warmup, int reps) override;
  std::size_t bytes_allocated() const override;

 private:
  std::vector<T> load(const FieldSource& f, const char* what, bool signed_ok) const;
  const T* conductivity(int a) const {
    const int b = k_shared_[a] >= 0 ? k_shared_[a] : a;
    return k_[b].empty() ? nullptr : k_[b].data();
  }
  void rhs();
  void solve(int axis, T* acc);
  // The Strang step (split.hpp): the Dirichlet planes' r and g(t^{n+1}) from
  // the field at the step's start, one factor, the data back on the faces.
  void split_dirichlet_terms();
  void factor(int axis);
  void split_reset();
  std::vector<Phase> phases() const override;

  HeatProblem p_;
  Layout3 layout_;
  std::vector<T> u_, w_;
  std::array<std::vector<T>, 3> k_;   // conductivity per axis (empty: constant)
  std::array<int, 3> k_shared_{{-1, -1, -1}};  // axis whose array this axis shares (isotropic field)
  std::vector<T> rho_;  // 1 / c (empty: constant)
  std::vector<T> q_;    // source (empty: constant)
  std::array<AxisEnds<T>, 3> ends_{};
  std::array<ThomasFactor<T>, 3> factor_;             // constant coefficients, not periodic
  std::array<std::unique_ptr<LineMatrix>, 3> cyclic_;  // constant coefficients, periodic
  DirichletData dirichlet_;
  SchemeType scheme_ = SchemeType::Douglas;
  std::array<T, 3> tau_{};      // theta dt of each axis' solves (Strang: theta fraction dt)
  std::array<double, 3> frac_{};  // Strang: each axis' fraction of dt
  std::vector<SplitFactor> seq_;
  SplitDirichlet split_;
  std::vector<std::vector<T>> split_r_, split_g1_;  // per plane of split_: r / |S| and g(t^{n+1})
};

}  // namespace adi::cpu
