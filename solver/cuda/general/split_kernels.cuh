#pragma once
// The Strang step's kernels (split.hpp), shared by the whole-grid general
// stepper (general_stepper.cu) and one MPI rank's box (general_local_cuda.cu):
// the Dirichlet planes' terms, one factor's right-hand side, the Dirichlet
// nodes back to their data, a flat axis' share of the source. Each is the
// CPU oracle's per-node form (CpuStepper, GeneralCpuLocal) with the
// node's global index, over a box described by BoxParams (the whole grid:
// begin 0, no cuts). The line solves are the general path's, with the
// factor's theta fraction dt. Sources that include this are compiled with
// -fmad=false, like the other general kernels.

#include <adi/discrete.hpp>
#include <adi/split.hpp>

#include "../cuda_check.hpp"
#include "../device_buffer.hpp"
#include "general_rows.cuh"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace adi::cuda::general {

/// A box as the kernels see it: GeneralParams over the box (n = the box's
/// sizes, the storage's strides, every pointer at node (0, 0, 0), the
/// DOMAIN's ends, whose n is the global one), and where the box lies.
template <class T>
struct BoxParams {
  GeneralParams<T> P;
  index_t begin[3] = {0, 0, 0};
  bool lo_cut[3] = {false, false, false};
  bool hi_cut[3] = {false, false, false};
};

// Neighbours along a of the node at offset o, local index i: the ghost plane
// across a cut (every face of a split periodic axis is a cut), the other end
// of the box on a periodic axis held whole, the mirrored inner node at a
// domain face (unused by Mirror rows, never read by Fixed rows).
template <class T>
__device__ ADI_FORCEINLINE index_t box_lower(const BoxParams<T>& B, int a, index_t o, index_t i) {
  const index_t s = B.P.stride[a], m = B.P.n[a];
  if (i > 0 || B.lo_cut[a]) return o - s;
  return B.P.ends[a].lo == LineEnd::Wrap ? o + (m - 1) * s : o + s;
}
template <class T>
__device__ ADI_FORCEINLINE index_t box_upper(const BoxParams<T>& B, int a, index_t o, index_t i) {
  const index_t s = B.P.stride[a], m = B.P.n[a];
  if (i < m - 1 || B.hi_cut[a]) return o + s;
  return B.P.ends[a].hi == LineEnd::Wrap ? o - (m - 1) * s : o - s;
}

/// split_flow along b at node o (local index i along b, global gi): K at the
/// neighbours, the face data of b's Mirror ends (P.beta), sq the source share.
template <class T>
__device__ ADI_FORCEINLINE T box_flow(const T* __restrict__ u, const BoxParams<T>& B, int b, index_t o, index_t i,
                                      T rho, T sq) {
  const GeneralParams<T>& P = B.P;
  const AxisEnds<T>& e = P.ends[b];
  const index_t gi = B.begin[b] + i;
  const index_t om = box_lower(B, b, o, i), op = box_upper(B, b, o, i);
  const T* K = P.K[b];
  const T kc = K ? K[o] : P.kconst[b];
  const T km = K ? K[om] : kc, kp = K ? K[op] : kc;
  T bt = T(0);
  if (gi == 0 && e.lo == LineEnd::Mirror) bt += P.beta[b][0];
  if (gi == e.n - 1 && e.hi == LineEnd::Mirror) bt += P.beta[b][1];
  return split_flow(row_coupling<T>(gi, e, km, kc, kp, rho), u[om], u[o], u[op], rho, bt, sq);
}

/// One Dirichlet plane of the box on the device (SplitDirichlet::Plane) and
/// its outputs: r / |S| and g(t^{n+1}) per node.
template <class T>
struct SplitPlaneArgs {
  int axis = 0, o1 = 0, o2 = 0;
  index_t plane = 0, n1 = 0, n2 = 0;
  const std::int8_t* owner = nullptr;  ///< nullptr: no node of the plane moves
  const double* value = nullptr;
  T* r = nullptr;
  T* g1 = nullptr;
  double df[6] = {0, 0, 0, 0, 0, 0};  ///< f(t^{n+1}) - f(t^n) per face
  double f1[6] = {1, 1, 1, 1, 1, 1};  ///< f(t^{n+1}) per face
};

/// The Dirichlet terms of one plane from u at the step's start (P.qf holds the
/// source share times f(t*), P.beta the face data at t*).
template <class T>
__global__ void split_terms_kernel(const T* __restrict__ u, BoxParams<T> B, SplitPlaneArgs<T> A) {
  const GeneralParams<T>& P = B.P;
  const index_t total = A.n1 * A.n2;
  for (index_t q = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < total;
       q += static_cast<index_t>(gridDim.x) * blockDim.x) {
    index_t loc[3];
    loc[A.axis] = A.plane;
    loc[A.o1] = q % A.n1;
    loc[A.o2] = q / A.n1;
    const index_t o = loc[0] * P.stride[0] + loc[1] * P.stride[1] + loc[2] * P.stride[2];
    const T rho = P.rho ? P.rho[o] : P.rho_const;
    const T sq = (P.q ? P.q[o] : P.qconst) * P.qf;
    int fixed = 0;
    T flows = T(0);
#pragma unroll
    for (int b = 0; b < 3; ++b) {
      if (P.flat[b]) {
        flows += rho * (T(0) + sq);
        continue;
      }
      if (fixed_row(B.begin[b] + loc[b], P.ends[b])) {
        ++fixed;
        continue;
      }
      flows += box_flow(u, B, b, o, loc[b], rho, sq);
    }
    const int own = A.owner ? A.owner[q] : -1;
    A.r[q] = split_dirichlet_share(own >= 0 ? A.value[q] * A.df[own] : 0.0, flows, P.dt, fixed);
    A.g1[q] = own >= 0 ? static_cast<T>(A.value[q] * A.f1[own]) : u[o];
  }
}

/// The r planes of axis a's two faces (nullptr where the face is not a
/// Dirichlet face of the box), in-plane axes o1 < o2, n1 nodes along o1.
template <class T>
struct SplitEnds {
  const T* r[2] = {nullptr, nullptr};
  int o1 = 0, o2 = 0;
  index_t n1 = 0;
};

/// One factor's right-hand side over the box: w = tau split_flow at every
/// node not held by a's Dirichlet faces, frac r / |S| at those (P.qf: the
/// source share times f(t*), P.beta: face data at t*). Blocks of 32 x 8
/// over (x, y), z by grid-stride.
template <class T>
__global__ void __launch_bounds__(256)
    split_rhs_kernel(const T* __restrict__ u, T* __restrict__ w, BoxParams<T> B, int a, T tau, T frac,
                     SplitEnds<T> E) {
  const GeneralParams<T>& P = B.P;
  const index_t i = static_cast<index_t>(blockIdx.x) * 32 + threadIdx.x;
  const index_t j = static_cast<index_t>(blockIdx.y) * 8 + threadIdx.y;
  if (i >= P.n[0] || j >= P.n[1]) return;
  for (index_t k = blockIdx.z; k < P.n[2]; k += gridDim.z) {
    const index_t loc[3] = {i, j, k};
    const index_t o = i * P.stride[0] + j * P.stride[1] + k * P.stride[2];
    const index_t ga = B.begin[a] + loc[a];
    if (fixed_row(ga, P.ends[a])) {
      w[o] = frac * E.r[ga == 0 ? 0 : 1][loc[E.o1] + E.n1 * loc[E.o2]];
      continue;
    }
    const T rho = P.rho ? P.rho[o] : P.rho_const;
    const T sq = (P.q ? P.q[o] : P.qconst) * P.qf;
    w[o] = tau * box_flow(u, B, a, o, loc[a], rho, sq);
  }
}

/// u += tau rho q (P.qf: the share times f(t*)): a flat axis' factor.
template <class T>
__global__ void __launch_bounds__(256) split_source_kernel(T* __restrict__ u, BoxParams<T> B, T tau) {
  const GeneralParams<T>& P = B.P;
  const index_t i = static_cast<index_t>(blockIdx.x) * 32 + threadIdx.x;
  const index_t j = static_cast<index_t>(blockIdx.y) * 8 + threadIdx.y;
  if (i >= P.n[0] || j >= P.n[1]) return;
  for (index_t k = blockIdx.z; k < P.n[2]; k += gridDim.z) {
    const index_t o = i * P.stride[0] + j * P.stride[1] + k * P.stride[2];
    u[o] += tau * ((P.rho ? P.rho[o] : P.rho_const) * ((P.q ? P.q[o] : P.qconst) * P.qf));
  }
}

/// Every node of one Dirichlet plane back to its data g(t^{n+1}).
template <class T>
__global__ void split_reset_kernel(T* __restrict__ u, BoxParams<T> B, SplitPlaneArgs<T> A) {
  const GeneralParams<T>& P = B.P;
  const index_t total = A.n1 * A.n2;
  for (index_t q = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < total;
       q += static_cast<index_t>(gridDim.x) * blockDim.x) {
    index_t loc[3];
    loc[A.axis] = A.plane;
    loc[A.o1] = q % A.n1;
    loc[A.o2] = q / A.n1;
    u[loc[0] * P.stride[0] + loc[1] * P.stride[1] + loc[2] * P.stride[2]] = A.g1[q];
  }
}

/// A box's Strang machinery on the device: its Dirichlet planes (owners and
/// values where they move; r and g(t^{n+1}) per node) and the launches of
/// the kernels above on a stream.
template <class T>
class SplitDevice {
 public:
  /// From the box's DirichletData (build_dirichlet).
  void setup(const HeatProblem& p, const DirichletData& d) {
    p_ = p;
    split_ = split_dirichlet(d);
    frac_ = strang_fractions(p);
    share_ = strang_source_share(p);
    planes_.clear();
    planes_.resize(split_.planes.size());
    for (std::size_t f = 0; f < split_.planes.size(); ++f) {
      const SplitDirichlet::Plane& pl = split_.planes[f];
      Buffers& b = planes_[f];
      const std::size_t np = static_cast<std::size_t>(pl.n1 * pl.n2);
      b.r.resize(np);
      b.g1.resize(np);
      if (std::any_of(pl.owner.begin(), pl.owner.end(), [](std::int8_t o) { return o >= 0; })) {
        b.owner.upload(pl.owner);
        b.value.upload(pl.value);
      }
    }
  }
  std::size_t bytes() const {
    std::size_t n = 0;
    for (const Buffers& b : planes_) n += b.r.bytes() + b.g1.bytes() + b.owner.bytes() + b.value.bytes();
    return n;
  }
  /// The fraction of dt of axis a's factors.
  double fraction(int a) const { return frac_[a]; }

  /// B.P with the data of the step from t0 at t* (face data, the source
  /// share times its table's factor).
  BoxParams<T> at(BoxParams<T> B, double t0) const {
    const double tstar = t0 + p_.theta * p_.dt;
    face_betas(p_, tstar, B.P.beta);
    B.P.qf = static_cast<T>(share_ * p_.source_table.at(tstar));
    return B;
  }

  /// The Dirichlet terms from u (the step from t0 to t1).
  void terms(const T* u, const BoxParams<T>& B, const DirichletData& d, double t0, double t1, cudaStream_t s) {
    const BoxParams<T> Bt = at(B, t0);
    const auto df = d.increments(p_, t0, t0 + p_.dt);
    const auto f1 = split_table_values(p_, t1);
    for (std::size_t f = 0; f < planes_.size(); ++f) {
      SplitPlaneArgs<T> A = args(f);
      for (int id = 0; id < 6; ++id) {
        A.df[id] = df[static_cast<std::size_t>(id)];
        A.f1[id] = f1[static_cast<std::size_t>(id)];
      }
      split_terms_kernel<T><<<plane_blocks(A), 256, 0, s>>>(u, Bt, A);
      ADI_CUDA_CHECK_LAUNCH("split_terms_kernel");
    }
  }

  /// One factor along a: its right-hand side into w (a flat axis: its share
  /// of the source added to u, and false: no solve follows).
  bool rhs(T* u, T* w, const BoxParams<T>& B, int a, double t0, cudaStream_t s) const {
    const BoxParams<T> Bt = at(B, t0);
    const T tau = static_cast<T>(frac_[a] * p_.dt);
    if (p_.flat(a)) {
      if (p_.has_source()) {
        split_source_kernel<T><<<grid(B), dim3(32, 8), 0, s>>>(u, Bt, tau);
        ADI_CUDA_CHECK_LAUNCH("split_source_kernel");
      }
      return false;
    }
    SplitEnds<T> E;
    E.o1 = a == 0 ? 1 : 0;
    E.o2 = a == 2 ? 1 : 2;
    E.n1 = B.P.n[E.o1];
    for (std::size_t f = 0; f < planes_.size(); ++f)
      if (split_.planes[f].axis == a) E.r[split_.planes[f].side] = planes_[f].r.get();
    split_rhs_kernel<T><<<grid(B), dim3(32, 8), 0, s>>>(u, w, Bt, a, tau, static_cast<T>(frac_[a]), E);
    ADI_CUDA_CHECK_LAUNCH("split_rhs_kernel");
    return true;
  }

  /// The Dirichlet nodes back to their data.
  void reset(T* u, const BoxParams<T>& B, cudaStream_t s) {
    for (std::size_t f = 0; f < planes_.size(); ++f) {
      const SplitPlaneArgs<T> A = args(f);
      split_reset_kernel<T><<<plane_blocks(A), 256, 0, s>>>(u, B, A);
      ADI_CUDA_CHECK_LAUNCH("split_reset_kernel");
    }
  }

 private:
  struct Buffers {
    DeviceBuffer<T> r, g1;
    DeviceBuffer<std::int8_t> owner;
    DeviceBuffer<double> value;
  };
  SplitPlaneArgs<T> args(std::size_t f) const {
    const SplitDirichlet::Plane& pl = split_.planes[f];
    SplitPlaneArgs<T> A;
    A.axis = pl.axis;
    A.o1 = pl.o1;
    A.o2 = pl.o2;
    A.plane = pl.plane;
    A.n1 = pl.n1;
    A.n2 = pl.n2;
    A.owner = planes_[f].owner.get();
    A.value = planes_[f].value.get();
    A.r = planes_[f].r.get();
    A.g1 = planes_[f].g1.get();
    return A;
  }
  static unsigned plane_blocks(const SplitPlaneArgs<T>& A) {
    return static_cast<unsigned>(std::max<index_t>(1, std::min<index_t>((A.n1 * A.n2 + 255) / 256, 4096)));
  }
  static dim3 grid(const BoxParams<T>& B) {
    const index_t gy = (B.P.n[1] + 7) / 8;
    ADI_REQUIRE(gy <= 65535, "the Strang kernels: ny too large for their grid");
    return dim3(static_cast<unsigned>((B.P.n[0] + 31) / 32), static_cast<unsigned>(gy),
                static_cast<unsigned>(std::min<index_t>(B.P.n[2], 65535)));
  }

  HeatProblem p_;
  SplitDirichlet split_;
  std::array<double, 3> frac_{};
  double share_ = 0.0;
  std::vector<Buffers> planes_;
};

}  // namespace adi::cuda::general
