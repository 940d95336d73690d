// The CUDA backend of the Douglas step. Device memory: the field u and one
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
// (SolverOptions::cuda_graph, ADI_CUDA_GRAPH=0 to launch kernel by kernel):
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
// its own (adi::lanes_without_face, SolverOptions::skip_face_lane): 257^3's
// y and z solves run 8 full tiles a row of lanes instead of 9.

#include <adi/detail/backends.hpp>
#include "cuda_check.hpp"
#include "device_grid.cuh"
#include "line_solver.hpp"
#include "rhs_kernel.cuh"

#include <adi/line_kernel_plan.hpp>
#include <adi/scheme.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace adi::cuda {

template <class T>
class CudaStepper final : public detail::DeviceGridStepper<T> {
  using Base = detail::DeviceGridStepper<T>;
  using Base::device_;
  using Base::layout_;
  using Base::name_;
  using Base::options_;
  using Base::p_;
  using Base::stats_;
  using Base::stream_;
  using Base::u_;
  using Base::use_graph_;
  using Base::w_;

 public:
  CudaStepper(const HeatProblem& p, const SolverOptions& o)
      : Base(p, o, pitched_layout(p, o)), box_(moved_box(p, o)), sub_(sub_layout(layout_, box_)),
        yz_(yz_layout(p, o, sub_)),
        off_(box_.lo[1] * layout_.stride[1] + box_.lo[2] * layout_.stride[2]),
        kc_(rhs_coefficients<T>(p, box_.lo_ghost, box_.hi_ghost)),
        solver_{LineSolver<T>(box_matrix(p, box_, Axis::X), Axis::X, sub_, o),
                LineSolver<T>(box_matrix(p, box_, Axis::Y), Axis::Y, yz_, o),
                LineSolver<T>(box_matrix(p, box_, Axis::Z), Axis::Z, yz_, o)} {
    if (const std::string why = rhs_unlaunchable(sub_); !why.empty())
      ADI_THROW(BackendUnavailable, "the CUDA backend cannot run this grid: " + why + "; use --backend cpu");
    // Whole planes, the last row's padding included: the fused RHS + x
    // kernel copies rows 16 bytes at a time, up to n rounded up to 16 bytes.
    const std::size_t n = static_cast<std::size_t>(layout_.n[2] * layout_.stride[2]);
    std::size_t free_b = 0, total_b = 0;
    ADI_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
    if (2 * n * sizeof(T) > free_b) {
      std::ostringstream s;
      s << "the grid needs " << 2 * n * sizeof(T) / (1 << 20) << " MiB of device memory (u and one work array) but "
        << name_ << " has " << free_b / (1 << 20) << " MiB free"
        << detail::row_align_hint<T>(o, 2, free_b, [&](index_t a) {
             return (p.n[0] + a - 1) / a * a * p.n[1] * p.n[2];
           });
      ADI_THROW(BackendUnavailable, s.str());
    }
    u_.resize(n);
    w_.resize(n);
    this->create_stream();
    ADI_CUDA_CHECK(cudaMemsetAsync(u_.get(), 0, u_.bytes(), stream_));
    ADI_CUDA_CHECK(cudaMemsetAsync(w_.get(), 0, w_.bytes(), stream_));
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    stats_.allocate();
    fuse_rhs_ = solver_[0].can_fuse_rhs() && o.fuse_rhs;
    // A synchronising check after each launch (ADI_CUDA_SYNC=1, debug
    // builds) is illegal inside a capture: those runs launch one by one.
    use_graph_ = o.cuda_graph && !sync_checks_enabled();
  }
  std::string device_name() const override {
    std::ostringstream s;
    s << name_ << " (device " << device_ << "; " << solver_[0].describe() << "; " << solver_[1].describe() << "; "
      << solver_[2].describe() << (fuse_rhs_ ? "; " + solver_[0].describe_fused() : std::string())
      << (use_graph_ ? "; a step is one CUDA graph" : "") << describe_box() << ")";
    return s.str();
  }

  void run_phase(Phase ph) override {
    switch (ph) {
      case Phase::Rhs: launch_rhs(u_.get() + off_, w_.get() + off_, sub_, kc_, stream_, options_); break;
      case Phase::SolveX:
        // Fusing, the x solve takes the fused kernel's segments, so that Rhs
        // and SolveX compose bit for bit to RhsSolveX.
        if (fuse_rhs_)
          solver_[0].solve_like_fused(w_.get() + off_, stream_);
        else
          solver_[0].solve(w_.get() + off_, nullptr, stream_);
        break;
      case Phase::SolveY: solver_[1].solve(w_.get() + off_, nullptr, stream_); break;
      case Phase::SolveZ: solver_[2].solve(w_.get() + off_, u_.get() + off_, stream_); break;
      case Phase::RhsSolveX:
        if (fuse_rhs_) {
          solver_[0].solve_rhs_fused(u_.get() + off_, w_.get() + off_, kc_, stream_);
        } else {
          run_phase(Phase::Rhs);
          run_phase(Phase::SolveX);
        }
        break;
      case Phase::Step: launch_step(); break;
    }
  }
  /// With single-line x tiles the RHS is computed inside the x solve: u is
  /// read once and D written once for both (7 words per point per step
  /// instead of 9).
  std::vector<Phase> phases() const override {
    if (fuse_rhs_) return {Phase::RhsSolveX, Phase::SolveY, Phase::SolveZ};
    return {Phase::Rhs, Phase::SolveX, Phase::SolveY, Phase::SolveZ};
  }
  void step() override {
    run_phase(Phase::Step);
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ++this->step_index_;
  }
  void advance(index_t count) override {
    for (index_t s = 0; s < count; ++s) run_phase(Phase::Step);
    ADI_CUDA_CHECK(cudaStreamSynchronize(stream_));
    this->step_index_ += count;
  }

  FieldStats field_stats() override {
    return stats_.reduce(u_.get(), layout_, energy_weights(p_), static_cast<const T*>(nullptr), stream_);
  }

  std::size_t bytes_allocated() const override { return u_.bytes() + w_.bytes(); }
  std::array<index_t, 3> moved_extents() const override { return box_.n; }
  index_t moved_yz_lanes() const override { return yz_.n[0]; }

  const Layout3& layout() const { return layout_; }

 private:
  void launch_step() {
    this->launch_step_kernels([&] {
      for (Phase q : phases()) run_phase(q);
    });
  }
  static Layout3 pitched_layout(const HeatProblem& p, const SolverOptions& o) {
    return Layout3::padded(p.n[0], p.n[1], p.n[2], o.device_row_pitch(p.n[0], sizeof(T)), p.n[1]);
  }
  static UnknownBox moved_box(const HeatProblem& p, const SolverOptions& o) {
    if (o.skip_fixed) return unknown_box(p);
    UnknownBox whole;
    whole.n = p.n;
    return whole;
  }
  // The box's extents in the grid's pitches (its origin is off_).
  static Layout3 sub_layout(const Layout3& L, const UnknownBox& b) {
    return Layout3{{b.n[0], b.n[1], b.n[2]}, {L.stride[0], L.stride[1], L.stride[2]}};
  }
  // The y and z solves' lanes (x nodes) of the box: without the high
  // Dirichlet x face's node where lanes_without_face drops it (with
  // skip_fixed only: ADI_SKIP_FIXED=0 moves every node). Its w stays the x
  // solve's 0 there and its u the face's value, as a solve would leave them.
  static Layout3 yz_layout(const HeatProblem& p, const SolverOptions& o, const Layout3& box) {
    Layout3 L = box;
    if (o.skip_fixed && o.skip_face_lane && !p.flat(0) && !p.periodic(0))
      L.n[0] = lanes_without_face(box.n[0], p.hi[0] == Boundary::Dirichlet);
    return L;
  }
  static LineMatrix box_matrix(const HeatProblem& p, const UnknownBox& b, Axis axis) {
    const int a = axis_index(axis);
    const LineMatrix m = douglas_line_matrix(p, axis);
    return b.n[a] == p.n[a] ? m : sub_line_matrix(m, b.lo[a], b.n[a]);
  }
  std::string describe_box() const {
    std::ostringstream s;
    if (box_.n != p_.n)
      s << "; moves the " << box_.n[0] << " x " << box_.n[1] << " x " << box_.n[2]
        << " unknowns between the Dirichlet y / z faces (ADI_SKIP_FIXED=0: every node)";
    if (yz_.n[0] != sub_.n[0])
      s << "; the y / z solves leave out the Dirichlet high x face's lane: " << yz_.n[0]
        << " lanes, whole tiles (ADI_SKIP_FACE_LANE=0: " << sub_.n[0] << ")";
    return s.str();
  }

  // The RHS computed inside the x solve (the default; ADI_FUSE_RHS=0 runs
  // it as a pass of its own): docs/PERFORMANCE.md, "The step".
  bool fuse_rhs_ = false;
  UnknownBox box_;  ///< the nodes a step moves (moved_box)
  Layout3 sub_;     ///< their layout, from w_ / u_ + off_
  Layout3 yz_;      ///< the y and z solves' part of it (yz_layout)
  index_t off_;
  RhsCoefficients<T> kc_;  ///< the box's: its Dirichlet-bounded faces are ghost faces
  LineSolver<T> solver_[3];
};

template <class T>
std::unique_ptr<Stepper<T>> make_cuda_stepper(const HeatProblem& p, const SolverOptions& options) {
  return std::make_unique<CudaStepper<T>>(p, options);
}

template std::unique_ptr<Stepper<float>> make_cuda_stepper<float>(const HeatProblem&, const SolverOptions&);
template std::unique_ptr<Stepper<double>> make_cuda_stepper<double>(const HeatProblem&, const SolverOptions&);

}  // namespace adi::cuda
