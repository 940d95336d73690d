// The Douglas scheme on the CPU backend against the analytic mode: round-off
// agreement with g^n U(0), convergence order 2, boundary behaviour.

#include <adi/factory.hpp>
#include "test_util.hpp"

#include <cmath>

using namespace adi;
using namespace adi::test;

namespace {

HeatProblem anisotropic() {
  HeatProblem p;
  p.n = {37, 29, 23};
  p.length = {1.0, 0.8, 0.6};
  p.alpha = {1.0, 0.5, 0.25};
  p.dt = 2e-3;
  return p;
}

template <class T>
double roundoff(const HeatProblem& p, index_t steps) {
  return roundoff_check<T>(p, steps, Backend::Cpu).error.rel_max();
}

TEST(DouglasRoundoff, DirichletF64) { EXPECT_LE(roundoff<double>(anisotropic(), 25), 1e-12); }
TEST(DouglasRoundoff, DirichletF32) { EXPECT_LE(roundoff<float>(anisotropic(), 25), 1e-5); }

TEST(DouglasRoundoff, MixedNeumannF64) {
  HeatProblem p = anisotropic();
  p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann};
  p.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Dirichlet};
  EXPECT_LE(roundoff<double>(p, 25), 1e-12);
}

TEST(DouglasRoundoff, AllNeumannCosineF64) {
  HeatProblem p = anisotropic();
  p.lo.fill(Boundary::Neumann);
  p.hi.fill(Boundary::Neumann);
  EXPECT_LE(roundoff<double>(p, 25), 1e-12);
}

TEST(DouglasRoundoff, SmallestGridAndDouglasRachford) {
  HeatProblem p = anisotropic();
  p.n = {3, 4, 5};
  p.theta = 1.0;
  EXPECT_LE(roundoff<double>(p, 7), 1e-12);
}

// The check must be able to fail: a wrong amplification factor is caught.
TEST(DouglasRoundoff, DetectsWrongAmplification) {
  const HeatProblem p = anisotropic();
  auto st = make_stepper<double>(p, Backend::Cpu);
  std::vector<double> u;
  fill_analytic(p, u);
  st->set_field(u.data());
  st->advance(10);
  st->get_field(u.data());
  const double g = analytic_mode(p).amplification;
  EXPECT_LE(compare_with_mode(p, u, std::pow(g, 10)).rel_max(), 1e-12);
  EXPECT_GT(compare_with_mode(p, u, std::pow(g * (1 + 1e-9), 10)).rel_max(), 1e-9);
  EXPECT_GT(compare_with_mode(p, u, std::pow(g, 9)).rel_max(), 1e-4);
}

// A distributed run fills and checks its boxes separately: the boxes of an
// uneven split give the whole field's values bit for bit, and their combined
// sums its error norms.
TEST(AnalyticBoxes, TileTheWholeFieldExactly) {
  HeatProblem p = anisotropic();
  p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Dirichlet};
  std::vector<double> whole;
  fill_analytic(p, whole);
  for (auto& v : whole) v *= 0.97;  // something to compare: not the mode itself
  const ErrorNorms ref = compare_with_mode(p, whole, 1.0);
  ASSERT_GT(ref.max_abs, 0.0);
  ErrorSums sum;
  const index_t ys[] = {0, 10, 11, 29}, zs[] = {0, 1, 23};  // y: 10, 1, 18 planes; z: 1, 22
  for (int b = 0; b < 3; ++b)
    for (int c = 0; c < 2; ++c) {
      const std::array<index_t, 3> begin{{0, ys[b], zs[c]}}, size{{p.n[0], ys[b + 1] - ys[b], zs[c + 1] - zs[c]}};
      std::vector<double> box;
      fill_analytic_box(p, begin, size, box);
      ASSERT_EQ(box.size(), static_cast<std::size_t>(size[0] * size[1] * size[2]));
      for (index_t k = 0; k < size[2]; ++k)
        for (index_t j = 0; j < size[1]; ++j)
          for (index_t i = 0; i < size[0]; ++i) {
            const std::size_t g = static_cast<std::size_t>(i + p.n[0] * ((begin[1] + j) + p.n[1] * (begin[2] + k)));
            const double v = box[static_cast<std::size_t>(i + size[0] * (j + size[1] * k))];
            EXPECT_EQ(v * 0.97, whole[g]) << "node " << i << ", " << begin[1] + j << ", " << begin[2] + k;
            box[static_cast<std::size_t>(i + size[0] * (j + size[1] * k))] = whole[g];
          }
      const ErrorSums e = compare_box_with_mode(p, begin, size, box.data(), 1.0);
      sum.max_abs = std::max(sum.max_abs, e.max_abs);
      sum.ref_max = std::max(sum.ref_max, e.ref_max);
      sum.sum_sq += e.sum_sq;
      sum.finite = sum.finite && e.finite;
    }
  const ErrorNorms got = sum.norms(p.points());
  EXPECT_EQ(got.max_abs, ref.max_abs);
  EXPECT_EQ(got.ref_max, ref.ref_max);
  EXPECT_NEAR(got.rms, ref.rms, 1e-14 * ref.rms);
  std::vector<double> bad = whole;
  bad[bad.size() / 3] = std::nan("");
  EXPECT_FALSE(compare_box_with_mode(p, {{0, 0, 0}}, p.n, bad.data(), 1.0).finite);
  EXPECT_TRUE(std::isinf(compare_with_mode(p, bad, 1.0).max_abs));
}

TEST(DouglasConvergence, SecondOrderF64) {
  HeatProblem base;
  ConvergenceOptions o;
  o.intervals = {10, 20, 40, 80};
  const auto rows = convergence_study(base, o, Precision::F64, Backend::Cpu);
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t q = 1; q < rows.size(); ++q) {
    std::cout << "cells " << rows[q].intervals << " max err " << rows[q].error.max_abs << " order "
              << rows[q].order_max << std::endl;
    EXPECT_LT(rows[q].error.max_abs, rows[q - 1].error.max_abs);
  }
  EXPECT_GE(rows.back().order_max, 1.9);
  EXPECT_LE(rows.back().order_max, 2.1);
  EXPECT_GE(rows.back().order_rms, 1.9);
  EXPECT_LE(rows.back().order_rms, 2.1);
}

// One step equals the public phases composed by hand, bit for bit.
TEST(DouglasStep, EqualsComposedPhases) {
  SeededRng rng;
  HeatProblem p = anisotropic();
  p.n = {19, 14, 11};
  p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Dirichlet};
  const Layout3 L = p.layout();
  std::vector<double> u(L.span());
  for (auto& v : u) v = rng.uniform(-1, 1);
  auto st = make_stepper<double>(p, Backend::Cpu);
  st->set_field(u.data());
  st->step();
  std::vector<double> got(u.size());
  st->get_field(got.data());

  std::vector<double> w(u.size());
  cpu::douglas_rhs(u.data(), w.data(), L, p);
  for (Axis a : {Axis::X, Axis::Y, Axis::Z})
    cpu::solve_constant(a, ThomasFactor<double>::factor(douglas_line_matrix(p, a)), w.data(), L);
  for (std::size_t q = 0; q < u.size(); ++q) ASSERT_EQ(got[q], u[q] + w[q]) << "at " << q;
}

// SolverOptions::row_align (ADI_ROW_ALIGN) pads the CPU stepper's rows: the
// steps, the work array and the host copies equal the packed stepper's bit
// for bit, and the field view carries the padded pitch.
TEST(DouglasStep, PaddedRowsEqualPackedRows) {
  SeededRng rng;
  HeatProblem p = anisotropic();
  p.n = {19, 14, 11};  // 19 fp64 = 152 bytes: 24 at 64-byte rows, 32 at 256
  p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Dirichlet};
  std::vector<double> u(p.layout().span());
  for (auto& v : u) v = rng.uniform(-1, 1);
  auto packed = make_stepper<double>(p, Backend::Cpu);
  packed->set_field(u.data());
  packed->advance(3);
  std::vector<double> want(u.size()), want_w(u.size());
  packed->get_field(want.data());
  packed->get_work(want_w.data());
  for (int align : {16, 64, 256}) {
    SolverOptions o;
    o.row_align = align;
    auto st = make_stepper<double>(p, Backend::Cpu, o);
    const index_t pitch = (19 + align / 8 - 1) / (align / 8) * (align / 8);
    EXPECT_EQ(st->field_view().layout.stride[1], pitch) << align;
    EXPECT_EQ(st->bytes_allocated(), 2 * sizeof(double) * static_cast<std::size_t>(pitch * 14 * 11)) << align;
    st->set_field(u.data());
    st->advance(3);
    std::vector<double> got(u.size(), 7.0), got_w(u.size(), 7.0);
    st->get_field(got.data());
    st->get_work(got_w.data());
    for (std::size_t q = 0; q < u.size(); ++q) {
      ASSERT_EQ(got[q], want[q]) << "row_align " << align << " at " << q;
      ASSERT_EQ(got_w[q], want_w[q]) << "row_align " << align << " at " << q;
    }
    EXPECT_EQ(st->field_stats().max_abs, packed->field_stats().max_abs) << align;
    // The work array goes in through the padded rows too (set_work: the
    // steady solver's sweeps on any vector).
    std::fill(got_w.begin(), got_w.end(), 7.0);
    st->set_work(u.data());
    st->get_work(got_w.data());
    EXPECT_EQ(got_w, u) << "set_work / get_work, row_align " << align;
  }
}

// Dirichlet nodes keep their initial values exactly, whatever they are.
TEST(DouglasBoundary, DirichletValuesHeldFixed) {
  SeededRng rng;
  HeatProblem p = anisotropic();
  p.n = {17, 13, 9};
  p.lo = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Dirichlet};
  const Layout3 L = p.layout();
  std::vector<double> u(L.span());
  for (auto& v : u) v = rng.uniform(-1, 1);
  auto st = make_stepper<double>(p, Backend::Cpu);
  st->set_field(u.data());
  st->advance(5);
  std::vector<double> got(u.size());
  st->get_field(got.data());
  index_t fixed = 0, moved = 0;
  for (index_t k = 0; k < p.n[2]; ++k)
    for (index_t j = 0; j < p.n[1]; ++j)
      for (index_t i = 0; i < p.n[0]; ++i) {
        const index_t o = L.offset(i, j, k);
        const bool on_d = i == 0 || i == p.n[0] - 1 || j == p.n[1] - 1 || k == 0 || k == p.n[2] - 1;
        if (on_d) {
          ASSERT_EQ(got[o], u[o]) << "Dirichlet node (" << i << "," << j << "," << k << ") moved";
          ++fixed;
        } else if (got[o] != u[o]) {
          ++moved;
        }
      }
  EXPECT_GT(fixed, 0);
  EXPECT_GT(moved, 0);
}

// With zero-flux faces everywhere the trapezoid-weighted integral of u is an
// invariant of the discrete scheme (each factor preserves it), to round-off.
TEST(DouglasBoundary, AllNeumannConservesIntegral) {
  SeededRng rng;
  HeatProblem p = anisotropic();
  p.n = {21, 18, 15};
  p.lo.fill(Boundary::Neumann);
  p.hi.fill(Boundary::Neumann);
  p.dt = 5e-3;
  const Layout3 L = p.layout();
  std::vector<double> u(L.span());
  for (auto& v : u) v = rng.uniform(0, 1);
  auto integral = [&](const std::vector<double>& f) {
    long double s = 0;
    for (index_t k = 0; k < p.n[2]; ++k)
      for (index_t j = 0; j < p.n[1]; ++j)
        for (index_t i = 0; i < p.n[0]; ++i) {
          const double w = (i == 0 || i == p.n[0] - 1 ? 0.5 : 1.0) * (j == 0 || j == p.n[1] - 1 ? 0.5 : 1.0) *
                           (k == 0 || k == p.n[2] - 1 ? 0.5 : 1.0);
          s += w * f[L.offset(i, j, k)];
        }
    return static_cast<double>(s);
  };
  const double before = integral(u);
  auto st = make_stepper<double>(p, Backend::Cpu);
  st->set_field(u.data());
  st->advance(20);
  std::vector<double> got(u.size());
  st->get_field(got.data());
  EXPECT_NEAR(integral(got), before, 1e-12 * std::fabs(before));
  // ... and the field did change (smoothing), so the test is not vacuous.
  double change = 0;
  for (std::size_t q = 0; q < u.size(); ++q) change = std::max(change, std::fabs(got[q] - u[q]));
  EXPECT_GT(change, 1e-2);
}

// The RHS on periodic axes wraps: u[-1] = u[n-1], u[n] = u[0] (n distinct
// nodes, h = L / n), checked node by node against the stencil written out
// here, on a grid periodic in x and z and Neumann / Dirichlet in y.
TEST(DouglasRhs, PeriodicAxesWrapTheirNeighbours) {
  HeatProblem p;
  p.n = {7, 5, 6};
  p.length = {1.4, 0.8, 1.2};
  p.alpha = {1.0, 0.5, 2.0};
  p.dt = 1e-3;
  p.lo = {Boundary::Periodic, Boundary::Neumann, Boundary::Periodic};
  p.hi = {Boundary::Periodic, Boundary::Dirichlet, Boundary::Periodic};
  const Layout3 L = Layout3::padded(7, 5, 6, 9, 5);
  SeededRng rng;
  std::vector<double> u(static_cast<std::size_t>(L.span()), 0.0), w(u.size(), 0.0);
  for (auto& v : u) v = rng.uniform(-1, 1);
  cpu::douglas_rhs(u.data(), w.data(), L, p);
  const double c[3] = {p.dt * p.alpha[0] / std::pow(1.4 / 7, 2), p.dt * p.alpha[1] / std::pow(0.8 / 4, 2),
                       p.dt * p.alpha[2] / std::pow(1.2 / 6, 2)};
  double worst = 0;
  for (index_t k = 0; k < 6; ++k)
    for (index_t j = 0; j < 5; ++j)
      for (index_t i = 0; i < 7; ++i) {
        const double uc = u[L.offset(i, j, k)];
        const index_t jm = j == 0 ? 1 : j - 1;  // Neumann mirror at y = 0
        double want = c[0] * (u[L.offset((i + 6) % 7, j, k)] - 2 * uc + u[L.offset((i + 1) % 7, j, k)]) +
                      c[1] * (u[L.offset(i, jm, k)] - 2 * uc + u[L.offset(i, j + 1 < 5 ? j + 1 : 3, k)]) +
                      c[2] * (u[L.offset(i, j, (k + 5) % 6)] - 2 * uc + u[L.offset(i, j, (k + 1) % 6)]);
        if (j == 4) want = 0.0;  // Dirichlet face
        worst = std::max(worst, std::fabs(w[L.offset(i, j, k)] - want));
      }
  EXPECT_LE(worst, 1e-12);
}

TEST(HeatProblemValidate, RefusesBadParameters) {
  HeatProblem p;
  p.theta = 0.4;
  EXPECT_THROW(p.validate(), InvalidArgument);
  p = HeatProblem{};
  p.n[1] = 2;
  EXPECT_THROW(p.validate(), InvalidArgument);
  p = HeatProblem{};
  p.dt = -1;
  EXPECT_THROW(p.validate(), InvalidArgument);
  p = HeatProblem{};
  p.alpha[2] = std::nan("");
  EXPECT_THROW(p.validate(), InvalidArgument);
  EXPECT_NO_THROW(HeatProblem{}.validate());
}

// Where CUDA is built and a device is usable nothing is missing: Auto must
// then pick CUDA and the stepper must be a CUDA one (the stub message itself
// is checked on every machine by test_hooks).
TEST(Backends, MissingBackendIsAClearError) {
  HeatProblem p;
  if (backend_built(Backend::Cuda) && cuda_unavailable_reason().empty()) {
    EXPECT_EQ(resolve_backend(Backend::Auto), Backend::Cuda);
    auto st = make_stepper<double>(p, Backend::Auto);
    EXPECT_EQ(st->backend(), Backend::Cuda) << st->device_name();
    return;
  }
  try {
    make_stepper<double>(p, Backend::Cuda);
    FAIL() << "expected BackendUnavailable";
  } catch (const BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("cuda"), std::string::npos);
  }
  EXPECT_EQ(resolve_backend(Backend::Auto), Backend::Cpu);
}

}  // namespace

// ---- accuracy of the high frequencies (the lambda warning) ------------------------

HeatProblem cube(index_t n, double lambda, double theta, Boundary b = Boundary::Neumann) {
  HeatProblem p;
  p.n = {n, n, n};
  p.lo = {b, b, b};
  p.hi = {b, b, b};
  p.theta = theta;
  const double h = 1.0 / static_cast<double>(n - 1);
  p.dt = lambda * h * h;  // alpha = 1
  return p;
}

TEST(HighFrequencyDamping, EigenvalueOfTheHighestMode) {
  HeatProblem p = cube(11, 2.0, 0.5);
  EXPECT_NEAR(highest_mode_eigenvalue(p, 0), -8.0, 1e-12);  // Neumann-Neumann: the checkerboard, -4 lambda
  p.lo[1] = p.hi[1] = Boundary::Dirichlet;                   // k = n - 2 of sin(k pi i / (n - 1))
  EXPECT_NEAR(highest_mode_eigenvalue(p, 1), -8.0 * std::pow(std::sin(9.0 * M_PI / 20.0), 2), 1e-12);
  p.lo[2] = Boundary::Dirichlet;                             // mixed: (2n - 3) pi / (4 (n - 1))
  EXPECT_NEAR(highest_mode_eigenvalue(p, 2), -8.0 * std::pow(std::sin(19.0 * M_PI / 40.0), 2), 1e-12);
}

TEST(HighFrequencyDamping, ThreeAxisModeIsBarelyDampedAboveLambda3) {
  // theta = 1/2, all three axes at the checkerboard: g = 1 - 12 l / (1 + 2 l)^3.
  const HighFrequencyDamping ok = high_frequency_damping(cube(33, 2.0, 0.5));
  EXPECT_FALSE(ok.poor);
  EXPECT_DOUBLE_EQ(ok.dt_ok, cube(33, 2.0, 0.5).dt);
  const HighFrequencyDamping bad = high_frequency_damping(cube(33, 4.0, 0.5));
  EXPECT_TRUE(bad.poor);
  EXPECT_NEAR(bad.g, 1.0 - 48.0 / 729.0, 1e-12);
  EXPECT_TRUE(bad.axes[0] && bad.axes[1] && bad.axes[2]);
  EXPECT_LT(bad.exact, 1e-20);
  // The suggested dt is the edge: lambda where 12 l / (1 + 2 l)^3 = 0.1.
  const double lambda_ok = bad.dt_ok / cube(33, 1.0, 0.5).dt;
  EXPECT_NEAR(12.0 * lambda_ok / std::pow(1.0 + 2.0 * lambda_ok, 3), 0.1, 1e-6);
  EXPECT_NEAR(lambda_ok, 3.1, 0.05);
  EXPECT_FALSE(high_frequency_damping(cube(33, lambda_ok * 0.999, 0.5)).poor);
  EXPECT_TRUE(high_frequency_damping(cube(33, lambda_ok * 1.001, 0.5)).poor);
  // Douglas-Rachford does not help this mode: g = 1 - 12 l / (1 + 4 l)^3.
  EXPECT_TRUE(high_frequency_damping(cube(33, 4.0, 1.0)).poor);
}

TEST(HighFrequencyDamping, OneAxisModeTendsToMinusOne) {
  // Diffusion along x only: g = (1 - 2 l) / (1 + 2 l), poor from l = 9.5.
  HeatProblem p = cube(33, 9.0, 0.5);
  p.alpha = {1.0, 0.0, 0.0};
  EXPECT_FALSE(high_frequency_damping(p).poor);
  p.dt *= 12.0 / 9.0;
  const HighFrequencyDamping d = high_frequency_damping(p);
  EXPECT_TRUE(d.poor);
  EXPECT_NEAR(d.g, -23.0 / 25.0, 1e-12);
  EXPECT_TRUE(d.axes[0] && !d.axes[1] && !d.axes[2]);
  EXPECT_NEAR(d.dt_ok / p.dt, 9.5 / 12.0, 1e-6);
}

TEST(HighFrequencyDamping, SmallLambdaIsAccurateNotPoor) {
  // |g| > 0.9 there too, but so is the exact factor: nothing is lost.
  const HighFrequencyDamping d = high_frequency_damping(cube(33, 0.01, 0.5));
  EXPECT_FALSE(d.poor);
  EXPECT_GT(std::fabs(d.g), 0.9);
}

TEST(Grid, AtMost2To56Nodes) {
  HeatProblem p;
  p.n = {2048, 2048, 2048};
  EXPECT_NO_THROW(p.validate());
  p.n = {index_t(1) << 24, index_t(1) << 24, index_t(1) << 24};
  try {
    p.validate();
    FAIL() << "2^72 nodes accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("at most 2^56"), std::string::npos) << e.what();
  }
}

// The unknowns the CUDA stepper moves (adi::unknown_box): the nodes between
// the Dirichlet y and z faces; x stays whole whatever its faces.
TEST(UnknownBox, SkipsTheDirichletYAndZFaces) {
  HeatProblem p;
  p.n = {9, 7, 3};
  p.lo = {Boundary::Dirichlet, Boundary::Dirichlet, Boundary::Dirichlet};
  p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Dirichlet};
  UnknownBox b = unknown_box(p);
  EXPECT_EQ(b.lo, (std::array<index_t, 3>{0, 1, 1}));
  EXPECT_EQ(b.n, (std::array<index_t, 3>{9, 6, 1}));
  EXPECT_EQ(b.lo_ghost, (std::array<bool, 3>{false, true, true}));
  EXPECT_EQ(b.hi_ghost, (std::array<bool, 3>{false, false, true}));

  p.lo = {Boundary::Neumann, Boundary::Neumann, Boundary::Neumann};
  p.hi = {Boundary::Neumann, Boundary::Neumann, Boundary::Dirichlet};
  b = unknown_box(p);
  EXPECT_EQ(b.lo, (std::array<index_t, 3>{0, 0, 0}));
  EXPECT_EQ(b.n, (std::array<index_t, 3>{9, 7, 2}));
  EXPECT_EQ(b.hi_ghost, (std::array<bool, 3>{false, false, true}));

  p.hi[2] = Boundary::Neumann;
  b = unknown_box(p);
  EXPECT_EQ(b.n, p.n);
  EXPECT_EQ(b.lo_ghost, (std::array<bool, 3>{false, false, false}));
  EXPECT_EQ(b.hi_ghost, (std::array<bool, 3>{false, false, false}));
}

// A line's rows between its Dirichlet rows, solved as a line of their own
// (adi::sub_line_matrix), give the whole line's solution there bit for bit:
// the Dirichlet rows are the identity with D = 0, and Thomas after an
// identity row does the same arithmetic as Thomas on the rows after it.
template <class T>
void sub_line_equals_whole_line() {
  SeededRng rng;
  for (index_t n : {3, 4, 5, 31, 257})
    for (Boundary hi : {Boundary::Dirichlet, Boundary::Neumann}) {
      HeatProblem p;
      p.n = {n, 3, 3};
      p.lo[0] = Boundary::Dirichlet;
      p.hi[0] = hi;
      p.dt = 0.7 * p.spacing(0) * p.spacing(0);
      const LineMatrix m = douglas_line_matrix(p, Axis::X);
      const index_t lo = 1, len = n - 1 - (hi == Boundary::Dirichlet ? 1 : 0);
      const LineMatrix s = sub_line_matrix(m, lo, len);
      EXPECT_EQ(s.a[0], 0.0);
      EXPECT_EQ(s.c[len - 1], 0.0);
      std::vector<T> whole(static_cast<std::size_t>(n), T(0));
      for (index_t i = lo; i < lo + len; ++i) whole[static_cast<std::size_t>(i)] = static_cast<T>(rng.uniform(-1, 1));
      std::vector<T> part(whole.begin() + lo, whole.begin() + lo + len);
      cpu::solve_constant(Axis::X, ThomasFactor<T>::factor(m), whole.data(), Layout3::packed(n, 1, 1));
      cpu::solve_constant(Axis::X, ThomasFactor<T>::factor(s), part.data(), Layout3::packed(len, 1, 1));
      EXPECT_EQ(whole[0], T(0));
      for (index_t i = 0; i < len; ++i)
        EXPECT_EQ(part[static_cast<std::size_t>(i)], whole[static_cast<std::size_t>(lo + i)])
            << "n " << n << " row " << lo + i;
    }
  EXPECT_THROW(sub_line_matrix(LineMatrix(5), 1, 5), InvalidArgument);
  EXPECT_THROW(sub_line_matrix(LineMatrix(5), 0, 0), InvalidArgument);
}

TEST(SubLineMatrix, EqualsTheWholeLineBetweenDirichletRowsF64) { sub_line_equals_whole_line<double>(); }
TEST(SubLineMatrix, EqualsTheWholeLineBetweenDirichletRowsF32) { sub_line_equals_whole_line<float>(); }
