// The cuSPARSE baseline for `adi3d bench --baseline cusparse`: the same
// Douglas step with cuSPARSE's batched tridiagonal solvers, which cannot
// exploit constant coefficients, so the three diagonals of every axis live in
// device memory (9 full grids) and are read on every solve. Packed layout.
//   x: gtsv2StridedBatch   (system (j,k) starts at (k ny + j) nx, stride 1)
//   y: each z-plane transposed (x <-> y), gtsv2StridedBatch on the now
//      contiguous y lines, transposed back (cuSPARSE has no batched solver
//      for lines of stride nx inside planes; gtsvInterleavedBatch per plane
//      is correct but launches nz tiny batches and measured far slower)
//   z: gtsvInterleavedBatch (nx ny systems interleaved, m = nz)
// Our own RHS kernel and a plain u += w kernel complete the step. Some of the
// cuSPARSE routines may overwrite their coefficient arrays, so the timed
// repetitions restore them from pristine copies outside the timed interval.
//
// A general problem (K and c fields, a source, flux / Robin faces; not
// periodic: cuSPARSE has no batched cyclic solver) is what the coefficient
// arrays are for: every row from the node's and its neighbours' K and 1/c,
// as the CPU oracle builds it (row_coupling, implicit_row). Its RHS is
// adi3d's general RHS (the general stepper's Rhs phase, timed on its own
// stream), then the same cuSPARSE solves and update.

#include <adi/detail/entry_points.hpp>
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "rhs_kernel.cuh"

#include <adi/analytic.hpp>
#include <adi/cuda.hpp>
#include <adi/discrete.hpp>
#include <adi/scheme.hpp>
#include <adi/step_plan.hpp>
#include <adi/stepper.hpp>

#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>

namespace adi::cuda {

namespace {

#define ADI_CUSPARSE_CHECK(call)                                                                         \
  do {                                                                                                   \
    const cusparseStatus_t s_ = (call);                                                                  \
    if (s_ != CUSPARSE_STATUS_SUCCESS)                                                                   \
      ADI_THROW(BackendUnavailable, std::string("cuSPARSE error ") + cusparseGetErrorString(s_) + " in " + #call); \
  } while (0)

// out[k][i][j] = in[k][j][i] for each of nz planes of ny x nx (32 x 32 tiles
// through shared memory, padded by one column against bank conflicts).
template <class T>
__global__ void transpose_planes(const T* __restrict__ in, T* __restrict__ out, index_t nx, index_t ny) {
  __shared__ T tile[32][33];
  const index_t k = blockIdx.z, plane = nx * ny;
  const index_t x0 = static_cast<index_t>(blockIdx.x) * 32, y0 = static_cast<index_t>(blockIdx.y) * 32;
  for (int r = threadIdx.y; r < 32; r += blockDim.y) {
    const index_t x = x0 + threadIdx.x, y = y0 + r;
    if (x < nx && y < ny) tile[r][threadIdx.x] = in[k * plane + y * nx + x];
  }
  __syncthreads();
  for (int r = threadIdx.y; r < 32; r += blockDim.y) {
    const index_t y = y0 + threadIdx.x, x = x0 + r;
    if (x < nx && y < ny) out[k * plane + x * ny + y] = tile[threadIdx.x][r];
  }
}

template <class T>
void launch_transpose(const T* in, T* out, index_t nx, index_t ny, index_t nz, cudaStream_t st) {
  const dim3 grid(static_cast<unsigned>((nx + 31) / 32), static_cast<unsigned>((ny + 31) / 32),
                  static_cast<unsigned>(nz));
  transpose_planes<T><<<grid, dim3(32, 8), 0, st>>>(in, out, nx, ny);
  ADI_CUDA_CHECK_LAUNCH("transpose_planes");
}

template <class T>
__global__ void add_kernel(T* __restrict__ u, const T* __restrict__ w, index_t n) {
  for (index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<index_t>(gridDim.x) * blockDim.x)
    u[i] += w[i];
}

// Type dispatch for the cuSPARSE entry points.
struct Sparse {
  static cusparseStatus_t strided_size(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                                       const float* x, int b, int s, size_t* sz) {
    return cusparseSgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, b, s, sz);
  }
  static cusparseStatus_t strided_size(cusparseHandle_t h, int m, const double* dl, const double* d,
                                       const double* du, const double* x, int b, int s, size_t* sz) {
    return cusparseDgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, b, s, sz);
  }
  static cusparseStatus_t strided(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                                  float* x, int b, int s, void* buf) {
    return cusparseSgtsv2StridedBatch(h, m, dl, d, du, x, b, s, buf);
  }
  static cusparseStatus_t strided(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                                  double* x, int b, int s, void* buf) {
    return cusparseDgtsv2StridedBatch(h, m, dl, d, du, x, b, s, buf);
  }
  static cusparseStatus_t inter_size(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                                     const float* x, int b, size_t* sz) {
    return cusparseSgtsvInterleavedBatch_bufferSizeExt(h, 0, m, dl, d, du, x, b, sz);
  }
  static cusparseStatus_t inter_size(cusparseHandle_t h, int m, const double* dl, const double* d,
                                     const double* du, const double* x, int b, size_t* sz) {
    return cusparseDgtsvInterleavedBatch_bufferSizeExt(h, 0, m, dl, d, du, x, b, sz);
  }
  static cusparseStatus_t inter(cusparseHandle_t h, int m, float* dl, float* d, float* du, float* x, int b,
                                void* buf) {
    return cusparseSgtsvInterleavedBatch(h, 0, m, dl, d, du, x, b, buf);
  }
  static cusparseStatus_t inter(cusparseHandle_t h, int m, double* dl, double* d, double* du, double* x, int b,
                                void* buf) {
    return cusparseDgtsvInterleavedBatch(h, 0, m, dl, d, du, x, b, buf);
  }
};

// Expands the axis' line matrix to per-point diagonals in the packed layout.
template <class T>
void fill_diagonals(const HeatProblem& p, Axis axis, std::vector<T>& dl, std::vector<T>& dd, std::vector<T>& du) {
  const LineMatrix m = douglas_line_matrix(p, axis);
  const index_t nx = p.n[0], ny = p.n[1], nz = p.n[2];
  const std::size_t N = static_cast<std::size_t>(p.points());
  dl.resize(N);
  dd.resize(N);
  du.resize(N);
  for (index_t k = 0; k < nz; ++k)
    for (index_t j = 0; j < ny; ++j)
      for (index_t i = 0; i < nx; ++i) {
        const index_t r = axis == Axis::X ? i : axis == Axis::Y ? j : k;
        // y diagonals are laid out for the transposed planes ([k][i][j]).
        const std::size_t o = axis == Axis::Y ? static_cast<std::size_t>(k * nx * ny + i * ny + j)
                                              : static_cast<std::size_t>((k * ny + j) * nx + i);
        dl[o] = static_cast<T>(m.a[r]);
        dd[o] = static_cast<T>(m.b[r]);
        du[o] = static_cast<T>(m.c[r]);
      }
}

// The same for a general problem: row i of (I - theta dt A_a) from K (this
// axis' field, or alpha_a) and rho = 1 / c (a field, or 1 / capacity) at the
// node and its neighbours; identity rows on Dirichlet faces. At a Mirror end
// the missing neighbour is never used by row_coupling (the node stands in).
template <class T>
void fill_general_diagonals(const HeatProblem& p, Axis axis, const std::vector<double>& K,
                            const std::vector<double>& rho, std::vector<T>& dl, std::vector<T>& dd,
                            std::vector<T>& du) {
  const int a = axis_index(axis);
  const index_t nx = p.n[0], ny = p.n[1], nz = p.n[2];
  const index_t s[3] = {1, nx, nx * ny};
  AxisEnds<T> e;
  e.n = p.n[a];
  e.lo = line_end(p.lo[a]);
  e.hi = line_end(p.hi[a]);
  const double h = p.spacing(a);
  e.inv_h2 = static_cast<T>(1.0 / (h * h));
  if (p.lo[a] == Boundary::Robin) e.lo_robin = static_cast<T>(2.0 * p.lo_data[a].h / h);
  if (p.hi[a] == Boundary::Robin) e.hi_robin = static_cast<T>(2.0 * p.hi_data[a].h / h);
  const T tdt = static_cast<T>(p.theta * p.dt);
  const std::size_t N = static_cast<std::size_t>(p.points());
  dl.assign(N, T(0));
  dd.assign(N, T(1));
  du.assign(N, T(0));
  auto k_at = [&](index_t o) { return static_cast<T>(K.empty() ? p.alpha[a] : K[static_cast<std::size_t>(o)]); };
  for (index_t k = 0; k < nz; ++k)
    for (index_t j = 0; j < ny; ++j)
      for (index_t i = 0; i < nx; ++i) {
        const index_t idx[3] = {i, j, k}, r = idx[a], o = (k * ny + j) * nx + i;
        const std::size_t out = axis == Axis::Y ? static_cast<std::size_t>(k * nx * ny + i * ny + j)
                                                : static_cast<std::size_t>(o);
        if (fixed_row(r, e)) continue;  // identity
        const T km = k_at(r > 0 ? o - s[a] : o), kc = k_at(o), kp = k_at(r < e.n - 1 ? o + s[a] : o);
        const T rh = static_cast<T>(rho.empty() ? 1.0 / p.capacity : rho[static_cast<std::size_t>(o)]);
        implicit_row(row_coupling<T>(r, e, km, kc, kp, rh), tdt, dl[out], dd[out], du[out]);
      }
}

}  // namespace

template <class T>
BaselineTimings cusparse_baseline(const HeatProblem& p, int warmup, int reps) {
  p.validate();
  const index_t nx = p.n[0], ny = p.n[1], nz = p.n[2];
  const std::size_t N = static_cast<std::size_t>(p.points());
  ADI_REQUIRE(p.points() < (index_t(1) << 31), "the cuSPARSE baseline needs fewer than 2^31 points");
  const Layout3 L = Layout3::packed(nx, ny, nz);
  BaselineTimings out;

  // Fields and the nine diagonals (plus pristine copies restored between reps).
  std::vector<T> h_u;
  fill_analytic(p, h_u);
  const bool general = !plan_step(p).constant_tables();
  std::unique_ptr<Stepper<T>> gen;  // a general problem's RHS (and its reference step)
  std::vector<T> h_rhs;
  std::vector<double> rho;
  if (general) {
    for (int a = 0; a < 3; ++a)
      ADI_REQUIRE(!p.periodic(a) && !p.flat(a), "the cuSPARSE baseline has no periodic (cyclic) or flat axes");
    gen = make_cuda_stepper<T>(p);
    gen->set_field(h_u.data());
    gen->impose_boundary_values();
    gen->get_field(h_u.data());
    gen->run_phase(Phase::Rhs);
    h_rhs.resize(N);
    gen->get_work(h_rhs.data());
    if (p.material.capacity) {
      rho.resize(N);
      p.material.capacity->read({{0, 0, 0}}, p.n, rho.data());
      for (double& r : rho) r = 1.0 / r;
    }
  }
  DeviceBuffer<T> u(N), w(N), wt(N);
  upload_blocking(u.get(), h_u.data(), N);  // landed before the non-blocking stream below reads it
  DeviceBuffer<T> diag[3][3], pristine[3][3];
  for (int a = 0; a < 3; ++a) {
    std::vector<T> dl, dd, du;
    if (general) {
      std::vector<double> K;
      if (const auto& src = p.material.conductivity[a]) {
        K.resize(N);
        src->read({{0, 0, 0}}, p.n, K.data());
      }
      fill_general_diagonals(p, static_cast<Axis>(a), K, rho, dl, dd, du);
    } else {
      fill_diagonals(p, static_cast<Axis>(a), dl, dd, du);
    }
    diag[a][0].upload(dl);
    diag[a][1].upload(dd);
    diag[a][2].upload(du);
    pristine[a][0].upload(dl);
    pristine[a][1].upload(dd);
    pristine[a][2].upload(du);
  }
  cusparseHandle_t h;
  ADI_CUSPARSE_CHECK(cusparseCreate(&h));
  cudaStream_t st;
  ADI_CUDA_CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  ADI_CUSPARSE_CHECK(cusparseSetStream(h, st));
  std::size_t sx = 0, sy = 0, sz = 0;
  ADI_CUSPARSE_CHECK(Sparse::strided_size(h, static_cast<int>(nx), diag[0][0].get(), diag[0][1].get(),
                                          diag[0][2].get(), w.get(), static_cast<int>(ny * nz),
                                          static_cast<int>(nx), &sx));
  ADI_CUSPARSE_CHECK(Sparse::strided_size(h, static_cast<int>(ny), diag[1][0].get(), diag[1][1].get(),
                                          diag[1][2].get(), wt.get(), static_cast<int>(nx * nz),
                                          static_cast<int>(ny), &sy));
  ADI_CUSPARSE_CHECK(Sparse::inter_size(h, static_cast<int>(nz), diag[2][0].get(), diag[2][1].get(),
                                        diag[2][2].get(), w.get(), static_cast<int>(nx * ny), &sz));
  DeviceBuffer<char> buf(std::max({sx, sy, sz, std::size_t(16)}));
  const RhsCoefficients<T> kc = rhs_coefficients<T>(p);

  auto restore = [&](int a) {
    for (int q = 0; q < 3; ++q)
      ADI_CUDA_CHECK(cudaMemcpyAsync(diag[a][q].get(), pristine[a][q].get(), N * sizeof(T),
                                     cudaMemcpyDeviceToDevice, st));
  };
  auto phase = [&](int which) {
    switch (which) {
      case 0:
        if (general)  // the general RHS is timed on the stepper's stream (below); here its values
          ADI_CUDA_CHECK(cudaMemcpyAsync(w.get(), h_rhs.data(), N * sizeof(T), cudaMemcpyHostToDevice, st));
        else
          launch_rhs(u.get(), w.get(), L, kc, st);
        break;
      case 1:
        ADI_CUSPARSE_CHECK(Sparse::strided(h, static_cast<int>(nx), diag[0][0].get(), diag[0][1].get(),
                                           diag[0][2].get(), w.get(), static_cast<int>(ny * nz),
                                           static_cast<int>(nx), buf.get()));
        break;
      case 2:
        launch_transpose(w.get(), wt.get(), nx, ny, nz, st);
        ADI_CUSPARSE_CHECK(Sparse::strided(h, static_cast<int>(ny), diag[1][0].get(), diag[1][1].get(),
                                           diag[1][2].get(), wt.get(), static_cast<int>(nx * nz),
                                           static_cast<int>(ny), buf.get()));
        launch_transpose(wt.get(), w.get(), ny, nx, nz, st);
        break;
      case 3:
        ADI_CUSPARSE_CHECK(Sparse::inter(h, static_cast<int>(nz), diag[2][0].get(), diag[2][1].get(),
                                         diag[2][2].get(), w.get(), static_cast<int>(nx * ny), buf.get()));
        break;
      case 4: {
        const unsigned blocks = static_cast<unsigned>(std::min<index_t>((p.points() + 255) / 256, 1 << 16));
        add_kernel<T><<<blocks, 256, 0, st>>>(u.get(), w.get(), p.points());
        ADI_CUDA_CHECK_LAUNCH("add_kernel");
        break;
      }
    }
  };

  // Correctness of the baseline: one step against adi3d's CUDA stepper.
  for (int q = 0; q < 5; ++q) phase(q);
  ADI_CUDA_CHECK(cudaStreamSynchronize(st));
  {
    std::vector<T> base(N), ours(N);
    ADI_CUDA_CHECK(cudaMemcpyAsync(base.data(), u.get(), N * sizeof(T), cudaMemcpyDeviceToHost, st));
    ADI_CUDA_CHECK(cudaStreamSynchronize(st));
    auto stepper = make_cuda_stepper<T>(p);
    stepper->set_field(h_u.data());
    stepper->step();
    stepper->get_field(ours.data());
    double worst = 0, scale = 1e-300;
    for (std::size_t q = 0; q < N; ++q) {
      worst = std::max(worst, std::fabs(static_cast<double>(base[q]) - static_cast<double>(ours[q])));
      scale = std::max(scale, std::fabs(static_cast<double>(ours[q])));
    }
    out.max_rel_diff = worst / scale;
  }

  cudaEvent_t e0, e1, e2;
  ADI_CUDA_CHECK(cudaEventCreate(&e0));
  ADI_CUDA_CHECK(cudaEventCreate(&e1));
  ADI_CUDA_CHECK(cudaEventCreate(&e2));
  auto elapsed = [&](cudaEvent_t a, cudaEvent_t b) {
    float t = 0;
    ADI_CUDA_CHECK(cudaEventElapsedTime(&t, a, b));
    return static_cast<double>(t);
  };
  std::vector<double>* per_phase[5] = {&out.rhs, &out.x, &out.y, &out.z, &out.update};
  for (int r = 0; r < warmup + reps; ++r) {
    double step_ms = 0;
    for (int q = 0; q < 5; ++q) {
      if (q >= 1 && q <= 3) restore(q - 1);
      double t = 0;
      if (q == 0 && general) {
        t = gen->time_phase(Phase::Rhs, 0, 1).front();
      } else {
        ADI_CUDA_CHECK(cudaEventRecord(e0, st));
        phase(q);
        ADI_CUDA_CHECK(cudaEventRecord(e1, st));
        ADI_CUDA_CHECK(cudaEventSynchronize(e1));
        t = elapsed(e0, e1);
      }
      step_ms += t;
      if (r >= warmup) per_phase[q]->push_back(t);
    }
    if (r >= warmup) out.step.push_back(step_ms);
  }
  out.bytes_allocated = (3 + 18) * N * sizeof(T) + buf.bytes();
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaEventDestroy(e2);
  cusparseDestroy(h);
  cudaStreamDestroy(st);
  return out;
}

template BaselineTimings cusparse_baseline<float>(const HeatProblem&, int, int);
template BaselineTimings cusparse_baseline<double>(const HeatProblem&, int, int);

}  // namespace adi::cuda
