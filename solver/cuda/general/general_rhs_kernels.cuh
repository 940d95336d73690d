#pragma once
// The right-hand side of the general problem on the GPU, one thread per
// node: the interior, the faces, the flux / convective faces and the
// constant source of the classic kernels, the Dirichlet nodes' increments.
// The sources that include these kernels are compiled with -fmad=false: the
// host build does not contract a * b + c into fused multiply-adds, so
// neither may the device, or fp64 results drift from the oracle by more
// than the last bit.

#include "general_rows.cuh"

namespace adi::cuda::general {

// w = dt (sum_a A_a u + rho (beta + q f)) at every non-Dirichlet node, 0 at
// Dirichlet nodes: CpuStepper::rhs line by line, the same operations
// in the same order (a = x, y, z; -fmad=false), so the result is bit for bit
// the oracle's.
//
// Node (i, j, k) at offset o, with the neighbour values of axis a as the row
// functions want them; the generic form (any node, every end kind):
template <class T>
__device__ ADI_FORCEINLINE T rhs_node_generic(const T* __restrict__ u, const GeneralParams<T>& P, index_t i,
                                              index_t j, index_t k, index_t o) {
  const index_t idx[3] = {i, j, k};
  bool fixed = false;
#pragma unroll
  for (int a = 0; a < 3; ++a)
    if (!P.flat[a] && fixed_row(idx[a], P.ends[a])) fixed = true;
  if (fixed) return T(0);
  const T rho = P.rho ? P.rho[o] : P.rho_const;
  const T uc = u[o];
  T acc = T(0), bsum = T(0);
#pragma unroll
  for (int a = 0; a < 3; ++a) {
    if (P.flat[a]) continue;
    const AxisEnds<T>& e = P.ends[a];
    const index_t ia = idx[a], na = e.n, s = P.stride[a];
    const index_t om = ia > 0 ? o - s : (e.lo == LineEnd::Wrap ? o + (na - 1) * s : o + s);
    const index_t op = ia < na - 1 ? o + s : (e.hi == LineEnd::Wrap ? o - (na - 1) * s : o - s);
    const T* K = P.K[a];
    const T kc = K ? K[o] : P.kconst[a];
    const T km = K ? K[om] : kc, kp = K ? K[op] : kc;
    acc += row_apply(row_coupling<T>(ia, e, km, kc, kp, rho), u[om], uc, u[op]);
    if (ia == 0 && e.lo == LineEnd::Mirror) bsum += P.beta[a][0];
    if (ia == na - 1 && e.hi == LineEnd::Mirror) bsum += P.beta[a][1];
  }
  const T q = P.q ? P.q[o] : P.qconst;
  return P.dt * (acc + rho * (bsum + q * P.qf));
}

// The interior: nodes inside the box on every non-flat axis (all but the
// six faces), where no end logic applies. Thread (i, j) of a (32 x 8) block
// marches along z through a chunk of planes, keeping u and K_z of the planes
// k-1, k, k+1 in registers (one new plane of each per step); x and y
// neighbours are in the warp's and the block's own rows (L1). row_coupling
// and row_apply see the same values in the same order as in the generic
// form, so the result is the same bits. The faces are general_rhs_faces_kernel's.
// (A first version, one generic thread per node with (i, j, k) from a flat
// index, spent hundreds of instructions a node on 64-bit index arithmetic
// and end logic, far from the copy bandwidth.)
constexpr int kRhsBlockX = 32, kRhsBlockY = 8;

/// The interior of a grid: [1, n-1) on a non-flat axis, [0, 1) on a flat one.
template <class T>
ADI_HD ADI_FORCEINLINE index_t interior_lo(const GeneralParams<T>& P, int a) {
  return P.flat[a] ? 0 : 1;
}
template <class T>
ADI_HD ADI_FORCEINLINE index_t interior_hi(const GeneralParams<T>& P, int a) {
  return P.flat[a] ? 1 : P.n[a] - 1;
}

/// Launch shape of the interior RHS kernels (general_rhs_kernel,
/// fast_rhs_kernel; tiled_rhs_kernel with its 32 x 16 tiles and ~8 blocks
/// per SM): tile_x x tile_y blocks over the interior's x-y extent, and
/// chunks of kchunk planes along z, enough blocks to fill the device
/// (~blocks_per_sm per SM) while each thread still marches a few planes.
/// grid.x == 0: the interior is empty.
template <class T>
dim3 rhs_interior_grid(const GeneralParams<T>& P, int sm_count, index_t& kchunk, int tile_x = kRhsBlockX,
                       int tile_y = kRhsBlockY, int blocks_per_sm = 16) {
  index_t inner[3];
  for (int a = 0; a < 3; ++a) inner[a] = interior_hi(P, a) - interior_lo(P, a);
  kchunk = 1;
  if (inner[0] <= 0 || inner[1] <= 0 || inner[2] <= 0) return dim3(0u, 0u, 0u);
  dim3 grid(static_cast<unsigned>((inner[0] + tile_x - 1) / tile_x), static_cast<unsigned>((inner[1] + tile_y - 1) / tile_y),
            1u);
  ADI_REQUIRE(grid.y <= 65535, "general path: ny too large for the right-hand side's grid");
  const index_t xy_blocks = static_cast<index_t>(grid.x) * grid.y;
  const index_t want = static_cast<index_t>(blocks_per_sm) * sm_count;
  const index_t chunks = std::max<index_t>(1, std::min<index_t>(inner[2], (want + xy_blocks - 1) / xy_blocks));
  kchunk = (inner[2] + chunks - 1) / chunks;
  grid.z = static_cast<unsigned>((inner[2] + kchunk - 1) / kchunk);
  return grid;
}

/// This thread's column (i, j) and planes [k0, k1) of an interior RHS
/// kernel launched with rhs_interior_grid; false: nothing to do.
template <class T>
__device__ ADI_FORCEINLINE bool interior_column(const GeneralParams<T>& P, index_t kchunk, index_t& i, index_t& j,
                                                index_t& k0, index_t& k1) {
  i = interior_lo(P, 0) + static_cast<index_t>(blockIdx.x) * kRhsBlockX + threadIdx.x;
  j = interior_lo(P, 1) + static_cast<index_t>(blockIdx.y) * kRhsBlockY + threadIdx.y;
  if (i >= interior_hi(P, 0) || j >= interior_hi(P, 1)) return false;
  k0 = interior_lo(P, 2) + static_cast<index_t>(blockIdx.z) * kchunk;
  k1 = k0 + kchunk < interior_hi(P, 2) ? k0 + kchunk : interior_hi(P, 2);
  return k0 < k1;
}

/// Node t of face plane f (blockIdx.y of the face kernels: 0, 1 the x = 0,
/// nx-1 planes; 2, 3 y; 4, 5 z): its indices and offset.
template <class T>
__device__ ADI_FORCEINLINE index_t face_node(const GeneralParams<T>& P, int f, index_t t, index_t (&idx)[3]) {
  const int a = f / 2, b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2;
  idx[a] = (f & 1) ? P.n[a] - 1 : 0;
  idx[b] = t % P.n[b];
  idx[c] = t / P.n[b];
  return idx[0] * P.stride[0] + idx[1] * P.stride[1] + idx[2] * P.stride[2];
}
/// Nodes in face plane f (grid-stride loops of the face kernels).
template <class T>
ADI_HD ADI_FORCEINLINE index_t face_nodes(const GeneralParams<T>& P, int f) {
  const int a = f / 2;
  return P.n[a == 0 ? 1 : 0] * P.n[a == 2 ? 1 : 2];
}

template <class T>
__global__ void __launch_bounds__(kRhsBlockX * kRhsBlockY)
    general_rhs_kernel(const T* __restrict__ u, T* __restrict__ w, GeneralParams<T> P, index_t kchunk) {
  index_t i, j, k0, k1;
  if (!interior_column(P, kchunk, i, j, k0, k1)) return;
  const index_t sx = P.stride[0], sy = P.stride[1], sz = P.stride[2];
  const T* Kx = P.K[0];
  const T* Ky = P.K[1];
  const T* Kz = P.K[2];
  const bool zf = P.flat[2];
  const T* uo = u + i * sx + j * sy + k0 * sz;
  T* wo = w + i * sx + j * sy + k0 * sz;
  const index_t o0 = i * sx + j * sy + k0 * sz;
  T um = T(0), uc = *uo, kzm = P.kconst[2], kzc = Kz ? Kz[o0] : P.kconst[2];
  if (!zf) {
    um = uo[-sz];
    if (Kz) kzm = Kz[o0 - sz];
  }
  index_t o = o0;
  for (index_t k = k0; k < k1; ++k, o += sz, uo += sz, wo += sz) {
    const T up = zf ? T(0) : uo[sz];
    const T kzp = Kz && !zf ? Kz[o + sz] : P.kconst[2];
    const T rho = P.rho ? P.rho[o] : P.rho_const;
    T acc = T(0);
    if (!P.flat[0]) {
      const T kc = Kx ? Kx[o] : P.kconst[0];
      const T km = Kx ? Kx[o - sx] : kc, kp = Kx ? Kx[o + sx] : kc;
      acc += row_apply(row_coupling<T>(i, P.ends[0], km, kc, kp, rho), uo[-sx], uc, uo[sx]);
    }
    if (!P.flat[1]) {
      const T kc = Ky ? Ky[o] : P.kconst[1];
      const T km = Ky ? Ky[o - sy] : kc, kp = Ky ? Ky[o + sy] : kc;
      acc += row_apply(row_coupling<T>(j, P.ends[1], km, kc, kp, rho), uo[-sy], uc, uo[sy]);
    }
    if (!zf) acc += row_apply(row_coupling<T>(k, P.ends[2], kzm, kzc, kzp, rho), um, uc, up);
    const T bsum = T(0);
    const T q = P.q ? P.q[o] : P.qconst;
    *wo = P.dt * (acc + rho * (bsum + q * P.qf));
    um = uc;
    uc = up;
    kzm = kzc;
    kzc = kzp;
  }
}

// The face nodes (index 0 or n-1 on some non-flat axis), the generic form:
// thread t of plane f (0, 1: x = 0, nx-1; 2, 3: y; 4, 5: z) over the plane's
// nodes. Nodes on edges belong to several planes and are written with the
// same value by each.
template <class T>
__global__ void general_rhs_faces_kernel(const T* __restrict__ u, T* __restrict__ w, GeneralParams<T> P) {
  const int f = blockIdx.y;
  if (P.flat[f / 2]) return;
  const index_t count = face_nodes(P, f);
  for (index_t t = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < count;
       t += static_cast<index_t>(gridDim.x) * blockDim.x) {
    index_t idx[3];
    const index_t o = face_node(P, f, t, idx);
    w[o] = rhs_node_generic(u, P, idx[0], idx[1], idx[2], o);
  }
}

// Constant K and c with a flux or convective face: the stepper runs the
// classic kernels (rhs_kernel.cu's RHS with mirrored ends, the LineSolver
// line kernels) and adds here what they do not know, at the nodes of the
// flux / convective (Mirror) faces of y and z:
//   w += dt rho (beta - gr u)     summed over the node's Mirror ends of y, z,
// gr = 2 h_c / h on a Robin end (row_coupling), beta the face data at t*.
// The x faces' terms are added by the RHS kernel (RhsCoefficients::xfaces):
// their nodes are a row apart, one 32-byte sector each, and in a kernel of
// their own they cost several times what the four y and z faces cost, whose
// rows and planes read coalesced (docs/PERFORMANCE.md, "Faces and periodic
// axes").
// Nodes on a Dirichlet face keep w = 0 (their increments come from the face
// data). blockIdx.z is the face f = 2 + (2 (a - 1) + side); a face that is
// not Mirror returns at once. A node on Mirror faces of both y and z (an
// edge) is handled once, by its y face, which sums both. Threads run along
// x (memory order).
template <class T>
__global__ void general_mirror_faces_kernel(const T* __restrict__ u, T* __restrict__ w, GeneralParams<T> P) {
  const int f = 2 + static_cast<int>(blockIdx.z), a = f / 2, side = f % 2;
  if ((side ? P.ends[a].hi : P.ends[a].lo) != LineEnd::Mirror) return;  // uniform per block
  const int o1 = 0, o2 = a == 2 ? 1 : 2;
  index_t idx[3];
  idx[a] = side ? P.n[a] - 1 : 0;
  for (index_t c2 = static_cast<index_t>(blockIdx.y) * blockDim.y + threadIdx.y; c2 < P.n[o2];
       c2 += static_cast<index_t>(gridDim.y) * blockDim.y)
    for (index_t c1 = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; c1 < P.n[o1];
         c1 += static_cast<index_t>(gridDim.x) * blockDim.x) {
      idx[o1] = c1;
      idx[o2] = c2;
      bool fixed = false, mine = true;
      T gr = T(0), beta = T(0);
#pragma unroll
      for (int e = 0; e < 3; ++e) {
        const AxisEnds<T>& ends = P.ends[e];
        if (fixed_row(idx[e], ends)) fixed = true;
        if (e == 0) continue;  // x faces: the RHS kernel
        const bool lo = idx[e] == 0 && ends.lo == LineEnd::Mirror, hi = idx[e] == ends.n - 1 && ends.hi == LineEnd::Mirror;
        if (e < a && (lo || hi)) mine = false;  // the face of axis e handles it
        if (lo) gr += ends.lo_robin, beta += P.beta[e][0];
        if (hi) gr += ends.hi_robin, beta += P.beta[e][1];
      }
      if (fixed || !mine) continue;
      const index_t o = idx[0] * P.stride[0] + idx[1] * P.stride[1] + idx[2] * P.stride[2];
      w[o] += P.dt * P.rho_const * (beta - gr * u[o]);
    }
}

// A constant source with the classic kernels: w += dt q f / c at every node
// that is not on a Dirichlet face.
template <class T>
__global__ void general_const_source_kernel(T* __restrict__ w, GeneralParams<T> P) {
  const index_t i = static_cast<index_t>(blockIdx.x) * 32 + threadIdx.x;
  const index_t j = static_cast<index_t>(blockIdx.y) * 8 + threadIdx.y;
  if (i >= P.n[0] || j >= P.n[1]) return;
  const T add = P.dt * P.rho_const * P.qconst * P.qf;
  const bool fixed_ij = fixed_row(i, P.ends[0]) || fixed_row(j, P.ends[1]);
  for (index_t k = blockIdx.z; k < P.n[2]; k += gridDim.z) {
    if (fixed_ij || fixed_row(k, P.ends[2])) continue;
    w[i * P.stride[0] + j * P.stride[1] + k * P.stride[2]] += add;
  }
}

/// The Dirichlet nodes' right-hand side when faces move: w = sum_F df_F W_F
/// (dirichlet.hpp), summed in double in face order as dirichlet_rhs does.
/// Node m: offset off[m], the faces of its terms in bits of mask[m], W_F at
/// W[6 m + F].
struct DirichletIncrements {
  double df[6] = {0, 0, 0, 0, 0, 0};
};

template <class T>
__global__ void general_dirichlet_rhs_kernel(T* __restrict__ w, const index_t* __restrict__ off,
                                             const std::uint8_t* __restrict__ mask, const double* __restrict__ W,
                                             index_t count, index_t span, DirichletIncrements inc,
                                             int* __restrict__ error) {
  const index_t m = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (m >= count) return;
  const index_t o = off[m];
  if (o < 0 || o >= span) {  // cannot happen with a consistent DirichletData: say so rather than write
    atomicOr(error, 8);
    return;
  }
  double s = 0.0;
  for (int f = 0; f < 6; ++f)
    if (mask[m] & (1u << f)) s += inc.df[f] * W[6 * m + f];
  w[o] = static_cast<T>(s);
}

}  // namespace adi::cuda::general
