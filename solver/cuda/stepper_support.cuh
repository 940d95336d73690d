#pragma once
// Device selection shared by the CUDA steppers (the classic CudaStepper and
// the general path's CudaGeneralStepper); their field statistics share
// field_stats.cuh.

#include "cuda_check.hpp"

#include <string>

namespace adi::cuda::detail {

// SolverOptions::cuda_device (ADI_CUDA_DEVICE; -1: device 0).
inline int select_device(int requested) {
  int n = 0;
  ADI_CUDA_CHECK(cudaGetDeviceCount(&n));
  const int dev = requested < 0 ? 0 : requested;
  if (dev >= n)
    ADI_THROW(BackendUnavailable, "ADI_CUDA_DEVICE=" + std::to_string(dev) + " but " + std::to_string(n) +
                                      " CUDA device(s) are visible");
  ADI_CUDA_CHECK(cudaSetDevice(dev));
  return dev;
}

}  // namespace adi::cuda::detail
