// The general problem's checks (adi/verification.hpp) on the CPU backend.
#include <adi/verification.hpp>

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
