// The distributed stepper of the GENERAL problem (K, c, q fields, sources,
// every face kind, periodic axes cut across ranks, flat axes) under mpirun
// (label mpi; ctest runs this program with 1, 2, 3 and 4 ranks): every rank
// compares its box with the single-process general CPU stepper (the oracle,
// cpu::CpuStepper) on the whole grid. As in test_mpi_stepper.cpp,
// errors are reduced over the ranks before any assertion, so every rank
// takes the same branch.
//
// ADI_MPI_TEST_BACKEND=cuda runs the same tests with GPU ranks (the CUDA
// local backend, solver/cuda/general/general_local_cuda.cu; skipped without
// a device unless ADI_REQUIRE_GPU=1); ADI_MPI_TEST_SEGMENTED=0 turns the
// segmented kernel off there (SolverOptions::general_segmented), so the
// axes a rank holds whole take the one-line-per-thread kernels;
// ADI_MPI_BATCHES=N and ADI_MPI_OVERLAP=0 set the batches of lines of the
// split axes (SolverOptions::mpi_batches, mpi_overlap: one batch).

#include "gpu_required.hpp"
#include "test_util.hpp"

#include <adi/factory.hpp>
#include <adi/mpi.hpp>
#include <adi/verification.hpp>

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
bool gpu_variant() { return test_backend() == Backend::Cuda; }

/// The options the ctest entries vary (the library reads no environment).
SolverOptions test_options() {
  SolverOptions o;
  if (const char* v = std::getenv("ADI_MPI_TEST_SEGMENTED"); v && *v) o.general_segmented = std::strcmp(v, "0") != 0;
  if (const char* v = std::getenv("ADI_MPI_OVERLAP"); v && *v) o.mpi_overlap = std::strcmp(v, "0") != 0;
  if (const char* v = std::getenv("ADI_MPI_BATCHES"); v && *v) o.mpi_batches = std::atoi(v);
  return o;
}

/// Whether some rank lacks a usable CUDA device (the same answer on every rank).
bool a_rank_lacks_a_gpu() {
  double missing = cuda_unavailable_reason().empty() ? 0.0 : 1.0;
  mpi::allreduce_max(&missing, 1);
  return missing > 0;
}

/// Skips (or fails with ADI_REQUIRE_GPU=1) the CUDA variant without a device
/// on some rank; every rank decides the same.
#define ADI_MPI_BACKEND_PRELUDE()                                                  \
  do {                                                                             \
    if (gpu_variant() && a_rank_lacks_a_gpu()) {                                   \
      if (gpu_required()) FAIL() << "ADI_REQUIRE_GPU=1 but a rank has no GPU";   \
      GTEST_SKIP() << "a rank has no usable CUDA device";                          \
    }                                                                              \
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

std::string grid_name(const std::array<int, 3>& g) {
  if (g[0] == 0 && g[1] == 0 && g[2] == 0) return "auto";
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

/// A smooth random field with values in [lo, lo * ratio] (a 10x variation
/// for ratio 10), different on every call.
std::shared_ptr<const FieldSource> smooth_field(const HeatProblem& p, const char* name, double lo, double ratio,
                                                SharedRng& rng) {
  double ph[3], fr[3];
  for (int a = 0; a < 3; ++a) ph[a] = rng.uniform(0, 6.3), fr[a] = rng.uniform(0.5, 2.5);
  std::vector<double> v(static_cast<std::size_t>(p.points()));
  for (index_t k = 0; k < p.n[2]; ++k)
    for (index_t j = 0; j < p.n[1]; ++j)
      for (index_t i = 0; i < p.n[0]; ++i) {
        const double s = std::sin(fr[0] * static_cast<double>(i) * 0.7 + ph[0]) *
                         std::cos(fr[1] * static_cast<double>(j) * 0.6 + ph[1]) *
                         std::sin(fr[2] * static_cast<double>(k) * 0.8 + ph[2]);
        v[static_cast<std::size_t>(i + p.n[0] * (j + p.n[1] * k))] = lo * (1.0 + (ratio - 1.0) * 0.5 * (1.0 + s));
      }
  return std::make_shared<ArrayField>(name, p.n, std::move(v));
}

TimeTable table(double a, double b) {
  TimeTable t;
  t.t = {0.0, 0.004, 0.012};
  t.v = {1.0, a, b};
  return t;
}

/// K per axis (three different fields), c and q fields varying 10x, a source table.
void add_materials(HeatProblem& p, SharedRng& rng, bool isotropic = false) {
  auto k0 = smooth_field(p, "K0", 0.3, 10.0, rng);
  p.material.conductivity = {k0, isotropic ? k0 : smooth_field(p, "K1", 0.2, 10.0, rng),
                             isotropic ? k0 : smooth_field(p, "K2", 0.5, 10.0, rng)};
  p.material.capacity = smooth_field(p, "c", 0.5, 10.0, rng);
  p.material.source = smooth_field(p, "q", 1.0, 10.0, rng);
  p.source_table = table(2.0, -0.5);
}

HeatProblem base(index_t nx, index_t ny, index_t nz) {
  HeatProblem p;
  p.n = {nx, ny, nz};
  p.length = {1.1, 0.9, 0.8};
  p.alpha = {0.8, 1.3, 0.6};
  p.dt = 2e-3;
  return p;
}

/// Every face kind: Dirichlet with a constant value and a table (x lo),
/// from the initial field with a table (y hi), heat fluxes with and without
/// a table (z lo, y lo), convective faces (x hi, z hi, the ambient moving).
void add_all_faces(HeatProblem& p) {
  p.lo = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Robin, Boundary::Dirichlet, Boundary::Robin};
  p.lo_data[0].value_from_initial = false;
  p.lo_data[0].value = 0.7;
  p.lo_data[0].table = table(1.5, 0.2);
  p.hi_data[1].table = table(0.6, 1.3);
  p.lo_data[2].flux = 1.7;
  p.lo_data[2].table = table(-1.0, 0.5);
  p.lo_data[1].flux = -0.4;
  p.hi_data[0].h = 3.0;
  p.hi_data[0].ambient = 0.25;
  p.hi_data[2].h = 0.8;
  p.hi_data[2].ambient = -0.5;
  p.hi_data[2].table = table(2.0, 1.0);
}

void set_periodic(HeatProblem& p, int a) {
  p.lo[a] = p.hi[a] = Boundary::Periodic;
  p.lo_data[a] = p.hi_data[a] = FaceData{};
}

/// The process grids worth testing on this many ranks (x is never split):
/// automatic, z slabs, y slabs, and the 2 x 2 pencil on 4 ranks.
std::vector<std::array<int, 3>> grids(const HeatProblem& p) {
  std::vector<std::array<int, 3>> g{{0, 0, 0}};
  const int r = ranks();
  if (r > 1 && r <= p.n[2]) g.push_back({1, 1, r});
  if (r > 1 && r <= p.n[1]) g.push_back({1, r, 1});
  if (r == 4 && p.n[1] >= 2 && p.n[2] >= 2) g.push_back({1, 2, 2});
  return g;
}

/// Steps the oracle on the whole grid and the distributed stepper from the
/// same random field (the Dirichlet values imposed first, as a fresh run
/// does); the max relative difference over all ranks.
template <class T>
double run_compare(HeatProblem p, const std::array<int, 3>& grid, index_t steps, SharedRng& rng) {
  std::vector<T> u0(static_cast<std::size_t>(p.points()));
  std::vector<double> u0d(u0.size());
  for (std::size_t q = 0; q < u0.size(); ++q) u0[q] = static_cast<T>(u0d[q] = rng.uniform(-1, 1));
  p.initial_field = std::make_shared<ArrayField>("u0", p.n, u0d);
  auto ref = make_stepper<T>(p, Backend::Cpu);
  ref->set_field(u0.data());
  ref->impose_boundary_values();
  ref->advance(steps);
  std::vector<T> want(u0.size());
  ref->get_field(want.data());

  auto st = mpi::make_distributed_stepper<T>(p, test_backend(), grid, test_options());
  EXPECT_EQ(st->backend(), test_backend());
  const Box b = st->part().box;
  if (steps % 2) {
    const std::vector<T> mine = box_of(u0, p, b);
    st->set_field(mine.data());
  } else {
    st->scatter_field(rank() == 0 ? u0.data() : nullptr);
  }
  st->impose_boundary_values();
  st->advance(steps);
  std::vector<T> got(static_cast<std::size_t>(b.points()));
  st->get_field(got.data());
  const double d = global_rel_diff(got, box_of(want, p, b));
  // The gathered field is the same numbers.
  std::vector<T> all(rank() == 0 ? u0.size() : 0);
  st->gather_field(rank() == 0 ? all.data() : nullptr);
  double g = 0.0;
  if (rank() == 0) {
    double w = 1e-300;
    for (std::size_t q = 0; q < all.size(); ++q) {
      const double x = all[q], y = want[q];
      g = std::max(g, std::isfinite(x) ? std::fabs(x - y) : INFINITY);
      w = std::max(w, std::fabs(y));
    }
    g /= w;
  }
  mpi::allreduce_max(&g, 1);
  return std::max(d, g);
}

struct Case {
  std::string name;
  HeatProblem p;
};

void expect_agree(const Case& c, index_t steps, SharedRng& rng, double tol = 1e-12) {
  for (const auto& g : grids(c.p)) {
    const double d = run_compare<double>(c.p, g, steps, rng);
    EXPECT_LE(d, tol) << c.name << ", grid " << grid_name(g) << ", " << ranks() << " ranks";
    if (rank() == 0)
      std::cout << "[ compare  ] " << c.name << " grid " << grid_name(g) << ": max rel diff " << d << std::endl;
  }
}

TEST(MpiGeneral, MaterialFieldsAndEveryFaceKindAgreeWithTheOracle) {
  ADI_MPI_BACKEND_PRELUDE();
  SharedRng rng;
  for (auto n : {std::array<index_t, 3>{13, 11, 7}, std::array<index_t, 3>{17, 9, 10}}) {
    Case c{"fields + every face kind " + std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" +
               std::to_string(n[2]),
           base(n[0], n[1], n[2])};
    add_materials(c.p, rng);
    add_all_faces(c.p);
    expect_agree(c, 20, rng);
  }
  // Insulated and all-Dirichlet (from the initial field) with fields and an isotropic K.
  Case c{"fields, insulated faces, isotropic K", base(13, 11, 7)};
  add_materials(c.p, rng, true);
  c.p.lo.fill(Boundary::Neumann);
  c.p.hi.fill(Boundary::Neumann);
  expect_agree(c, 21, rng);
  Case d{"fields, Dirichlet faces", base(17, 9, 10)};
  add_materials(d.p, rng);
  expect_agree(d, 20, rng);
}

TEST(MpiGeneral, ConstantCoefficientsWithFacesAndTables) {
  ADI_MPI_BACKEND_PRELUDE();
  SharedRng rng;
  Case c{"constant K, every face kind", base(13, 11, 7)};
  add_all_faces(c.p);
  c.p.source = 0.9;
  expect_agree(c, 20, rng);
}

TEST(MpiGeneral, PeriodicAxesCutAcrossRanks) {
  ADI_MPI_BACKEND_PRELUDE();
  SharedRng rng;
  {
    Case c{"periodic x, y, z with fields", base(13, 11, 7)};
    add_materials(c.p, rng);
    for (int a = 0; a < 3; ++a) set_periodic(c.p, a);
    expect_agree(c, 20, rng);
  }
  {
    Case c{"periodic y, flux/Robin x, Dirichlet z, fields", base(17, 9, 10)};
    add_materials(c.p, rng);
    add_all_faces(c.p);
    set_periodic(c.p, 1);
    expect_agree(c, 21, rng);
  }
  {
    Case c{"periodic z, constant coefficients, every other face kind", base(13, 11, 7)};
    add_all_faces(c.p);
    set_periodic(c.p, 2);
    expect_agree(c, 20, rng);
  }
}

TEST(MpiGeneral, FlatAxis) {
  ADI_MPI_BACKEND_PRELUDE();
  SharedRng rng;
  {
    Case c{"nz = 1, fields, periodic y, Robin/flux x", base(17, 13, 1)};
    add_materials(c.p, rng);
    add_all_faces(c.p);
    set_periodic(c.p, 1);
    c.p.lo[2] = c.p.hi[2] = Boundary::Dirichlet;  // no faces along a flat axis
    c.p.lo_data[2] = c.p.hi_data[2] = FaceData{};
    expect_agree(c, 20, rng);
  }
  {
    Case c{"ny = 1, fields, every face kind on x and z", base(13, 1, 11)};
    add_materials(c.p, rng);
    add_all_faces(c.p);
    c.p.lo[1] = c.p.hi[1] = Boundary::Dirichlet;
    c.p.lo_data[1] = c.p.hi_data[1] = FaceData{};
    expect_agree(c, 20, rng);
  }
}

TEST(MpiGeneral, RanksWithOneOrTwoPlanes) {
  ADI_MPI_BACKEND_PRELUDE();
  SharedRng rng;
  // nz = ranks: one plane each; nz = ranks + 1: two planes on the first rank.
  for (index_t nz : {ranks() + index_t(0), ranks() + index_t(1)}) {
    if (nz < 3) continue;
    for (bool periodic : {false, true}) {
      Case c{std::string("one-plane boxes, nz = ") + std::to_string(nz) + (periodic ? ", periodic z" : ""),
             base(11, 7, nz)};
      add_materials(c.p, rng);
      add_all_faces(c.p);
      if (periodic) set_periodic(c.p, 2);
      const double d = run_compare<double>(c.p, {1, 1, ranks()}, 15, rng);
      EXPECT_LE(d, 1e-12) << c.name;
    }
  }
}

TEST(MpiGeneral, SinglePrecision) {
  ADI_MPI_BACKEND_PRELUDE();
  SharedRng rng;
  HeatProblem p = base(13, 11, 7);
  add_materials(p, rng);
  add_all_faces(p);
  set_periodic(p, 2);
  for (const auto& g : grids(p)) {
    const double d = run_compare<float>(p, g, 12, rng);
    EXPECT_LE(d, 2e-5) << "fp32, grid " << grid_name(g);
  }
}

// The stepper contract runs these checks on the same spec (the automatic
// grid, default options) for CPU ranks at 1-4 ranks (contract_mpi_np*) and
// GPU ranks at 1 and 2 (contract_mpi_cuda_np*), and more of them; GPU ranks
// at 3 and 4 ranks, sharing a device, meet them here only.
TEST(MpiGeneral, DistributedVerificationChecks) {
  ADI_MPI_BACKEND_PRELUDE();
  // The stepper contract runs most of these on the same spec at 1-4 CPU
  // ranks and 1-2 GPU ranks; they stay here too, so that no rank count of
  // the GPU variant reports a skip (this program's 77) for a test that ran.
  StepperSpec spec;
  spec.backend = test_backend();
  spec.distributed = true;
  for (const verify::Check& c :
       {verify::conservation(Precision::F64, spec), verify::periodic_fourier(Precision::F64, spec),
        verify::flat_axis(Precision::F64, spec), verify::manufactured_materials(spec), verify::energy_balance(spec),
        verify::inclusion_stability(spec), verify::source_table_time(1.0, spec)}) {
    EXPECT_TRUE(c.ok) << c.name << ": " << c.quantity << " = " << c.value << " (accepted " << c.lo << " .. " << c.hi
                      << ") " << c.detail;
    if (rank() == 0) std::cout << "[ verify   ] " << c.name << ": " << c.value << std::endl;
  }
}

// GPU ranks take the general problem (they refused it before
// general_local_cuda.cu): without a device every rank throws the same
// BackendUnavailable naming the reason; with one the stepper is built on
// the CUDA local backend. The two branches cover the two machines this
// program runs on.
TEST(MpiGeneral, CudaRanksTakeTheGeneralProblemOrSayWhyNot) {
  HeatProblem p = base(13, 11, 7);
  set_periodic(p, 2);
  std::string what;
  std::unique_ptr<mpi::DistributedStepper<double>> st;
  try {
    st = mpi::make_distributed_stepper<double>(p, Backend::Cuda);
  } catch (const BackendUnavailable& e) {
    what = e.what();
  }
  if (a_rank_lacks_a_gpu()) {
    EXPECT_EQ(st, nullptr);
    EXPECT_NE(what.find("backend 'cuda' is not available"), std::string::npos) << what;
  } else {
    ASSERT_NE(st, nullptr) << what;
    EXPECT_EQ(st->backend(), Backend::Cuda);
    EXPECT_NE(st->device_name().find("general path"), std::string::npos) << st->device_name();
  }
}

TEST(MpiGeneral, BadMaterialValueOnOneRankFailsEveryRank) {
  ADI_MPI_BACKEND_PRELUDE();
  HeatProblem p = base(13, 11, 7);
  std::vector<double> k(static_cast<std::size_t>(p.points()), 1.0);
  // The last node: the last rank's box whatever the grid.
  k.back() = -2.0;
  auto K = std::make_shared<ArrayField>("K", p.n, k);
  p.material.conductivity = {K, K, K};
  std::string what;
  bool threw = false;
  try {
    mpi::make_distributed_stepper<double>(p, test_backend(), {{0, 0, 0}}, test_options());
  } catch (const Error& e) {
    threw = true;
    what = e.what();
  }
  double all = threw ? 0.0 : 1.0;
  mpi::allreduce_max(&all, 1);
  EXPECT_EQ(all, 0.0) << "some rank did not throw";
  if (rank() == ranks() - 1) {
    EXPECT_NE(what.find("(12, 10, 6)"), std::string::npos) << what;
  }
}

// A failure that one rank finds during a step (its lines' pivots overflow:
// K = 1e308 at the last two nodes of the last x line, K dt / (c h^2) =
// 1e308 * 119) stops every rank in that step: exactly one rank throws its
// NumericalError, the others PeerError naming it, and none waits for it in
// a collective (the hang this test would show is the one a NaN on one GPU
// rank once caused). The one named is the rank that owns the line, or a
// rank whose box borders those nodes: its face with them is its own data
// too (a 1x1x4 grid of 7 planes leaves the owner one plane; on a GPU rank
// the face's harmonic mean overflows in the neighbour's RHS, and its x
// line kernel reports the NaN at the same point of the step as the owner's
// pivot, so the lower rank is named). On every process grid, and again for
// the next step, which starts from what the failure left (the peers
// finished their lines on the failed rank's rows, so their u may hold NaN,
// which a GPU rank's line kernels report as their own): there every rank
// stops and all name one rank.
TEST(MpiGeneral, AFailureOnOneRankDuringAStepStopsEveryRank) {
  ADI_MPI_BACKEND_PRELUDE();
  HeatProblem p = base(13, 11, 7);
  p.dt = 1.0;
  std::vector<double> k(static_cast<std::size_t>(p.points()), 1.0);
  k[k.size() - 1] = k[k.size() - 2] = 1e308;
  auto K = std::make_shared<ArrayField>("K", p.n, k);
  p.material.conductivity = {K, K, K};
  for (const auto& g : grids(p)) {
    auto st = mpi::make_distributed_stepper<double>(p, test_backend(), g, test_options());
    const Box b = st->part().box;
    const bool owner = b.end(0) == p.n[0] && b.end(1) == p.n[1] && b.end(2) == p.n[2];
    // This box, one node wider each way, holds node (12, 10, 6) or (11, 10, 6).
    const auto borders = [&](index_t x, index_t y, index_t z) {
      const index_t at[3] = {x, y, z};
      for (int a = 0; a < 3; ++a)
        if (at[a] < b.begin[a] - 1 || at[a] > b.end(a)) return false;
      return true;
    };
    const bool touches = borders(p.n[0] - 1, p.n[1] - 1, p.n[2] - 1) || borders(p.n[0] - 2, p.n[1] - 1, p.n[2] - 1);
    double owners = owner ? 1.0 : 0.0;
    mpi::allreduce_sum(&owners, 1);
    ASSERT_EQ(owners, 1.0) << "grid " << grid_name(g);
    const std::vector<double> u(static_cast<std::size_t>(b.points()), 0.5);
    st->set_field(u.data());
    for (int attempt = 0; attempt < 2; ++attempt) {
      std::string what;
      int kind = 0;  // 0 returned, 1 NumericalError, 2 PeerError
      try {
        st->step();
      } catch (const NumericalError& e) {
        kind = 1;
        what = e.what();
      } catch (const mpi::PeerError& e) {
        kind = 2;
        what = e.what();
      }
      double returned = kind == 0 ? 1.0 : 0.0;
      mpi::allreduce_max(&returned, 1);
      EXPECT_EQ(returned, 0.0) << "grid " << grid_name(g) << ", step " << attempt << ": some rank's step returned";
      // Every rank names the same one rank: its own error there, PeerError
      // naming it elsewhere.
      const std::string where = "grid " + grid_name(g) + ", step " + std::to_string(attempt) + ", rank " +
                                std::to_string(rank()) + ": " + what;
      double named = kind == 1 ? rank() : -1.0, count = kind == 1 ? 1.0 : 0.0;
      double named_touches = kind == 1 && touches ? 1.0 : 0.0;
      mpi::allreduce_max(&named, 1);
      mpi::allreduce_sum(&count, 1);
      mpi::allreduce_max(&named_touches, 1);
      EXPECT_EQ(count, 1.0) << where << " (ranks that threw their own error)";
      if (kind == 1) {
        EXPECT_NE(what.find("line solve along"), std::string::npos) << where;
      } else {
        EXPECT_EQ(kind, 2) << where;
        EXPECT_NE(what.find("rank " + std::to_string(static_cast<int>(named)) + " failed"), std::string::npos) << where;
      }
      if (attempt == 0) {
        // The first failure: the owner or a rank bordering its nodes, and
        // on the CPU (whose line solves check pivots, not the data) the
        // owner: its pivots fail in the x solve, a neighbour's not before z.
        EXPECT_EQ(named_touches, 1.0) << where << " (the rank named borders the bad nodes)";
        if (owner && test_backend() == Backend::Cpu) {
          EXPECT_EQ(kind, 1) << where;
        }
        if (kind == 1) {
          EXPECT_NE(what.find("line solve along x"), std::string::npos) << where;
        }
      }
    }
  }
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
    std::cout << "[ mpi      ] " << ranks() << " rank(s), general problem, backend " << backend_name(test_backend())
              << std::endl;
  const int rc = RUN_ALL_TESTS();
  const auto& u = *::testing::UnitTest::GetInstance();
  // 77 (ctest's SKIP_RETURN_CODE) only when every test that can skip did
  // (the CUDA variant without a device) and none failed on any rank.
  double v[2] = {rc != 0 ? 1.0 : 0.0, u.skipped_test_count() > 0 && gpu_variant() ? 1.0 : 0.0};
  mpi::allreduce_max(v, 2);
  if (v[0] > 0) return 1;
  return v[1] > 0 ? 77 : 0;
}
