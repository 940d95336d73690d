#pragma once
// Internal to adi::mpi: what one rank computes on its own box, implemented
// per backend (local_cpu.cpp, cuda/local_cuda.cu). No MPI here: the
// distributed stepper (distributed_stepper.cpp) moves the numbers between
// ranks, through host buffers this class provides (pinned on the GPU).
//
// Storage: u and w (the right-hand side, then the increment) with one ghost
// layer on both sides of every split axis (LocalStorage); only u's ghost
// planes are ever filled.
//
// Planes and lines are exchanged packed: the plane perpendicular to axis a
// (and the lines along a) are indexed by the other two axes o1 < o2 with o1
// fastest, i.e. element (c_o1, c_o2) at c_o1 + n_o1 c_o2. For a y plane that
// is (i, k) at i + nx k; for a z plane (i, j) at i + nx j.

#include <adi/decomposition.hpp>
#include <adi/distributed_line.hpp>
#include <adi/scheme.hpp>
#include <adi/stepper.hpp>

#include <array>
#include <memory>
#include <string>

namespace adi::mpi::detail {

/// The other two axes of `axis`, lower first.
inline std::array<int, 2> other_axes(int axis) {
  return axis == 0 ? std::array<int, 2>{{1, 2}} : axis == 1 ? std::array<int, 2>{{0, 2}} : std::array<int, 2>{{0, 1}};
}

struct LocalProblem {
  HeatProblem global;
  LocalPart part;
  std::array<bool, 3> ghosts{{false, false, false}};  ///< axes with ghost layers (the split axes)
  std::array<DistributedLinePlan, 3> plans;            ///< per axis (uncoupled on unsplit axes)

  const std::array<index_t, 3>& size() const { return part.box.size; }
  /// Lines along `axis` in the box (= elements of a plane perpendicular to it).
  index_t lines(int axis) const {
    const auto o = other_axes(axis);
    return part.box.size[o[0]] * part.box.size[o[1]];
  }
  static LocalProblem make(const HeatProblem& p, const Decomposition& d, int rank);
};

template <class T>
class LocalBackend {
 public:
  virtual ~LocalBackend() = default;
  virtual Backend kind() const = 0;
  virtual std::string device_name() const = 0;
  virtual std::size_t bytes_allocated() const = 0;

  /// u <- / -> the box (packed, x fastest).
  virtual void set_field(const T* packed) = 0;
  virtual void get_field(T* packed) = 0;
  /// The same for w (the distributed line solve by itself).
  virtual void set_work(const T* packed) = 0;
  virtual void get_work(T* packed) = 0;
  virtual FieldStats field_stats() = 0;

  /// A host buffer of n values owned by the backend (pinned for CUDA), valid
  /// until the backend is destroyed; `slot` names it (the same slot returns
  /// the same buffer, grown if needed).
  virtual T* host_buffer(int slot, std::size_t n) = 0;

  /// u's plane at index `side ? n_a - 1 : 0` along `axis` -> host (packed).
  virtual void pack_face(int axis, int side, T* host) = 0;
  /// host -> u's ghost plane at index `side ? n_a : -1`.
  virtual void unpack_ghost(int axis, int side, const T* host) = 0;
  /// w = dt (Lx + Ly + Lz) u on the box (ghost planes filled).
  virtual void rhs() = 0;
  /// w <- A_p^{-1} w along `axis` with the rank's block of the line matrix.
  virtual void solve_local(int axis) = 0;
  /// z not split: u += A^{-1} w along z (the fused update of the whole-grid stepper).
  virtual void solve_local_fused_z() = 0;
  /// w's first and last plane along `axis` (the local solution y at the
  /// first and last row of every line) -> host[0, L) and host[L, 2L).
  virtual void pack_ends(int axis, T* host) = 0;
  /// The all-gathered values of the lines along `axis` (host, [2P][L]:
  /// y_first and y_last of every rank of the axis), for correct(); the CUDA
  /// backend copies them to the device here (staging, timed as communication).
  virtual void upload_gathered(int axis, const T* gathered) = 0;
  /// x = w + alpha X_prev + beta X_next along `axis`, with X_prev, X_next of
  /// every line from the uploaded values; into w, or, with add_to_u,
  /// u += x (the split z solve, fused with the update).
  virtual void correct(int axis, bool add_to_u) = 0;
  /// Waits for queued work (a no-op on the CPU).
  virtual void synchronize() = 0;
};

template <class T>
std::unique_ptr<LocalBackend<T>> make_cpu_local(const LocalProblem& lp);
/// Throws BackendUnavailable in a build without CUDA.
template <class T>
std::unique_ptr<LocalBackend<T>> make_cuda_local(const LocalProblem& lp, int device);

}  // namespace adi::mpi::detail
