#pragma once
// Max |u|, finiteness and the energy sum w c u^2 of a field on the device
// (FieldStats), shared by the whole-grid steppers and the MPI ranks' boxes:
// a grid-stride pass over the rows, one partial maximum and sum per block,
// the last reduction on the host (in block order: the same sum every time).

#include "device_buffer.hpp"

#include <adi/grid.hpp>
#include <adi/stepper.hpp>

#include <cuda_runtime.h>

namespace adi::cuda {

class FieldStatsReducer {
 public:
  static constexpr int kBlocks = 264;
  static constexpr int kThreads = 256;

  /// The per-block scratch, on the current device (call after choosing it).
  void allocate();

  /// Stats of the points of `layout` (padding excluded) in u, the energy
  /// with the weights of `w` and 1 / c from `rho` (the same offsets as u;
  /// nullptr: w.capacity); synchronises `stream`.
  template <class T>
  FieldStats reduce(const T* u, const Layout3& layout, const EnergyWeights& w, const T* rho, cudaStream_t stream);

 private:
  DeviceBuffer<double> block_max_, block_energy_;
  DeviceBuffer<int> nonfinite_;
};

}  // namespace adi::cuda
