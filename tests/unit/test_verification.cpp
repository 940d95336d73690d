// The general problem's checks (adi/verification.hpp) on the CPU backend.
#include <adi/dirichlet.hpp>
#include <adi/verification.hpp>

#include <vector>

#include <gtest/gtest.h>

namespace {
adi::StepperSpec cpu() {
  adi::StepperSpec s;
  s.backend = adi::Backend::Cpu;
  return s;
}
void expect_ok(const adi::verify::Check& c) {
  EXPECT_TRUE(c.ok) << c.name << " (" << adi::precision_name(c.precision) << "): " << c.quantity << " = " << c.value
                    << ", accepted [" << c.lo << ", " << c.hi << "]; " << c.detail;
  std::printf("%-80s %-8s %12.4e  [%g, %g]  %s\n", c.name.c_str(), adi::precision_name(c.precision), c.value, c.lo,
              c.hi, c.detail.c_str());
}
}  // namespace

TEST(Verification, PeriodicFourierF64) { expect_ok(adi::verify::periodic_fourier(adi::Precision::F64, cpu())); }
TEST(Verification, PeriodicFourierF32) { expect_ok(adi::verify::periodic_fourier(adi::Precision::F32, cpu())); }
TEST(Verification, ManufacturedMaterials) { expect_ok(adi::verify::manufactured_materials(cpu())); }
TEST(Verification, ManufacturedDirichlet) { expect_ok(adi::verify::manufactured_faces(adi::Boundary::Dirichlet, cpu())); }
TEST(Verification, ManufacturedRobinFlux) { expect_ok(adi::verify::manufactured_faces(adi::Boundary::Robin, cpu())); }
TEST(Verification, LayeredSteady) { expect_ok(adi::verify::layered_steady(cpu())); }
TEST(Verification, RobinSteady) { expect_ok(adi::verify::robin_steady(cpu())); }
TEST(Verification, ConservationF64) { expect_ok(adi::verify::conservation(adi::Precision::F64, cpu())); }
TEST(Verification, ConservationF32) { expect_ok(adi::verify::conservation(adi::Precision::F32, cpu())); }
TEST(Verification, EnergyBalance) { expect_ok(adi::verify::energy_balance(cpu())); }
TEST(Verification, FlatAxisF64) { expect_ok(adi::verify::flat_axis(adi::Precision::F64, cpu())); }
TEST(Verification, FlatAxisF32) { expect_ok(adi::verify::flat_axis(adi::Precision::F32, cpu())); }
TEST(Verification, ConstantFieldF64) { expect_ok(adi::verify::constant_field(adi::Precision::F64, cpu())); }
TEST(Verification, ConstantFieldF32) { expect_ok(adi::verify::constant_field(adi::Precision::F32, cpu())); }

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
