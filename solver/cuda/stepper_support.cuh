#pragma once
// Device helpers shared by the CUDA steppers (the classic CudaStepper and the
// general path's CudaGeneralStepper): device selection and the field
// statistics kernel. Moved here unchanged from stepper_cuda.cu so that both
// steppers report NaNs and maxima the same way.

#include "cuda_check.hpp"

#include <adi/grid.hpp>

#include <string>

namespace adi::cuda::detail {

constexpr int kStatsThreads = 256;

template <class T>
__global__ void stats_kernel(const T* __restrict__ u, Layout3 L, double* block_max, int* nonfinite) {
  __shared__ double smax[kStatsThreads];
  const index_t nx = L.n[0], rows = L.n[1] * L.n[2];
  double m = 0.0;
  bool bad = false;
  for (index_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const index_t k = row / L.n[1], j = row - k * L.n[1];
    const T* r = u + j * L.stride[1] + k * L.stride[2];
    for (index_t i = threadIdx.x; i < nx; i += blockDim.x) {
      const double v = static_cast<double>(r[i * L.stride[0]]);
      bad = bad || !isfinite(v);
      m = fmax(m, fabs(v));
    }
  }
  if (bad) atomicExch(nonfinite, 1);
  smax[threadIdx.x] = m;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) smax[threadIdx.x] = fmax(smax[threadIdx.x], smax[threadIdx.x + o]);
    __syncthreads();
  }
  if (threadIdx.x == 0) block_max[blockIdx.x] = smax[0];
}

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
