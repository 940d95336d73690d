#pragma once
// The rank-box seam (adi::box): what one rank computes on its own box, implemented
// per backend (local_cpu.cpp, cuda/local_cuda.cu). No MPI here: the
// distributed stepper (distributed_stepper.cpp) moves the numbers between
// ranks, through host buffers this class provides (pinned on the GPU).
//
// Storage: u and w (the right-hand side, then the increment) with one ghost
// layer on both sides of every split axis (LocalStorage); only u's ghost
// planes are ever filled.
//
// Planes and lines are exchanged packed (rank_box.hpp): the lines along a
// are indexed as the plane perpendicular to a, (c_o1, c_o2) at
// c_o1 + n_o1 c_o2.

#include <adi/decomposition.hpp>
#include <adi/distributed_line.hpp>
#include <adi/box/rank_box.hpp>
#include <adi/scheme.hpp>
#include <adi/stepper.hpp>

#include <array>
#include <memory>
#include <string>

namespace adi::box {

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

  /// The RHS coefficients of the part [lo, hi) of the box: a face of the
  /// part is a ghost face when it lies inside the box (the neighbours are
  /// box nodes) or on a cut (they are in the ghost planes); otherwise it is
  /// the domain's face with its boundary condition.
  template <class T>
  RhsCoefficients<T> rhs_coefficients_of(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& hi) const {
    std::array<bool, 3> lg{}, hg{};
    for (int a = 0; a < 3; ++a) {
      lg[a] = lo[a] > 0 || part.lo_cut[a];
      hg[a] = hi[a] < part.box.size[a] || part.hi_cut[a];
    }
    return rhs_coefficients<T>(global, lg, hg);
  }
};

/// The part [lo, hi) of a layout (same strides; its node (0, 0, 0) is at L.offset(lo)).
inline Layout3 sub_layout(const Layout3& L, const std::array<index_t, 3>& lo, const std::array<index_t, 3>& hi) {
  return Layout3{{hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}, {L.stride[0], L.stride[1], L.stride[2]}};
}

/// The lines along `axis` with outer index c_o2 in [b, e): their part of the box.
inline void line_range(const Layout3& L, int axis, index_t b, index_t e, std::array<index_t, 3>& lo,
                       std::array<index_t, 3>& hi) {
  lo = {0, 0, 0};
  hi = {L.n[0], L.n[1], L.n[2]};
  const int o2 = other_axes(axis)[1];
  lo[o2] = b;
  hi[o2] = e;
}

/// The constant tables' rank box (step_plan.hpp): RankBox's arrays and
/// planes, and the planned distributed line solve.
template <class T>
class LocalBackend : public RankBox<T> {
 public:
  virtual Backend kind() const = 0;
  /// w = dt (Lx + Ly + Lz) u on the part [lo, hi) of the box (queued): the
  /// whole box, or its interior while the halo is in flight and then the
  /// shell next to the cut faces. Across a face of the part that is inside
  /// the box the neighbours are read from the box itself, across a cut face
  /// from the ghost planes: bit for bit the RHS of the whole box.
  virtual void rhs(const std::array<index_t, 3>& lo, const std::array<index_t, 3>& hi) = 0;
  /// z not split: u += A^{-1} w along z (the fused update of the whole-grid stepper).
  virtual void solve_local_fused_z() = 0;

  // The lines along `axis` are indexed (c_o1, c_o2) (local_backend.hpp's
  // plane order); the following act on the lines with c_o2 in [b, e) (all
  // lines: [0, n_o2)), so that batches of lines can be pipelined.

  /// w <- A_p^{-1} w along `axis` with the rank's block of the line matrix (queued).
  virtual void solve_local(int axis, index_t b, index_t e) = 0;
  /// w's first and last plane along `axis` (the local solution y at the
  /// first and last row of every line) -> host[0, L) and host[L, 2L),
  /// L = n_o1 (e - b) (queued: ready once done() says so for a later record()).
  virtual void pack_ends(int axis, index_t b, index_t e, T* host) = 0;
  /// The all-gathered values of those lines (host, [2P][L]: y_first and
  /// y_last of every rank of the axis) for correct(); the CUDA backend
  /// queues a copy to the device (the host buffer must live until it ran).
  virtual void upload_gathered(int axis, index_t b, index_t e, const T* gathered) = 0;
  /// x = w + alpha X_prev + beta X_next along `axis`, with X_prev, X_next of
  /// every line from the uploaded values; into w, or, with add_to_u,
  /// u += x (the split z solve, fused with the update) (queued).
  virtual void correct(int axis, index_t b, index_t e, bool add_to_u) = 0;

  /// Marks the work queued so far with `slot` (a CUDA event; a no-op on the CPU).
  virtual void record(int slot) = 0;
  /// Whether the work marked with `slot` is done (never blocks; always true on the CPU).
  virtual bool done(int slot) = 0;
  /// Waits for queued work (a no-op on the CPU).
  void synchronize() override = 0;
};

template <class T>
std::unique_ptr<LocalBackend<T>> make_cpu_local(const LocalProblem& lp);
/// Throws BackendUnavailable in a build without CUDA.
template <class T>
std::unique_ptr<LocalBackend<T>> make_cuda_local(const LocalProblem& lp, int device,
                                                 const SolverOptions& options = {});

}  // namespace adi::box
