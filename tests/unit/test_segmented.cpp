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

TEST(SegmentedPlan, MatchesDenseLuOnDouglasMatrices) {
  SeededRng rng;
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
              EXPECT_LE(plan_error<double>(m, I, rng), 1e-13) << "ratio " << ratio << " n " << n << " I " << I;
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

}  // namespace
