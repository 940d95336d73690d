// The distributed stepper under mpirun (label mpi; ctest runs this program
// with 1, 2, 3 and 4 ranks): every rank compares its box with the
// single-process CPU stepper (the oracle) run on the whole grid. Errors are
// reduced over the ranks before any EXPECT, so every rank takes the same
// branch (an early return on one rank would leave the others waiting in a
// collective) and all agree on pass/fail; rank 0 prints the report, other
// ranks print only their failures.
//
// ADI_MPI_TEST_BACKEND=cuda runs the same tests with one GPU per rank
// (skipped without a device unless ADI_REQUIRE_GPU=1) and also compares
// with the single-GPU stepper.

#include "gpu_required.hpp"
#include "test_util.hpp"

#include <adi/factory.hpp>
#include <adi/mpi.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

using namespace adi;
using namespace adi::test;

namespace {

int rank() { return mpi::world_rank(); }
int ranks() { return mpi::world_size(); }

Backend test_backend() {
  const char* b = std::getenv("ADI_MPI_TEST_BACKEND");
  return b && std::strcmp(b, "cuda") == 0 ? Backend::Cuda : Backend::Cpu;
}

/// The exchange knobs the ctest entries vary (ADI_MPI_OVERLAP=0,
/// ADI_MPI_BATCHES=N): the library reads no environment, the test passes
/// them as the app does.
SolverOptions test_options() {
  SolverOptions o;
  if (const char* v = std::getenv("ADI_MPI_OVERLAP"); v && *v) o.mpi_overlap = std::strcmp(v, "0") != 0;
  if (const char* v = std::getenv("ADI_MPI_BATCHES"); v && *v) o.mpi_batches = std::atoi(v);
  return o;
}

/// Skips (or fails with ADI_REQUIRE_GPU=1) the CUDA variant without a device
/// on some rank; every rank decides the same.
#define ADI_MPI_BACKEND_PRELUDE()                                                                  \
  do {                                                                                             \
    if (test_backend() == Backend::Cuda) {                                                         \
      double missing = cuda_unavailable_reason().empty() ? 0.0 : 1.0;                              \
      mpi::allreduce_max(&missing, 1);                                                             \
      if (missing > 0) {                                                                           \
        if (gpu_required()) FAIL() << "ADI_REQUIRE_GPU=1 but a rank has no GPU";                 \
        GTEST_SKIP() << "a rank has no usable CUDA device";                                        \
      }                                                                                            \
    }                                                                                              \
  } while (0)

/// The same random numbers on every rank (rank 0's seed).
struct SharedRng {
  std::mt19937_64 gen;
  SharedRng() {
    std::string seed = std::to_string(fresh_seed());
    mpi::broadcast(seed, 0);
    if (rank() == 0) std::cout << "[ seed     ] ADI_TEST_SEED=" << seed << std::endl;
    gen.seed(std::stoull(seed));
  }
  double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(gen); }
};

HeatProblem problem(int bc, index_t nx = 37, index_t ny = 29, index_t nz = 23) {
  HeatProblem p;
  p.n = {nx, ny, nz};
  p.length = {1.3, 1.0, 0.7};
  p.alpha = {1.0, 0.6, 1.7};
  p.dt = 4e-4;
  if (bc == 1) {  // Neumann and mixed faces
    p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann};
    p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  } else if (bc == 2) {
    p.lo.fill(Boundary::Neumann);
    p.hi.fill(Boundary::Neumann);
  }
  return p;
}
const char* bc_name(int bc) { return bc == 0 ? "dirichlet" : bc == 1 ? "neumann/mixed" : "neumann"; }

/// The process grids worth testing on this many ranks: automatic, z slabs, y slabs.
std::vector<std::array<int, 3>> grids(const HeatProblem& p) {
  std::vector<std::array<int, 3>> g{{0, 0, 0}};
  const int r = ranks();
  if (r > 1 && r <= p.n[2]) g.push_back({1, 1, r});
  if (r > 1 && r <= p.n[1]) g.push_back({1, r, 1});
  return g;
}
std::string grid_name(const std::array<int, 3>& g) {
  if (g[0] == 0) return "auto";
  std::ostringstream s;
  s << g[0] << "x" << g[1] << "x" << g[2];
  return s.str();
}

template <class T>
std::vector<T> box_of(const std::vector<T>& global, const HeatProblem& p, const Box& b) {
  std::vector<T> out(static_cast<std::size_t>(b.points()));
  for (index_t k = 0; k < b.size[2]; ++k)
    for (index_t j = 0; j < b.size[1]; ++j)
      for (index_t i = 0; i < b.size[0]; ++i)
        out[i + b.size[0] * (j + b.size[1] * k)] =
            global[(b.begin[0] + i) + p.n[0] * ((b.begin[1] + j) + p.n[1] * (b.begin[2] + k))];
  return out;
}

/// max |got - want| over all ranks / max |want| over all ranks (NaN -> inf).
template <class T>
double global_rel_diff(const std::vector<T>& got, const std::vector<T>& want) {
  double v[2] = {0.0, 1e-300};
  for (std::size_t q = 0; q < got.size(); ++q) {
    const double g = got[q], w = want[q];
    v[0] = std::max(v[0], std::isfinite(g) ? std::fabs(g - w) : INFINITY);
    v[1] = std::max(v[1], std::fabs(w));
  }
  mpi::allreduce_max(v, 2);
  return v[0] / v[1];
}

template <class T>
double run_compare(const HeatProblem& p, const std::array<int, 3>& grid, index_t steps, SharedRng& rng,
                   double* vs_gpu = nullptr) {
  std::vector<T> u0(static_cast<std::size_t>(p.points()));
  for (auto& v : u0) v = static_cast<T>(rng.uniform(-1, 1));
  auto ref = make_stepper<T>(p, Backend::Cpu);
  ref->set_field(u0.data());
  ref->advance(steps);
  std::vector<T> want(u0.size());
  ref->get_field(want.data());

  auto st = mpi::make_distributed_stepper<T>(p, test_backend(), grid, test_options());
  const Box b = st->part().box;
  // Half the tests set the boxes directly, half scatter from rank 0.
  if (steps % 2) {
    const std::vector<T> mine = box_of(u0, p, b);
    st->set_field(mine.data());
  } else {
    st->scatter_field(rank() == 0 ? u0.data() : nullptr);
  }
  st->advance(steps);
  std::vector<T> got(static_cast<std::size_t>(b.points()));
  st->get_field(got.data());
  if (vs_gpu) {  // the same on one GPU (every rank runs it on its own device)
    auto one = make_stepper<T>(p, Backend::Cuda);
    one->set_field(u0.data());
    one->advance(steps);
    std::vector<T> g1(u0.size());
    one->get_field(g1.data());
    *vs_gpu = global_rel_diff(got, box_of(g1, p, b));
  }
  return global_rel_diff(got, box_of(want, p, b));
}

TEST(MpiStepper, StepsAgreeWithTheSingleProcessStepperF64) {
  ADI_MPI_BACKEND_PRELUDE();
  SharedRng rng;
  for (int bc = 0; bc < 3; ++bc) {
    const HeatProblem p = problem(bc);
    for (const auto& g : grids(p)) {
      double gpu = 0;
      const double d = run_compare<double>(p, g, 10 + (bc & 1), rng,
                                           test_backend() == Backend::Cuda ? &gpu : nullptr);
      EXPECT_LE(d, 1e-12) << bc_name(bc) << ", grid " << grid_name(g) << ", " << ranks() << " ranks";
      if (test_backend() == Backend::Cuda) {  // (gpu stays 0 on the CPU variant: nothing to check there)
        EXPECT_LE(gpu, 1e-12) << "vs one GPU: " << bc_name(bc) << ", grid " << grid_name(g);
      }
      if (rank() == 0)
        std::cout << "[ compare  ] " << bc_name(bc) << " grid " << grid_name(g) << ": max rel diff " << d << std::endl;
    }
  }
}

TEST(MpiStepper, StepsAgreeWithTheSingleProcessStepperF32) {
  ADI_MPI_BACKEND_PRELUDE();
  SharedRng rng;
  for (int bc = 0; bc < 2; ++bc) {
    const HeatProblem p = problem(bc);
    for (const auto& g : grids(p)) {
      const double d = run_compare<float>(p, g, 8, rng);
      EXPECT_LE(d, 2e-5) << bc_name(bc) << ", grid " << grid_name(g) << ", " << ranks() << " ranks";
    }
  }
}

TEST(MpiStepper, RanksWithOneNodeAlongTheSplitAxis) {
  ADI_MPI_BACKEND_PRELUDE();
  SharedRng rng;
  // nz = 4 on 4 ranks: one plane each; nz = 5: 2, 1, 1, 1.
  for (index_t nz : {ranks() + index_t(0), ranks() + index_t(1)}) {
    if (nz < 3) continue;
    for (int bc = 0; bc < 2; ++bc) {
      const HeatProblem p = problem(bc, 19, 7, nz);
      const double d = run_compare<double>(p, {1, 1, ranks()}, 6, rng);
      EXPECT_LE(d, 1e-12) << bc_name(bc) << ", nz = " << nz;
    }
  }
  const HeatProblem p = problem(1, 19, 5, 11);
  if (ranks() <= 5) {
    const double d = run_compare<double>(p, {1, ranks(), 1}, 5, rng);
    EXPECT_LE(d, 1e-12) << "ny = 5 split in " << ranks();
  }
}

TEST(MpiStepper, AnalyticRoundoff) {
  ADI_MPI_BACKEND_PRELUDE();
  HeatProblem p;
  p.n = {37, 29, 23};
  p.length = {1.0, 0.8, 0.6};
  p.alpha = {1.0, 0.5, 0.25};
  p.dt = 2e-3;
  p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann};
  p.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Dirichlet};
  std::vector<double> u;
  fill_analytic(p, u);
  auto st = mpi::make_distributed_stepper<double>(p, test_backend(), {{0, 0, 0}}, test_options());
  st->scatter_field(rank() == 0 ? u.data() : nullptr);
  st->advance(25);
  std::vector<double> out(rank() == 0 ? u.size() : 0);
  st->gather_field(rank() == 0 ? out.data() : nullptr);
  double err = 0;
  if (rank() == 0) err = compare_with_mode(p, out, std::pow(analytic_mode(p).amplification, 25.0)).rel_max();
  mpi::allreduce_max(&err, 1);
  EXPECT_LE(err, 1e-12);
}

template <class T>
void check_line_solve(Axis axis, SharedRng& rng, double tol) {
  for (int bc = 0; bc < 2; ++bc) {
    const HeatProblem p = problem(bc);
    for (const auto& g : grids(p)) {
      std::vector<T> d(static_cast<std::size_t>(p.points()));
      for (auto& v : d) v = static_cast<T>(rng.uniform(-1, 1));
      std::vector<T> want = d;
      cpu::solve_constant(axis, ThomasFactor<T>::factor(douglas_line_matrix(p, axis)), want.data(), p.layout());
      auto st = mpi::make_distributed_stepper<T>(p, test_backend(), g, test_options());
      std::vector<T> box = box_of(d, p, st->part().box);
      st->solve_lines(axis, box.data());
      const double diff = global_rel_diff(box, box_of(want, p, st->part().box));
      EXPECT_LE(diff, tol) << axis_name(axis) << " lines, " << bc_name(bc) << ", grid " << grid_name(g);
    }
  }
}

TEST(MpiStepper, DistributedLineSolveIsEquivalentToRef) {
  ADI_MPI_BACKEND_PRELUDE();
  SharedRng rng;
  for (Axis a : {Axis::X, Axis::Y, Axis::Z}) {
    check_line_solve<double>(a, rng, 1e-13);
    check_line_solve<float>(a, rng, tolerance_for<float>());
  }
}

TEST(MpiStepper, ScatterGatherRoundTripAndStats) {
  ADI_MPI_BACKEND_PRELUDE();
  SharedRng rng;
  const HeatProblem p = problem(1);
  std::vector<double> u(static_cast<std::size_t>(p.points()));
  for (auto& v : u) v = rng.uniform(-1, 1);
  u[1234] = -7.25;
  auto st = mpi::make_distributed_stepper<double>(p, test_backend(), {{0, 0, 0}}, test_options());
  st->scatter_field(rank() == 0 ? u.data() : nullptr);
  std::vector<double> back(rank() == 0 ? u.size() : 0, poison<double>());
  st->gather_field(rank() == 0 ? back.data() : nullptr);
  double same = rank() == 0 ? (std::memcmp(back.data(), u.data(), sizeof(double) * u.size()) == 0 ? 0.0 : 1.0) : 0.0;
  mpi::allreduce_max(&same, 1);
  EXPECT_EQ(same, 0.0) << "gather(scatter(u)) != u";
  std::vector<double> mine(static_cast<std::size_t>(st->part().box.points()));
  st->get_field(mine.data());
  EXPECT_EQ(global_rel_diff(mine, box_of(u, p, st->part().box)), 0.0);
  FieldStats s = st->field_stats();
  EXPECT_TRUE(s.finite);
  EXPECT_EQ(s.max_abs, 7.25);
  // A NaN on the last rank only is seen by all.
  if (rank() == ranks() - 1) mine[mine.size() / 2] = std::nan("");
  st->set_field(mine.data());
  EXPECT_FALSE(st->field_stats().finite);
}

TEST(MpiStepper, ProcessGridErrorsAreTheSameOnEveryRank) {
  const HeatProblem p = problem(0);
  auto message = [&](const std::array<int, 3>& g) {
    try {
      mpi::make_distributed_stepper<double>(p, Backend::Cpu, g);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({2, 1, ranks()}).find("x axis is never split"), std::string::npos);
  const std::string wrong = message({1, 1, ranks() + 1});
  EXPECT_NE(wrong.find("has " + std::to_string(ranks() + 1) + " ranks, the run has " + std::to_string(ranks())),
            std::string::npos)
      << wrong;
}

/// On ranks other than 0: print only failed assertions, tagged with the rank.
class FailurePrinter : public ::testing::EmptyTestEventListener {
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::cout << "[rank " << rank() << "] " << (r.file_name() ? r.file_name() : "") << ":" << r.line_number()
                << ": " << r.summary() << std::endl;
  }
};

}  // namespace

int main(int argc, char** argv) {
  mpi::Session session(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new FailurePrinter);
  }
  if (rank() == 0)
    std::cout << "[ mpi      ] " << ranks() << " rank(s), backend " << backend_name(test_backend()) << std::endl;
  const int rc = RUN_ALL_TESTS();
  const auto& u = *::testing::UnitTest::GetInstance();
  // 77 (ctest's SKIP_RETURN_CODE) only when every test skipped and none
  // failed on any rank; gtest counts a skipped test as neither passed nor failed.
  double v[2] = {rc != 0 ? 1.0 : 0.0, u.skipped_test_count() > 0 && u.successful_test_count() == 0 ? 1.0 : 0.0};
  mpi::allreduce_max(v, 2);
  if (v[0] > 0) return 1;
  return v[1] > 0 ? 77 : 0;
}
