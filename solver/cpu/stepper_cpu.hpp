#pragma once
// Internal to the CPU backend: the CPU stepper, one class for every problem.
// The plan (adi/step_plan.hpp) picks its rows once: the constant tables
// (scheme.hpp's factorised matrices and seven-point right-hand side,
// stepper_cpu.cpp), or discrete.hpp's rows for one matrix per axis or for
// fields (stages_cpu.cpp). The same sequence of stages runs either way:
// Douglas (rhs, solve x, y, z with the update) or Strang (split.hpp: the
// Dirichlet terms, one factor per axis of the sequence, the faces reset).
#include <adi/detail/entry_points.hpp>
#include <adi/dirichlet.hpp>
#include <adi/discrete.hpp>
#include <adi/split.hpp>
#include <adi/step_plan.hpp>
#include <adi/stepper.hpp>
#include <adi/tridiag.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace adi::cpu {

/// Arrays that start on a cache line (64 bytes), so that padded rows start
/// on one too (malloc's large blocks start 16 bytes past a page).
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{64})); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t{64}); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const CacheLineAllocator<U>&) const { return false; }
};

template <class T>
class CpuStepper final : public Stepper<T> {
 public:
  /// Rows padded to `row_pitch_align` elements (1: packed, the default);
  /// only the constant tables take padded rows (the field arrays are packed).
  explicit CpuStepper(const HeatProblem& p, index_t row_pitch_align = 1);
  const HeatProblem& problem() const override { return p_; }
  Backend backend() const override { return Backend::Cpu; }
  std::string device_name() const override;
  void set_field(const T* host) override;
  void get_field(T* host) override;
  FieldView<T> field_view() override { return {u_.data(), layout_, false, 0}; }
  void get_work(T* host) override;
  void set_work(const T* host) override;
  void reload_material() override;
  void impose_boundary_values() override;
  void step() override;
  FieldStats field_stats() override;
  void run_phase(Phase p) override;
  std::vector<Phase> phases() const override;
  std::size_t bytes_allocated() const override;

 private:
  using Array = std::vector<T, CacheLineAllocator<T>>;
  std::vector<T> load(const FieldSource& f, const char* what, bool signed_ok) const;
  const T* conductivity(int a) const {
    const int b = k_shared_[a] >= 0 ? k_shared_[a] : a;
    return k_[b].empty() ? nullptr : k_[b].data();
  }
  void copy_rows(T* packed, T* field, bool in) const;
  void plan_constant_tables();
  void plan_rows();
  void load_material();
  // Douglas: w = the right-hand side, then d <- (I - theta dt A_a)^{-1} d
  // along every line of each axis; with acc the solution is added into acc
  // (the fused update u += D).
  void rhs();
  void solve(int axis, T* acc);
  // Strang (split.hpp): the Dirichlet planes' r and g(t^{n+1}) from the
  // field at the step's start, one factor, the data back on the faces.
  void split_dirichlet_terms();
  void factor(int axis);
  void split_reset();

  HeatProblem p_;
  StepPlan plan_;
  Layout3 layout_;
  Array u_, w_;  // the field and the increment D (also the RHS); padding stays 0
  std::array<std::vector<T>, 3> k_;            // conductivity per axis (empty: constant)
  std::array<int, 3> k_shared_{{-1, -1, -1}};  // axis whose array this axis shares (isotropic field)
  std::vector<T> rho_;  // 1 / c (empty: constant)
  std::vector<T> q_;    // source (empty: constant)
  std::array<AxisEnds<T>, 3> ends_{};
  std::array<AxisScales<T>, 3> scales_{};  // ends_' sm, sp on a stretched axis
  std::array<ThomasFactor<T>, 3> factor_;             // constant tables, and axis tables off a periodic axis
  std::array<std::unique_ptr<LineMatrix>, 3> cyclic_;  // axis tables on a periodic axis
  DirichletData dirichlet_;
  std::array<T, 3> tau_{};        // theta dt of each axis' solves (Strang: theta fraction dt)
  std::array<double, 3> frac_{};  // Strang: each axis' fraction of dt
  std::vector<SplitFactor> seq_;
  SplitDirichlet split_;
  std::vector<std::vector<T>> split_r_, split_g1_;  // per plane of split_: r / |S| and g(t^{n+1})
};

}  // namespace adi::cpu
