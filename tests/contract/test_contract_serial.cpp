// The stepper contract (stepper_contract.hpp) for one single-process backend,
// chosen at compile time: ADI_CONTRACT_CUDA=0 builds test_contract_cpu
// (label unit), =1 test_contract_cuda (label gpu: skipped without a device,
// a failure with ADI_REQUIRE_GPU=1).

#include "stepper_contract.hpp"
#include "temperature_contract.hpp"

namespace adi::test::contract {
namespace {

// One instantiation per precision so the ctest names say which
// (CpuF64.RoundoffAgainstAnalyticMixed<0>, ...).
#if ADI_CONTRACT_CUDA
using B = SerialBackend<adi::Backend::Cuda>;
using F32 = ::testing::Types<Case<B, float>>;
using F64 = ::testing::Types<Case<B, double>>;
INSTANTIATE_TYPED_TEST_SUITE_P(CudaF32, StepperContract, F32);
INSTANTIATE_TYPED_TEST_SUITE_P(CudaF64, StepperContract, F64);
INSTANTIATE_TYPED_TEST_SUITE_P(CudaF64, StepperContractF64, F64);
INSTANTIATE_TYPED_TEST_SUITE_P(CudaF64Temperature, TemperatureContract, F64);
#else
using B = SerialBackend<adi::Backend::Cpu>;
using F32 = ::testing::Types<Case<B, float>>;
using F64 = ::testing::Types<Case<B, double>>;
INSTANTIATE_TYPED_TEST_SUITE_P(CpuF32, StepperContract, F32);
INSTANTIATE_TYPED_TEST_SUITE_P(CpuF64, StepperContract, F64);
INSTANTIATE_TYPED_TEST_SUITE_P(CpuF64, StepperContractF64, F64);
INSTANTIATE_TYPED_TEST_SUITE_P(CpuF64Temperature, TemperatureContract, F64);
#endif

}  // namespace
}  // namespace adi::test::contract
