// Generic kernel: one thread per line, Thomas through global memory (two
// passes). Only for lines too long to keep in registers (and overrides that
// do not fit the other families).

#include "line_kernels.cuh"

#include <algorithm>

namespace adi::cuda::kernels {

namespace {

template <class T, bool Acc>
__global__ void generic_kernel(T* __restrict__ d, T* __restrict__ acc, const T* __restrict__ a,
                               const T* __restrict__ cp, const T* __restrict__ inv, int n, LinesGeom g) {
  const index_t lines = g.nu * g.nv;
  for (index_t line = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < lines;
       line += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t v = line / g.nu, u = line - v * g.nu;
    T* x = d + u * g.su + v * g.sv;
    T prev = x[0] * __ldg(inv);
    x[0] = prev;
    for (int i = 1; i < n; ++i) {
      prev = (x[i * g.s_line] - __ldg(a + i) * prev) * __ldg(inv + i);
      x[i * g.s_line] = prev;
    }
    T next = prev;
    if (Acc) acc[u * g.su + v * g.sv + (n - 1) * g.s_line] += next;
    for (int i = n - 2; i >= 0; --i) {
      next = x[i * g.s_line] - __ldg(cp + i) * next;
      if (Acc)
        acc[u * g.su + v * g.sv + i * g.s_line] += next;
      else
        x[i * g.s_line] = next;
    }
  }
}

}  // namespace

template <class T>
void launch_generic(T* d, T* acc, const T* a, const T* cp, const T* inv, int n, const LinesGeom& g, cudaStream_t st) {
  const index_t lines = g.nu * g.nv;
  const int threads = 128;
  const unsigned blocks = static_cast<unsigned>(std::min<index_t>((lines + threads - 1) / threads, 1 << 20));
  if (acc)
    generic_kernel<T, true><<<blocks, threads, 0, st>>>(d, acc, a, cp, inv, n, g);
  else
    generic_kernel<T, false><<<blocks, threads, 0, st>>>(d, acc, a, cp, inv, n, g);
  ADI_CUDA_CHECK_LAUNCH("generic_kernel");
}

template void launch_generic<float>(float*, float*, const float*, const float*, const float*, int, const LinesGeom&,
                                    cudaStream_t);
template void launch_generic<double>(double*, double*, const double*, const double*, const double*, int,
                                     const LinesGeom&, cudaStream_t);

}  // namespace adi::cuda::kernels
