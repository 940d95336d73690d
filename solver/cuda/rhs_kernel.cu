// The 7-point Douglas right-hand side. A block covers a 32 x 8 tile of (x, y)
// and marches along z, keeping u(k-1), u(k), u(k+1) in registers, so each
// plane of u is read from DRAM once; the x and y neighbours are the tile's
// own loads (L1) or the neighbouring tiles' rows (L2). The pointwise
// arithmetic is adi::douglas_rhs, the same function the CPU backend runs.

#include "cuda_check.hpp"
#include "rhs_kernel.cuh"

#include <algorithm>

namespace adi::cuda {

namespace {

constexpr int kTileX = 32, kTileY = 8, kChunkZ = 32;

template <class T>
__global__ void __launch_bounds__(kTileX* kTileY)
    rhs_kernel(const T* __restrict__ u, T* __restrict__ w, Layout3 L, RhsCoefficients<T> kc) {
  const index_t nx = L.n[0], ny = L.n[1], nz = L.n[2];
  const index_t i = static_cast<index_t>(blockIdx.x) * kTileX + threadIdx.x;
  const index_t j = static_cast<index_t>(blockIdx.y) * kTileY + threadIdx.y;
  if (i >= nx || j >= ny) return;
  const index_t k0 = static_cast<index_t>(blockIdx.z) * kChunkZ;
  const index_t k1 = k0 + kChunkZ < nz ? k0 + kChunkZ : nz;
  const index_t sx = L.stride[0], sy = L.stride[1], sz = L.stride[2];
  const bool fixed_xy = on_fixed_face(kc, 0, i, nx) || on_fixed_face(kc, 1, j, ny);
  const index_t oxm = (lower_neighbour(i) - i) * sx, oxp = (upper_neighbour(i, nx) - i) * sx;
  const index_t oym = (lower_neighbour(j) - j) * sy, oyp = (upper_neighbour(j, ny) - j) * sy;
  const index_t col = i * sx + j * sy;
  T zm = u[col + lower_neighbour(k0) * sz];
  T uc = u[col + k0 * sz];
  for (index_t k = k0; k < k1; ++k) {
    const index_t o = col + k * sz;
    const T zp = u[col + upper_neighbour(k, nz) * sz];
    T r = T(0);
    if (!fixed_xy && !on_fixed_face(kc, 2, k, nz))
      r = douglas_rhs(uc, u[o + oxm], u[o + oxp], u[o + oym], u[o + oyp], zm, zp, kc);
    w[o] = r;
    zm = uc;
    uc = zp;
  }
}

}  // namespace

template <class T>
void launch_rhs(const T* u, T* w, const Layout3& L, const RhsCoefficients<T>& kc, cudaStream_t st) {
  const dim3 block(kTileX, kTileY);
  const dim3 grid(static_cast<unsigned>((L.n[0] + kTileX - 1) / kTileX),
                  static_cast<unsigned>((L.n[1] + kTileY - 1) / kTileY),
                  static_cast<unsigned>((L.n[2] + kChunkZ - 1) / kChunkZ));
  ADI_REQUIRE(grid.y <= 65535 && grid.z <= 65535, "grid too large for the RHS kernel");
  rhs_kernel<T><<<grid, block, 0, st>>>(u, w, L, kc);
  ADI_CUDA_CHECK_LAUNCH("rhs_kernel");
}

template void launch_rhs<float>(const float*, float*, const Layout3&, const RhsCoefficients<float>&, cudaStream_t);
template void launch_rhs<double>(const double*, double*, const Layout3&, const RhsCoefficients<double>&,
                                 cudaStream_t);

}  // namespace adi::cuda
