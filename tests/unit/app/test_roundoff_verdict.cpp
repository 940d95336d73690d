// The round-off check's verdict (app/roundoff.hpp), as adi3d validate and
// adi3d run apply it: validate's tolerances for up to 25 steps, scaled
// linearly beyond; a miss (or NaN) is a miss; a mode decayed below the
// precision's normal range is not checked.

#include <roundoff.hpp>

#include <gtest/gtest.h>

#include <limits>

using adi::ErrorNorms;
using adi::Precision;
using adi::app::roundoff_tolerance;
using adi::app::roundoff_verdict;
using Kind = adi::app::RoundoffVerdict::Kind;

namespace {
ErrorNorms norms(double rel, double ref_max = 0.5) { return ErrorNorms{rel * ref_max, 0.0, ref_max}; }
}  // namespace

TEST(RoundoffVerdict, ValidateTolerancesScaledWithSteps) {
  EXPECT_EQ(roundoff_tolerance(Precision::F64, 25), 1e-12);
  EXPECT_EQ(roundoff_tolerance(Precision::F32, 25), 1e-5);
  EXPECT_EQ(roundoff_tolerance(Precision::F64, 1), 1e-12);
  EXPECT_EQ(roundoff_tolerance(Precision::F32, 10), 1e-5);
  EXPECT_DOUBLE_EQ(roundoff_tolerance(Precision::F64, 250), 1e-11);
  EXPECT_DOUBLE_EQ(roundoff_tolerance(Precision::F32, 50000), 2e-2);
}

TEST(RoundoffVerdict, OkMissedAndNaN) {
  EXPECT_EQ(roundoff_verdict(norms(1.3e-14), Precision::F64, 250).kind, Kind::Ok);
  EXPECT_EQ(roundoff_verdict(norms(1e-11), Precision::F64, 250).kind, Kind::Ok);  // at the tolerance
  EXPECT_TRUE(roundoff_verdict(norms(2e-11), Precision::F64, 250).missed());
  EXPECT_TRUE(roundoff_verdict(norms(2e-12), Precision::F64, 25).missed());
  EXPECT_EQ(roundoff_verdict(norms(1e-7), Precision::F32, 10).kind, Kind::Ok);
  EXPECT_TRUE(roundoff_verdict(norms(4e-4), Precision::F32, 10).missed());  // first order in time: O(dt)
  EXPECT_TRUE(roundoff_verdict(norms(std::numeric_limits<double>::quiet_NaN()), Precision::F64, 10).missed());
  const auto v = roundoff_verdict(norms(3e-13), Precision::F64, 100);
  EXPECT_EQ(v.value, 3e-13 * 0.5 / 0.5);
  EXPECT_DOUBLE_EQ(v.tolerance, 4e-12);
}

TEST(RoundoffVerdict, NotCheckedBelowTheNormalRange) {
  // A long fp32 run: the mode decayed to subnormal numbers, which flush.
  const auto v = roundoff_verdict(ErrorNorms{1e-45, 0.0, 1e-40}, Precision::F32, 4000);
  EXPECT_EQ(v.kind, Kind::NotChecked);
  EXPECT_FALSE(v.missed());
  EXPECT_NE(v.note.find("float32's normal range"), std::string::npos) << v.note;
  // The same amplitude is fine in fp64.
  EXPECT_EQ(roundoff_verdict(ErrorNorms{1e-55, 0.0, 1e-40}, Precision::F64, 4000).kind, Kind::Ok);
  EXPECT_EQ(roundoff_verdict(ErrorNorms{0.0, 0.0, 1e-310}, Precision::F64, 4000).kind, Kind::NotChecked);
}
