// The CUDA stepper against the CPU stepper (the oracle) and the analytic mode.

#include "gpu_support.hpp"
#include "test_util.hpp"

#include <adi/factory.hpp>
#include <adi/line_kernel_plan.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

using namespace adi;
using namespace adi::test;

namespace {

HeatProblem mixed_problem(index_t nx, index_t ny, index_t nz) {
  HeatProblem p;
  p.n = {nx, ny, nz};
  p.length = {1.3, 1.0, 0.7};
  p.alpha = {1.0, 0.6, 1.7};
  p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Dirichlet};
  p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Dirichlet};
  p.dt = 4e-4;
  return p;
}

std::string grid_text(const std::array<index_t, 3>& n) {
  return std::to_string(n[0]) + " x " + std::to_string(n[1]) + " x " + std::to_string(n[2]);
}

// A field of uniform values in [-1, 1] over p's grid, from a fresh seed
// (printed, ADI_TEST_SEED replays it).
template <class T>
std::vector<T> random_u0(const HeatProblem& p) {
  SeededRng rng;
  std::vector<T> u0(static_cast<std::size_t>(p.points()));
  for (auto& v : u0) v = static_cast<T>(rng.uniform(-1, 1));
  return u0;
}

template <class T>
double run_both(const HeatProblem& p, index_t steps, const SolverOptions& o = {}) {
  const std::vector<T> u0 = random_u0<T>(p);
  std::vector<T> got(u0.size()), want(u0.size());
  auto gpu = make_stepper<T>(p, Backend::Cuda, o);
  auto cpu = make_stepper<T>(p, Backend::Cpu);
  std::cout << "[ device   ] " << gpu->device_name() << std::endl;
  gpu->set_field(u0.data());
  cpu->set_field(u0.data());
  gpu->advance(steps);
  cpu->advance(steps);
  gpu->get_field(got.data());
  cpu->get_field(want.data());
  double worst = 0, scale = 1e-300;
  for (std::size_t q = 0; q < got.size(); ++q) {
    if (!std::isfinite(static_cast<double>(got[q]))) return INFINITY;
    worst = std::max(worst, std::fabs(static_cast<double>(got[q]) - want[q]));
    scale = std::max(scale, std::fabs(static_cast<double>(want[q])));
  }
  return worst / scale;
}

TEST(CudaStepper, RunIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  EXPECT_LE(run_both<double>(mixed_problem(97, 33, 31), 20), 1e-12);
  EXPECT_LE(run_both<double>(mixed_problem(3, 257, 5), 5), 1e-12);
  EXPECT_LE(run_both<double>(mixed_problem(160, 130, 70), 6), 1e-12);
}

TEST(CudaStepper, RunIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  EXPECT_LE(run_both<float>(mixed_problem(97, 33, 31), 20), 2e-5);
  EXPECT_LE(run_both<float>(mixed_problem(1000, 3, 31), 5), 2e-5);
  EXPECT_LE(run_both<float>(mixed_problem(160, 130, 70), 6), 2e-5);
}

// Every row alignment (SolverOptions::row_align, ADI_ROW_ALIGN) against the
// CPU: the field's row pitch is the row length rounded up to it, the fused
// RHS + x kernel (which needs 16-byte rows) still runs, and the steps agree.
// Rows of 257 (ragged at every alignment), 97 and 3 nodes; 0 is the default,
// 128 bytes.
template <class T>
void row_alignments_are_equivalent_to_ref(double tol) {
  for (int align : {0, 16, 32, 64, 128, 256})
    for (const auto& n : {std::array<index_t, 3>{257, 45, 38}, std::array<index_t, 3>{97, 33, 31},
                          std::array<index_t, 3>{3, 70, 9}}) {
      const HeatProblem p = mixed_problem(n[0], n[1], n[2]);
      SolverOptions o;
      o.row_align = align;
      const index_t a = (align ? align : 128) / static_cast<index_t>(sizeof(T));
      auto gpu = make_stepper<T>(p, Backend::Cuda, o);
      const std::string what = grid_text(n) + ", row_align " + std::to_string(align) + ": " + gpu->device_name();
      EXPECT_EQ(gpu->field_view().layout.stride[1], (n[0] + a - 1) / a * a) << what;
      EXPECT_EQ(gpu->bytes_allocated(), 2 * sizeof(T) * static_cast<std::size_t>((n[0] + a - 1) / a * a * n[1] * n[2]))
          << what;
      if (n[0] >= 97) {
        EXPECT_NE(gpu->device_name().find("rhs fused into x"), std::string::npos) << what;
      }
      EXPECT_LE(run_both<T>(p, 6, o), tol) << what;
    }
}

TEST(CudaStepper, RowAlignmentsAreEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  row_alignments_are_equivalent_to_ref<double>(1e-12);
}

TEST(CudaStepper, RowAlignmentsAreEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  row_alignments_are_equivalent_to_ref<float>(2e-5);
}

// The step on the unknowns only (SolverOptions::skip_fixed, the default):
// every mix of Dirichlet and zero-flux y / z faces, boxes of one row or one
// plane (ny or nz = 3 between two Dirichlet faces), y / z lines of 2^k - 1
// interior rows, the fused RHS + x kernel reading the face rows as ghosts,
// and y lines of the long-line kernel; against the CPU, with the same run
// moving every node (skip_fixed = false) beside it.
template <class T>
void unknown_box_is_equivalent_to_ref(double tol) {
  const Boundary D = Boundary::Dirichlet, N = Boundary::Neumann;
  for (const auto& n : {std::array<index_t, 3>{97, 3, 3}, std::array<index_t, 3>{130, 257, 17},
                        std::array<index_t, 3>{33, 9, 129}, std::array<index_t, 3>{3, 70, 9},
                        std::array<index_t, 3>{40, 2300, 3}})
    for (const auto& f : {std::array<Boundary, 4>{D, D, D, D}, std::array<Boundary, 4>{D, N, N, D},
                          std::array<Boundary, 4>{N, D, D, N}, std::array<Boundary, 4>{N, N, N, N}}) {
      HeatProblem p = mixed_problem(n[0], n[1], n[2]);
      p.lo[1] = f[0];
      p.hi[1] = f[1];
      p.lo[2] = f[2];
      p.hi[2] = f[3];
      const UnknownBox box = unknown_box(p);
      for (bool skip : {true, false}) {
        SolverOptions o;
        o.skip_fixed = skip;
        auto gpu = make_stepper<T>(p, Backend::Cuda, o);
        const std::string what = grid_text(n) + ", faces y " + boundary_name(f[0]) + "/" + boundary_name(f[1]) + " z " +
                                 boundary_name(f[2]) + "/" + boundary_name(f[3]) + (skip ? "" : ", every node") +
                                 ": " + gpu->device_name();
        EXPECT_EQ(gpu->moved_extents(), skip ? box.n : p.n) << what;
        if (n[0] >= 97) {
          EXPECT_NE(gpu->device_name().find("rhs fused into x"), std::string::npos) << what;
        }
        // y lines of 2300 rows at a mesh ratio of ~1300 (kappa ~ 5000): fp32
        // differs from the CPU by ~4e-5 whether or not the faces are skipped
        const double t = n[1] > 2048 ? 5 * tol : tol;
        EXPECT_LE(run_both<T>(p, 6, o), t) << what;
      }
    }
}

TEST(CudaStepper, UnknownBoxIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  unknown_box_is_equivalent_to_ref<double>(1e-12);
}

TEST(CudaStepper, UnknownBoxIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  unknown_box_is_equivalent_to_ref<float>(2e-5);
}

// The y / z solves without the lane of a high Dirichlet x face where it would
// be a 32-line tile of its own (adi::lanes_without_face), and with every node
// moved (SolverOptions::skip_fixed off, which keeps the lane): nx = 32 m + 1 from one tile
// (33) to nine (257), y / z lines of every family the box gives them (3-row
// short lines, 16- and 17-row segments, fp32 pair tiles at 512 lanes), a
// zero-flux or Dirichlet low x face, Dirichlet and zero-flux y / z
// faces; against the CPU, and the face's nodes exactly where they started.
// nx = 258 (hi Dirichlet) and 257 with a zero-flux high face keep every lane.
template <class T>
void face_lane_is_equivalent_to_ref(double tol) {
  const Boundary D = Boundary::Dirichlet, N = Boundary::Neumann;
  for (const auto& n : {std::array<index_t, 3>{33, 5, 7}, std::array<index_t, 3>{65, 40, 9},
                        std::array<index_t, 3>{129, 17, 130}, std::array<index_t, 3>{257, 150, 19},
                        std::array<index_t, 3>{513, 100, 9}, std::array<index_t, 3>{258, 20, 21}})
    for (const auto& f : {std::array<Boundary, 4>{N, D, D, D}, std::array<Boundary, 4>{D, D, N, N},
                          std::array<Boundary, 4>{D, N, D, D}})
      for (bool skip : {true, false}) {
        HeatProblem p = mixed_problem(n[0], n[1], n[2]);
        p.lo[0] = f[0];
        p.hi[0] = f[1];
        p.lo[1] = p.hi[1] = f[2];
        p.lo[2] = p.hi[2] = f[3];
        SolverOptions o;
        o.skip_fixed = skip;
        const bool dropped = skip && lanes_without_face(n[0], p.hi[0] == D) != n[0];
        EXPECT_EQ(dropped, skip && f[1] == D && n[0] % 32 == 1);
        auto gpu = make_stepper<T>(p, Backend::Cuda, o);
        const std::string what = grid_text(n) + ", faces x " + boundary_name(f[0]) + "/" + boundary_name(f[1]) +
                                 " y " + boundary_name(f[2]) + " z " + boundary_name(f[3]) +
                                 (skip ? "" : ", ADI_SKIP_FIXED=0") + ": " + gpu->device_name();
        EXPECT_EQ(gpu->device_name().find("leave out the Dirichlet high x face's lane") != std::string::npos, dropped)
            << what;
        EXPECT_EQ(gpu->moved_yz_lanes(), dropped ? n[0] - 1 : n[0]) << what;  // what bench counts
        EXPECT_LE(run_both<T>(p, 6, o), tol) << what;
        if (f[1] != D) continue;
        // The face's nodes: the step never changes them, lane left out or not.
        const std::vector<T> u0 = random_u0<T>(p);
        std::vector<T> got(u0.size());
        gpu->set_field(u0.data());
        gpu->advance(4);
        gpu->get_field(got.data());
        std::size_t moved = 0;
        for (index_t k = 0; k < n[2]; ++k)
          for (index_t j = 0; j < n[1]; ++j) {
            const std::size_t q = static_cast<std::size_t>((k * n[1] + j) * n[0] + n[0] - 1);
            moved += got[q] != u0[q];
          }
        EXPECT_EQ(moved, 0u) << what;
      }
}

TEST(CudaStepper, FaceLaneIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  face_lane_is_equivalent_to_ref<double>(1e-12);
}

TEST(CudaStepper, FaceLaneIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  face_lane_is_equivalent_to_ref<float>(2e-5);
}

// x lines of the block kernel (LineKernelFamily::Block: 2049 to 8192 rows, a
// line a block) inside a step: 3001 rows (94 segments: three warps, the last
// with two lanes past the line's end and a ragged last segment) and 4096 (four
// full warps), the mixed problem's zero-flux / Dirichlet x faces and
// zero-flux at both ends; against the CPU over 6 steps, with
// ADI_LINE_BLOCKS=0 (the long-line kernel's three passes) beside it.
template <class T>
void block_x_lines_are_equivalent_to_ref(double tol) {
  for (const auto& n : {std::array<index_t, 3>{3001, 5, 4}, std::array<index_t, 3>{4096, 3, 7}})
    for (bool flux_both : {false, true}) {
      HeatProblem p = mixed_problem(n[0], n[1], n[2]);
      if (flux_both) p.hi[0] = Boundary::Neumann;
      for (bool blocks : {true, false}) {
        SolverOptions o;
        o.line_blocks = blocks;
        auto gpu = make_stepper<T>(p, Backend::Cuda, o);
        const std::string what = grid_text(n) + (flux_both ? ", zero-flux x faces" : "") + ": " + gpu->device_name();
        EXPECT_EQ(gpu->device_name().find("x: block kernel, I = 32, S = " + std::to_string((n[0] + 31) / 32)) !=
                      std::string::npos,
                  blocks)
            << what;
        EXPECT_EQ(gpu->device_name().find("x: long-line kernel") != std::string::npos, !blocks) << what;
        EXPECT_LE(run_both<T>(p, 6, o), tol) << what;
      }
    }
}

TEST(CudaStepper, BlockXLinesAreEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  block_x_lines_are_equivalent_to_ref<double>(1e-12);
}

// fp32: x lines of 3001-4096 rows at a mesh ratio alpha dt / h^2 of 2100-4000,
// so the x matrices' condition number is ~1 + 4 theta lambda ~ 4000-8000 and
// two fp32 solvers may differ by ~kappa eps ~ 2.5-5e-4 (the long-line kernel's
// three passes measured 1.08e-4 against the CPU on one seed, 2026-11-28); a
// wrong row or coupling is O(1).
TEST(CudaStepper, BlockXLinesAreEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  block_x_lines_are_equivalent_to_ref<float>(4e-4);
}

TEST(CudaStepper, AnalyticRoundoff) {
  ADI_GPU_TEST_PRELUDE();
  HeatProblem p;
  p.n = {37, 29, 23};
  p.length = {1.0, 0.8, 0.6};
  p.alpha = {1.0, 0.5, 0.25};
  p.dt = 2e-3;
  EXPECT_LE(roundoff_check<double>(p, 25, Backend::Cuda).error.rel_max(), 1e-12);
  EXPECT_LE(roundoff_check<float>(p, 25, Backend::Cuda).error.rel_max(), 1e-5);
  p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann};
  p.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Dirichlet};
  EXPECT_LE(roundoff_check<double>(p, 25, Backend::Cuda).error.rel_max(), 1e-12);
}

TEST(CudaStepper, ConvergesAtSecondOrder) {
  ADI_GPU_TEST_PRELUDE();
  ConvergenceOptions o;
  o.intervals = {20, 40, 80};
  const auto rows = convergence_study(HeatProblem{}, o, Precision::F64, Backend::Cuda);
  EXPECT_GE(rows.back().order_max, 1.9);
  EXPECT_LE(rows.back().order_max, 2.1);
}

TEST(CudaStepper, FieldStatsSeeNaNAndMax) {
  ADI_GPU_TEST_PRELUDE();
  const HeatProblem p = mixed_problem(45, 20, 9);
  std::vector<double> u(static_cast<std::size_t>(p.points()), 0.25);
  u[1234] = -3.5;
  auto st = make_stepper<double>(p, Backend::Cuda);
  st->set_field(u.data());
  FieldStats s = st->field_stats();
  EXPECT_TRUE(s.finite);
  EXPECT_DOUBLE_EQ(s.max_abs, 3.5);
  u[4321] = std::nan("");
  st->set_field(u.data());
  EXPECT_FALSE(st->field_stats().finite);
}

TEST(CudaStepper, PhasesComposeToAStep) {
  ADI_GPU_TEST_PRELUDE();
  const HeatProblem p = mixed_problem(50, 41, 19);
  const std::vector<double> u0 = random_u0<double>(p);
  auto a = make_stepper<double>(p, Backend::Cuda);
  auto b = make_stepper<double>(p, Backend::Cuda);
  a->set_field(u0.data());
  b->set_field(u0.data());
  a->step();
  for (Phase ph : b->phases()) b->run_phase(ph);
  std::vector<double> ua(u0.size()), ub(u0.size());
  a->get_field(ua.data());
  b->get_field(ub.data());
  EXPECT_EQ(ua, ub);
  EXPECT_NE(ua, u0);
}

}  // namespace

namespace {
// A step replayed as a captured CUDA graph (the default) launches the same
// kernels with the same arguments as the phases launched one by one
// (SolverOptions::cuda_graph = false): the fields agree bit for bit, through
// advance() and single steps, on a small grid (where the graph matters) and
// an awkward one with the fused z update on the lanes kernel; and shapes
// that take every kernel family a classic step launches: the fused RHS + x
// and warp kernels, the lanes kernel (y, z + update), the short kernel (y / z
// lines of 6 and 5), the block kernel (x lines of 5000), the long-line
// kernel's passes (z lines of 3000), and the RHS kernels (fuse_rhs off), in
// both precisions.
template <class T>
void graph_matches_launches() {
  struct Case {
    std::array<index_t, 3> n;
    bool fuse;
  };
  const Case cases[] = {{{33, 29, 31}, true},  {{257, 45, 38}, true}, {{3, 3, 3}, true},    {{129, 67, 70}, true},
                        {{129, 67, 70}, false}, {{5000, 6, 5}, true},  {{40, 20, 3000}, true}};
  for (const Case& c : cases) {
    const auto& n = c.n;
    const HeatProblem p = mixed_problem(n[0], n[1], n[2]);
    const std::vector<T> u0 = random_u0<T>(p);
    SolverOptions graphed, launches;
    graphed.fuse_rhs = launches.fuse_rhs = c.fuse;
    launches.cuda_graph = false;
    auto graph = make_stepper<T>(p, Backend::Cuda, graphed);
    auto plain = make_stepper<T>(p, Backend::Cuda, launches);
    const std::string what = std::to_string(n[0]) + " x " + std::to_string(n[1]) + " x " + std::to_string(n[2]) +
                             (c.fuse ? "" : ", rhs apart") + (sizeof(T) == 4 ? ", fp32" : ", fp64") + ": " +
                             graph->device_name();
    EXPECT_NE(graph->device_name().find("CUDA graph"), std::string::npos) << what;
    EXPECT_EQ(plain->device_name().find("CUDA graph"), std::string::npos) << plain->device_name();
    graph->set_field(u0.data());
    plain->set_field(u0.data());
    graph->advance(7);
    plain->advance(7);
    graph->step();
    plain->step();
    std::vector<T> a(u0.size()), b(u0.size());
    graph->get_field(a.data());
    plain->get_field(b.data());
    EXPECT_EQ(a, b) << what;
    EXPECT_NE(a, u0) << what;
  }
}

TEST(CudaStepper, GraphStepIsBitIdenticalToLaunches) {
  ADI_GPU_TEST_PRELUDE();
  graph_matches_launches<float>();
  graph_matches_launches<double>();
}

// Tolerance of a GPU run against the CPU's: `base`, or where the line systems
// are stiff the round-off they amplify. A solve of I - theta lambda A
// multiplies the rounding of its right-hand side by up to 1 + 4 theta lambda;
// fp32 x lines of 1000 nodes here have lambda = 236, and 4-step fused runs
// then differed from the CPU by 2.0e-5 and 2.6e-5 of max |u| (two H100
// sessions, random data; the fused phase matched the split one to 2e-5),
// past the 2e-5 that holds for the others (lambda <= 62). This allows
// 5.6e-5 there.
template <class T>
double stiff_tolerance(const HeatProblem& p, double base) {
  double worst = 0;
  for (int a = 0; a < 3; ++a) worst = std::max(worst, p.mesh_ratio(a));
  const double unit = std::numeric_limits<T>::epsilon() / 2;
  return std::max(base, 2 * unit * (1 + 4 * p.theta * worst));
}

// The RHS fused into the x solve (fused_x_kernel.cu) against the CPU
// stepper over several steps, and its one phase against the RHS and x solve
// run separately on the GPU. Awkward shapes: x lines of 257 (9-row segments),
// 512 (a full tile), 100 and 65 (ragged), 513 (fp64: 8 lines a block only
// with slab rows of n rounded to 16 bytes; its slab copies unrolled), 544
// (17-row segments and no padding row; fp64: lanes 0-15 take a ninth
// unrolled copy a row, lanes 16-31 eight), 600 (fp64: 6 lines a block, not
// a power of two, with the compact tables: 32 segments of 32 rows, 13 of
// them all padding, which share the tables' last slot), 1000 and 1025 (32- and 33-row
// segments; fp64: the small build, 5 lines a block with one copy of the interior segments' tables and a
// ring of 3 slabs), 64 and 40 (the tile build, both precisions: 4 lines a
// warp in one transposition tile of 8 segments of 8 rows, 32 a block: 37 and
// 70 lines leave the last block's warps a part of their lines or none; 65
// and 100 take 2 a warp in both precisions), and 3 (several lines
// a tile: not fused, the stepper must say so); nj not a multiple of the
// lines of a block (45, 19, 7, 23, 13, 9) and smaller than it (5);
// nz of 3; every mix of Dirichlet and zero-flux faces on every axis (the y
// and z mirrors are rows of the slabs, the x mirror a shared-memory read).
// planes = 1 and 3 cut the z march into runs everywhere, so that each run's
// first and last slab (the mirrored or the neighbour chunk's plane) is
// exercised, and runs that cross from one group of lines to the next within
// a block; 0 is the launcher's choice (an equal share of the steps for each
// resident block).
template <class T>
void fused_rhs_x_matches(double step_tol, double phase_tol) {
  const std::array<index_t, 3> sizes[] = {{257, 45, 38}, {512, 19, 11}, {100, 7, 9}, {1000, 5, 3},
                                          {65, 20, 33},  {513, 23, 9},  {600, 13, 7}, {3, 40, 20},
                                          {1025, 9, 5},  {64, 37, 9},   {40, 70, 5},  {129, 11, 6},
                                          {544, 6, 5}};
  int fused_cases = 0;
  for (const auto& n : sizes)
    for (int faces = 0; faces < 3; ++faces)
      for (int planes : {0, 1, 3}) {
        const bool tiled = n[0] > 32 && n[0] <= 64;  // the tile build's lines
        HeatProblem p = mixed_problem(n[0], n[1], n[2]);
        if (faces == 1) p.lo = p.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Neumann};
        if (faces == 2) {
          p.lo = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
          p.hi = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann};
        }
        SolverOptions fuse;
        fuse.fuse_rhs = true;
        fuse.fused_planes = planes;
        const std::string what = std::to_string(n[0]) + " x " + std::to_string(n[1]) + " x " + std::to_string(n[2]) +
                                 ", faces " + std::to_string(faces) + ", planes " + std::to_string(planes) +
                                 (sizeof(T) == 4 ? ", fp32" : ", fp64");
        SolverOptions apart;
        apart.fuse_rhs = false;
        auto fused = make_stepper<T>(p, Backend::Cuda, fuse);
        auto split = make_stepper<T>(p, Backend::Cuda, apart);
        EXPECT_EQ(split->phases().front(), Phase::Rhs) << what;
        // Fused where the x plan has single-line tiles of the warp kernel (a
        // block of at least 4 lines' slabs fits in shared memory for each of
        // these lengths).
        const LineKernelPlan plan = plan_line_kernel(n[0], Axis::X, true, sizeof(T), fuse);
        const bool expect = plan.family == LineKernelFamily::Warp && plan.S == 32;
        const auto ph = fused->phases();
        ASSERT_FALSE(ph.empty());
        EXPECT_EQ(ph.front() == Phase::RhsSolveX, expect) << what;
        EXPECT_EQ(fused->device_name().find("rhs fused into x") != std::string::npos, expect) << fused->device_name();
        if (!expect) continue;
        if (n[0] > 64 && n[0] <= 128) {
          EXPECT_NE(fused->device_name().find("(2 a warp)"), std::string::npos) << fused->device_name();
        }
        if (n[0] == 129) {  // 2^7 + 1 rows: 32 segments of 5 rows (plan_line_kernel), not of 8
          EXPECT_NE(fused->device_name().find("x: warp kernel (transposed tiles), I = 5, S = 32"), std::string::npos)
              << fused->device_name();
        }
        // Lines of 33-64 rows: tiles of 4 lines in 8 segments of 8 rows, both
        // precisions.
        EXPECT_EQ(fused->device_name().find("in tiles of 8 segments of 8 rows") != std::string::npos, tiled)
            << fused->device_name();
        if (n[0] <= 64) {
          EXPECT_NE(fused->device_name().find("(4 a warp)"), std::string::npos) << fused->device_name();
        }
        if (sizeof(T) == 8 && (n[0] == 513 || n[0] == 600 || n[0] == 1000 || n[0] == 1025)) {
          // the most lines whose slabs, buffers and tables fit
          const char* lines = n[0] == 513 ? "8" : n[0] == 600 ? "6" : "5";
          EXPECT_NE(fused->device_name().find("rhs fused into x: " + std::string(lines) + " lines a block"),
                    std::string::npos)
              << fused->device_name();
          // 600: the compact tables fit a sixth line (the plan's 5); 1000
          // and 1025: the small build, compact tables and a ring of 3.
          const bool small = n[0] >= 1000;
          EXPECT_EQ(fused->device_name().find("one interior segment's tables") != std::string::npos, n[0] >= 600)
              << fused->device_name();
          EXPECT_EQ(fused->device_name().find("a ring of 3 slabs") != std::string::npos, small)
              << fused->device_name();
        }
        ++fused_cases;
        EXPECT_LE(run_both<T>(p, 4, fuse), stiff_tolerance<T>(p, step_tol)) << what;

        const std::vector<T> u0 = random_u0<T>(p);
        fused->set_field(u0.data());
        split->set_field(u0.data());
        fused->run_phase(Phase::RhsSolveX);
        split->run_phase(Phase::Rhs);
        split->run_phase(Phase::SolveX);
        for (auto* st : {fused.get(), split.get()}) {
          st->run_phase(Phase::SolveY);
          st->run_phase(Phase::SolveZ);
        }
        std::vector<T> a(u0.size()), b(u0.size());
        fused->get_field(a.data());
        split->get_field(b.data());
        double worst = 0, scale = 1e-300;
        for (std::size_t q = 0; q < a.size(); ++q) {
          worst = std::max(worst, std::fabs(static_cast<double>(a[q]) - b[q]));
          scale = std::max(scale, std::fabs(static_cast<double>(b[q]) - u0[q]));
        }
        EXPECT_LE(worst / scale, phase_tol) << what;
      }
  EXPECT_EQ(fused_cases, 108) << "x lines of 257, 512, 100, 1000, 65, 513, 600, 1025, 64, 40, 129 and 544 fused; "
                                  "3 (several lines a tile) not";
}

TEST(CudaStepper, FusedRhsXIsEquivalentToRefF64) {
  ADI_GPU_TEST_PRELUDE();
  fused_rhs_x_matches<double>(1e-12, 1e-13);
}

TEST(CudaStepper, FusedRhsXIsEquivalentToRefF32) {
  ADI_GPU_TEST_PRELUDE();
  fused_rhs_x_matches<float>(2e-5, 2e-5);
}
}  // namespace
