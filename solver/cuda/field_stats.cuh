#pragma once
// Max |u| and finiteness of a field on the device (FieldStats), shared by the
// whole-grid stepper (stepper_cuda.cu) and one MPI rank's box
// (local_cuda.cu): a grid-stride pass over the rows, one partial maximum per
// block, the last reduction on the host.

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

  /// Stats of the points of `layout` (padding excluded) in u; synchronises
  /// `stream`.
  template <class T>
  FieldStats reduce(const T* u, const Layout3& layout, cudaStream_t stream);

 private:
  DeviceBuffer<double> block_max_;
  DeviceBuffer<int> nonfinite_;
};

}  // namespace adi::cuda
