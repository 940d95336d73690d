// The right-hand side of the general path at the interior nodes, fast form
// (general_rhs.hpp): fast_rhs_kernel (a z march in registers) and
// tiled_rhs_kernel (planes staged in shared memory with cp.async). The
// faces are general_rhs_faces_kernel's (general_rhs_kernels.cuh); the line
// solves are general_lanes.cu.

#include "../async_copy.cuh"
#include "../cuda_check.hpp"
#include "../kernels/line_kernels.cuh"
#include "fast_math.cuh"
#include "general_rhs_kernels.cuh"
#include "general_rhs.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace adi::cuda::general {

namespace {

// The right-hand side at the interior nodes (every non-flat axis index in
// [1, n-1)), the fast form of general_rhs_kernel (general_rhs_kernels.cuh): the
// same z march with u and K_z of planes k-1, k, k+1 in registers, plus the
// z face mean of the step before (each face's mean computed once), fused
// multiply-adds and the fast reciprocal in the means. Per node: the stencil
// of the row functions for an interior row, regrouped as
//   dt / c [ (hm_x (u_{i-1} - u) + hp_x (u_{i+1} - u)) / h_x^2 + ... + q f ].
// One axis' part of the stencil at a node of value uc, its neighbours um,
// up behind faces of means hm, hp: hm (u_- - u) + hp (u_+ - u), to be
// scaled by 1 / h^2. Shared by fast_rhs_kernel and tiled_rhs_kernel, which
// differ only in where the values come from.
template <class T>
__device__ __forceinline__ T axis_term(T hm, T hp, T um, T up, T uc) {
  return fma(hm, um - uc, hp * (up - uc));
}
// The node's right-hand side from the sum acc of its axis terms (each
// scaled by 1 / h^2): dt / c (acc + q f).
template <class T>
__device__ __forceinline__ T node_rhs(const GeneralParams<T>& P, T rho, T q, T acc) {
  return P.dt * rho * fma(q, P.qf, acc);
}
// axis_term of an in-plane axis at the node uo points to (K: its
// conductivity there, nullptr for the constant kconst; s: the axis stride).
template <class T>
__device__ __forceinline__ T in_plane_term(const T* K, index_t s, T kconst, const T* uo, T uc) {
  T hm = kconst, hp = kconst;
  if (K) {
    const T kc = __ldg(K);
    hm = face_mean(__ldg(K - s), kc);
    hp = face_mean(kc, __ldg(K + s));
  }
  return axis_term(hm, hp, __ldg(uo - s), __ldg(uo + s), uc);
}

template <class T>
__global__ void __launch_bounds__(kRhsBlockX * kRhsBlockY)
    fast_rhs_kernel(const T* __restrict__ u, T* __restrict__ w, GeneralParams<T> P, index_t kchunk) {
  index_t i, j, k0, k1;
  if (!interior_column(P, kchunk, i, j, k0, k1)) return;
  const index_t sx = P.stride[0], sy = P.stride[1], sz = P.stride[2];
  const bool fx = P.flat[0], fy = P.flat[1], fz = P.flat[2];
  const T hx = P.ends[0].inv_h2, hy = P.ends[1].inv_h2, hz = P.ends[2].inv_h2;
  const index_t o0 = i * sx + j * sy + k0 * sz;
  const T* uo = u + o0;
  T* wo = w + o0;
  const T* Kx = P.K[0] ? P.K[0] + o0 : nullptr;
  const T* Ky = P.K[1] ? P.K[1] + o0 : nullptr;
  const T* Kz = P.K[2] ? P.K[2] + o0 : nullptr;
  const T* rp = P.rho ? P.rho + o0 : nullptr;
  const T* qp = P.q ? P.q + o0 : nullptr;
  const T kx0 = P.kconst[0], ky0 = P.kconst[1], kz0 = P.kconst[2];
  // Every array but w is read-only here: loads through the read-only path
  // (__ldg), which the compiler may issue ahead of the stores of earlier
  // planes (the loop is unrolled for that).
  T um = T(0), uc = __ldg(uo), kzc = Kz ? __ldg(Kz) : kz0, hz_lo = kz0;
  if (!fz) {
    um = __ldg(uo - sz);
    if (Kz) hz_lo = face_mean(__ldg(Kz - sz), kzc);
  }
#pragma unroll 2
  for (index_t k = k0; k < k1; ++k) {
    const T up = fz ? T(0) : __ldg(uo + sz);
    const T kzp = Kz && !fz ? __ldg(Kz + sz) : kz0;
    const T hz_hi = Kz ? face_mean(kzc, kzp) : kz0;
    const T rho = rp ? __ldg(rp) : P.rho_const;
    T acc = T(0);
    if (!fx) acc = fma(hx, in_plane_term(Kx, sx, kx0, uo, uc), acc);
    if (!fy) acc = fma(hy, in_plane_term(Ky, sy, ky0, uo, uc), acc);
    if (!fz) acc = fma(hz, axis_term(hz_lo, hz_hi, um, up, uc), acc);
    const T q = qp ? __ldg(qp) : P.qconst;
    *wo = node_rhs(P, rho, q, acc);
    um = uc;
    uc = up;
    kzc = kzp;
    hz_lo = hz_hi;
    uo += sz;
    wo += sz;
    if (Kx) Kx += sz;
    if (Ky) Ky += sz;
    if (Kz) Kz += sz;
    if (rp) rp += sz;
    if (qp) qp += sz;
  }
}

// The same right-hand side with the planes staged through shared memory
// (the common case: no flat axis, K one isotropic field or constant).
//
// Why: ncu on fast_rhs_kernel (K and q fields): most of the warps' time
// stalled on long-scoreboard loads at high occupancy, DRAM far from busy,
// and more bytes read than u, K and q hold: each thread loads its in-plane
// neighbours in the iteration that uses them, and a block's y neighbour
// rows came from DRAM again. Queuing the node's values in registers D
// planes ahead (the scalar classic kernel's fix) was slower at every depth
// tried (docs/PERFORMANCE.md, "Tried and rejected"): the registers cut the
// occupancy and the neighbour loads stayed serial. Here a block's tile of
// TY x TX nodes, with a one-node halo of u and K, is copied plane by plane
// with cp.async into a ring of A + 1
// plane buffers: planes k + 2 .. k + A are in flight while plane k is
// computed from shared memory (plane k + 1 is its upper neighbour), with no
// registers held for them, and the halo rows are read once a tile (2 / TY
// more than the tile's own words, 12 % at TY = 16). Threads 32 x 8, two
// rows each. The arithmetic is fast_rhs_kernel's, operation for operation.
// A = 4, the fastest of 2, 4 and 8 measured in both precisions (at 8 the 9
// buffers leave one fp64 block an SM; docs/PERFORMANCE.md, "RHS kernels").
constexpr int kTiledRhsAhead = 4;
constexpr int kTileRhsX = 32, kTileRhsY = 16, kTileRhsRows = kTileRhsY / kRhsBlockY;
constexpr int kTileRhsHalo = (kTileRhsX + 2) * (kTileRhsY + 2);  // u or K of a plane, with the halo
constexpr int kTileRhsNode = kTileRhsX * kTileRhsY;              // 1/c or q of a plane

template <class T, int A>
constexpr std::size_t tiled_rhs_smem() {
  return sizeof(T) * (A + 1) * (2 * kTileRhsHalo + 2 * kTileRhsNode);
}

template <class T>
bool tiled_rhs_fits(const GeneralParams<T>& P) {
  const bool one_k = P.K[0] == P.K[1] && P.K[1] == P.K[2] &&
                     (P.K[0] || (P.kconst[0] == P.kconst[1] && P.kconst[1] == P.kconst[2]));
  return !P.flat[0] && !P.flat[1] && !P.flat[2] && one_k;
}

template <class T, int A>
__global__ void __launch_bounds__(kRhsBlockX * kRhsBlockY)
    tiled_rhs_kernel(const T* __restrict__ u, T* __restrict__ w, GeneralParams<T> P, index_t kchunk) {
  constexpr int kTileRhsBuffers = A + 1;
  extern __shared__ __align__(16) unsigned char rhs_smem[];
  T* su = reinterpret_cast<T*>(rhs_smem);             // [buffer][halo tile]
  T* sk = su + kTileRhsBuffers * kTileRhsHalo;        // K, the same
  T* sr = sk + kTileRhsBuffers * kTileRhsHalo;        // 1/c [buffer][tile]
  T* sq = sr + kTileRhsBuffers * kTileRhsNode;        // q
  const index_t nx = P.n[0], ny = P.n[1], nz = P.n[2];
  const index_t sx = P.stride[0], sy = P.stride[1], sz = P.stride[2];
  const index_t i0 = 1 + static_cast<index_t>(blockIdx.x) * kTileRhsX;  // the tile's first interior node
  const index_t j0 = 1 + static_cast<index_t>(blockIdx.y) * kTileRhsY;
  const index_t k0 = 1 + static_cast<index_t>(blockIdx.z) * kchunk;
  const index_t k1 = k0 + kchunk < nz - 1 ? k0 + kchunk : nz - 1;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kRhsBlockX + tx;
  const T* Kf = P.K[0];
  const T* rho = P.rho;
  const T* qf = P.q;
  // Plane p into buffer b: the halo tile of u and K (nodes outside the grid
  // zero-filled, never used), the tile of 1/c and q. One commit group a
  // plane, an empty one past the chunk's last (the waits count groups).
  auto issue = [&](index_t p, int b) {
    if (p > k1) {
      cp_async_commit();
      return;
    }
    const index_t base = p * sz;
#pragma unroll 1
    for (int e = tid; e < kTileRhsHalo; e += kRhsBlockX * kRhsBlockY) {
      const int r = e / (kTileRhsX + 2), c = e - r * (kTileRhsX + 2);
      const index_t gi = i0 - 1 + c, gj = j0 - 1 + r;
      const bool ok = gi < nx && gj < ny;
      const index_t off = base + gi * sx + gj * sy;
      cp_async(su + b * kTileRhsHalo + e, ok ? u + off : u, ok);
      if (Kf) cp_async(sk + b * kTileRhsHalo + e, ok ? Kf + off : Kf, ok);
    }
    if (rho || qf)
#pragma unroll 1
      for (int e = tid; e < kTileRhsNode; e += kRhsBlockX * kRhsBlockY) {
        const int r = e / kTileRhsX, c = e - r * kTileRhsX;
        const index_t gi = i0 + c, gj = j0 + r;
        const bool ok = gi < nx - 1 && gj < ny - 1;
        const index_t off = base + gi * sx + gj * sy;
        if (rho) cp_async(sr + b * kTileRhsNode + e, ok ? rho + off : rho, ok);
        if (qf) cp_async(sq + b * kTileRhsNode + e, ok ? qf + off : qf, ok);
      }
    cp_async_commit();
  };
  const T hx = P.ends[0].inv_h2, hy = P.ends[1].inv_h2, hz = P.ends[2].inv_h2, k0c = P.kconst[0];
  constexpr int H = kTileRhsX + 2;
  // This thread's nodes: rows ty + 8 m of the tile, column tx.
  bool live[kTileRhsRows];
  T um[kTileRhsRows], hz_lo[kTileRhsRows];
#pragma unroll
  for (int m = 0; m < kTileRhsRows; ++m) {
    const index_t i = i0 + tx, j = j0 + ty + kRhsBlockY * m;
    live[m] = i < nx - 1 && j < ny - 1;
    const index_t o = i * sx + j * sy + (k0 - 1) * sz;
    um[m] = live[m] ? __ldg(u + o) : T(0);
    hz_lo[m] = k0c;
    if (Kf && live[m]) hz_lo[m] = face_mean(__ldg(Kf + o), __ldg(Kf + o + sz));
  }
  if (k0 >= k1) return;  // uniform per block
#pragma unroll
  for (int d = 0; d < A; ++d) issue(k0 + d, d);  // planes k0 .. k0 + A - 1 (k0 + 1 <= k1 <= nz - 1)
  int b = 0;  // buffer of plane k
  for (index_t k = k0; k < k1; ++k) {
    cp_async_wait<A - 2>();  // this thread's copies of planes k and k + 1 (k + 2 .. k + A - 1 may fly)
    __syncthreads();         // everyone's; and everyone is done with plane k - 1's buffer
    const int b1 = b == kTileRhsBuffers - 1 ? 0 : b + 1;
    issue(k + A, b == 0 ? kTileRhsBuffers - 1 : b - 1);  // into plane k - 1's buffer
    const T* U = su + b * kTileRhsHalo;
    const T* U1 = su + b1 * kTileRhsHalo;
    const T* Kc = sk + b * kTileRhsHalo;
    const T* K1 = sk + b1 * kTileRhsHalo;
#pragma unroll
    for (int m = 0; m < kTileRhsRows; ++m) {
      const int r = ty + kRhsBlockY * m;
      const int h = (r + 1) * H + tx + 1;  // the node in the halo tile
      const T uc = U[h], up = U1[h];
      T hmx = k0c, hpx = k0c, hmy = k0c, hpy = k0c, hz_hi = k0c;
      if (Kf) {
        const T kc = Kc[h];
        hmx = face_mean(Kc[h - 1], kc);
        hpx = face_mean(kc, Kc[h + 1]);
        hmy = face_mean(Kc[h - H], kc);
        hpy = face_mean(kc, Kc[h + H]);
        hz_hi = face_mean(kc, K1[h]);
      }
      T acc = T(0);
      acc = fma(hx, axis_term(hmx, hpx, U[h - 1], U[h + 1], uc), acc);
      acc = fma(hy, axis_term(hmy, hpy, U[h - H], U[h + H], uc), acc);
      acc = fma(hz, axis_term(hz_lo[m], hz_hi, um[m], up, uc), acc);
      const int t = r * kTileRhsX + tx;
      const T rc = rho ? sr[b * kTileRhsNode + t] : P.rho_const;
      const T q = qf ? sq[b * kTileRhsNode + t] : P.qconst;
      if (live[m]) w[(i0 + tx) * sx + (j0 + r) * sy + k * sz] = node_rhs(P, rc, q, acc);
      um[m] = uc;
      hz_lo[m] = hz_hi;
    }
    b = b1;
  }
  cp_async_wait<0>();
}

}  // namespace

template <class T, int A>
void launch_tiled_rhs(const T* u, T* w, const GeneralParams<T>& P, const dim3& grid, index_t kchunk, cudaStream_t st) {
  constexpr std::size_t smem = tiled_rhs_smem<T, A>();  // A = 4: 45 KB fp32, 90 KB fp64 (opt-in, per device)
  if (kernels::resident_blocks(tiled_rhs_kernel<T, A>, kRhsBlockX * kRhsBlockY, smem) < 1)
    ADI_THROW(BackendUnavailable, "tiled_rhs_kernel does not fit on a multiprocessor");
  tiled_rhs_kernel<T, A><<<grid, dim3(kRhsBlockX, kRhsBlockY), smem, st>>>(u, w, P, kchunk);
  ADI_CUDA_CHECK_LAUNCH("tiled_rhs_kernel");
}

template <class T>
void launch_fast_rhs(const T* u, T* w, const GeneralParams<T>& P, int sm_count, cudaStream_t st) {
  ADI_REQUIRE(!P.ends[0].sm && !P.ends[1].sm && !P.ends[2].sm,
              "fast RHS kernel: a stretched axis' rows need their scales (general_rhs_kernel)");
  index_t kchunk = 1;
  if (tiled_rhs_fits(P)) {
    // Tiles of 32 x 16 interior nodes; z chunks so that the device holds
    // ~8 blocks an SM (fewer, longer marches read fewer halo planes).
    const dim3 grid = rhs_interior_grid(P, sm_count, kchunk, kTileRhsX, kTileRhsY, 8);
    if (grid.x == 0) return;
    launch_tiled_rhs<T, kTiledRhsAhead>(u, w, P, grid, kchunk, st);
    return;
  }
  const dim3 grid = rhs_interior_grid(P, sm_count, kchunk);
  if (grid.x == 0) return;
  fast_rhs_kernel<T><<<grid, dim3(kRhsBlockX, kRhsBlockY), 0, st>>>(u, w, P, kchunk);
  ADI_CUDA_CHECK_LAUNCH("fast_rhs_kernel");
}

template void launch_fast_rhs<float>(const float*, float*, const GeneralParams<float>&, int, cudaStream_t);
template void launch_fast_rhs<double>(const double*, double*, const GeneralParams<double>&, int, cudaStream_t);

}  // namespace adi::cuda::general
