// The CUDA RHS on the sub-boxes of a distributed grid (ghost faces along y
// and z, read from ghost planes at index -1 and n) against the CPU RHS with
// the same coefficients, and against the whole grid's GPU RHS bit for bit;
// the vector kernel (aligned rows) and the scalar kernel (unaligned), boxes
// one node thick included. Also the constant-coefficient line solve on the
// short lines a rank's block can have (1 and 2 rows) and its padded layout.

#include "gpu_support.hpp"
#include "test_util.hpp"

#include <adi/cuda.hpp>
#include <adi/decomposition.hpp>

#include <cmath>
#include <string>

using namespace adi;
using namespace adi::test;

namespace {

HeatProblem problem(int bc) {
  HeatProblem p;
  p.n = {37, 29, 23};
  p.length = {1.3, 1.0, 0.7};
  p.alpha = {1.0, 0.6, 1.7};
  p.dt = 4e-4;
  if (bc == 1) {
    p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann};
    p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  } else if (bc == 2) {
    p.lo.fill(Boundary::Neumann);
    p.hi.fill(Boundary::Neumann);
  }
  return p;
}

// One rank's storage filled from the global field u: its box and, across
// cut faces, the ghost planes (what a halo exchange leaves); NaN elsewhere.
template <class T>
std::vector<T> local_field(const std::vector<T>& u, const HeatProblem& p, const LocalPart& part,
                           const LocalStorage& st) {
  std::vector<T> lu(static_cast<std::size_t>(st.elements), poison<T>());
  const Layout3 G = p.layout();
  for (index_t k = -1; k <= part.box.size[2]; ++k)
    for (index_t j = -1; j <= part.box.size[1]; ++j)
      for (index_t i = 0; i < part.box.size[0]; ++i) {
        const index_t l[3] = {i, j, k};
        int outside = 0;
        bool ok = true;
        for (int a = 1; a < 3; ++a) {
          if (l[a] >= 0 && l[a] < part.box.size[a]) continue;
          ++outside;
          ok = ok && (l[a] < 0 ? part.lo_cut[a] : part.hi_cut[a]);
        }
        if (outside > 1 || !ok) continue;
        lu[st.origin + st.layout.offset(i, j, k)] =
            u[G.offset(part.box.begin[0] + i, part.box.begin[1] + j, part.box.begin[2] + k)];
      }
  return lu;
}

/// `o.rhs_vec` picks the RHS kernel (0: scalar, 2: fp64 vector, 4: vector);
/// rows that are not aligned to the vector width take the scalar kernel
/// whatever is asked.
template <class T>
void ghost_rhs_is_equivalent_to_ref(index_t row_align, const SolverOptions& o) {
  SeededRng rng;
  const double tolerance = std::is_same<T, float>::value ? 1e-6 : 1e-14;
  for (int bc = 0; bc < 3; ++bc) {
    const HeatProblem p = problem(bc);
    std::vector<T> u(static_cast<std::size_t>(p.points()));
    for (auto& v : u) v = static_cast<T>(rng.uniform(-1, 1));
    // The whole grid on the GPU, stored the same way (so the same kernel runs).
    const LocalStorage whole = LocalStorage::make(p.n, {false, false, false}, row_align);
    LocalPart all;
    all.box.size = p.n;
    DeviceBuffer<T> gu(local_field(u, p, all, whole)), gw(std::vector<T>(whole.elements, poison<T>()));
    cuda::douglas_rhs(gu.get() + whole.origin, gw.get() + whole.origin, whole.layout, rhs_coefficients<T>(p),
                      nullptr, o);
    ADI_TEST_CUDA(cudaDeviceSynchronize());
    const std::vector<T> gpu_whole = gw.download();

    for (const std::array<int, 3> g : {std::array<int, 3>{1, 2, 2}, {1, 3, 1}, {1, 1, 4}, {1, 1, 23}, {1, 29, 1},
                                       {1, 4, 3}}) {
      const Decomposition d = Decomposition::plan(p.n, g[0] * g[1] * g[2], g);
      const std::array<bool, 3> ghosts{{false, d.is_split(1), d.is_split(2)}};
      for (int r = 0; r < d.ranks(); ++r) {
        const LocalPart part = d.part(r);
        const LocalStorage st = LocalStorage::make(part.box.size, ghosts, row_align);
        const std::vector<T> lu = local_field(u, p, part, st);
        const RhsCoefficients<T> kc = rhs_coefficients<T>(p, part.lo_cut, part.hi_cut);
        std::vector<T> want(lu.size(), poison<T>());
        cpu::douglas_rhs(lu.data() + st.origin, want.data() + st.origin, st.layout, kc);
        DeviceBuffer<T> du(lu), dw(std::vector<T>(lu.size(), poison<T>()));
        cuda::douglas_rhs(du.get() + st.origin, dw.get() + st.origin, st.layout, kc, nullptr, o);
        ADI_TEST_CUDA(cudaDeviceSynchronize());
        const std::vector<T> got = dw.download();
        double worst = 0, scale = 1e-300;
        index_t differ = 0;
        for (index_t k = 0; k < st.layout.n[2]; ++k)
          for (index_t j = 0; j < st.layout.n[1]; ++j)
            for (index_t i = 0; i < st.layout.n[0]; ++i) {
              const T gv = got[st.origin + st.layout.offset(i, j, k)];
              const T wv = want[st.origin + st.layout.offset(i, j, k)];
              const T whole_v = gpu_whole[whole.origin + whole.layout.offset(part.box.begin[0] + i,
                                                                             part.box.begin[1] + j,
                                                                             part.box.begin[2] + k)];
              worst = std::max(worst, std::isfinite(static_cast<double>(gv))
                                          ? std::fabs(static_cast<double>(gv) - static_cast<double>(wv))
                                          : INFINITY);
              scale = std::max(scale, std::fabs(static_cast<double>(wv)));
              if (!(gv == whole_v)) ++differ;
            }
        // Nothing outside the box was written.
        for (std::size_t q = 0; q < got.size(); ++q) {
          const index_t o = static_cast<index_t>(q) - st.origin;
          const index_t k = o >= 0 ? o / st.layout.stride[2] : -1;
          const index_t rem = o - k * st.layout.stride[2];
          const index_t j = rem / st.layout.stride[1], i = rem - j * st.layout.stride[1];
          const bool inside = o >= 0 && k < st.layout.n[2] && j < st.layout.n[1] && i < st.layout.n[0];
          if (!inside && !std::isnan(static_cast<double>(got[q]))) {
            ADD_FAILURE() << "element " << q << " outside the box was written";
            break;
          }
        }
        const std::string what = "bc " + std::to_string(bc) + ", grid 1x" + std::to_string(g[1]) + "x" +
                                 std::to_string(g[2]) + ", rank " + std::to_string(r) + ", row_align " +
                                 std::to_string(row_align) + ", rhs_vec " + std::to_string(o.rhs_vec);
        EXPECT_LE(worst / scale, tolerance) << what;
        EXPECT_EQ(differ, 0) << what << ": differs from the whole grid's GPU RHS";
      }
    }
  }
}

SolverOptions rhs_vec(int v) {
  SolverOptions o;
  o.rhs_vec = v;
  return o;
}

// The kernel is chosen explicitly (the fp64 default is the scalar kernel, so
// without rhs_vec the "vector" F64 test ran the scalar one): rhs_vec 2 and 4
// in fp64, 4 in fp32, on rows padded to 32 elements.
TEST(CudaGhostRhs, VectorKernelIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  for (int v : {2, 4}) ghost_rhs_is_equivalent_to_ref<double>(32, rhs_vec(v));
}
TEST(CudaGhostRhs, VectorKernelIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  ghost_rhs_is_equivalent_to_ref<float>(32, rhs_vec(4));
}
TEST(CudaGhostRhs, ScalarKernelIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  ghost_rhs_is_equivalent_to_ref<double>(32, rhs_vec(0));
  // 37-element rows, not 16-byte aligned: scalar whatever rhs_vec says.
  for (int v : {0, 2, 4}) ghost_rhs_is_equivalent_to_ref<double>(1, rhs_vec(v));
}
TEST(CudaGhostRhs, ScalarKernelIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  ghost_rhs_is_equivalent_to_ref<float>(32, rhs_vec(0));
  for (int v : {0, 4}) ghost_rhs_is_equivalent_to_ref<float>(1, rhs_vec(v));
}

// A rank's block can be 1 or 2 rows long; stored with ghost layers and rows
// padded to 32 elements, as the CUDA ranks store it.
template <class T>
void short_lines_are_equivalent_to_ref() {
  SeededRng rng;
  for (Axis axis : {Axis::Y, Axis::Z})
    for (index_t m : {1, 2, 3}) {
      std::array<index_t, 3> size{{45, 6, 5}};
      size[axis_index(axis)] = m;
      const LocalStorage st = LocalStorage::make(size, {false, true, true}, 32);
      LineMatrix A(m);
      for (index_t i = 0; i < m; ++i) {
        A.b[i] = 1.0 + 2 * 0.7;
        A.a[i] = i > 0 ? -0.7 : 0.0;
        A.c[i] = i + 1 < m ? -0.7 : 0.0;
      }
      std::vector<T> d(static_cast<std::size_t>(st.elements), poison<T>());
      for (index_t k = 0; k < size[2]; ++k)
        for (index_t j = 0; j < size[1]; ++j)
          for (index_t i = 0; i < size[0]; ++i)
            d[st.origin + st.layout.offset(i, j, k)] = static_cast<T>(rng.uniform(-1, 1));
      std::vector<T> want = d;
      cpu::solve_constant(axis, ThomasFactor<T>::factor(A), want.data() + st.origin, st.layout);
      DeviceBuffer<T> dd(d);
      const cuda::ConstantSolver<T> solver(A, axis, st.layout);
      solver.solve(dd.get() + st.origin);
      ADI_TEST_CUDA(cudaDeviceSynchronize());
      const std::vector<T> got = dd.download();
      double worst = 0;
      for (std::size_t q = 0; q < got.size(); ++q) {
        if (std::isnan(static_cast<double>(want[q]))) {
          EXPECT_TRUE(std::isnan(static_cast<double>(got[q]))) << "padding written at " << q;
          continue;
        }
        worst = std::max(worst, std::fabs(static_cast<double>(got[q]) - static_cast<double>(want[q])));
      }
      EXPECT_LE(worst, tolerance_for<T>()) << axis_name(axis) << " lines of " << m << " rows, solver "
                                           << solver.describe();
    }
}

TEST(CudaShortLines, IsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  short_lines_are_equivalent_to_ref<double>();
}
TEST(CudaShortLines, IsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  short_lines_are_equivalent_to_ref<float>();
}

}  // namespace
