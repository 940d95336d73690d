#pragma once
// The entry points of each backend, declared once (Ginkgo's device hooks):
// solver/cpu, solver/cuda and solver/mpi define them; solver/hooks defines
// the ones of a backend that was not built, each saying why it cannot run.
// Only solver/select calls them. Free of CUDA and MPI headers.
#include <adi/footprint.hpp>
#include <adi/options.hpp>
#include <adi/stepper.hpp>

#include <memory>
#include <string>
#include <vector>

namespace adi::cpu {
template <class T>
std::unique_ptr<Stepper<T>> make_cpu_stepper(const HeatProblem& p, const SolverOptions& options = {});
/// What make_cpu_stepper (or, with ranks > 1, rank 0's box) will allocate.
StepperFootprint footprint(const HeatProblem& p, Precision precision, int ranks, const SolverOptions& options);
}  // namespace adi::cpu

namespace adi::cuda {
template <class T>
std::unique_ptr<Stepper<T>> make_cuda_stepper(const HeatProblem& p, const SolverOptions& options = {});
std::vector<DeviceInfo> devices();
/// "" when a device is usable, otherwise the reason (driver error text).
std::string unavailable_reason();
/// What make_cuda_stepper (or, with ranks > 1, rank 0's box) will allocate.
StepperFootprint footprint(const HeatProblem& p, Precision precision, int ranks, const SolverOptions& options);
}  // namespace adi::cuda
