// The segmented plan (what the device kernels run) against the dense LU
// oracle, on the host: every segment length and count the kernels use.

#include "test_util.hpp"

#include <adi/segmented.hpp>

using namespace adi;
using namespace adi::test;

namespace {

template <class T>
double plan_error(const LineMatrix& m, int seg_len, SeededRng& rng) {
  const auto plan = SegmentedPlan<T>::build(m, seg_len);
  std::vector<double> rhs(m.size());
  for (auto& v : rhs) v = rng.uniform(-1, 1);
  std::vector<T> x(rhs.begin(), rhs.end());
  segmented_solve_reference(plan, x.data());
  const auto ref = dense_lu_solve(m, rhs);
  double worst = 0, scale = 1e-300;
  for (double v : ref) scale = std::max(scale, std::fabs(v));
  for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(x[i] - ref[i]) / scale);
  return worst;
}

TEST(SegmentedPlan, MatchesDenseLuOnRandomDominantLines) {
  SeededRng rng;
  for (index_t n : {1, 2, 3, 4, 5, 7, 31, 33, 64, 97, 257, 500, 1000})
    for (int I : {2, 3, 4, 5, 8, 16, 32, 64}) {
      if (static_cast<index_t>(I) * 32 < n) continue;
      const LineMatrix m = random_dominant(rng, n);
      EXPECT_LE(plan_error<double>(m, I, rng), 1e-13) << "n " << n << " I " << I;
      EXPECT_LE(plan_error<float>(m, I, rng), 3e-6) << "n " << n << " I " << I;
    }
}

/// The Douglas line matrices get worse conditioned as the mesh ratio r grows
/// (kappa_inf ~ 1 + 4r: the rows are dominant by a margin of 1 against
/// |b| = 1 + 2r), so a fixed forward-error tolerance fails now and then at
/// r = 1e3 (seed 15955107199766276064: 1.06e-13 against 1e-13, n = 3) without
/// anything being wrong. Two checks instead: the normwise backward error
/// |b - A x| / (|A| |x| + |b|), which a stable solver keeps at a few eps
/// whatever the conditioning, and the forward error against a bound scaled
/// by kappa_inf(A) <= |A|_inf / min_i(|b_i| - |a_i| - |c_i|).
struct LineErrors {
  double forward = 0, backward = 0, kappa = 1;
};
LineErrors douglas_line_errors(const LineMatrix& m, int seg_len, SeededRng& rng) {
  const auto plan = SegmentedPlan<double>::build(m, seg_len);
  const std::size_t n = m.size();
  std::vector<double> rhs(n);
  for (auto& v : rhs) v = rng.uniform(-1, 1);
  std::vector<double> x = rhs;
  segmented_solve_reference(plan, x.data());
  const auto ref = dense_lu_solve(m, rhs);
  LineErrors e;
  double worst = 0, scale = 1e-300, a_norm = 0, margin = INFINITY, x_norm = 0, b_norm = 0, r_norm = 0;
  for (std::size_t i = 0; i < n; ++i) {
    scale = std::max(scale, std::fabs(ref[i]));
    worst = std::max(worst, std::fabs(x[i] - ref[i]));
    a_norm = std::max(a_norm, std::fabs(m.a[i]) + std::fabs(m.b[i]) + std::fabs(m.c[i]));
    margin = std::min(margin, std::fabs(m.b[i]) - std::fabs(m.a[i]) - std::fabs(m.c[i]));
    long double ax = static_cast<long double>(m.b[i]) * x[i];
    if (i > 0) ax += static_cast<long double>(m.a[i]) * x[i - 1];
    if (i + 1 < n) ax += static_cast<long double>(m.c[i]) * x[i + 1];
    r_norm = std::max(r_norm, static_cast<double>(std::fabs(static_cast<long double>(rhs[i]) - ax)));
    x_norm = std::max(x_norm, std::fabs(x[i]));
    b_norm = std::max(b_norm, std::fabs(rhs[i]));
  }
  e.forward = worst / scale;
  e.backward = r_norm / (a_norm * x_norm + b_norm);
  e.kappa = margin > 0 ? a_norm / margin : INFINITY;
  return e;
}

TEST(SegmentedPlan, MatchesDenseLuOnDouglasMatrices) {
  SeededRng rng;
  const double eps = std::numeric_limits<double>::epsilon();
  for (double ratio : {1e-4, 0.3, 5.0, 1e3})
    for (Boundary lo : {Boundary::Dirichlet, Boundary::Neumann})
      for (Boundary hi : {Boundary::Dirichlet, Boundary::Neumann})
        for (index_t n : {3, 31, 512}) {
          HeatProblem p;
          p.n = {n, 3, 3};
          p.lo[0] = lo;
          p.hi[0] = hi;
          p.dt = ratio * p.spacing(0) * p.spacing(0) / p.theta;
          const LineMatrix m = douglas_line_matrix(p, Axis::X);
          for (int I : {2, 4, 16, 32})
            if (static_cast<index_t>(I) * 32 >= n) {
              const LineErrors e = douglas_line_errors(m, I, rng);
              ASSERT_TRUE(std::isfinite(e.kappa)) << "a Douglas matrix is strictly dominant";
              EXPECT_LE(e.backward, 16 * eps) << "ratio " << ratio << " n " << n << " I " << I;
              // 1e-13 where kappa is small (as before), growing with kappa.
              EXPECT_LE(e.forward, std::max(1e-13, 16 * eps * e.kappa))
                  << "ratio " << ratio << " n " << n << " I " << I << " kappa <= " << e.kappa;
            }
        }
}

TEST(SegmentedPlan, PicksSmallestPowerOfTwoSegmentCount) {
  const LineMatrix m(100);
  EXPECT_EQ(SegmentedPlan<double>::build(m, 4).segments, 32);
  EXPECT_EQ(SegmentedPlan<double>::build(m, 16).segments, 8);
  EXPECT_EQ(SegmentedPlan<double>::build(m, 100).segments, 1);
  EXPECT_THROW(SegmentedPlan<double>::build(m, 3), InvalidArgument);  // 34 segments needed
  EXPECT_THROW(SegmentedPlan<double>::build(m, 1), InvalidArgument);
  EXPECT_THROW(SegmentedPlan<double>::build(m, 8, 4), InvalidArgument);  // does not cover 100 rows
}

// The long-line kernel's plan (build_long: any segment count, S = ceil(n /
// I)) and its reduced system solved as a line matrix of its own
// (reduced_matrix, by plain Thomas here; the device hands it to another line
// solver) against dense LU, for segment counts that are no power of two.
template <class T>
double long_plan_error(const LineMatrix& m, int I, SeededRng& rng) {
  const auto plan = SegmentedPlan<T>::build_long(m, I);
  EXPECT_EQ(plan.segments, (m.size() + I - 1) / I);
  const std::size_t n = m.size(), S = static_cast<std::size_t>(plan.segments), N = S * I;
  std::vector<double> rhs(n);
  for (auto& v : rhs) v = rng.uniform(-1, 1);
  std::vector<T> x(N, T(0));
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<T>(rhs[i]);
  // pass 1: each segment's sweeps (as segmented_solve_reference)
  std::vector<double> red(2 * S);
  for (std::size_t s = 0; s < S; ++s) {
    T* v = x.data() + s * I;
    const std::size_t r0 = s * I;
    v[0] *= plan.fw_mul[r0];
    v[1] *= plan.fw_mul[r0 + 1];
    for (int j = 2; j < I; ++j) v[j] = plan.fw_mul[r0 + j] * v[j] - plan.fw_ms[r0 + j] * v[j - 1];
    for (int j = I - 3; j >= 1; --j) v[j] -= plan.bw_c[r0 + j] * v[j + 1];
    if (I >= 3) v[0] = plan.bw0_mul[s] * (v[0] - plan.bw_c[r0] * v[1]);
    red[2 * s] = v[0];
    red[2 * s + 1] = v[I - 1];
  }
  // pass 2: the reduced system as a line matrix
  const LineMatrix rm = plan.reduced_matrix();
  EXPECT_EQ(rm.size(), static_cast<index_t>(2 * S));
  const auto z = dense_lu_solve(rm, red);
  // pass 3: back substitution
  for (std::size_t s = 0; s < S; ++s) {
    T* v = x.data() + s * I;
    const std::size_t r0 = s * I;
    const T zf = static_cast<T>(z[2 * s]), zl = static_cast<T>(z[2 * s + 1]);
    for (int j = 1; j <= I - 2; ++j) v[j] = v[j] - plan.fin_a[r0 + j] * zf - plan.fin_c[r0 + j] * zl;
    v[0] = zf;
    v[I - 1] = zl;
  }
  const auto ref = dense_lu_solve(m, rhs);
  double worst = 0, scale = 1e-300;
  for (double v : ref) scale = std::max(scale, std::fabs(v));
  for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(x[i] - ref[i]) / scale);
  // The plan's own scans of the same reduced system agree too.
  std::vector<T> y(rhs.begin(), rhs.end());
  segmented_solve_reference(plan, y.data());
  for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, std::fabs(y[i] - ref[i]) / scale);
  return worst;
}

TEST(SegmentedPlan, LongPlansMatchDenseLu) {
  SeededRng rng;
  for (index_t n : {65, 100, 1057, 2049, 4097})
    for (int I : {32, 5}) {
      const LineMatrix m = random_dominant(rng, n);
      EXPECT_LE(long_plan_error<double>(m, I, rng), 1e-13) << "n " << n << " I " << I;
      EXPECT_LE(long_plan_error<float>(m, I, rng), 3e-6) << "n " << n << " I " << I;
    }
  // The reduced matrix is the one the scans factor: unit diagonal, no
  // coupling outside the line, and strictly dominant (|a| + |c| < 1).
  const auto plan = SegmentedPlan<double>::build_long(random_dominant(rng, 1000), 32);
  const LineMatrix rm = plan.reduced_matrix();
  ASSERT_EQ(rm.size(), 2 * 32);
  EXPECT_EQ(rm.a[0], 0.0);
  EXPECT_EQ(rm.c[63], 0.0);
  for (index_t r = 0; r < rm.size(); ++r) {
    EXPECT_EQ(rm.b[r], 1.0);
    EXPECT_LT(std::fabs(rm.a[r]) + std::fabs(rm.c[r]), 1.0) << "row " << r;
  }
  EXPECT_THROW(SegmentedPlan<double>::build_long(LineMatrix(100), 1), InvalidArgument);
}

// A corrupted plan must be caught by the oracle comparison.
TEST(SegmentedPlan, OracleCatchesACorruptedTable) {
  SeededRng rng;
  const LineMatrix m = random_dominant(rng, 200);
  auto plan = SegmentedPlan<double>::build(m, 8);
  plan.fw_mul[10] *= 1.001;
  std::vector<double> rhs(200);
  for (auto& v : rhs) v = rng.uniform(-1, 1);
  auto x = rhs;
  segmented_solve_reference(plan, x.data());
  const auto ref = dense_lu_solve(m, rhs);
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::fabs(x[i] - ref[i]));
  EXPECT_GT(worst, 1e-8);
}

// Periodic lines: the Sherman-Morrison split the kernels run (A' by the
// segmented plan, then x = y - lambda z) against the cyclic system itself.
// The cyclic matrix's residual in long double (normwise backward error: a
// stable solve keeps it at a few eps whatever the conditioning), and the
// solution against an independent dense elimination of the full matrix with
// its corners (partial pivoting, n <= 600). Lengths ragged and exact, I odd
// and even, down to the shortest ring (3 nodes).
std::vector<double> dense_ring_solve(const LineMatrix& m, std::vector<double> d) {
  const std::size_t n = m.b.size();
  std::vector<long double> A(n * n, 0.0L), x(d.begin(), d.end());
  for (std::size_t i = 0; i < n; ++i) {
    A[i * n + (i + n - 1) % n] += m.a[i];
    A[i * n + i] += m.b[i];
    A[i * n + (i + 1) % n] += m.c[i];
  }
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    for (std::size_t r = k + 1; r < n; ++r)
      if (std::fabs(A[r * n + k]) > std::fabs(A[p * n + k])) p = r;
    if (p != k) {
      for (std::size_t c = 0; c < n; ++c) std::swap(A[k * n + c], A[p * n + c]);
      std::swap(x[k], x[p]);
    }
    for (std::size_t r = k + 1; r < n; ++r) {
      const long double f = A[r * n + k] / A[k * n + k];
      if (f == 0.0L) continue;
      for (std::size_t c = k; c < n; ++c) A[r * n + c] -= f * A[k * n + c];
      x[r] -= f * x[k];
    }
  }
  for (std::size_t k = n; k-- > 0;) {
    long double s = x[k];
    for (std::size_t c = k + 1; c < n; ++c) s -= A[k * n + c] * x[c];
    x[k] = s / A[k * n + k];
  }
  return std::vector<double>(x.begin(), x.end());
}

template <class T>
void ring_errors(const LineMatrix& m, int I, SeededRng& rng, double& forward, double& backward) {
  const index_t n = m.size();
  const CyclicSplit split = cyclic_split(m);
  const auto plan = SegmentedPlan<T>::build(split.tridiag, I);
  std::vector<double> rhs(n);
  for (auto& v : rhs) v = rng.uniform(-1, 1);
  std::vector<T> x(rhs.begin(), rhs.end());
  segmented_cyclic_reference(plan, split, x.data());
  const auto ref = dense_ring_solve(m, rhs);
  double worst = 0, scale = 1e-300, a_norm = 0, x_norm = 0, b_norm = 0, r_norm = 0;
  for (index_t i = 0; i < n; ++i) {
    const index_t im = (i + n - 1) % n, ip = (i + 1) % n;
    scale = std::max(scale, std::fabs(ref[i]));
    worst = std::max(worst, std::fabs(static_cast<double>(x[i]) - ref[i]));
    a_norm = std::max(a_norm, std::fabs(m.a[i]) + std::fabs(m.b[i]) + std::fabs(m.c[i]));
    const long double ax = static_cast<long double>(m.a[i]) * x[im] + static_cast<long double>(m.b[i]) * x[i] +
                           static_cast<long double>(m.c[i]) * x[ip];
    r_norm = std::max(r_norm, static_cast<double>(std::fabs(static_cast<long double>(rhs[i]) - ax)));
    x_norm = std::max(x_norm, std::fabs(static_cast<double>(x[i])));
    b_norm = std::max(b_norm, std::fabs(rhs[i]));
  }
  forward = worst / scale;
  backward = r_norm / (a_norm * x_norm + b_norm);
}

TEST(SegmentedPlan, CyclicSplitSolvesPeriodicLines) {
  SeededRng rng;
  for (index_t n : {3, 4, 5, 7, 31, 33, 64, 97, 257, 512, 513})
    for (int I : {2, 3, 4, 9, 16, 17, 32}) {
      if (static_cast<index_t>(I) * 32 < n) continue;
      const LineMatrix m = random_ring(rng, n);
      double fw = 0, bw = 0;
      ring_errors<double>(m, I, rng, fw, bw);
      EXPECT_LE(fw, 1e-13) << "fp64 n " << n << " I " << I;
      EXPECT_LE(bw, 1e-15) << "fp64 n " << n << " I " << I;
      ring_errors<float>(m, I, rng, fw, bw);
      EXPECT_LE(fw, 3e-6) << "fp32 n " << n << " I " << I;
      EXPECT_LE(bw, 1e-6) << "fp32 n " << n << " I " << I;
    }
}

// The split itself: A' without corners and z = A'^{-1} u to round-off; a
// wrong corner (the closure ignored) must show in the solution.
TEST(SegmentedPlan, CyclicSplitIsTheShermanMorrisonOfItsMatrix) {
  SeededRng rng;
  const LineMatrix m = random_ring(rng, 40);
  const CyclicSplit s = cyclic_split(m);
  EXPECT_EQ(s.tridiag.a[0], 0.0);
  EXPECT_EQ(s.tridiag.c[39], 0.0);
  EXPECT_EQ(s.tridiag.b[0], 2.0 * m.b[0]);  // b - g with g = -b
  EXPECT_DOUBLE_EQ(s.phi, -m.a[0] / m.b[0]);
  std::vector<double> u(40, 0.0);
  u[0] = -m.b[0];
  u[39] = m.c[39];
  const std::vector<double> az = s.tridiag.multiply(s.z);
  for (std::size_t i = 0; i < 40; ++i) EXPECT_NEAR(az[i], u[i], 1e-14) << i;
  EXPECT_DOUBLE_EQ(s.psi, 1.0 / (1.0 + s.z[0] + s.phi * s.z[39]));
  // An open line's solve of the same matrix differs from the ring's.
  LineMatrix open = m;
  open.a[0] = 0.0;
  open.c[39] = 0.0;
  std::vector<double> rhs(40);
  for (auto& v : rhs) v = rng.uniform(-1, 1);
  auto x = rhs;
  segmented_cyclic_reference(SegmentedPlan<double>::build(s.tridiag, 4), s, x.data());
  const auto wrong = dense_lu_solve(open, rhs);
  double diff = 0;
  for (std::size_t i = 0; i < 40; ++i) diff = std::max(diff, std::fabs(x[i] - wrong[i]));
  EXPECT_GT(diff, 1e-3);
  EXPECT_THROW(cyclic_split(LineMatrix(2)), InvalidArgument);
}

}  // namespace
