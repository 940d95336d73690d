// The CUDA backend's RHS and conductive line solve against the CPU backend
// (the oracle): every boundary combination, packed and padded layouts,
// awkward lengths, fp32 and fp64, fresh random data (seed printed), poisoned
// padding. (The line solves are test_cuda_solver.cu's; the same executable.)

#include "gpu_support.hpp"
#include "test_util.hpp"

#include <adi/cuda.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>
#include <string>

using namespace adi;
using namespace adi::test;

namespace {

// The RHS on every boundary combination, packed and padded, on one z chunk
// (nz = 23) and on three (nz = 71: the kernel marches 32 planes a block, and
// the last plane of a chunk takes its upper neighbour from the next), with
// every prefetch depth of the point-per-thread kernel.
template <class T>
void rhs_is_equivalent_to_ref(LayoutKind kind, index_t nz);

// The CUDA RHS of p on a random field in layout L against the CPU's, relative
// to the CPU's largest value (padding must stay untouched).
template <class T>
double rhs_error(const HeatProblem& p, const Layout3& L, const SolverOptions& opt, SeededRng& rng) {
  const auto u = random_field<T>(rng, L);
  std::vector<T> want(u.size(), poison<T>());
  cpu::douglas_rhs(u.data(), want.data(), L, p);
  DeviceBuffer<T> du(u), dw(std::vector<T>(u.size(), poison<T>()));
  cuda::douglas_rhs(du.get(), dw.get(), L, p, nullptr, opt);
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    ADD_FAILURE() << "cudaDeviceSynchronize: " << cudaGetErrorName(e) << " " << cudaGetErrorString(e);
    return INFINITY;
  }
  return compare_fields(dw.download(), want, L);
}
template <class T>
constexpr double rhs_tolerance() {
  return std::is_same<T, float>::value ? 1e-6 : 1e-14;
}

template <class T>
void rhs_is_equivalent_to_ref(LayoutKind kind) {
  for (index_t nz : {23, 71}) rhs_is_equivalent_to_ref<T>(kind, nz);
}

template <class T>
void rhs_is_equivalent_to_ref(LayoutKind kind, index_t nz) {
  SolverOptions opt;
  SeededRng rng;
  // Combinations 8-15: the axes in bits 0-2 of combo - 8 periodic (the
  // neighbours wrap), the others as in combination combo - 8.
  for (int combo = 0; combo < 16; ++combo) {
    HeatProblem p;
    p.n = {37, 29, nz};
    p.length = {1.0, 0.7, 0.5};
    p.alpha = {1.0, 0.3, 2.0};
    p.dt = 1e-3;
    for (int a = 0; a < 3; ++a) {
      const int bits = combo & 7;
      p.lo[a] = (bits >> a) & 1 ? Boundary::Neumann : Boundary::Dirichlet;
      p.hi[a] = (bits >> ((a + 1) % 3)) & 1 ? Boundary::Neumann : Boundary::Dirichlet;
      if (combo >= 8 && (bits >> a) & 1) p.lo[a] = p.hi[a] = Boundary::Periodic;
    }
    const Layout3 L = make_layout(p.n[0], p.n[1], p.n[2], kind);
    EXPECT_LE(rhs_error<T>(p, L, opt, rng), rhs_tolerance<T>())
        << "boundary combination " << combo << ", nz " << nz;
  }
}

// The vector kernels (4 points a thread; 2 in fp64) on periodic axes: a row
// of 35 points ends inside a thread's vector (its wrap is read from the row's
// start) and its first point's left neighbour is the row's last; rows 16-byte
// aligned (pitch 40), one z chunk and three.
template <class T>
void rhs_vector_periodic_is_equivalent_to_ref() {
  SeededRng rng;
  for (int V : {4, 2}) {
    if (V == 2 && sizeof(T) == 4) continue;
    SolverOptions opt;
    opt.rhs_vec = V;
    for (index_t nz : {9, 71})
      for (int combo = 1; combo < 8; ++combo) {
        HeatProblem p;
        p.n = {35, 13, nz};
        p.length = {1.0, 0.7, 0.5};
        p.alpha = {1.0, 0.3, 2.0};
        p.dt = 1e-3;
        for (int a = 0; a < 3; ++a)
          if ((combo >> a) & 1) p.lo[a] = p.hi[a] = Boundary::Periodic;
        p.lo[1] = p.lo[1] == Boundary::Periodic ? p.lo[1] : Boundary::Neumann;
        const Layout3 L = Layout3::padded(35, 13, nz, 40, 13);
        EXPECT_LE(rhs_error<T>(p, L, opt, rng), rhs_tolerance<T>())
            << "periodic axes " << combo << ", nz " << nz << ", V " << V;
      }
  }
}

TEST(CudaRhs, PeriodicVectorKernelIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  rhs_vector_periodic_is_equivalent_to_ref<double>();
}
TEST(CudaRhs, PeriodicVectorKernelIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  rhs_vector_periodic_is_equivalent_to_ref<float>();
}

TEST(CudaRhs, IsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  rhs_is_equivalent_to_ref<double>(LayoutKind::Packed);
  rhs_is_equivalent_to_ref<double>(LayoutKind::Padded);
}
TEST(CudaRhs, IsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  rhs_is_equivalent_to_ref<float>(LayoutKind::Packed);
  rhs_is_equivalent_to_ref<float>(LayoutKind::Padded);
}


// The conductive (K/c) line solve on the device against the CPU backend (the
// oracle, itself checked against a dense solve in test_conductive.cpp): the
// rows are built by the same functions without contraction, so the results
// are the same bits, for every end kind, axis, layout and awkward length.
template <class T>
void conductive_is_equivalent_to_ref() {
  SeededRng rng;
  const std::tuple<LineEnd, LineEnd, double, double> ends[] = {{LineEnd::Fixed, LineEnd::Fixed, 0, 0},
                                                               {LineEnd::Mirror, LineEnd::Fixed, 30.0, 0},
                                                               {LineEnd::Mirror, LineEnd::Mirror, 0, 12.0},
                                                               {LineEnd::Wrap, LineEnd::Wrap, 0, 0}};
  for (Axis axis : {Axis::X, Axis::Y, Axis::Z})
    for (index_t n : {1, 3, 33, 257})
      for (bool padded : {false, true})
        for (const auto& [lo, hi, rlo, rhi] : ends) {
          if (lo == LineEnd::Wrap && n < 3) continue;
          index_t ext[3] = {37, 6, 5};
          ext[axis_index(axis)] = n;
          const Layout3 L = padded ? Layout3::padded(ext[0], ext[1], ext[2], ext[0] + 5, ext[1] + 1)
                                   : Layout3::packed(ext[0], ext[1], ext[2]);
          auto d = random_field<T>(rng, L);
          std::vector<T> K(d.size(), T(1)), ic(d.size(), T(1));
          for (std::size_t q = 0; q < d.size(); ++q) {
            K[q] = static_cast<T>(0.1 * std::pow(1000.0, rng.uniform(0.0, 1.0)));
            ic[q] = static_cast<T>(1.0 / rng.uniform(0.5, 5.0));
          }
          ConductiveLines<T> lines;
          lines.h = 0.02;
          lines.tau = 5e-4;
          lines.lo = lo;
          lines.hi = hi;
          lines.lo_robin_h = rlo;
          lines.hi_robin_h = rhi;
          auto want = d;
          cpu::solve_conductive(axis, K.data(), ic.data(), lines, want.data(), L);
          DeviceBuffer<T> dK(K), dic(ic), dd(d);
          cuda::solve_conductive(axis, dK.get(), dic.get(), lines, dd.get(), L);
          const auto got = dd.download();
          std::size_t differ = 0;
          for (index_t k = 0; k < L.n[2]; ++k)
            for (index_t j = 0; j < L.n[1]; ++j)
              for (index_t i = 0; i < L.n[0]; ++i) {
                const index_t o = L.offset(i, j, k);
                differ += std::memcmp(&got[o], &want[o], sizeof(T)) != 0;
              }
          EXPECT_EQ(differ, 0u) << axis_name(axis) << " n " << n << (padded ? " padded" : " packed") << " ends "
                                << int(lo) << "/" << int(hi);
          EXPECT_LE(compare_fields(got, want, L), 0.0);  // also: the padding is still NaN
        }
  // bad values and a periodic line of 2 are refused as on the CPU
  const Layout3 L = Layout3::packed(4, 3, 3);
  std::vector<T> K(L.span(), T(1)), d(L.span(), T(0));
  K[5] = std::numeric_limits<T>::quiet_NaN();
  DeviceBuffer<T> dK(K), dd(d);
  ConductiveLines<T> ok;
  ok.h = 0.1;
  ok.tau = 1e-3;
  EXPECT_THROW(cuda::solve_conductive(Axis::Y, dK.get(), nullptr, ok, dd.get(), L), InvalidArgument);
  ok.lo = ok.hi = LineEnd::Wrap;
  EXPECT_THROW(cuda::solve_conductive(Axis::X, dK.get(), nullptr, ok, dd.get(), Layout3::packed(2, 3, 3)),
               InvalidArgument);
}
TEST(CudaConductive, IsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  conductive_is_equivalent_to_ref<double>();
}
TEST(CudaConductive, IsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  conductive_is_equivalent_to_ref<float>();
}
}  // namespace
