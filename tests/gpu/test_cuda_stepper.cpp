// The CUDA stepper against the CPU stepper (the oracle) and the analytic mode.

#include "gpu_support.hpp"
#include "test_util.hpp"

#include <array>
#include <cmath>

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

template <class T>
double run_both(const HeatProblem& p, index_t steps) {
  SeededRng rng;
  std::vector<T> u0(static_cast<std::size_t>(p.points()));
  for (auto& v : u0) v = static_cast<T>(rng.uniform(-1, 1));
  std::vector<T> got(u0.size()), want(u0.size());
  auto gpu = make_stepper<T>(p, Backend::Cuda);
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
  SeededRng rng;
  const HeatProblem p = mixed_problem(50, 41, 19);
  std::vector<double> u0(static_cast<std::size_t>(p.points()));
  for (auto& v : u0) v = rng.uniform(-1, 1);
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
// an awkward one with the fused z update on the lanes kernel.
TEST(CudaStepper, GraphStepIsBitIdenticalToLaunches) {
  ADI_GPU_TEST_PRELUDE();
  for (const auto& n : {std::array<index_t, 3>{33, 29, 31}, std::array<index_t, 3>{257, 45, 38},
                        std::array<index_t, 3>{3, 3, 3}}) {
    const HeatProblem p = mixed_problem(n[0], n[1], n[2]);
    SeededRng rng;
    std::vector<float> u0(static_cast<std::size_t>(p.points()));
    for (auto& v : u0) v = static_cast<float>(rng.uniform(-1, 1));
    SolverOptions launches;
    launches.cuda_graph = false;
    auto graph = make_stepper<float>(p, Backend::Cuda);
    auto plain = make_stepper<float>(p, Backend::Cuda, launches);
    EXPECT_NE(graph->device_name().find("CUDA graph"), std::string::npos) << graph->device_name();
    EXPECT_EQ(plain->device_name().find("CUDA graph"), std::string::npos) << plain->device_name();
    graph->set_field(u0.data());
    plain->set_field(u0.data());
    graph->advance(7);
    plain->advance(7);
    graph->step();
    plain->step();
    std::vector<float> a(u0.size()), b(u0.size());
    graph->get_field(a.data());
    plain->get_field(b.data());
    EXPECT_EQ(a, b) << n[0] << " x " << n[1] << " x " << n[2];
    EXPECT_NE(a, u0);
  }
}

// The RHS fused into the x solve equals the two phases run separately (to
// round-off: the fused kernel may contract differently), on every boundary
// combination (SolverOptions::fuse_rhs, ADI_FUSE_RHS=1, turns the fused path on).
TEST(CudaStepper, FusedRhsSolveXIsEquivalentToSeparatePhases) {
  ADI_GPU_TEST_PRELUDE();
  SeededRng rng;
  for (int combo = 0; combo < 4; ++combo) {
    HeatProblem p = mixed_problem(257, 45, 38);
    p.lo[0] = combo & 1 ? Boundary::Neumann : Boundary::Dirichlet;
    p.hi[0] = combo & 2 ? Boundary::Neumann : Boundary::Dirichlet;
    std::vector<double> u0(static_cast<std::size_t>(p.points()));
    for (auto& v : u0) v = rng.uniform(-1, 1);
    SolverOptions fuse;
    fuse.fuse_rhs = true;
    auto fused = make_stepper<double>(p, Backend::Cuda, fuse);
    auto split = make_stepper<double>(p, Backend::Cuda);
    const auto ph = fused->phases();
    ASSERT_FALSE(ph.empty());
    EXPECT_EQ(ph.front(), Phase::RhsSolveX) << "x lines of 257 should take the fused path";
    fused->set_field(u0.data());
    split->set_field(u0.data());
    fused->run_phase(Phase::RhsSolveX);
    split->run_phase(Phase::Rhs);
    split->run_phase(Phase::SolveX);
    for (auto* st : {fused.get(), split.get()}) {
      st->run_phase(Phase::SolveY);
      st->run_phase(Phase::SolveZ);
    }
    std::vector<double> a(u0.size()), b(u0.size());
    fused->get_field(a.data());
    split->get_field(b.data());
    double worst = 0, scale = 1e-300;
    for (std::size_t q = 0; q < a.size(); ++q) {
      worst = std::max(worst, std::fabs(a[q] - b[q]));
      scale = std::max(scale, std::fabs(b[q] - u0[q]));
    }
    EXPECT_LE(worst / scale, 1e-13) << "boundary combination " << combo;
  }
}
}  // namespace
