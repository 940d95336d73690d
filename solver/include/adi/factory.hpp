#pragma once
// One factory for every stepper the app builds: the whole grid on one
// backend, or one sub-box per MPI rank (adi/mpi.hpp). `adi3d run`, `bench`
// and `validate` all come through here, so the choice is written once.

#include <adi/options.hpp>
#include <adi/stepper.hpp>

#include <array>
#include <memory>

namespace adi {

struct StepperSpec {
  Backend backend = Backend::Auto;
  /// One sub-box per rank of MPI_COMM_WORLD (an mpi::Session must be
  /// active); false: the whole grid in this process.
  bool distributed = false;
  /// Process grid request of a distributed stepper ({0, 0, 0}: automatic).
  std::array<int, 3> grid{{0, 0, 0}};
  SolverOptions options;
};

/// The stepper `spec` asks for. A distributed one is an mpi::DistributedStepper
/// (dynamic_cast for its part()); building it is collective.
template <class T>
std::unique_ptr<Stepper<T>> make_stepper(const HeatProblem& p, const StepperSpec& spec);

}  // namespace adi
