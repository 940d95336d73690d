// The nonlinear step's material on the device (nonlinear_material.cuh).
// Compiled with -fmad=false (CMakeLists.txt): every product and sum rounds
// as the host's does, so the coefficients are the host evaluation's bits.

#include "nonlinear_material.cuh"

#include "../cuda_check.hpp"

#include <math_constants.h>

#include <adi/error.hpp>
#include <adi/radiation.hpp>
#include <adi/temperature.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace adi::cuda::general {

namespace {

constexpr int kThreads = 256;
constexpr int kProperties = 4;  // per material: K x, y, z and c

using adi::detail::table_at;  // adi/temperature.hpp: the host's lookups, the same bits
using adi::detail::table_mean;

// TemperatureState::evaluate_step's values, converted as the stepper's
// load does (K to T, 1/c = T(1) / T(c)). A node one of whose tables does
// not hold its temperatures sets bit 1 of *fail.
template <class T>
__global__ void temperature_kernel(const T* __restrict__ u0, const T* __restrict__ u1,
                                   const std::uint8_t* __restrict__ ids, const int* __restrict__ toff,
                                   const int* __restrict__ tlen, const double* __restrict__ tt,
                                   const double* __restrict__ tv, MaterialTargets<T> out, index_t count, int* fail) {
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  bool ok = true;
  for (index_t q = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < count; q += stride) {
    const int m = ids ? static_cast<int>(ids[q]) : 0;
    const double a = static_cast<double>(u0[q]), b = static_cast<double>(u1[q]);
    for (int w = 0; w < out.k_properties; ++w) {
      const int r = m * kProperties + w;
      const double *t = tt + toff[r], *v = tv + toff[r];
      const int n = tlen[r];
      // Both ends inside the table (what the host's two lookups establish;
      // the midpoint then is too), then the one value used.
      double k = 1.0;
      const bool in = n == 1 || (a >= t[0] && a <= t[n - 1] && b >= t[0] && b <= t[n - 1]);
      ok = in && table_at(t, v, n, 0.5 * (a + b), k) && ok;
      if (out.k[w]) out.k[w][q] = static_cast<T>(k);
    }
    if (out.rho) {
      const int r = m * kProperties + 3;
      double c = 1.0;
      ok = table_mean(tt + toff[r], tv + toff[r], tlen[r], a, b, c) && ok;
      out.rho[q] = T(1) / static_cast<T>(c);
    }
  }
  if (!ok) atomicOr(fail, 1);
}

// RadiationState::evaluate's source (H = 0: the marching step's form):
// q(x) f(t*) plus, per radiating face of the node in face order, (2 / h) F.
struct RadiationParams {
  index_t n[3];
  index_t plane[6];  // the face's plane index; -1: the face does not radiate
  double es[6], a4[6], scale[6];
  double w0, w1, f, q_const;
};

template <class T>
__global__ void radiation_kernel(const T* __restrict__ u0, const T* __restrict__ u1,
                                 const double* __restrict__ q_user, RadiationParams R, T* __restrict__ q_out,
                                 index_t count, int* fail) {
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  const double H = 0.0;
  bool ok = true;
  for (index_t q = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < count; q += stride) {
    double val = (q_user ? q_user[q] : R.q_const) * R.f;
    const index_t ijk[3] = {q % R.n[0], (q / R.n[0]) % R.n[1], q / (R.n[0] * R.n[1])};
    for (int face = 0; face < 6; ++face) {
      if (R.plane[face] < 0 || ijk[face / 2] != R.plane[face]) continue;
      const double x0 = static_cast<double>(u0[q]), x1 = static_cast<double>(u1[q]);
      if (!(x0 > 0.0 && x1 > 0.0 && isfinite(x0) && isfinite(x1))) {
        ok = false;
        continue;
      }
      val += adi::detail::radiation_term(x0, x1, R.es[face], R.a4[face], R.w0, R.w1, H, R.scale[face]);
    }
    ok = ok && isfinite(val);  // the stepper's check of its source field
    q_out[q] = static_cast<T>(val);
  }
  if (!ok) atomicOr(fail, 2);
}

__device__ double warp_max(double v) {
  for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_down_sync(0xffffffffu, v, o));
  return v;
}

// The three maxima of DeviceIterates::iterate_change: per warp, per block,
// then atomicMax on the bits (a non-negative double's bits order as it does).
template <class T>
__global__ void change_kernel(const T* __restrict__ u, const T* __restrict__ prev, const T* __restrict__ base,
                              index_t count, unsigned long long* out) {
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  double m[3] = {0.0, 0.0, 0.0};
  for (index_t q = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < count; q += stride) {
    const double x = static_cast<double>(u[q]);
    const double c = fabs(x - static_cast<double>(prev[q]));
    m[0] = isfinite(c) ? fmax(m[0], c) : CUDART_INF;
    m[1] = fmax(m[1], fabs(x - static_cast<double>(base[q])));
    m[2] = fmax(m[2], fabs(x));
  }
  __shared__ double part[3][kThreads / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int w = 0; w < 3; ++w) {
    const double v = warp_max(m[w]);
    if (lane == 0) part[w][warp] = v;
  }
  __syncthreads();
  if (warp == 0) {
    for (int w = 0; w < 3; ++w) {
      double v = lane < kThreads / 32 ? part[w][lane] : 0.0;
      v = warp_max(v);
      if (lane == 0) atomicMax(out + w, static_cast<unsigned long long>(__double_as_longlong(v)));
    }
  }
}

// The extrapolated step's end: 2 u is exact, so one rounding, as the host's
// T(2) * u - prev (no contraction to change it either: 2 u - prev rounds
// the same fused or not).
template <class T>
__global__ void extrapolate_kernel(const T* __restrict__ u, const T* __restrict__ prev, T* __restrict__ out,
                                   index_t count) {
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t q = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < count; q += stride)
    out[q] = T(2) * u[q] - prev[q];
}

// TemperatureState::conserve_enthalpy: per node of a table capacity off the
// Dirichlet faces, the chord of [u0, u1] (as the evaluation's) and the
// inverse of the enthalpy from u0; a node whose enthalpy leaves its table
// keeps v and sets *fail.
struct ConserveParams {
  index_t n[3];
  bool fixed[6];
};

template <class T>
__global__ void conserve_kernel(const T* __restrict__ u0, const T* __restrict__ u1, T* __restrict__ v,
                                const std::uint8_t* __restrict__ ids, const int* __restrict__ toff,
                                const int* __restrict__ tlen, const double* __restrict__ tt,
                                const double* __restrict__ tv, ConserveParams P, index_t count, int* fail) {
  const index_t stride = static_cast<index_t>(gridDim.x) * blockDim.x;
  bool ok = true;
  for (index_t q = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; q < count; q += stride) {
    const int r = (ids ? static_cast<int>(ids[q]) : 0) * kProperties + 3;
    const int n = tlen[r];
    if (n == 1) continue;
    const index_t g[3] = {q % P.n[0], (q / P.n[0]) % P.n[1], q / (P.n[0] * P.n[1])};
    bool face = false;
    for (int a = 0; a < 3; ++a)
      face = face || (P.fixed[2 * a] && g[a] == 0) || (P.fixed[2 * a + 1] && g[a] == P.n[a] - 1);
    if (face) continue;
    const double *t = tt + toff[r], *tvr = tv + toff[r];
    const double a = static_cast<double>(u0[q]), b = static_cast<double>(u1[q]);
    double c = 0.0, x = 0.0;
    if (table_mean(t, tvr, n, a, b, c) &&
        adi::detail::table_enthalpy_inverse(t, tvr, n, a, c * (static_cast<double>(v[q]) - a), x))
      v[q] = static_cast<T>(x);
    else
      ok = false;
  }
  if (!ok) atomicOr(fail, 1);
}

unsigned blocks_for(index_t count, int sm_count) {
  const index_t want = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::max<index_t>(1, std::min<index_t>(want, static_cast<index_t>(sm_count) * 16)));
}

}  // namespace

template <class T>
bool NonlinearMaterial<T>::supported(const HeatProblem& p) {
  if (p.material.temperature && p.material.temperature->materials().size() > 256) return false;
  return p.material.temperature != nullptr || p.radiation != nullptr;
}

template <class T>
std::size_t NonlinearMaterial<T>::bytes_needed(const HeatProblem& p, std::size_t points) {
  std::size_t b = 2 * points * sizeof(T);
  if (p.material.temperature && p.material.temperature->index_source()) b += points;
  if (p.radiation && p.radiation->source_field()) b += points * sizeof(double);
  return b;
}

template <class T>
NonlinearMaterial<T>::NonlinearMaterial(const HeatProblem& p, std::size_t points)
    : rad_(p.radiation), points_(points), n_(p.n) {
  ADI_REQUIRE(supported(p), "NonlinearMaterial: no temperature-dependent material or radiating face to evaluate");
  ADI_REQUIRE(points == static_cast<std::size_t>(p.points()), "NonlinearMaterial: the field is not the packed grid");
  int dev = 0;
  ADI_CUDA_CHECK(cudaGetDevice(&dev));
  ADI_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count_, cudaDevAttrMultiProcessorCount, dev));
  if (const TemperatureState* st = p.material.temperature.get()) {
    std::vector<double> tt, tv;
    std::vector<int> off, len;
    for (const TemperatureMaterial& m : st->materials())
      for (int w = 0; w < kProperties; ++w) {
        const PropertyTable& tb = w < 3 ? m.conductivity[w] : m.capacity;
        off.push_back(static_cast<int>(tv.size()));
        len.push_back(tb.points());
        if (tb.constant()) {
          tt.push_back(0.0);
          tv.push_back(tb.v[0]);
        } else {
          tt.insert(tt.end(), tb.t.begin(), tb.t.end());
          tv.insert(tv.end(), tb.v.begin(), tb.v.end());
        }
      }
    tt_.upload(tt);
    tv_.upload(tv);
    toff_.upload(off);
    tlen_.upload(len);
    if (const auto& src = st->index_source()) {
      std::vector<double> v(points);
      src->read({{0, 0, 0}}, p.n, v.data());
      std::vector<std::uint8_t> ids(points);
      for (std::size_t q = 0; q < points; ++q) {
        ADI_REQUIRE(v[q] >= 0 && v[q] < static_cast<double>(st->materials().size()) && v[q] == std::floor(v[q]),
                    src->name() + ": not a material's position");
        ids[q] = static_cast<std::uint8_t>(v[q]);
      }
      ids_.upload(ids);
    }
  }
  if (rad_ && rad_->source_field()) {
    std::vector<double> v(points);
    rad_->source_field()->read({{0, 0, 0}}, p.n, v.data());
    q_user_.upload(v);
  }
  for (auto& s : slot_) s.resize(points);
  fail_.resize(1);
  max_.resize(3);
  // DeviceBuffer::upload may return before its DMA lands (pageable memory),
  // and the stepper's stream does not wait for the legacy stream.
  ADI_CUDA_CHECK(cudaDeviceSynchronize());
}

template <class T>
bool NonlinearMaterial<T>::evaluate(const T* u0, const T* u1, double tstar, const MaterialTargets<T>& out,
                                    cudaStream_t stream) {
  const auto count = static_cast<index_t>(points_);
  const unsigned blocks = blocks_for(count, sm_count_);
  ADI_CUDA_CHECK(cudaMemsetAsync(fail_.get(), 0, sizeof(int), stream));
  if (out.k_properties > 0 || out.rho) {
    temperature_kernel<T><<<blocks, kThreads, 0, stream>>>(u0, u1, ids_.size() ? ids_.get() : nullptr, toff_.get(),
                                                           tlen_.get(), tt_.get(), tv_.get(), out, count,
                                                           fail_.get());
    ADI_CUDA_CHECK_LAUNCH("temperature_kernel");
  }
  if (rad_ && out.q) {
    RadiationParams R{};
    for (int a = 0; a < 3; ++a) R.n[a] = n_[static_cast<std::size_t>(a)];
    for (int face = 0; face < 6; ++face) {
      const int a = face / 2;
      const double eps = rad_->emissivity(face);
      R.plane[face] = eps > 0.0 ? (face % 2 ? n_[static_cast<std::size_t>(a)] - 1 : 0) : -1;
      R.es[face] = eps * kStefanBoltzmann;
      R.a4[face] = std::pow(rad_->ambient(face), 4);
      R.scale[face] = 2.0 / rad_->face_gap(face);
    }
    R.w0 = 1.0 - rad_->theta();
    R.w1 = rad_->theta();
    R.f = rad_->source_table().at(tstar);
    R.q_const = rad_->source_constant();
    radiation_kernel<T><<<blocks, kThreads, 0, stream>>>(u0, u1, q_user_.size() ? q_user_.get() : nullptr, R, out.q,
                                                         count, fail_.get());
    ADI_CUDA_CHECK_LAUNCH("radiation_kernel");
  }
  int fail = 0;
  ADI_CUDA_CHECK(cudaMemcpyAsync(&fail, fail_.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  ADI_CUDA_CHECK(cudaStreamSynchronize(stream));
  return fail == 0;
}

template <class T>
std::array<double, 3> NonlinearMaterial<T>::change(const T* u, const T* prev, const T* base, cudaStream_t stream) {
  const auto count = static_cast<index_t>(points_);
  ADI_CUDA_CHECK(cudaMemsetAsync(max_.get(), 0, 3 * sizeof(unsigned long long), stream));
  change_kernel<T><<<blocks_for(count, sm_count_), kThreads, 0, stream>>>(u, prev, base, count, max_.get());
  ADI_CUDA_CHECK_LAUNCH("change_kernel");
  unsigned long long bits[3] = {0, 0, 0};
  ADI_CUDA_CHECK(cudaMemcpyAsync(bits, max_.get(), sizeof bits, cudaMemcpyDeviceToHost, stream));
  ADI_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::array<double, 3> m{};
  for (int w = 0; w < 3; ++w) std::memcpy(&m[static_cast<std::size_t>(w)], &bits[w], sizeof(double));
  return m;
}

template <class T>
void NonlinearMaterial<T>::extrapolate(const T* u, const T* prev, T* out, cudaStream_t stream) {
  const auto count = static_cast<index_t>(points_);
  extrapolate_kernel<T><<<blocks_for(count, sm_count_), kThreads, 0, stream>>>(u, prev, out, count);
  ADI_CUDA_CHECK_LAUNCH("extrapolate_kernel");
}

template <class T>
bool NonlinearMaterial<T>::conserve(const T* u0, const T* u1, T* v, const std::array<bool, 6>& fixed,
                                    cudaStream_t stream) {
  const auto count = static_cast<index_t>(points_);
  ConserveParams P{};
  for (int a = 0; a < 3; ++a) P.n[a] = n_[static_cast<std::size_t>(a)];
  for (int f = 0; f < 6; ++f) P.fixed[f] = fixed[static_cast<std::size_t>(f)];
  ADI_CUDA_CHECK(cudaMemsetAsync(fail_.get(), 0, sizeof(int), stream));
  conserve_kernel<T><<<blocks_for(count, sm_count_), kThreads, 0, stream>>>(
      u0, u1, v, ids_.size() ? ids_.get() : nullptr, toff_.get(), tlen_.get(), tt_.get(), tv_.get(), P, count,
      fail_.get());
  ADI_CUDA_CHECK_LAUNCH("conserve_kernel");
  int fail = 0;
  ADI_CUDA_CHECK(cudaMemcpyAsync(&fail, fail_.get(), sizeof(int), cudaMemcpyDeviceToHost, stream));
  ADI_CUDA_CHECK(cudaStreamSynchronize(stream));
  return fail == 0;
}

template <class T>
std::size_t NonlinearMaterial<T>::bytes() const {
  return tt_.bytes() + tv_.bytes() + toff_.bytes() + tlen_.bytes() + ids_.bytes() + q_user_.bytes() +
         slot_[0].bytes() + slot_[1].bytes() + fail_.bytes() + max_.bytes();
}

template class NonlinearMaterial<float>;
template class NonlinearMaterial<double>;

}  // namespace adi::cuda::general
