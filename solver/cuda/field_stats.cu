#include "field_stats.cuh"

#include "cuda_check.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace adi::cuda {

namespace {

constexpr int kStatsThreads = FieldStatsReducer::kThreads;

template <class T>
__global__ void stats_kernel(const T* __restrict__ u, Layout3 L, EnergyWeights W, const T* __restrict__ rho,
                             double* block_max, double* block_energy, int* nonfinite) {
  __shared__ double smax[kStatsThreads], ssum[kStatsThreads];
  const index_t nx = L.n[0], rows = L.n[1] * L.n[2];
  double m = 0.0, e = 0.0;
  bool bad = false;
  for (index_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const index_t k = row / L.n[1], j = row - k * L.n[1];
    const index_t o = j * L.stride[1] + k * L.stride[2];
    const T* r = u + o;
    for (index_t i = threadIdx.x; i < nx; i += blockDim.x) {
      const double v = static_cast<double>(r[i * L.stride[0]]);
      bad = bad || !isfinite(v);
      m = fmax(m, fabs(v));
      const double c = rho ? 1.0 / static_cast<double>(rho[o + i * L.stride[0]]) : W.capacity;
      e += W.volume(i, j, k) * c * v * v;
    }
  }
  if (bad) atomicExch(nonfinite, 1);
  smax[threadIdx.x] = m;
  ssum[threadIdx.x] = e;
  __syncthreads();
  for (int o = blockDim.x / 2; o > 0; o >>= 1) {
    if (threadIdx.x < o) {
      smax[threadIdx.x] = fmax(smax[threadIdx.x], smax[threadIdx.x + o]);
      ssum[threadIdx.x] += ssum[threadIdx.x + o];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    block_max[blockIdx.x] = smax[0];
    block_energy[blockIdx.x] = ssum[0];
  }
}

}  // namespace

void FieldStatsReducer::allocate() {
  block_max_.resize(kBlocks);
  block_energy_.resize(kBlocks);
  nonfinite_.resize(1);
}

template <class T>
FieldStats FieldStatsReducer::reduce(const T* u, const Layout3& layout, const EnergyWeights& w, const T* rho,
                                     cudaStream_t stream) {
  ADI_CUDA_CHECK(cudaMemsetAsync(nonfinite_.get(), 0, sizeof(int), stream));
  stats_kernel<T><<<kBlocks, kThreads, 0, stream>>>(u, layout, w, rho, block_max_.get(), block_energy_.get(),
                                                    nonfinite_.get());
  ADI_CUDA_CHECK_LAUNCH("stats_kernel");
  std::vector<double> m(kBlocks), e(kBlocks);
  int bad = 0;
  ADI_CUDA_CHECK(cudaMemcpyAsync(m.data(), block_max_.get(), sizeof(double) * kBlocks, cudaMemcpyDeviceToHost,
                                 stream));
  ADI_CUDA_CHECK(cudaMemcpyAsync(e.data(), block_energy_.get(), sizeof(double) * kBlocks, cudaMemcpyDeviceToHost,
                                 stream));
  ADI_CUDA_CHECK(cudaMemcpyAsync(&bad, nonfinite_.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  ADI_CUDA_CHECK(cudaStreamSynchronize(stream));
  FieldStats st;
  st.finite = bad == 0;
  for (double v : m) st.max_abs = std::max(st.max_abs, v);
  for (double v : e) st.energy += v;
  return st;
}

template FieldStats FieldStatsReducer::reduce<float>(const float*, const Layout3&, const EnergyWeights&, const float*,
                                                     cudaStream_t);
template FieldStats FieldStatsReducer::reduce<double>(const double*, const Layout3&, const EnergyWeights&,
                                                      const double*, cudaStream_t);

}  // namespace adi::cuda
