// The CUDA stepper's stages under the constant tables (step_plan.hpp): the
// Douglas step of scheme.hpp. Device memory: the field u and one
// work array w (the RHS, then the increment D), both with rows padded so
// that every row starts on a 128-byte boundary (SolverOptions::row_align).
// A step is three launches where the x lines take single-line tiles of the
// warp kernel and a block of several of them and their slabs fits shared
// memory (LineSolver::can_fuse_rhs): the RHS of u computed inside the
// x solve (u -> w, kernels/fused_x_kernel.cu), the y solve in place on w,
// and the z solve that adds its solution into u (the fused update: w is
// read, u read and written, the solution itself never stored): 7 words a
// point. Otherwise, or with ADI_FUSE_RHS=0, the RHS is a launch of its own
// before the x solve (9 words).
//
// A full step is replayed as one CUDA graph, captured at the first step
// (device_grid.cuh, launch_step_kernels;
// SolverOptions::cuda_graph, ADI_CUDA_GRAPH=0 to launch kernel by kernel):
// the launchers' host work (occupancy queries, attribute calls, the
// constant-bank tables built per launch) and the launch latency are paid
// once, not four times a step. It matters on small grids, where a phase
// moves little (17 MB at 129^3, a few us at the copy bandwidth), and not on
// large ones (measured: docs/PERFORMANCE.md, "The step"). The graph holds
// the same kernels with the same arguments: the result is bit for bit the
// same.
//
// Only the unknowns move (SolverOptions::skip_fixed, ADI_SKIP_FIXED=0 to
// move every node): a Dirichlet y or z face's nodes keep their values, so
// every phase runs on the box between such faces (adi::unknown_box: a
// pointer one row / plane in, the same pitches, so rows stay aligned) and
// the RHS reads the face rows as ghost rows. The y and z lines are the
// interior rows of the line matrix (adi::sub_line_matrix), the x lines stay
// whole. w is 0 on the faces from the start and never written there. For
// 8192 x 8192 x 3 that is one plane of three; for the 2^k + 1 sizes users
// pick, y and z lines of 2^k - 1 rows. The y and z solves also leave out
// the lane of a high Dirichlet x face where it would be a 32-line tile of
// its own (adi::lanes_without_face): 257^3's
// y and z solves run 8 full tiles a row of lanes instead of 9.

#include "constant_tables.cuh"

#include "cuda_check.hpp"
#include "rhs_kernel.cuh"

#include <adi/line_kernel_plan.hpp>
#include <adi/scheme.hpp>

#include <sstream>

namespace adi::cuda {

namespace {

UnknownBox moved_box(const HeatProblem& p, const SolverOptions& o) {
  if (o.skip_fixed) return unknown_box(p);
  UnknownBox whole;
  whole.n = p.n;
  return whole;
}
// The box's extents in the grid's pitches (its origin is off_).
Layout3 box_layout(const Layout3& L, const UnknownBox& b) {
  return Layout3{{b.n[0], b.n[1], b.n[2]}, {L.stride[0], L.stride[1], L.stride[2]}};
}
// The y and z solves' lanes (x nodes) of the box: without the high
// Dirichlet x face's node where lanes_without_face drops it (with
// skip_fixed only: ADI_SKIP_FIXED=0 moves every node). Its w stays the x
// solve's 0 there and its u the face's value, as a solve would leave them.
Layout3 yz_layout(const HeatProblem& p, const SolverOptions& o, const Layout3& box) {
  Layout3 L = box;
  if (o.skip_fixed && !p.flat(0) && !p.periodic(0))
    L.n[0] = lanes_without_face(box.n[0], p.hi[0] == Boundary::Dirichlet);
  return L;
}
LineMatrix box_matrix(const HeatProblem& p, const UnknownBox& b, Axis axis) {
  const int a = axis_index(axis);
  const LineMatrix m = douglas_line_matrix(p, axis);
  return b.n[a] == p.n[a] ? m : sub_line_matrix(m, b.lo[a], b.n[a]);
}

}  // namespace

template <class T>
Layout3 ConstantTables<T>::layout_for(const HeatProblem& p, const SolverOptions& o) {
  return Layout3::padded(p.n[0], p.n[1], p.n[2], o.device_row_pitch(p.n[0], sizeof(T)), p.n[1]);
}

template <class T>
ConstantTables<T>::ConstantTables(const HeatProblem& p, const SolverOptions& o, const Layout3& layout)
    : options_(o), layout_(layout), n_(p.n), box_(moved_box(p, o)), sub_(box_layout(layout_, box_)),
      yz_(yz_layout(p, o, sub_)), off_(box_.lo[1] * layout_.stride[1] + box_.lo[2] * layout_.stride[2]),
      kc_(rhs_coefficients<T>(p, box_.lo_ghost, box_.hi_ghost)),
      solver_{LineSolver<T>(box_matrix(p, box_, Axis::X), Axis::X, sub_, o),
              LineSolver<T>(box_matrix(p, box_, Axis::Y), Axis::Y, yz_, o),
              LineSolver<T>(box_matrix(p, box_, Axis::Z), Axis::Z, yz_, o)} {
  if (const std::string why = rhs_unlaunchable(sub_); !why.empty())
    ADI_THROW(BackendUnavailable, "the CUDA backend cannot run this grid: " + why + "; use --backend cpu");
  fuse_rhs_ = solver_[0].can_fuse_rhs() && o.fuse_rhs;
}

template <class T>
void ConstantTables<T>::run(Phase ph, T* u, T* w, cudaStream_t stream) const {
  switch (ph) {
    case Phase::Rhs: launch_rhs(u + off_, w + off_, sub_, kc_, stream, options_); break;
    case Phase::SolveX:
      // Fusing, the x solve takes the fused kernel's segments, so that Rhs
      // and SolveX compose bit for bit to RhsSolveX.
      if (fuse_rhs_)
        solver_[0].solve_like_fused(w + off_, stream);
      else
        solver_[0].solve(w + off_, nullptr, stream);
      break;
    case Phase::SolveY: solver_[1].solve(w + off_, nullptr, stream); break;
    case Phase::SolveZ: solver_[2].solve(w + off_, u + off_, stream); break;
    case Phase::RhsSolveX:
      if (fuse_rhs_) {
        solver_[0].solve_rhs_fused(u + off_, w + off_, kc_, stream);
      } else {
        run(Phase::Rhs, u, w, stream);
        run(Phase::SolveX, u, w, stream);
      }
      break;
    case Phase::Step: ADI_THROW(InvalidArgument, "ConstantTables::run: a step is the stepper's");
  }
}

// With single-line x tiles the RHS is computed inside the x solve: u is read
// once and D written once for both (7 words per point per step instead of 9).
template <class T>
std::vector<Phase> ConstantTables<T>::phases() const {
  if (fuse_rhs_) return {Phase::RhsSolveX, Phase::SolveY, Phase::SolveZ};
  return {Phase::Rhs, Phase::SolveX, Phase::SolveY, Phase::SolveZ};
}

template <class T>
std::string ConstantTables<T>::describe() const {
  std::ostringstream s;
  s << solver_[0].describe() << "; " << solver_[1].describe() << "; " << solver_[2].describe()
    << (fuse_rhs_ ? "; " + solver_[0].describe_fused() : std::string());
  return s.str();
}

template <class T>
std::string ConstantTables<T>::describe_box() const {
  std::ostringstream s;
  if (box_.n != n_)
    s << "; moves the " << box_.n[0] << " x " << box_.n[1] << " x " << box_.n[2]
      << " unknowns between the Dirichlet y / z faces (ADI_SKIP_FIXED=0: every node)";
  if (yz_.n[0] != sub_.n[0])
    s << "; the y / z solves leave out the Dirichlet high x face's lane: " << yz_.n[0]
      << " lanes, whole tiles (of " << sub_.n[0] << ")";
  return s.str();
}

template class ConstantTables<float>;
template class ConstantTables<double>;

}  // namespace adi::cuda
