#pragma once
// Internal to the solver module: the CPU stepper.
#include <adi/detail/backends.hpp>
#include <adi/stepper.hpp>
#include <adi/tridiag.hpp>

#include <vector>

namespace adi::cpu {

template <class T>
class CpuStepper final : public Stepper<T> {
 public:
  explicit CpuStepper(const HeatProblem& p);
  const HeatProblem& problem() const override { return p_; }
  Backend backend() const override { return Backend::Cpu; }
  std::string device_name() const override;
  void set_field(const T* host) override;
  void get_field(T* host) override;
  FieldView<T> field_view() override { return {u_.data(), layout_, false, 0}; }
  void get_work(T* host) override;
  void step() override;
  FieldStats field_stats() override;
  void run_phase(Phase p) override;
  std::vector<double> time_phase(Phase p, int warmup, int reps) override;
  std::size_t bytes_allocated() const override { return sizeof(T) * (u_.size() + w_.size()); }

 private:
  HeatProblem p_;
  Layout3 layout_;
  ThomasFactor<T> factor_[3];
  std::vector<T> u_, w_;  // the field and the increment D (also the RHS)
};

}  // namespace adi::cpu
