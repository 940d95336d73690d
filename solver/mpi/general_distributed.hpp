#pragma once
// Internal to adi::mpi: the distributed stepper of the general problem on
// the CPU or CUDA local backend (general_distributed.cpp; the rank's
// arithmetic is detail/general_local.hpp). make_distributed_stepper chooses
// it for every problem that is not the constant-tables plan (step_plan.hpp).
#include <adi/mpi.hpp>

#include <mpi.h>

namespace adi::mpi::detail {

/// Collective over `comm` (which the stepper then owns and frees). `d` is the
/// plan of p.n over comm's ranks; its periodic axes are set here. `backend`
/// is Cpu or Cuda (Auto resolved by the caller, the same on every rank).
template <class T>
std::unique_ptr<DistributedStepper<T>> make_general_distributed(const HeatProblem& p, Decomposition d, MPI_Comm comm,
                                                                Backend backend, const SolverOptions& options);

/// This rank's GPU: SolverOptions::cuda_device, else the local rank modulo
/// the visible devices. Throws BackendUnavailable (no usable device, or the
/// option names one that is not visible). distributed_stepper.cpp.
int rank_device(const SolverOptions& options);

}  // namespace adi::mpi::detail
