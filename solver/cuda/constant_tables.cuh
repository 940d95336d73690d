#pragma once
// The CUDA stepper's stages under the constant tables' plan (step_plan.hpp):
// scheme.hpp's factorised matrices in the line-kernel families and its
// seven-point RHS, the RHS fused into the x solve, only the unknowns moved.
// constant_tables.cu has the design and the figures' reasons.
#include "line_solver.hpp"

#include <adi/options.hpp>
#include <adi/scheme.hpp>
#include <adi/stepper.hpp>

#include <array>
#include <string>
#include <vector>

#include <cuda_runtime.h>

namespace adi::cuda {

template <class T>
class ConstantTables {
 public:
  /// The grid's layout these stages take: rows padded (SolverOptions::row_align).
  static Layout3 layout_for(const HeatProblem& p, const SolverOptions& o);
  /// Throws BackendUnavailable where the grid cannot be launched.
  ConstantTables(const HeatProblem& p, const SolverOptions& o, const Layout3& layout);

  /// Elements u and w take: whole planes, the last row's padding included
  /// (the fused RHS + x kernel copies rows 16 bytes at a time).
  std::size_t elements() const { return static_cast<std::size_t>(layout_.n[2] * layout_.stride[2]); }
  /// One phase (not Phase::Step) on the field u and the work array w.
  void run(Phase ph, T* u, T* w, cudaStream_t stream) const;
  /// The step's phases: the RHS inside the x solve where it fuses.
  std::vector<Phase> phases() const;
  /// The line kernels and the fusion, for the device name.
  std::string describe() const;
  /// What the moved box leaves out ("" when every node moves).
  std::string describe_box() const;
  std::array<index_t, 3> moved_extents() const { return box_.n; }
  index_t moved_yz_lanes() const { return yz_.n[0]; }

 private:
  SolverOptions options_;
  Layout3 layout_;
  std::array<index_t, 3> n_;  ///< the grid's extents
  UnknownBox box_;  ///< the nodes a step moves
  Layout3 sub_;     ///< their layout, from w / u + off_
  Layout3 yz_;      ///< the y and z solves' part of it
  index_t off_;
  RhsCoefficients<T> kc_;  ///< the box's: its Dirichlet-bounded faces are ghost faces
  LineSolver<T> solver_[3];
  // The RHS computed inside the x solve (the default; ADI_FUSE_RHS=0 runs
  // it as a pass of its own).
  bool fuse_rhs_ = false;
};

}  // namespace adi::cuda
