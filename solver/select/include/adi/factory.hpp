#pragma once
// One factory for every stepper the app builds: the whole grid on one
// backend, or one sub-box per MPI rank (adi/mpi.hpp). `adi3d run`, `bench`
// and `validate` all come through here, so the choice is written once; with
// it what a choice needs to know of this machine (the backends built, the
// CUDA devices, the copy bandwidth).

#include <adi/footprint.hpp>
#include <adi/options.hpp>
#include <adi/stepper.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace adi {

/// Builds a stepper. Throws BackendUnavailable when the backend was not built
/// or no device is present; Auto picks CUDA when a device is usable, else CPU.
/// `options`: the backends' experiment knobs (adi/options.hpp).
template <class T>
std::unique_ptr<Stepper<T>> make_stepper(const HeatProblem& p, Backend b, const SolverOptions& options = {});

/// What `auto` resolves to on this machine.
Backend resolve_backend(Backend requested);
/// The backend make_stepper(p, requested) uses for this problem, or the
/// BackendUnavailable it throws (no CUDA device, a problem CUDA does not run
/// yet): `adi3d run --dry-run` resolves it as the run would.
Backend choose_backend(const HeatProblem& p, Backend requested);

/// What a stepper of p on backend b (resolved: CPU or CUDA) will allocate,
/// from the backend's own model (adi/footprint.hpp); with ranks > 1 rank 0's
/// box. With `steady`, also what the steady solver adds (adi/steady.hpp):
/// one stepper of the same kind per sweep parameter and its Krylov vectors.
StepperFootprint stepper_footprint(const HeatProblem& p, Backend b, Precision precision, int ranks,
                                   const SolverOptions& options, bool steady);

/// Whether the backend was compiled into this build.
bool backend_built(Backend b);
/// Measured copy bandwidth of the backend's memory, in bytes per second
/// counting bytes read plus bytes written: a device-to-device cudaMemcpy of
/// `bytes` on CUDA, a parallel array copy on the CPU. Median of `reps`.
double copy_bandwidth(Backend b, std::size_t bytes, int reps);

/// CUDA devices visible now (empty without CUDA or without a device).
std::vector<DeviceInfo> cuda_devices();
/// Why no CUDA device is usable ("" if one is), for messages.
std::string cuda_unavailable_reason();

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
