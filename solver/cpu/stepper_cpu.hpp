#pragma once
// Internal to the solver module: the CPU stepper.
#include <adi/detail/backends.hpp>
#include <adi/stepper.hpp>
#include <adi/tridiag.hpp>

#include <cstddef>
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
  /// Rows padded to `row_pitch_align` elements (1: packed, the default).
  explicit CpuStepper(const HeatProblem& p, index_t row_pitch_align = 1);
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
  std::vector<T, CacheLineAllocator<T>> u_, w_;  // the field and the increment D (also the RHS); padding stays 0
  void copy_rows(T* packed, T* field, bool in) const;
};

}  // namespace adi::cpu
