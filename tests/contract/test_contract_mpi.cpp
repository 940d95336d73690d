// The stepper contract (stepper_contract.hpp) for the distributed stepper
// under mpirun (1-4 ranks, tests/contract/CMakeLists.txt), local backend CPU
// (ADI_CONTRACT_CUDA=0: test_contract_mpi, label mpi) or CUDA, one GPU per
// rank (=1: test_contract_mpi_cuda, labels mpi and gpu). The process grid is
// automatic; every assertion compares values reduced over the ranks.
//
// Exit status: 77 when every test was skipped (no GPU on some rank) and none
// failed, which ctest reports as skipped (SKIP_RETURN_CODE); a failure on any
// rank fails the program on every rank.

#include "stepper_contract.hpp"

#include <adi/factory.hpp>
#include <adi/mpi.hpp>

namespace adi::test::contract {
namespace {

constexpr adi::Backend kLocal = ADI_CONTRACT_CUDA ? adi::Backend::Cuda : adi::Backend::Cpu;

struct MpiBackend {
  static std::string unavailable() {
    // Asked on the CPU variant too: the call is what pulls adi_select's
    // cuda_unavailable_reason in ahead of libadi_mpi.a on the static link
    // line (adi_mpi needs it and comes after adi_solver's own objects).
    const bool here = cuda_unavailable_reason().empty();
    if (kLocal != adi::Backend::Cuda) return {};
    // Every rank decides the same: skip when any rank lacks a device.
    double missing = here ? 0.0 : 1.0;
    mpi::allreduce_max(&missing, 1);
    return missing > 0 ? "a rank has no usable CUDA device" : "";
  }
  static bool requires_gpu() { return kLocal == adi::Backend::Cuda; }
  /// The automatic process grid (the tests that cut a periodic axis ask for
  /// theirs: specs_cutting).
  static StepperSpec spec() {
    StepperSpec s;
    s.backend = kLocal;
    s.distributed = true;
    return s;
  }
  static int ranks() { return mpi::world_size(); }
  template <class T>
  static std::unique_ptr<Stepper<T>> make(const HeatProblem& p) {
    return make_stepper<T>(p, spec());
  }
  template <class T>
  static Box box(Stepper<T>& st) {
    return dynamic_cast<mpi::DistributedStepper<T>&>(st).part().box;
  }
  static bool root() { return mpi::world_rank() == 0; }
  static void reduce_max(double* v, int n) { mpi::allreduce_max(v, n); }
};

using F32 = ::testing::Types<Case<MpiBackend, float>>;
using F64 = ::testing::Types<Case<MpiBackend, double>>;
INSTANTIATE_TYPED_TEST_SUITE_P(MpiF32, StepperContract, F32);
INSTANTIATE_TYPED_TEST_SUITE_P(MpiF64, StepperContract, F64);
INSTANTIATE_TYPED_TEST_SUITE_P(MpiF64, StepperContractF64, F64);

/// On ranks other than 0: only failed assertions, tagged with the rank.
class FailurePrinter : public ::testing::EmptyTestEventListener {
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (r.failed())
      std::cout << "[rank " << mpi::world_rank() << "] " << (r.file_name() ? r.file_name() : "") << ":"
                << r.line_number() << ": " << r.summary() << std::endl;
  }
};

}  // namespace
}  // namespace adi::test::contract

int main(int argc, char** argv) {
  adi::mpi::Session session(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (adi::mpi::world_rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new adi::test::contract::FailurePrinter);
  }
  const int rc = RUN_ALL_TESTS();
  const auto& u = *::testing::UnitTest::GetInstance();
  // gtest counts a skipped test as neither successful nor failed.
  double v[2] = {rc != 0 ? 1.0 : 0.0, u.skipped_test_count() > 0 && u.successful_test_count() == 0 ? 1.0 : 0.0};
  adi::mpi::allreduce_max(v, 2);
  if (v[0] > 0) return 1;
  return v[1] > 0 ? 77 : 0;
}
