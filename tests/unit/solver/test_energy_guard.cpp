// The energy guard of a problem with data (adi/energy_guard.hpp): it stops a
// growth past its bound and nothing else, also where the bound overflows.

#include <adi/energy_guard.hpp>
#include <adi/stepper.hpp>

#include <gtest/gtest.h>

#include <limits>

using namespace adi;

namespace {

FieldStats energy(double e) { return FieldStats{1.0, true, e}; }

}  // namespace

// A rate that overflowed to inf (K near the largest double, seen from a
// config with K = 1e308 in a corner) is no bound: the same energy observed
// twice at the start, and later any energy, pass; before, 0 * inf made the
// allowed value a NaN and the guard stopped a run at step 0.
TEST(EnergyGuard, AnInfiniteRateIsNoBoundAndNeverANaN) {
  HeatProblem p;
  DataBound b;
  b.rate = std::numeric_limits<double>::infinity();
  EnergyGuard g(b, false, p);
  EXPECT_EQ(g.observe(energy(0.198), 0, 0.0), "");
  EXPECT_EQ(g.observe(energy(0.198), 0, 0.0), "");
  EXPECT_EQ(g.observe(energy(1e6), 1, 1.0), "");
}

// A finite bound still stops a growth past it, and lets a field within it pass.
TEST(EnergyGuard, AFiniteBoundStopsAGrowthPastIt) {
  HeatProblem p;
  DataBound b;
  b.rate = 1.0;
  EnergyGuard g(b, false, p);
  EXPECT_EQ(g.observe(energy(1.0), 0, 0.0), "");
  EXPECT_EQ(g.observe(energy(1.0), 0, 0.0), "");
  // sqrt(E) <= 4 (1 + 0 + 1) (1 + 1e-6) at t = 1: E = 60 passes, 70 does not.
  EXPECT_EQ(g.observe(energy(60.0), 1, 1.0), "");
  EXPECT_NE(g.observe(energy(70.0), 1, 1.0), "");
}
