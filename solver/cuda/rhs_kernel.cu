// The 7-point Douglas right-hand side. The pointwise arithmetic is
// adi::douglas_rhs, the same function the CPU backend runs.
//
// Vector kernel (the stepper's aligned layout): a warp covers one row segment
// of 32 x V points (V = 16 bytes / sizeof(T): float4 or double2 accesses) and
// marches along z through a chunk of planes. Each thread keeps u(k-1), u(k),
// u(k+1) of its V points in registers and has u(k+2) and the y neighbours of
// plane k+1 already in flight while it computes plane k: with 16-byte loads
// and two planes of prefetch, an SM keeps ~3 x 16 B x 2048 threads = 96 KB of
// loads outstanding, well above the ~32 KB per SM that Little's law asks for
// at 4.2 TB/s. The x neighbours come from the neighbouring lanes by shuffle.
//
// Scalar kernel: any layout (the library API), one point per thread.
//
// Flux / convective x faces (RhsCoefficients::xfaces, the general path's
// classic mode): a separate build adds their terms while the row ends are in
// registers; the y and z faces' nodes are rows and planes, which
// general_mirror_faces_kernel reads coalesced.
//
// Ghost faces (a rank's sub-box of a distributed grid, RhsCoefficients::
// lo_ghost / hi_ghost): across such a face the neighbour is the ghost plane
// at index -1 or n, which the caller's allocation holds; the vector kernel
// takes them along y and z (its register queue runs from plane -1 to plane
// nz), the scalar kernel along every axis. Without ghost faces both read
// exactly the nodes they always did.

#include "cuda_check.hpp"
#include "rhs_kernel.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#ifndef RHS_DEFAULT_F64_VEC
#define RHS_DEFAULT_F64_VEC 0
#endif

namespace adi::cuda {

namespace {

// Three blocks an SM (at most 85 registers a thread): left to itself the
// compiler gave these kernels very different register counts depending on
// unrelated edits, and at two blocks an SM (16 warps) both RHS kernels ran
// measurably slower (docs/PERFORMANCE.md, "RHS kernels"). Not for the deeper
// queues of the experiment knobs (8 planes ahead, 32-byte vectors), which
// would spill at 85.
constexpr int kRhsBlocks = 3;

// A block is kTileX x kTileY threads marching through `chunk` planes of z:
// kChunkZ on grids that give every SM several blocks at that length, fewer
// (down to kMinChunkZ) on small ones (rhs_chunk).
constexpr int kTileX = 32, kTileY = 8, kChunkZ = 32, kMinChunkZ = 8;

// One point per thread, marching along z through a chunk of planes.
//
// What limits it is bytes in flight and instructions, not arithmetic. The
// centre value is the DRAM stream: it is loaded D planes ahead into a
// register queue, so each warp has D rows (D x 128 or 256 bytes) on their
// way; Little's law wants ~32 KB per SM at 4.2 TB/s, i.e. D = 4 or more at
// the 24-32 warps an SM holds (4 measured best, kRhsPlanesAhead). The
// in-plane neighbours (x +- 1 and y +- 1) are
// then L1 hits, mostly on lines this block's own warps brought in as their
// centres D - 1 iterations earlier, and are loaded one plane ahead. The
// pointers walk along z (no per-plane 64-bit index products) and the
// boundary tests are hoisted: a first version with per-plane index
// arithmetic and the centre loaded in the iteration that used it was
// instruction-bound (docs/journal/PERFORMANCE_HISTORY.md, the working log).
template <class T, int D, bool XFaces>
__global__ void __launch_bounds__(kTileX* kTileY, D <= 4 ? kRhsBlocks : 1)
    rhs_scalar_kernel(const T* __restrict__ u, T* __restrict__ w, Layout3 L, RhsCoefficients<T> kc, int chunk) {
  const index_t nx = L.n[0], ny = L.n[1], nz = L.n[2];
  const index_t i = static_cast<index_t>(blockIdx.x) * kTileX + threadIdx.x;
  const index_t j = static_cast<index_t>(blockIdx.y) * kTileY + threadIdx.y;
  if (i >= nx || j >= ny) return;
  const index_t k0 = static_cast<index_t>(blockIdx.z) * chunk;
  const index_t k1 = k0 + chunk < nz ? k0 + chunk : nz;
  const index_t sx = L.stride[0], sy = L.stride[1], sz = L.stride[2];
  const bool fixed_xy = on_fixed_face(kc, 0, i, nx) || on_fixed_face(kc, 1, j, ny);
  const index_t oxm = (lower_neighbour(kc, 0, i, nx) - i) * sx, oxp = (upper_neighbour(kc, 0, i, nx) - i) * sx;
  const index_t oym = (lower_neighbour(kc, 1, j, ny) - j) * sy, oyp = (upper_neighbour(kc, 1, j, ny) - j) * sy;
  // Planes 0 .. nzr-1 are readable (plane nz is the ghost of a top ghost
  // face). The centres needed are those of planes k0 .. kc_last: plane k1 is
  // the upper neighbour of plane k1 - 1 when it exists.
  const index_t nzr = nz + (kc.hi_ghost[2] ? 1 : 0);
  const index_t kc_last = k1 < nzr ? k1 : nzr - 1;
  // An x face's term (RhsCoefficients::xfaces): 0 off the row ends.
  T gx = T(0), bx = T(0);
  if constexpr (XFaces) {
    if (i == 0) gx = kc.xg[0], bx = kc.xb[0];
    if (i == nx - 1) gx = kc.xg[1], bx = kc.xb[1];
  }
  const T* pc = u + i * sx + j * sy + k0 * sz;  // centre of plane k
  T* pw = w + i * sx + j * sy + k0 * sz;
  const index_t ahead = (D + 1) * sz;  // plane k + 1 + D, from plane k

  T zm = pc[(lower_neighbour(kc, 2, k0, nz) - k0) * sz];
  T c = pc[0], xm = pc[oxm], xp = pc[oxp], ym = pc[oym], yp = pc[oyp];
  T q[D];  // q[d]: centre of plane k + 1 + d
#pragma unroll
  for (int d = 0; d < D; ++d) q[d] = k0 + 1 + d <= kc_last ? pc[(1 + d) * sz] : T(0);
  // At the top face (not a ghost face) the upper neighbour mirrors: u(nz) =
  // u(nz-2); on a periodic z it is plane 0 (it_wrap: read there, once a
  // chunk). Iterations count from 0 in 32 bits; the plane tests are hoisted
  // into iteration numbers (-1: never).
  const int K = static_cast<int>(k1 - k0);
  const bool top = !kc.hi_ghost[2] && nz - 1 < k1;
  const int it_mirror = top && !kc.periodic[2] ? static_cast<int>(nz - 1 - k0) : -1;
  const int it_wrap = top && kc.periodic[2] ? static_cast<int>(nz - 1 - k0) : -1;
  const index_t wrap = -(nz - 1) * sz;  // plane nz-1 -> plane 0
  const int it_fixed_lo = k0 == 0 && on_fixed_face(kc, 2, 0, nz) ? 0 : -1;
  const int it_fixed_hi = k1 == nz && on_fixed_face(kc, 2, nz - 1, nz) ? K - 1 : -1;
  // Iterations 0 .. K_safe-1 can prefetch without tests: the next plane's
  // neighbours are inside the chunk and the centre D + 1 planes up is one
  // that is needed. The rest (the last D or so) test each load.
  const int c_last = static_cast<int>(kc_last - k0);
  const int K_safe = max(0, min(K - 1, c_last - D));
  auto step = [&](int it, bool guard) {
    const T* pn = pc + sz;
    T nxm, nxp, nym, nyp, cnew;
    if (!guard || it + 1 < K) {
      nxm = pn[oxm];
      nxp = pn[oxp];
      nym = pn[oym];
      nyp = pn[oyp];
    } else {
      nxm = nxp = nym = nyp = T(0);
    }
    if (!guard || it + 1 + D <= c_last)
      cnew = pc[ahead];
    else
      cnew = T(0);
    const T zp = it == it_mirror ? zm : it == it_wrap ? pc[wrap] : q[0];
    const bool fixed = fixed_xy || it == it_fixed_lo || it == it_fixed_hi;
    T r = douglas_rhs(c, xm, xp, ym, yp, zm, zp, kc);
    if constexpr (XFaces) r += bx - gx * c;
    *pw = fixed ? T(0) : r;
    zm = c;
    c = q[0];
#pragma unroll
    for (int d = 0; d + 1 < D; ++d) q[d] = q[d + 1];
    q[D - 1] = cnew;
    xm = nxm;
    xp = nxp;
    ym = nym;
    yp = nyp;
    pc = pn;
    pw += sz;
  };
  int it = 0;
#pragma unroll 4
  for (; it < K_safe; ++it) step(it, false);
  for (; it < K; ++it) step(it, true);
}

// N consecutive points of a row, loaded and stored as 16-byte vectors
// (N * sizeof(T) is 16 or 32 bytes: one or two vector accesses).
template <class T, int N>
struct alignas(16) VecN {
  static constexpr int kN = N;
  T v[N];
};
template <class T, int N>
__device__ __forceinline__ void vec_copy(T* dst, const T* src) {
#pragma unroll
  for (int q = 0; q < N * static_cast<int>(sizeof(T)) / 16; ++q)
    reinterpret_cast<float4*>(dst)[q] = reinterpret_cast<const float4*>(src)[q];
}

// Loads the V points at p (row offset i0); full vectors in one 16-byte
// access, the ragged tail element by element (never past the row's end).
template <class Vec, class T>
__device__ __forceinline__ Vec load_vec(const T* __restrict__ p, index_t i0, index_t nx) {
  constexpr int V = Vec::kN;
  Vec r;
  if (i0 + V <= nx) {
    vec_copy<T, V>(r.v, p);
    return r;
  }
#pragma unroll
  for (int e = 0; e < V; ++e) r.v[e] = i0 + e < nx ? p[e] : T(0);
  return r;
}

template <class T, int V, bool XFaces>
__global__ void __launch_bounds__(kTileX* kTileY, V * sizeof(T) <= 16 ? kRhsBlocks : 1)
    rhs_vector_kernel(const T* __restrict__ u, T* __restrict__ w, Layout3 L, RhsCoefficients<T> kc, int chunk) {
  using Vec = VecN<T, V>;
  const index_t nx = L.n[0], ny = L.n[1], nz = L.n[2];
  const int lane = threadIdx.x;
  const index_t i0 = (static_cast<index_t>(blockIdx.x) * kTileX + lane) * V;
  const index_t j = static_cast<index_t>(blockIdx.y) * kTileY + threadIdx.y;
  if (j >= ny) return;  // a warp is one row: uniform
  const bool live = i0 < nx;
  const index_t i0c = live ? i0 : 0;  // dead lanes read a valid address and store nothing
  const index_t k0 = static_cast<index_t>(blockIdx.z) * chunk;
  const index_t k1 = k0 + chunk < nz ? k0 + chunk : nz;
  const index_t sy = L.stride[1], sz = L.stride[2];
  const bool fixed_y = on_fixed_face(kc, 1, j, ny);
  const index_t col = i0c + j * sy;
  const index_t oym = (lower_neighbour(kc, 1, j, ny) - j) * sy, oyp = (upper_neighbour(kc, 1, j, ny) - j) * sy;
  const unsigned full = 0xffffffffu;
  const bool px = kc.periodic[0];

  // Register queue along z: prev = u(k-1) (mirrored at k = 0), cur = u(k),
  // next = u(k+1), ahead = u(k+2) in flight; ym/yp of the next plane too.
  // Planes 0 .. nzr-1 are readable: nzr = nz + 1 when the top face is a
  // ghost face (plane nz is its ghost); plane -1 when the bottom one is. On a
  // periodic z plane nz-1 is below plane 0 and plane 0 above plane nz-1.
  const index_t nzr = nz + (kc.hi_ghost[2] ? 1 : 0);
  auto plane = [&](index_t k) { return load_vec<Vec>(u + col + k * sz, i0c, nx); };
  Vec cur = plane(k0);
  Vec next = k0 + 1 < nzr ? plane(k0 + 1) : cur;
  Vec prev = k0 > 0 || kc.lo_ghost[2] ? plane(k0 - 1) : kc.periodic[2] ? plane(nz - 1) : next;
  Vec ym = load_vec<Vec>(u + col + k0 * sz + oym, i0c, nx);
  Vec yp = load_vec<Vec>(u + col + k0 * sz + oyp, i0c, nx);
  // x neighbours of the warp's end lanes come from memory (the other lanes'
  // from shuffles); they are fetched a plane ahead like everything else. On
  // a periodic x the row's first point's left neighbour is its last point
  // (lane 0 of the row's first warp), and the thread holding the last point
  // also reads the first (wrap).
  const bool has_left = lane == 0 && live && (i0 > 0 || px), has_right = lane == kTileX - 1 && live && i0 + V < nx;
  const bool has_wrap = px && live && i0 + V >= nx;
  const index_t left_off = i0 > 0 ? -1 : nx - 1, wrap_off = -i0;
  auto edge = [&](index_t k, bool want, index_t off) { return want ? u[col + k * sz + off] : T(0); };
  T left_mem = edge(k0, has_left, left_off), right_mem = edge(k0, has_right, V), wrap_mem = edge(k0, has_wrap, wrap_off);
  for (index_t k = k0; k < k1; ++k) {
    Vec ahead = next, ym_n = ym, yp_n = yp;
    T left_n = left_mem, right_n = right_mem, wrap_n = wrap_mem;
    if (k + 2 < nzr) ahead = plane(k + 2);
    if (k + 1 < k1) {
      ym_n = load_vec<Vec>(u + col + (k + 1) * sz + oym, i0c, nx);
      yp_n = load_vec<Vec>(u + col + (k + 1) * sz + oyp, i0c, nx);
      left_n = edge(k + 1, has_left, left_off);
      right_n = edge(k + 1, has_right, V);
      wrap_n = edge(k + 1, has_wrap, wrap_off);
    }
    // mirrored at the top face (unless it is a ghost face), plane 0 on a periodic z
    Vec zp = next;
    if (k + 1 >= nzr) zp = kc.periodic[2] ? plane(0) : prev;
    T left = __shfl_up_sync(full, cur.v[V - 1], 1);
    T right = __shfl_down_sync(full, cur.v[0], 1);
    if (lane == 0) left = left_mem;
    if (lane == kTileX - 1) right = right_mem;
    Vec out;
    const bool fixed_plane = fixed_y || on_fixed_face(kc, 2, k, nz);
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const index_t i = i0 + e;
      // x neighbours with compile-time register indices (a run-time index
      // would put the vector in local memory); Neumann mirrors: u[-1] = u[1],
      // u[nx] = u[nx-2]; periodic: u[-1] = u[nx-1] (left), u[nx] = u[0].
      const T below = e > 0 ? cur.v[e > 0 ? e - 1 : 0] : left;
      const T above = e + 1 < V ? cur.v[e + 1 < V ? e + 1 : 0] : right;
      const T xm = i == 0 && !px ? above : below;
      const T xp = i == nx - 1 ? (px ? wrap_mem : below) : above;
      const T r = douglas_rhs(cur.v[e], xm, xp, ym.v[e], yp.v[e], prev.v[e], zp.v[e], kc);
      out.v[e] = (fixed_plane || on_fixed_face(kc, 0, i, nx)) ? T(0) : r;
    }
    // x faces (XFaces): only the threads holding a row end, after the
    // plain loop.
    if constexpr (XFaces)
      if (live && !fixed_plane && (i0 == 0 || i0 + V >= nx))
#pragma unroll
        for (int e = 0; e < V; ++e) {
          const index_t i = i0 + e;
          if (i == 0) out.v[e] += kc.xb[0] - kc.xg[0] * cur.v[e];
          if (i == nx - 1) out.v[e] += kc.xb[1] - kc.xg[1] * cur.v[e];
        }
    if (live) {
      T* dst = w + col + k * sz;
      if (i0 + V <= nx) {
        vec_copy<T, V>(dst, out.v);
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e)
          if (i0 + e < nx) dst[e] = out.v[e];
      }
    }
    prev = cur;
    cur = next;
    next = ahead;
    ym = ym_n;
    yp = yp_n;
    left_mem = left_n;
    right_mem = right_n;
    wrap_mem = wrap_n;
  }
}

bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

}  // namespace

// Points per thread of the vector kernel (0: the scalar kernel).
// SolverOptions::rhs_vec (ADI_RHS_VEC) overrides (0, 2 or 4; 2 only for double).
// fp32 takes the 4-point kernel only when its 128-column blocks tile the rows
// exactly: at 129, 193, 257, 513 ... columns the last block of every row
// carries a column or a few and holds an SM slot for a whole z march, and the
// point-per-thread kernel measured faster there; where the blocks tile the
// rows the two measured alike (docs/PERFORMANCE.md, "RHS kernels").
template <class T>
int rhs_points_per_thread(const SolverOptions& o, index_t nx) {
  if (o.rhs_vec >= 0) return o.rhs_vec;
  if (sizeof(T) == 4) return nx % (kTileX * 4) == 0 ? 4 : 0;
  return RHS_DEFAULT_F64_VEC;
}

// Planes the point-per-thread kernel loads ahead: 4 in both precisions, the
// fastest of 2, 4 and 8 measured (docs/PERFORMANCE.md, "RHS kernels").
constexpr int kRhsPlanesAhead = 4;

// Planes a block of the vector kernel marches through. A thread's planes
// are serial, so a grid of few, long marches is latency-bound: on small grids
// 32-plane chunks left about one block an SM, and shorter chunks measured
// faster (while those sizes still took the vector kernel, which fp32 now
// keeps for rows of 128k columns only, e.g. 128^3 and 256^3, where this was
// not measured). Aim for 8 blocks per SM; never more than kChunkZ planes
// (the large grids keep their measured shape) nor fewer than kMinChunkZ. Any
// chunk gives the same values: each point is computed on its own.
static int rhs_chunk(index_t blocks_xy, index_t nz) {
  int dev = 0, sms = 0;
  ADI_CUDA_CHECK(cudaGetDevice(&dev));
  ADI_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const index_t target = 8 * static_cast<index_t>(std::max(sms, 1));
  const index_t want = (nz * blocks_xy + target - 1) / target;
  return static_cast<int>(std::clamp<index_t>(want, kMinChunkZ, kChunkZ));
}

std::string rhs_unlaunchable(const Layout3& L) {
  const index_t gy = (L.n[1] + kTileY - 1) / kTileY, gz = (L.n[2] + kChunkZ - 1) / kChunkZ;
  if (gy <= 65535 && gz <= 65535) return "";
  return "the RHS kernel covers at most ny = " + std::to_string(65535 * kTileY) + " and nz = " +
         std::to_string(65535 * kChunkZ) + " nodes, the grid has ny = " + std::to_string(L.n[1]) +
         ", nz = " + std::to_string(L.n[2]);
}

template <class T>
void launch_rhs(const T* u, T* w, const Layout3& L, const RhsCoefficients<T>& kc, cudaStream_t st,
                const SolverOptions& options) {
  int V = rhs_points_per_thread<T>(options, L.n[0]);
  if (V != 0 && V != 4 && !(V == 2 && sizeof(T) == 8)) V = 4;
  // The vector kernel mirrors x at the row ends through its lane shuffles:
  // a ghost face along x (never used by adi3d, whose x lines stay on one
  // rank) takes the scalar kernel.
  const bool vec = V > 0 && L.stride[0] == 1 && L.stride[1] % V == 0 && L.stride[2] % V == 0 && aligned16(u) &&
                   aligned16(w) && !kc.lo_ghost[0] && !kc.hi_ghost[0];
  const index_t per_block_x = vec ? kTileX * V : kTileX;
  const dim3 block(kTileX, kTileY);
  const index_t gx = (L.n[0] + per_block_x - 1) / per_block_x, gy = (L.n[1] + kTileY - 1) / kTileY;
  // The point-per-thread kernel keeps its 32 planes: its D-planes-ahead
  // queue refills at every chunk start, and shorter chunks measured slower
  // (docs/PERFORMANCE.md, "Tried and rejected").
  const int chunk = vec ? rhs_chunk(gx * gy, L.n[2]) : kChunkZ;
  const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy),
                  static_cast<unsigned>((L.n[2] + chunk - 1) / chunk));
  ADI_REQUIRE(grid.y <= 65535 && grid.z <= 65535, "grid too large for the RHS kernel");
  if (!vec) {
    // Centres in flight per thread: see rhs_scalar_kernel.
    if (kc.xfaces)
      rhs_scalar_kernel<T, kRhsPlanesAhead, true><<<grid, block, 0, st>>>(u, w, L, kc, chunk);
    else
      rhs_scalar_kernel<T, kRhsPlanesAhead, false><<<grid, block, 0, st>>>(u, w, L, kc, chunk);
  } else if (V == 4) {
    if (kc.xfaces)
      rhs_vector_kernel<T, 4, true><<<grid, block, 0, st>>>(u, w, L, kc, chunk);
    else
      rhs_vector_kernel<T, 4, false><<<grid, block, 0, st>>>(u, w, L, kc, chunk);
  } else if constexpr (sizeof(T) == 8) {
    if (kc.xfaces)
      rhs_vector_kernel<T, 2, true><<<grid, block, 0, st>>>(u, w, L, kc, chunk);
    else
      rhs_vector_kernel<T, 2, false><<<grid, block, 0, st>>>(u, w, L, kc, chunk);
  }
  ADI_CUDA_CHECK_LAUNCH("rhs_kernel");
}

template void launch_rhs<float>(const float*, float*, const Layout3&, const RhsCoefficients<float>&, cudaStream_t,
                                const SolverOptions&);
template void launch_rhs<double>(const double*, double*, const Layout3&, const RhsCoefficients<double>&,
                                 cudaStream_t, const SolverOptions&);

}  // namespace adi::cuda
