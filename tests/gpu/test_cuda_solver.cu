// CUDA line solves and RHS against the CPU backend (the oracle), and the
// general-coefficient path also against cuSPARSE gtsv2StridedBatch.
// Awkward sizes, padded and transposed layouts, fp32 and fp64, fresh random
// data (seed printed), poisoned padding.

#include "gpu_support.hpp"
#include "test_util.hpp"

#include <adi/cuda.hpp>
#include <adi/line_kernel_plan.hpp>

#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <string>

using namespace adi;
using namespace adi::test;

namespace {

struct Case {
  Axis axis;
  index_t n;
  LayoutKind kind;
};

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(axis_name(info.param.axis)) + "_n" + std::to_string(info.param.n) + "_" +
         kind_name(info.param.kind);
}

Layout3 layout_for(const Case& c) {
  index_t n[3] = {45, 6, 5};
  if (c.axis == Axis::Y) n[0] = 37, n[2] = 4;
  if (c.axis == Axis::Z) n[0] = 37, n[1] = 5;
  n[axis_index(c.axis)] = c.n;
  return make_layout(n[0], n[1], n[2], c.kind);
}

template <class T>
double tol() {
  return std::is_same<T, float>::value ? 2e-5 : 1e-12;
}

// The fused update on the device, acc += A^{-1} d0 for a fresh random
// acc, against acc + want (padding stays NaN): the largest relative error.
// `d_after`, when given, receives d as the solve left it.
template <class T>
double fused_update_error(const cuda::ConstantSolver<T>& solver, const std::vector<T>& d0, const std::vector<T>& want,
                          const Layout3& L, SeededRng& rng, std::vector<T>* d_after = nullptr) {
  auto acc0 = random_field<T>(rng, L);
  auto acc_want = acc0;
  for (std::size_t q = 0; q < acc_want.size(); ++q)
    if (!std::isnan(acc_want[q])) acc_want[q] += want[q];
  DeviceBuffer<T> dd(d0), da(acc0);
  solver.solve_add(dd.get(), da.get());
  const cudaError_t e = cudaDeviceSynchronize();  // (ADI_TEST_CUDA asserts: void functions only)
  EXPECT_EQ(e, cudaSuccess) << cudaGetErrorName(e) << " " << cudaGetErrorString(e);
  if (e != cudaSuccess) return INFINITY;
  if (d_after) *d_after = dd.download();
  return compare_fields(da.download(), acc_want, L);
}

class CudaLines : public ::testing::TestWithParam<Case> {};

template <class T>
void constant_is_equivalent_to_ref(const Case& c) {
  SeededRng rng;
  const Layout3 L = layout_for(c);
  const LineMatrix m = random_dominant(rng, c.n);
  const auto f = ThomasFactor<T>::factor(m);
  const auto d0 = random_field<T>(rng, L);
  auto want = d0;
  cpu::solve_constant(c.axis, f, want.data(), L);

  const cuda::ConstantSolver<T> solver(m, c.axis, L);
  std::cout << "[ kernel   ] " << solver.describe() << std::endl;
  DeviceBuffer<T> dev(d0);
  solver.solve(dev.get());
  ADI_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_LE(compare_fields(dev.download(), want, L), tol<T>());

  // Fused update: acc += A^{-1} d.
  EXPECT_LE(fused_update_error(solver, d0, want, L, rng), tol<T>());
}

TEST_P(CudaLines, ConstantIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  constant_is_equivalent_to_ref<double>(GetParam());
}
TEST_P(CudaLines, ConstantIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  constant_is_equivalent_to_ref<float>(GetParam());
}

template <class T>
void general_is_equivalent_to_ref(const Case& c) {
  SeededRng rng;
  const Layout3 L = layout_for(c);
  std::vector<T> a(L.span(), poison<T>()), b(L.span(), poison<T>()), cc(L.span(), poison<T>());
  for (index_t k = 0; k < L.n[2]; ++k)
    for (index_t j = 0; j < L.n[1]; ++j)
      for (index_t i = 0; i < L.n[0]; ++i) {
        const index_t o = L.offset(i, j, k);
        a[o] = static_cast<T>(rng.uniform(-1, 1));
        cc[o] = static_cast<T>(rng.uniform(-1, 1));
        b[o] = static_cast<T>(rng.sign() * (std::fabs(a[o]) + std::fabs(cc[o]) + 0.5 + rng.uniform(0, 1)));
      }
  const auto d0 = random_field<T>(rng, L);
  auto want = d0;
  cpu::solve_general(c.axis, a.data(), b.data(), cc.data(), want.data(), L);
  DeviceBuffer<T> da(a), db(b), dc(cc), dd(d0);
  cuda::solve_general(c.axis, da.get(), db.get(), dc.get(), dd.get(), L);
  EXPECT_LE(compare_fields(dd.download(), want, L), tol<T>());
}

// Cyclic lines (periodic axes) against the CPU's cyclic solve, itself held
// to dense elimination in test_tridiag.
template <class T>
void cyclic_is_equivalent_to_ref(const Case& c) {
  const Layout3 L = layout_for(c);
  if (L.n[axis_index(c.axis)] < 3) return;  // a cyclic system needs 3 nodes
  SeededRng rng;
  std::vector<T> a(L.span(), poison<T>()), b(L.span(), poison<T>()), cc(L.span(), poison<T>());
  for (index_t k = 0; k < L.n[2]; ++k)
    for (index_t j = 0; j < L.n[1]; ++j)
      for (index_t i = 0; i < L.n[0]; ++i) {
        const index_t o = L.offset(i, j, k);
        a[o] = static_cast<T>(rng.uniform(-1, 1));
        cc[o] = static_cast<T>(rng.uniform(-1, 1));
        b[o] = static_cast<T>(rng.sign() * (std::fabs(a[o]) + std::fabs(cc[o]) + 0.5 + rng.uniform(0, 1)));
      }
  const auto d0 = random_field<T>(rng, L);
  auto want = d0;
  cpu::solve_cyclic(c.axis, a.data(), b.data(), cc.data(), want.data(), L);
  DeviceBuffer<T> da(a), db(b), dc(cc), dd(d0);
  cuda::solve_cyclic(c.axis, da.get(), db.get(), dc.get(), dd.get(), L);
  EXPECT_LE(compare_fields(dd.download(), want, L), tol<T>());
}

// want = the CPU's cyclic solve of m on every line of d (m copied to every point).
template <class T>
std::vector<T> cpu_ring_solve(const LineMatrix& m, Axis axis, const std::vector<T>& d, const Layout3& L) {
  std::vector<T> a(L.span(), poison<T>()), b(L.span(), poison<T>()), c(L.span(), poison<T>());
  const int ax = axis_index(axis);
  for (index_t k = 0; k < L.n[2]; ++k)
    for (index_t j = 0; j < L.n[1]; ++j)
      for (index_t i = 0; i < L.n[0]; ++i) {
        const index_t o = L.offset(i, j, k), r = ax == 0 ? i : ax == 1 ? j : k;
        a[o] = static_cast<T>(m.a[r]);
        b[o] = static_cast<T>(m.b[r]);
        c[o] = static_cast<T>(m.c[r]);
      }
  auto want = d;
  cpu::solve_cyclic(axis, a.data(), b.data(), c.data(), want.data(), L);
  return want;
}

// The constant-matrix cyclic solve (ConstantSolver::cyclic: the warp and
// lanes kernels with the Sherman-Morrison correction) and its fused update,
// against the CPU's cyclic solve; lines too long for the segmented kernels
// must be refused, not solved as open lines.
template <class T>
void ring_constant_matches(const LineMatrix& m, Axis axis, const Layout3& L, const SolverOptions& opt,
                           SeededRng& rng, const std::string& expect_in_describe = "") {
  if (!cuda::ConstantSolver<T>::cyclic_fits(axis, L, opt)) {
    EXPECT_THROW(cuda::ConstantSolver<T>::cyclic(m, axis, L, opt), BackendUnavailable);
    return;
  }
  const auto d0 = random_field<T>(rng, L);
  const auto want = cpu_ring_solve(m, axis, d0, L);
  const auto solver = cuda::ConstantSolver<T>::cyclic(m, axis, L, opt);
  EXPECT_NE(solver.describe().find("periodic"), std::string::npos) << solver.describe();
  if (!expect_in_describe.empty())
    EXPECT_NE(solver.describe().find(expect_in_describe), std::string::npos) << solver.describe();
  DeviceBuffer<T> dev(d0);
  solver.solve(dev.get());
  ADI_TEST_CUDA(cudaDeviceSynchronize());
  EXPECT_LE(compare_fields(dev.download(), want, L), tol<T>()) << solver.describe() << " n " << m.size();
  EXPECT_LE(fused_update_error(solver, d0, want, L, rng), tol<T>()) << solver.describe() << " n " << m.size();
}

template <class T>
void ring_constant_is_equivalent_to_ref(const Case& c) {
  if (c.n < 3) return;
  SeededRng rng;
  ring_constant_matches<T>(random_ring(rng, c.n), c.axis, layout_for(c), SolverOptions{}, rng);
}

TEST_P(CudaLines, ConstantRingIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  ring_constant_is_equivalent_to_ref<double>(GetParam());
}
TEST_P(CudaLines, ConstantRingIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  ring_constant_is_equivalent_to_ref<float>(GetParam());
}

TEST_P(CudaLines, CyclicIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  cyclic_is_equivalent_to_ref<double>(GetParam());
}
TEST_P(CudaLines, CyclicIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  cyclic_is_equivalent_to_ref<float>(GetParam());
}

TEST_P(CudaLines, GeneralIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  general_is_equivalent_to_ref<double>(GetParam());
}
TEST_P(CudaLines, GeneralIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  general_is_equivalent_to_ref<float>(GetParam());
}

std::vector<Case> all_cases() {
  std::vector<Case> cs;
  for (Axis a : {Axis::X, Axis::Y, Axis::Z})
    // 64, 512, 1024, 2048: lengths that fill their segments exactly (no
    // ragged last segment), where an off-by-one at a segment end would hide
    // behind the ragged sizes. 257, 288 and 513: x lines in segments of 9
    // and 17 rows (odd I; 129: of 5), y/z lines with fewer warps than segments (only
    // the ceil(n / I) segments with rows are warps, e.g. 257: 17 of 32).
    // y/z lines of 513-1024 (fp64) and 1025-2048 (fp32) rows: 16-line tiles,
    // two segments a warp (513 and 1025: 17 segments, the last warp half
    // empty); 2100: the generic kernel.
    for (index_t n : {3, 31, 33, 64, 97, 129, 257, 288, 512, 513, 1000, 1024, 1025, 2048, 2100})
      for (LayoutKind k : {LayoutKind::Packed, LayoutKind::Padded, LayoutKind::ZFastest}) cs.push_back({a, n, k});
  return cs;
}
INSTANTIATE_TEST_SUITE_P(Lines, CudaLines, ::testing::ValuesIn(all_cases()), case_name);

// Every segment length the kernels are built for, forced through the
// x_seg / yz_seg options (ADI_X_SEG / ADI_YZ_SEG), on a ragged line length
// and on one that fills all S segments exactly.
TEST(CudaLineKernels, EverySegmentLengthIsEquivalentToRef) {
  ADI_GPU_TEST_PRELUDE();
  SeededRng rng;
  for (Axis axis : {Axis::X, Axis::Y})
    for (int I : {2, 4, 5, 8, 9, 16, 17, 32, 33, 64})
    for (bool exact : {false, true}) {
      if (axis == Axis::Y && (I == 2 || I == 5)) continue;  // x-only lengths (the lanes kernel has no build)
      // S = 32 (x) or 16 (y) segments: the last one ragged, or all full.
      const index_t S = axis == Axis::X ? 32 : 16;
      const index_t n = exact ? S * I : (S - 2) * I + 1;
      const Layout3 L = axis == Axis::X ? Layout3::padded(n, 7, 3, n + 3, 7) : Layout3::packed(41, n, 3);
      SolverOptions opt;
      (axis == Axis::X ? opt.x_seg : opt.yz_seg) = I;
      for (bool dbl : {false, true}) {
        const LineMatrix m = random_dominant(rng, n);
        auto run = [&](auto tag) {
          using T = decltype(tag);
          const auto d0 = random_field<T>(rng, L);
          auto want = d0;
          cpu::solve_constant(axis, ThomasFactor<T>::factor(m), want.data(), L);
          const cuda::ConstantSolver<T> solver(m, axis, L, opt);
          // The override reached the planner: it plans segments of I rows, or,
          // where I values of T do not fit a thread's registers (y lines of
          // doubles: I <= 33), falls back to the generic kernel. (Y with I =
          // 33 takes 16-line tiles: the only tiles built for it.)
          const bool fits = !(axis == Axis::Y && sizeof(T) == 8 && I > 33);
          EXPECT_NE(solver.describe().find(fits ? "I = " + std::to_string(I) + "," : std::string("generic")),
                    std::string::npos)
              << solver.describe();
          DeviceBuffer<T> dev(d0);
          solver.solve(dev.get());
          ADI_TEST_CUDA(cudaDeviceSynchronize());
          EXPECT_LE(compare_fields(dev.download(), want, L), tol<T>()) << solver.describe() << " n " << n;
          if (axis == Axis::Y)  // the lanes kernel's accumulating build (the z + update phase's)
            EXPECT_LE(fused_update_error(solver, d0, want, L, rng), tol<T>()) << solver.describe() << " n " << n;
          // The same segments on a ring: row n-1 at the end of the last
          // segment (exact) or inside it (ragged).
          ring_constant_matches<T>(random_ring(rng, n), axis, L, opt, rng,
                                   fits ? "I = " + std::to_string(I) + "," : std::string());
        };
        if (dbl)
          run(double{});
        else
          run(float{});
      }
    }
}

// 16-line tiles (two segments a warp, LineKernelPlan::G) forced through
// yz_seg, for each build (I = 32 and 33 fp32/fp64, I = 64 fp32): an odd segment
// count (the last warp's upper half has no rows), a ragged last segment,
// and all 32 segments full; ragged tiles (41 lines: 16 + 16 + 9); the solve
// and the fused update, against the CPU.
TEST(CudaLineKernels, HalfTilesAreEquivalentToRef) {
  ADI_GPU_TEST_PRELUDE();
  SeededRng rng;
  for (int I : {32, 33, 64})
    for (index_t n : {index_t(16) * I + 1, index_t(30) * I + 7, index_t(32) * I})
      for (bool dbl : {false, true}) {
        if (dbl && I > 33) continue;  // no fp64 build past lanes_half_max_I
        for (Axis axis : {Axis::Y, Axis::Z}) {
          const Layout3 L = axis == Axis::Y ? Layout3::padded(41, n, 3, 45, n) : Layout3::packed(41, 2, n);
          SolverOptions opt;
          opt.yz_seg = I;
          const LineMatrix m = random_dominant(rng, n);
          auto run = [&](auto tag) {
            using T = decltype(tag);
            // 1057 rows go to the long-line kernel only as fp64 y/z lines
            // (the warp kernel holds x lines up to 2048, 16-line lanes
            // tiles fp32 lines up to 2048): the other cases are the lanes
            // and warp kernels' tests.
            if (n == 1057 && (axis == Axis::X || sizeof(T) == 4)) return;
            const auto d0 = random_field<T>(rng, L);
            auto want = d0;
            cpu::solve_constant(axis, ThomasFactor<T>::factor(m), want.data(), L);
            const cuda::ConstantSolver<T> solver(m, axis, L, opt);
            EXPECT_NE(solver.describe().find("I = " + std::to_string(I) + ", S = 32"), std::string::npos)
                << solver.describe();
            EXPECT_NE(solver.describe().find("16 lines a tile"), std::string::npos) << solver.describe();
            DeviceBuffer<T> dev(d0);
            solver.solve(dev.get());
            ADI_TEST_CUDA(cudaDeviceSynchronize());
            EXPECT_LE(compare_fields(dev.download(), want, L), tol<T>()) << solver.describe() << " n " << n;
            EXPECT_LE(fused_update_error(solver, d0, want, L, rng), tol<T>()) << solver.describe() << " n " << n;
            ring_constant_matches<T>(random_ring(rng, n), axis, L, opt, rng, "16 lines a tile");
          };
          if (dbl)
            run(double{});
          else
            run(float{});
        }
      }
}

// fp64 z lines of 16-row segments in 16-line tiles where the last 32-line
// tile would be at most half full or a row of lanes is 7-12 whole 32-line
// tiles (adi::lanes_fp64_half_tile): lines of 73, 127 (S = 8), 191 and 255
// rows (S = 16, 12 and 16 with rows) over 41, 257, 256 (16-line tiles: 16 +
// 16 + 9, 16 full ones + 1, 16 full ones) and 64 or 50 lanes (32-line
// tiles), a padded pitch; the solve, the fused update and the ring against
// the CPU, and the tile describe() names.
TEST(CudaLineKernels, HalfTilesForRaggedDoubleZLinesAreEquivalentToRef) {
  ADI_GPU_TEST_PRELUDE();
  SeededRng rng;
  for (index_t n : {index_t(73), index_t(127), index_t(191), index_t(255)})
    for (index_t nu : {index_t(41), index_t(257), index_t(256), index_t(64), index_t(50)}) {
      const bool half = (nu % 32 >= 1 && nu % 32 <= 16) || nu == 256;
      const Layout3 L = Layout3::padded(nu, 2, n, nu + 3, 2);
      const LineMatrix m = random_dominant(rng, n);
      const auto d0 = random_field<double>(rng, L);
      auto want = d0;
      cpu::solve_constant(Axis::Z, ThomasFactor<double>::factor(m), want.data(), L);
      const cuda::ConstantSolver<double> solver(m, Axis::Z, L);
      const std::string what = solver.describe() + " n " + std::to_string(n) + " lines " + std::to_string(nu);
      EXPECT_NE(solver.describe().find("I = 16,"), std::string::npos) << what;
      EXPECT_EQ(solver.describe().find("16 lines a tile") != std::string::npos, half) << what;
      DeviceBuffer<double> dev(d0);
      solver.solve(dev.get());
      ADI_TEST_CUDA(cudaDeviceSynchronize());
      EXPECT_LE(compare_fields(dev.download(), want, L), tol<double>()) << what;
      EXPECT_LE(fused_update_error(solver, d0, want, L, rng), tol<double>()) << what;
      ring_constant_matches<double>(random_ring(rng, n), Axis::Z, L, SolverOptions{}, rng,
                                    half ? "16 lines a tile" : "I = 16,");
    }
}

// The lanes kernel's pair build, two neighbouring fp32 lines a lane: y / z
// lines of 1025-1056 rows (16-line tiles, I = 33: 32 lines, 128-byte rows)
// and of 65-512 rows (32-line tiles of I = 16, 17 and 32: 64 lines,
// 256-byte rows; only from 8 such tiles on, adi::lanes_pairs_pay: 449
// lines pair, 41, 64, 7, 130 and 313 do not). Odd and even line counts (an
// odd count leaves the last pair half outside the grid: its second line's
// padding must stay NaN), ragged and full tiles (41 lines: pairs 0-15 and
// 16-20 of 16-line tiles; 449 lines: seven full 64-line tiles and one
// line), ragged last segments (1025, 1040, 129, 200, 258, 300) and all
// segments full (1056, 512); the solve and the accumulating build against
// the CPU; the same layouts with pairs switched off (ADI_LANES_PAIRS=0), a
// layout that cannot pair (odd row pitch) and a pointer off an 8-byte
// boundary, both of which take the one-line-a-lane build; and the ring,
// which has no pair build.
TEST(CudaLineKernels, LinePairsAreEquivalentToRef) {
  ADI_GPU_TEST_PRELUDE();
  SeededRng rng;
  struct PairCase {
    index_t n;
    const char* plan;  // the planner's segments
    const char* tile;  // how describe() names the pair build
  };
  const char* half = "16 lines a tile of line pairs (8-byte values: 32 lines, 128-byte rows)";
  const char* full = ", line pairs (8-byte values: 64 lines, 256-byte rows)";
  for (const PairCase c : {PairCase{1025, "I = 33, S = 32", half}, PairCase{1040, "I = 33, S = 32", half},
                           PairCase{1056, "I = 33, S = 32", half}, PairCase{129, "I = 16, S = 16", full},
                           PairCase{200, "I = 16, S = 16", full}, PairCase{258, "I = 17, S = 16", full},
                           PairCase{300, "I = 32, S = 16", full}, PairCase{512, "I = 32, S = 16", full}})
    for (Axis axis : {Axis::Y, Axis::Z})
      for (index_t nu : {index_t(41), index_t(64), index_t(7), index_t(130), index_t(313), index_t(449)})
        for (bool pairs_on : {true, false}) {
          const index_t n = c.n;
          const bool half_tiles = n > 1024;
          if (half_tiles && nu > 64) continue;  // 16-line tiles: 41 lines already has full and ragged ones
          const bool pairs = pairs_on && (half_tiles || adi::lanes_pairs_pay(nu));
          const index_t pitch = nu % 2 ? nu + 1 : nu;  // even: the pairs' 8-byte alignment
          const Layout3 L =
              axis == Axis::Y ? Layout3::padded(nu, n, 2, pitch, n + 1) : Layout3::padded(nu, 3, n, pitch, 3);
          SolverOptions opt;
          opt.lanes_pairs = pairs_on;
          const LineMatrix m = random_dominant(rng, n);
          const auto d0 = random_field<float>(rng, L);
          auto want = d0;
          cpu::solve_constant(axis, ThomasFactor<float>::factor(m), want.data(), L);
          const cuda::ConstantSolver<float> solver(m, axis, L, opt);
          const std::string what = solver.describe() + " n " + std::to_string(n) + " lines " + std::to_string(nu);
          EXPECT_NE(solver.describe().find(c.plan), std::string::npos) << what;
          EXPECT_EQ(solver.describe().find(c.tile) != std::string::npos, pairs) << what;
          EXPECT_EQ(solver.describe().find("line pairs") != std::string::npos, pairs) << what;
          DeviceBuffer<float> dev(d0);
          solver.solve(dev.get());
          ADI_TEST_CUDA(cudaDeviceSynchronize());
          EXPECT_LE(compare_fields(dev.download(), want, L), tol<float>()) << what;
          EXPECT_LE(fused_update_error(solver, d0, want, L, rng), tol<float>()) << what;
          if (!pairs_on || nu != (half_tiles ? 41 : 449)) continue;
          // The same field one float further on: d is 4 bytes off an 8-byte
          // boundary, so the solve takes the one-line-a-lane build.
          std::vector<float> shifted(d0.size() + 1, poison<float>());
          std::copy(d0.begin(), d0.end(), shifted.begin() + 1);
          DeviceBuffer<float> off(shifted);
          solver.solve(off.get() + 1);
          ADI_TEST_CUDA(cudaDeviceSynchronize());
          const auto got = off.download();
          EXPECT_LE(compare_fields(std::vector<float>(got.begin() + 1, got.end()), want, L), tol<float>()) << what;
          // An odd row pitch: no pairs.
          const Layout3 odd =
              axis == Axis::Y ? Layout3::padded(nu, n, 2, nu + 2, n) : Layout3::padded(nu, 3, n, nu + 2, 3);
          const auto e0 = random_field<float>(rng, odd);
          auto e_want = e0;
          cpu::solve_constant(axis, ThomasFactor<float>::factor(m), e_want.data(), odd);
          const cuda::ConstantSolver<float> unpaired(m, axis, odd, opt);
          EXPECT_EQ(unpaired.describe().find("line pairs"), std::string::npos) << unpaired.describe();
          DeviceBuffer<float> e_dev(e0);
          unpaired.solve(e_dev.get());
          ADI_TEST_CUDA(cudaDeviceSynchronize());
          EXPECT_LE(compare_fields(e_dev.download(), e_want, odd), tol<float>()) << unpaired.describe();
          ring_constant_matches<float>(random_ring(rng, n), axis, L, opt, rng, half_tiles ? "16 lines a tile" : c.plan);
        }
}

// Lines of each length in `lengths`, in batches of 1, 7 and 1000 lines, on
// every axis, both precisions, against the CPU; each solver must be the
// kernel the planner names (adi::plan_line_kernel).
void line_batches_match(const std::vector<index_t>& lengths) {
  SeededRng rng;
  struct Batch {
    index_t u, v;
  };
  for (index_t n : lengths)
    for (Batch b : {Batch{1, 1}, Batch{7, 1}, Batch{40, 25}})
      for (Axis axis : {Axis::X, Axis::Y, Axis::Z})
        for (bool dbl : {false, true}) {
          if (n == 40000 && (b.u * b.v > 7 || !dbl)) continue;  // the nested long solve; fp32 lines of 40000 lose digits
          const Layout3 L = axis == Axis::X   ? Layout3::padded(n, b.u, b.v, n + 3, b.u)
                            : axis == Axis::Y ? Layout3::packed(b.u, n, b.v)
                                              : Layout3::packed(b.u, b.v, n);
          const bool constant = (n + b.u) % 2 == 1;  // alternate, so that both kinds meet every axis
          LineMatrix m = random_dominant(rng, n);
          if (constant) {
            for (index_t i = 0; i < n; ++i) {
              m.a[i] = i > 0 ? -1.0 : 0.0;
              m.c[i] = i + 1 < n ? -0.75 : 0.0;
              m.b[i] = 2.0;
            }
            m.b[0] = 1.5;      // a flux-like first row
            m.b[n - 1] = 3.0;  // and a last row of its own
          }
          auto run = [&](auto tag) {
            using T = decltype(tag);
            const int a = axis_index(axis);
            const LineKernelPlan plan = plan_line_kernel(n, axis, L.stride[a] == 1, sizeof(T));
            const bool is_long = plan.family == LineKernelFamily::Long || plan.family == LineKernelFamily::Block;
            const bool is_block = plan.family == LineKernelFamily::Block;
            const auto d0 = random_field<T>(rng, L);
            auto want = d0;
            cpu::solve_constant(axis, ThomasFactor<T>::factor(m), want.data(), L);
            const cuda::ConstantSolver<T> solver(m, axis, L);
            const std::string what = solver.describe() + ", n " + std::to_string(n) + ", lines " +
                                     std::to_string(b.u * b.v) + (constant ? ", constant" : ", random");
            EXPECT_NE(solver.describe().find(is_long ? std::string(family_name(plan.family)) + " kernel, I = 32, S = " +
                                                           std::to_string((n + 31) / 32)
                                                     : std::string(family_name(plan.family)) + " kernel"),
                      std::string::npos)
                << what;
            // The block kernel: x lines of unit stride up to kBlockMaxRows only.
            EXPECT_EQ(is_block, axis == Axis::X && n > 32 * kWarpMaxI && n <= kBlockMaxRows) << what;
            if (n == 40000)
              EXPECT_NE(solver.describe().find("reduced system: y: long-line kernel"), std::string::npos) << what;
            DeviceBuffer<T> dev(d0);
            solver.solve(dev.get());
            ADI_TEST_CUDA(cudaDeviceSynchronize());
            // fp32: the error grows with the line's length (a random
            // dominant matrix's kappa; the CPU's Thomas is fp32 too).
            const double tolerance = sizeof(T) == 4 ? 1e-4 : 1e-12;
            EXPECT_LE(compare_fields(dev.download(), want, L), tolerance) << what;
            std::vector<T> d_after;
            EXPECT_LE(fused_update_error(solver, d0, want, L, rng, &d_after), tolerance) << what << " (fused update)";
            EXPECT_EQ(compare_fields(d_after, d0, L), 0.0) << what << ": solve_add wrote d";
            if (is_long && b.u * b.v == 7) {  // the generic kernel, chosen by the option
              SolverOptions off;
              off.long_lines = false;
              const cuda::ConstantSolver<T> gen(m, axis, L, off);
              EXPECT_NE(gen.describe().find("generic"), std::string::npos) << gen.describe();
              DeviceBuffer<T> dg(d0);
              gen.solve(dg.get());
              ADI_TEST_CUDA(cudaDeviceSynchronize());
              EXPECT_LE(compare_fields(dg.download(), want, L), tolerance) << gen.describe();
            }
            if (is_block && b.u * b.v != 1) {  // the long-line kernel's three passes, chosen by the option
              SolverOptions passes;
              passes.line_blocks = false;
              const cuda::ConstantSolver<T> lng(m, axis, L, passes);
              EXPECT_NE(lng.describe().find("long-line kernel, I = 32"), std::string::npos) << lng.describe();
              DeviceBuffer<T> dl(d0);
              lng.solve(dl.get());
              ADI_TEST_CUDA(cudaDeviceSynchronize());
              EXPECT_LE(compare_fields(dl.download(), want, L), tolerance) << lng.describe();
            }
          };
          if (dbl)
            run(double{});
          else
            run(float{});
        }
}

// The long-line kernel (LineKernelFamily::Long: segments of 32 rows in
// independent warps, the reduced system solved by a nested line solve):
// lines of 1057 (fp64 y/z: the first length past the lanes kernel) to 16384
// rows, and 40000 (fp64: 2S = 2500 reduced rows, so the nested solve is a
// long-line solve itself); batches of 1, 7 and 1000 lines (40 x 25: a
// ragged tile of 8 lines after each 32); x lines of unit stride (row-wise
// loads through the transposition) in a padded layout, y and z lines;
// a random matrix (every segment's tables from global memory) and a
// constant one with other end rows (interior segments from the constant
// bank); the solve and the fused update, against the CPU. ADI_LONG_LINES=0
// (long_lines = false) must give the generic kernel, still correct.
// x lines of 2049 to 8192 rows take the block kernel (LineKernelFamily::Block,
// a line a block): 2049 (65 segments: a third warp with one segment of one
// row), 3000 (94: two lanes past the end), 4097, 8192 (eight full warps);
// 8193 is the first x line past it (the long-line kernel again). The row
// pitch n + 3 leaves most lines off a 16-byte boundary (the transposition's
// scalar path), 8192 + 3 included; ADI_LINE_BLOCKS=0 must give the long-line
// kernel, still correct.
TEST(CudaLineKernels, LongLinesAreEquivalentToRef) {
  ADI_GPU_TEST_PRELUDE();
  // 1057 rows are long-line lines only as fp64 y/z lines; its other cases
  // run the warp and lanes kernels.
  line_batches_match({1057, 2049, 3000, 4097, 8192, 8193, 16384, 40000});
}

// The same batches (1, 7 and 1000 lines) of short and medium lines: the
// warp kernel with one line of 1 to 33 rows in a tile of 32 / S lines, the
// lanes kernel with 1 or 7 of a tile's 32 lanes holding a line (33, 65 and
// 127 rows: at most 8 segments, kLanesShortMaxSegments; fp64 65 rows in 9-row
// segments), and the short kernel (y / z lines of 1 to 8 rows: kShortMaxRows).
TEST(CudaLineKernels, LineBatchesAreEquivalentToRef) {
  ADI_GPU_TEST_PRELUDE();
  line_batches_match({1, 2, 3, 5, 8, 9, 33, 65, 127, 1000});
}

// The general path against cuSPARSE's batched solver on contiguous x lines.
template <class T>
void general_matches_cusparse() {
  SeededRng rng;
  const index_t nx = 257, ny = 13, nz = 7;
  const Layout3 L = Layout3::packed(nx, ny, nz);
  const std::size_t N = static_cast<std::size_t>(L.span());
  std::vector<T> a(N), b(N), c(N), d(N);
  for (std::size_t q = 0; q < N; ++q) {
    const index_t i = static_cast<index_t>(q % nx);
    a[q] = i == 0 ? T(0) : static_cast<T>(rng.uniform(-1, 1));  // cuSPARSE wants dl[0] = du[m-1] = 0
    c[q] = i == nx - 1 ? T(0) : static_cast<T>(rng.uniform(-1, 1));
    b[q] = static_cast<T>(rng.sign() * (std::fabs(a[q]) + std::fabs(c[q]) + 0.5 + rng.uniform(0, 1)));
    d[q] = static_cast<T>(rng.uniform(-1, 1));
  }
  DeviceBuffer<T> da(a), db(b), dc(c), dd(d), ds(d);
  cuda::solve_general(Axis::X, da.get(), db.get(), dc.get(), dd.get(), L);

  cusparseHandle_t h;
  ASSERT_EQ(cusparseCreate(&h), CUSPARSE_STATUS_SUCCESS);
  std::size_t bytes = 0;
  const int m = static_cast<int>(nx), batch = static_cast<int>(ny * nz), stride = static_cast<int>(nx);
  if constexpr (std::is_same<T, float>::value) {
    ASSERT_EQ(cusparseSgtsv2StridedBatch_bufferSizeExt(h, m, da.get(), db.get(), dc.get(), ds.get(), batch, stride,
                                                       &bytes),
              CUSPARSE_STATUS_SUCCESS);
  } else {
    ASSERT_EQ(cusparseDgtsv2StridedBatch_bufferSizeExt(h, m, da.get(), db.get(), dc.get(), ds.get(), batch, stride,
                                                       &bytes),
              CUSPARSE_STATUS_SUCCESS);
  }
  void* buf = nullptr;
  ADI_TEST_CUDA(cudaMalloc(&buf, bytes + 1));
  if constexpr (std::is_same<T, float>::value) {
    ASSERT_EQ(cusparseSgtsv2StridedBatch(h, m, da.get(), db.get(), dc.get(), ds.get(), batch, stride, buf),
              CUSPARSE_STATUS_SUCCESS);
  } else {
    ASSERT_EQ(cusparseDgtsv2StridedBatch(h, m, da.get(), db.get(), dc.get(), ds.get(), batch, stride, buf),
              CUSPARSE_STATUS_SUCCESS);
  }
  ADI_TEST_CUDA(cudaDeviceSynchronize());
  cudaFree(buf);
  cusparseDestroy(h);
  const double tolerance = std::is_same<T, float>::value ? 1e-4 : 1e-11;
  EXPECT_LE(compare_fields(dd.download(), ds.download(), L), tolerance);
}

TEST(CudaGeneral, MatchesCusparseGtsv2StridedBatchF64) {
  ADI_GPU_TEST_PRELUDE();
  general_matches_cusparse<double>();
}
TEST(CudaGeneral, MatchesCusparseGtsv2StridedBatchF32) {
  ADI_GPU_TEST_PRELUDE();
  general_matches_cusparse<float>();
}

TEST(CudaGeneral, ReportsZeroPivot) {
  ADI_GPU_TEST_PRELUDE();
  const Layout3 L = Layout3::packed(33, 5, 4);
  std::vector<double> a(L.span(), 0.0), b(L.span(), 1.0), c(L.span(), 0.0), d(L.span(), 1.0);
  b[L.offset(0, 3, 2)] = 0.0;
  DeviceBuffer<double> da(a), db(b), dc(c), dd(d);
  EXPECT_THROW(cuda::solve_general(Axis::Y, da.get(), db.get(), dc.get(), dd.get(), L), NumericalError);
}

// The error word a solve reports through is kept per thread between calls
// (thread_lines.cuh): a call that found an error must leave it clear for the
// next one, on another stream too, for the segmented kernel (n = 33) and the
// one-thread-per-line kernels (n = 1100, longer than 128 segments), general,
// cyclic and conductive alike.
TEST(CudaGeneral, AnErrorDoesNotOutliveItsCall) {
  ADI_GPU_TEST_PRELUDE();
  cudaStream_t user = nullptr;
  ADI_TEST_CUDA(cudaStreamCreate(&user));
  for (index_t n : {index_t(33), index_t(1100)}) {
    const Layout3 L = Layout3::packed(5, n, 3);
    std::vector<double> a(L.span(), -1.0), b(L.span(), 3.0), c(L.span(), -1.0), d(L.span(), 1.0);
    std::vector<double> bad_b = b;
    bad_b[L.offset(2, n / 2, 1)] = std::numeric_limits<double>::quiet_NaN();
    DeviceBuffer<double> da(a), db(b), dbad(bad_b), dc(c);
    auto want = d;
    cpu::solve_general(Axis::Y, a.data(), b.data(), c.data(), want.data(), L);
    auto want_ring = d;
    cpu::solve_cyclic(Axis::Y, a.data(), b.data(), c.data(), want_ring.data(), L);
    for (void* st : {static_cast<void*>(nullptr), static_cast<void*>(user)}) {
      DeviceBuffer<double> dd(d);
      EXPECT_THROW(cuda::solve_general(Axis::Y, da.get(), dbad.get(), dc.get(), dd.get(), L, st), NumericalError);
      DeviceBuffer<double> good(d);
      EXPECT_NO_THROW(cuda::solve_general(Axis::Y, da.get(), db.get(), dc.get(), good.get(), L)) << "n " << n;
      EXPECT_LE(compare_fields(good.download(), want, L), 1e-12);
      DeviceBuffer<double> ring(d);
      EXPECT_THROW(cuda::solve_cyclic(Axis::Y, da.get(), dbad.get(), dc.get(), ring.get(), L, st), NumericalError);
      DeviceBuffer<double> good_ring(d);
      EXPECT_NO_THROW(cuda::solve_cyclic(Axis::Y, da.get(), db.get(), dc.get(), good_ring.get(), L)) << "n " << n;
      EXPECT_LE(compare_fields(good_ring.download(), want_ring, L), 1e-12);
    }
    std::vector<double> K(L.span(), 1.0), badK = K;
    badK[L.offset(1, n / 3, 2)] = -1.0;
    ConductiveLines<double> lines;
    lines.h = 0.1;
    lines.tau = 1e-3;
    auto want_k = d;
    cpu::solve_conductive(Axis::Y, K.data(), nullptr, lines, want_k.data(), L);
    DeviceBuffer<double> dK(K), dbadK(badK), dd(d), good(d);
    EXPECT_THROW(cuda::solve_conductive(Axis::Y, dbadK.get(), nullptr, lines, dd.get(), L, user), InvalidArgument);
    EXPECT_NO_THROW(cuda::solve_conductive(Axis::Y, dK.get(), nullptr, lines, good.get(), L)) << "n " << n;
    EXPECT_LE(compare_fields(good.download(), want_k, L), 0.0);
  }
  ADI_TEST_CUDA(cudaStreamDestroy(user));
}

}  // namespace
