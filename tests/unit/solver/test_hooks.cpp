// The "not built" stubs (solver/hooks) on every machine: the test links the
// hook sources itself, without adi_cuda or adi_mpi, so a build that has CUDA
// and MPI (where the library uses the real backends and these stubs are not
// in it) still checks what a build without them answers.

#include <adi/cuda.hpp>
#include <adi/detail/entry_points.hpp>
#include <adi/mpi.hpp>

#include <gtest/gtest.h>

#include <string>

using namespace adi;

namespace {

template <class F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const BackendUnavailable& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  }
  return "no exception";
}

TEST(Hooks, CudaStubsNameTheMissingBuildOption) {
  HeatProblem p;
  const std::string s = message_of([&] { (void)cuda::make_cuda_stepper<double>(p); });
  EXPECT_NE(s.find("built without CUDA"), std::string::npos) << s;
  EXPECT_NE(s.find("-DADI_ENABLE_CUDA=ON"), std::string::npos) << s;
  EXPECT_NE(message_of([&] { (void)cuda::make_cuda_stepper<float>(p); }).find("built without CUDA"),
            std::string::npos);
  const std::string solver =
      message_of([&] { cuda::ConstantSolver<double> c(LineMatrix(5), Axis::X, Layout3::packed(5, 1, 1)); });
  EXPECT_NE(solver.find("built without CUDA"), std::string::npos) << solver;
  // What `adi3d info` prints, and no devices.
  EXPECT_NE(cuda::unavailable_reason().find("built without CUDA"), std::string::npos);
  EXPECT_TRUE(cuda::devices().empty());
}

TEST(Hooks, MpiStubsAreOneRankAndNameTheMissingBuildOption) {
  EXPECT_FALSE(mpi::built());
  EXPECT_EQ(mpi::world_rank(), 0);
  EXPECT_EQ(mpi::world_size(), 1);
  HeatProblem p;
  const std::string s = message_of([&] { (void)mpi::make_distributed_stepper<double>(p, Backend::Cpu); });
  EXPECT_NE(s.find("built without MPI"), std::string::npos) << s;
  EXPECT_NE(s.find("-DADI_ENABLE_MPI=ON"), std::string::npos) << s;
}

}  // namespace
