// The planner (adi/step_plan.hpp): which rows each kind of problem gets, and
// on the CPU stepper that runs every plan, that two providers which can both
// take a problem give it the same step (so neither hides a wrong row behind
// the other's tests).
#include <adi/factory.hpp>
#include <adi/problem.hpp>
#include <adi/step_plan.hpp>
#include <adi/stepper.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

namespace {

using adi::Boundary;
using adi::HeatProblem;
using adi::index_t;
using adi::RowProvider;
using adi::SchemeType;

HeatProblem box(index_t nx, index_t ny, index_t nz) {
  HeatProblem p;
  p.n = {nx, ny, nz};
  p.length = {1.0, 0.8, 0.6};
  p.alpha = {1.0, 0.5, 0.25};
  p.dt = 2e-3;
  return p;
}

std::shared_ptr<const adi::FieldSource> field(const HeatProblem& p, double lo, double hi) {
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(static_cast<std::size_t>(p.points()));
  for (double& x : v) x = d(g);
  return std::make_shared<adi::ArrayField>("f", p.n, v);
}

TEST(StepPlan, ConstantTablesOnlyForTheConstantDouglasProblem) {
  HeatProblem p = box(13, 11, 7);
  EXPECT_EQ(adi::plan_step(p).rows, RowProvider::ConstantTables);
  EXPECT_EQ(adi::plan_step(p).scheme, SchemeType::Douglas);
  p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann};  // insulated faces are still tables
  EXPECT_EQ(adi::plan_step(p).rows, RowProvider::ConstantTables);

  // Each of these takes the problem off the constant tables onto axis tables.
  auto axis = [](HeatProblem q) { return adi::plan_step(q).rows == RowProvider::AxisTables; };
  HeatProblem q = p;
  q.lo[1] = Boundary::Robin;
  q.lo_data[1].h = 10.0;
  EXPECT_TRUE(axis(q)) << "a convective face";
  q = p;
  q.lo[0] = q.hi[0] = Boundary::Periodic;
  EXPECT_TRUE(axis(q)) << "a periodic axis";
  q = p;
  q.source = 3.0;
  EXPECT_TRUE(axis(q)) << "a constant source";
  q = p;
  q.capacity = 2.0;
  EXPECT_TRUE(axis(q)) << "a heat capacity";
  q = p;
  q.hi_data[0].flux = 5.0;
  q.hi[0] = Boundary::Neumann;
  EXPECT_TRUE(axis(q)) << "a heat flux";
  q = box(13, 11, 1);
  EXPECT_TRUE(axis(q)) << "a flat axis";
  q = p;
  q.scheme = SchemeType::Strang;
  EXPECT_TRUE(axis(q)) << "the Strang scheme";
  EXPECT_EQ(adi::plan_step(q).scheme, SchemeType::Strang);

  q = p;
  const auto k = field(q, 0.5, 2.0);
  q.material.conductivity = {k, k, k};
  EXPECT_EQ(adi::plan_step(q).rows, RowProvider::FieldRows);
  EXPECT_EQ(adi::plan_step(q).scheme, SchemeType::Strang) << "a K field in 3D";
  q = p;
  q.material.capacity = field(q, 1.0, 3.0);
  EXPECT_EQ(adi::plan_step(q).rows, RowProvider::FieldRows) << "a c field";
}

// The constant tables (scheme.hpp's matrices) and the axis tables
// (discrete.hpp's rows) on the same problem: K and c scaled together leave
// the equation alone but move it onto the axis tables. The two steps agree
// to round-off after 20 steps, on mixed Dirichlet / insulated faces.
TEST(StepPlan, ConstantAndAxisTablesAgreeOnTheConstantProblem) {
  HeatProblem p = box(19, 13, 11);
  p.lo = {Boundary::Neumann, Boundary::Dirichlet, Boundary::Neumann};
  p.hi = {Boundary::Dirichlet, Boundary::Neumann, Boundary::Dirichlet};
  HeatProblem q = p;
  q.capacity = 4.0;
  for (double& a : q.alpha) a *= 4.0;
  ASSERT_EQ(adi::plan_step(p).rows, RowProvider::ConstantTables);
  ASSERT_EQ(adi::plan_step(q).rows, RowProvider::AxisTables);
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> u0(static_cast<std::size_t>(p.points()));
  for (double& x : u0) x = d(g);
  auto a = adi::make_stepper<double>(p, adi::Backend::Cpu);
  auto b = adi::make_stepper<double>(q, adi::Backend::Cpu);
  a->set_field(u0.data());
  b->set_field(u0.data());
  a->advance(20);
  b->advance(20);
  std::vector<double> ua(u0.size()), ub(u0.size());
  a->get_field(ua.data());
  b->get_field(ub.data());
  double diff = 0.0, scale = 0.0, moved = 0.0;
  for (std::size_t i = 0; i < ua.size(); ++i) {
    diff = std::max(diff, std::abs(ua[i] - ub[i]));
    scale = std::max(scale, std::abs(ua[i]));
    moved = std::max(moved, std::abs(ua[i] - u0[i]));
  }
  EXPECT_LE(diff, 1e-13 * scale);
  EXPECT_GT(moved, 1e-2) << "the steps must change the field for the comparison to mean anything";
}

}  // namespace
