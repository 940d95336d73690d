#pragma once
// Distributed runs over MPI (adi::mpi, built with -DADI_ENABLE_MPI=ON).
// Declared without mpi.h: only the sources in solver/mpi/ include it, so the
// core, the app and every host-side test compile without MPI. In a build
// without MPI the same functions exist: the world has one rank and
// make_distributed_stepper throws BackendUnavailable.
//
// A distributed stepper owns one sub-box of the grid per rank (see
// decomposition.hpp for how the grid is cut). Per Douglas step it
//   1. exchanges one ghost plane with each neighbour along the split axes
//      (the halo the 7-point right-hand side reads across a cut), while the
//      right-hand side of the interior is computed,
//   2. computes the rest of the right-hand side and the x solve locally (x
//      is never split),
//   3. solves y and z lines that cross ranks exactly by the reduced-system
//      method of distributed_line.hpp: a local solve with the rank's block,
//      an all-gather of two values per line among the ranks of that axis (a
//      few batches of lines, pipelined), and a pointwise correction (a split
//      z also adds the increment into u).
// Problems beyond the constant-tables plan (step_plan.hpp: fields, sources, flux / Robin /
// periodic faces, tables, flat axes) run the same steps on the CPU local
// backend with per-line reduced systems (detail/general_local.hpp; periodic
// axes may be split: the ranks along them form a ring).
// Its set_field / get_field move the rank's OWN box (packed, x fastest,
// extents part().box.size); scatter_field / gather_field move the whole
// field through rank 0 (for initial data, outputs and checkpoints).

#include <adi/decomposition.hpp>
#include <adi/options.hpp>
#include <adi/stepper.hpp>

#include <array>
#include <memory>
#include <string>

namespace adi::mpi {

/// Raised on the ranks of a collective operation that did not fail
/// themselves when another rank did (its own exception says why).
class PeerError : public BackendUnavailable {
  using BackendUnavailable::BackendUnavailable;
};

/// Whether this build has the MPI backend.
bool built();
/// MPI for the lifetime of the object: MPI_Init_thread (funneled: OpenMP
/// threads never call MPI) when the build has MPI and `init` is true,
/// MPI_Finalize at the end. Otherwise nothing happens and the world is one
/// rank. The app passes whether an MPI launcher started the process (it
/// reads the launcher's environment, app/launch.hpp), so a plain
/// `adi3d run` never needs mpirun.
class Session {
 public:
  Session(int* argc, char*** argv, bool init = true);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  bool active() const { return active_; }

 private:
  bool active_ = false;
};

/// The world communicator's rank and size (0 and 1 without an active Session).
int world_rank();
int world_size();
/// The rank among the ranks on the same node (device selection: one rank per GPU).
int local_rank();
/// Element-wise maximum / sum over all ranks, in place (no-ops on one rank).
void allreduce_max(double* values, int n);
void allreduce_sum(double* values, int n);
/// Fills the ghost layers of this rank's box across the cuts of `d` with the
/// neighbouring ranks' planes (a periodic axis split into a ring included;
/// at a domain face the ghost is left as it is). `box`: the rank's box with
/// one ghost layer on both sides of every axis whose extent exceeds the
/// box's size (extent = size + 2; x, never split, may have one too), packed
/// x fastest, doubles. Collective over the world (the ranks of d are the
/// world's); without MPI, or on one rank, nothing to do.
void exchange_ghost_layers(const Decomposition& d, int rank, const std::array<index_t, 3>& extent, double* box);
/// Rank `root`'s string on every rank.
void broadcast(std::string& s, int root = 0);
void barrier();
/// Ends every rank of the job with `code` (MPI_Abort); std::exit on one rank.
[[noreturn]] void abort(int code);

/// Wall-clock seconds one rank's host spent in communication since the last
/// reset, split by purpose (packing, device-host staging, the MPI calls and
/// waiting for the partners), and the steps they cover. Without overlap
/// (ADI_MPI_OVERLAP=0) that is what a step loses to communication; with
/// overlap part of it is hidden behind device work (docs/MPI.md).
struct CommTimes {
  double halo = 0.0;     ///< ghost-plane exchange for the right-hand side
  double reduced = 0.0;  ///< reduced-system exchange of the y and z solves
  double step = 0.0;     ///< whole steps (communication included)
  index_t steps = 0;
};

template <class T>
class DistributedStepper : public Stepper<T> {
 public:
  virtual const Decomposition& decomposition() const = 0;
  /// This rank's box and cut faces.
  virtual const LocalPart& part() const = 0;
  virtual CommTimes comm_times() const = 0;
  virtual void reset_comm_times() = 0;
  /// The distributed line solve by itself (collective): d <- A^{-1} d for
  /// every line along `axis` of the Douglas line matrix (I - theta dt L_axis),
  /// d being this rank's box (packed, x fastest). Uses the stepper's work
  /// array, so a step's state between phases is lost (the field u is not).
  virtual void solve_lines(Axis axis, T* box) = 0;
};

/// Builds the distributed stepper on MPI_COMM_WORLD (a Session must be
/// active). `grid` is the process grid request of Decomposition::plan
/// ({0, 0, 0}: automatic); x must not be split. Backend Cpu or Cuda (one
/// rank per GPU: device = local rank modulo the visible devices); Auto is
/// CUDA when every rank has a usable device. A problem whose plan is not the
/// constant tables runs on the general rank boxes, CPU or CUDA. Collective: every rank either
/// gets a stepper or throws (the rank that failed with the reason, the
/// others with PeerError naming that rank).
template <class T>
std::unique_ptr<DistributedStepper<T>> make_distributed_stepper(const HeatProblem& p, Backend b,
                                                                const std::array<int, 3>& grid = {{0, 0, 0}},
                                                                const SolverOptions& options = {});

}  // namespace adi::mpi
