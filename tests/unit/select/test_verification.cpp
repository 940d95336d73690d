// The general problem's checks (adi/verification.hpp) on the CPU backend that
// the stepper contract does not run.
#include <adi/factory.hpp>
#include <adi/problem.hpp>
#include <adi/stepper.hpp>
#include <adi/verification.hpp>

#include <gtest/gtest.h>

#include <array>
#include <vector>

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

// The steady-state checks; the marching ones run in the stepper contract on
// every backend (tests/contract: CpuF32 / CpuF64 here, on the same spec).
TEST(Verification, LayeredSteady) { expect_ok(adi::verify::layered_steady(cpu())); }
TEST(Verification, RobinSteady) { expect_ok(adi::verify::robin_steady(cpu())); }

// Moving Dirichlet faces on a grid with flat axes (2D nz = 1, 1D): the W
// terms (dirichlet.hpp) skip the flat in-plane axes, which have no solve, and
// the face holds V f(t) after every step. (It used to throw "a face node's
// operator reached outside its halo".)
TEST(Verification, MovingDirichletWithFlatAxes) {
  for (const std::array<adi::index_t, 3> n : {std::array<adi::index_t, 3>{{17, 9, 1}}, {{1, 25, 1}}}) {
    adi::HeatProblem p;
    p.n = n;
    p.dt = 1e-3;
    const int g = n[0] == 1 ? 1 : 0;  // the moving face's axis
    p.lo[g] = adi::Boundary::Dirichlet;
    p.lo_data[g].value_from_initial = false;
    p.lo_data[g].value = 2.0;
    p.lo_data[g].table.t = {0.0, 0.01};
    p.lo_data[g].table.v = {1.0, 3.0};
    p.hi[g] = adi::Boundary::Robin;
    p.hi_data[g].h = 1.5;
    for (int a = 0; a < 3; ++a)
      if (a != g) p.lo[a] = p.hi[a] = adi::Boundary::Neumann;  // no face that keeps initial values
    auto st = adi::make_stepper<double>(p, adi::Backend::Cpu);
    std::vector<double> u(static_cast<std::size_t>(p.points()), 0.5);
    st->set_field(u.data());
    st->impose_boundary_values();
    st->advance(7);
    st->get_field(u.data());
    const double want = 2.0 * p.lo_data[g].table.at(7 * p.dt);
    for (std::size_t q = 0; q < u.size(); ++q) {
      const adi::index_t i = static_cast<adi::index_t>(q) % n[0], j = (static_cast<adi::index_t>(q) / n[0]) % n[1];
      if ((g == 0 ? i : j) == 0) {
        EXPECT_NEAR(u[q], want, 1e-12) << "node " << q << " of " << n[0] << "x" << n[1];
      }
    }
  }
}

// A stretched grid and the backends (#56): auto takes the CPU; the CUDA
// backend is refused by the memory estimate (the run's first check) and the
// factory, naming the stretched grid and the knob, before any device is
// touched (also on a build without CUDA, whose own refusal comes after);
// under MPI the CUDA ranks are refused with the knob too.
TEST(Verification, StretchedGridsChooseTheirBackend) {
  adi::HeatProblem p;
  p.n = {5, 4, 3};
  p.length = {1.0, 1.0, 0.6};
  p.coordinates[0] = {0.0, 0.1, 0.3, 0.6, 1.0};
  p.validate();
  EXPECT_EQ(adi::choose_backend(p, adi::Backend::Auto), adi::Backend::Cpu);
  adi::SolverOptions o;
  auto refused = [&](int ranks, const char* words) {
    try {
      (void)adi::stepper_footprint(p, adi::Backend::Cuda, adi::Precision::F64, ranks, o, false);
      ADD_FAILURE() << "the CUDA estimate took a stretched grid on " << ranks << " ranks";
    } catch (const adi::BackendUnavailable& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refused(1, "not yet verified on a GPU");
  refused(2, "runs on CPU ranks");
  o.cuda_stretched = true;
  refused(2, "runs on CPU ranks");
  o.cuda_stretched = false;
  try {
    (void)adi::make_stepper<double>(p, adi::Backend::Cuda, o);
    ADD_FAILURE() << "the CUDA backend took a stretched grid";
  } catch (const adi::BackendUnavailable& e) {
    EXPECT_NE(std::string(e.what()).find("stretched"), std::string::npos) << e.what();
  }
}
