// Moving and fixed Dirichlet faces (adi/dirichlet.hpp) without a stepper.
#include <adi/dirichlet.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

// impose_dirichlet on a face that keeps the initial field's values while the
// problem has no initial_field: the field's face values stay as they are
// (they used to be set to 0), while a constant-value face is imposed.
TEST(Dirichlet, KeepsFaceValuesWithoutInitialField) {
  adi::HeatProblem p;
  p.n = {5, 4, 3};
  p.hi[0] = adi::Boundary::Dirichlet;
  p.hi_data[0].value_from_initial = false;
  p.hi_data[0].value = 7.5;
  const adi::DirichletData d = adi::build_dirichlet(p, {{0, 0, 0}}, p.n);
  std::vector<double> u(static_cast<std::size_t>(p.points()));
  for (std::size_t q = 0; q < u.size(); ++q) u[q] = 1.0 + 0.25 * static_cast<double>(q);
  const std::vector<double> before = u;
  adi::impose_dirichlet(d, 0.0, u.data(), {{1, p.n[0], p.n[0] * p.n[1]}});
  for (adi::index_t k = 0; k < p.n[2]; ++k)
    for (adi::index_t j = 0; j < p.n[1]; ++j)
      for (adi::index_t i = 0; i < p.n[0]; ++i) {
        const std::size_t q = static_cast<std::size_t>(i + p.n[0] * (j + p.n[1] * k));
        if (i == p.n[0] - 1)
          EXPECT_EQ(u[q], 7.5) << "x_hi node " << i << "," << j << "," << k;
        else
          EXPECT_EQ(u[q], before[q]) << "node " << i << "," << j << "," << k;
      }
}

}  // namespace
