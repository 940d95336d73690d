#pragma once
// The nonlinear step's material on the device (Stepper::device_iterates,
// temperature_stepper.hpp): the CUDA stepper's K, 1/c and source arrays
// evaluated from two iterates where the rows read them, instead of a host
// round trip per iteration (at 512^3 fp64 that round trip was ~10 s; this
// pass reads the two iterates and the region ids and writes the arrays:
// 2 + (K arrays) + 1 + (source) words a node, a few ms).
//
// Bit for bit the host's evaluation (TemperatureState::evaluate_step,
// RadiationState::evaluate, then the stepper's conversion to T): the same
// table search and operations in the same order, compiled with -fmad=false
// like the rest of the general path. A node the host would refuse (outside
// a table, not finite, a radiating node at or below 0 K, a source that is
// not finite) sets a flag; the caller then evaluates on the host, which
// throws the host's own message.

#include "../device_buffer.hpp"

#include <adi/problem.hpp>

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <memory>

namespace adi::cuda::general {

/// Where evaluate writes: the conductivity properties (k_properties: 0
/// without a temperature-dependent material, 1 isotropic, 3 per axis, as
/// the host evaluates them) into k[w] (nullptr: evaluated and checked, not
/// stored: a flat axis'), 1/c into rho, the source into q (nullptr: none).
template <class T>
struct MaterialTargets {
  int k_properties = 0;
  T* k[3] = {nullptr, nullptr, nullptr};
  T* rho = nullptr;
  T* q = nullptr;
};

template <class T>
class NonlinearMaterial {
 public:
  /// Whether p's states can be evaluated on the device (at most 256
  /// materials: the ids are bytes).
  static bool supported(const HeatProblem& p);
  /// The tables, the region ids and the problem's own source field (with
  /// radiating faces) uploaded, two iterate slots of `points` values.
  /// Reads the fields on the host (throws as they do).
  NonlinearMaterial(const HeatProblem& p, std::size_t points);
  /// Device memory it takes (tables aside), before construction.
  static std::size_t bytes_needed(const HeatProblem& p, std::size_t points);

  T* slot(int s) const { return slot_[s].get(); }
  /// The coefficients of a step from u0 to u1 at t* into `out`; false
  /// when a node failed (the arrays then hold partial values: evaluate
  /// again, on the host, which throws). Synchronises `stream`.
  bool evaluate(const T* u0, const T* u1, double tstar, const MaterialTargets<T>& out, cudaStream_t stream);
  /// DeviceIterates::iterate_change over u; synchronises `stream`.
  std::array<double, 3> change(const T* u, const T* prev, const T* base, cudaStream_t stream);
  /// out = 2 u - prev in T (DeviceIterates::extrapolate_iterate), queued on `stream`.
  void extrapolate(const T* u, const T* prev, T* out, cudaStream_t stream);
  /// TemperatureState::conserve_enthalpy of v (DeviceIterates::
  /// conserve_enthalpy); false when a node failed (left as it was).
  /// Synchronises `stream`.
  bool conserve(const T* u0, const T* u1, T* v, const std::array<bool, 6>& fixed, cudaStream_t stream);
  std::size_t bytes() const;

 private:
  std::shared_ptr<const RadiationState> rad_;  // null: no radiating face
  std::size_t points_;
  std::array<index_t, 3> n_;
  int sm_count_ = 1;
  DeviceBuffer<double> tt_, tv_;          // every table's temperatures and values, one after another
  DeviceBuffer<int> toff_, tlen_;         // per (material, property): first entry, entries (1: a constant)
  DeviceBuffer<std::uint8_t> ids_;        // per node its material (empty: one material)
  DeviceBuffer<double> q_user_;           // the problem's own source field (radiating faces; empty: a constant)
  DeviceBuffer<T> slot_[2];
  DeviceBuffer<int> fail_;
  DeviceBuffer<unsigned long long> max_;  // change's three maxima, as the bits of non-negative doubles
};

}  // namespace adi::cuda::general
