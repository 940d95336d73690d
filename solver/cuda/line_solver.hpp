#pragma once
// Internal to the CUDA backend: one constant-coefficient line matrix planned
// for one axis of one layout. Construction picks the kernel (the pure planner
// adi::plan_line_kernel) and uploads the small tables; solve() launches it
// (line_solver.cu). The stepper keeps one per axis.
//
// Kernels (one file each in kernels/):
//   Warp    — x lines (unit stride): a warp owns 32/S lines, lane = segment;
//             rows are loaded coalesced and handed to lanes through the
//             padded shared-memory transposition (adi::transpose).
//   Lanes   — y and z lines (and x lines of non-unit stride): lane = line
//             (neighbours along the unit-stride axis, so loads are coalesced),
//             warp = segment (two segments of 16 lines for long lines); the
//             reduced systems are switched to segment-per-lane through the
//             same padded map.
//   Long    — lines no block holds (fp64 y/z past 1056 rows, fp32 past
//             2048, x past 2048): segments of kLongI rows in independent
//             warps (lane = line; x rows through the same transposition),
//             the reduced systems written to a scratch and solved as lines
//             of their own by a nested LineSolver, then a finishing pass.
//   Short   — y/z lines of at most 8 rows: a thread a line, its rows loaded
//             at once and solved in registers (one pass).
//   Generic — thread-per-line Thomas through global memory (two passes):
//             overrides that fit no other family, and ADI_LONG_LINES=0.

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "kernels/line_kernels.cuh"
#include "segmented.cuh"

#include <adi/grid.hpp>
#include <adi/line_kernel_plan.hpp>
#include <adi/options.hpp>
#include <adi/scheme.hpp>
#include <adi/tridiag.hpp>

#include <memory>
#include <string>
#include <vector>

namespace adi::cuda {

template <class T>
class LineSolver {
 public:
  using Kind = LineKernelFamily;

  /// `options` carries the kernel knobs (x_seg, yz_seg: 0 is the planner's
  /// choice; adi/solver_knobs.def); the app fills it from ADI_* knobs.
  /// `cyclic`: m is a periodic line (m.a[0] couples node n-1, m.c[n-1] node
  /// 0): the warp and lanes kernels solve its Sherman-Morrison split
  /// (adi::cyclic_split) and correct each row with one FMA; lines that only
  /// the generic kernel holds throw BackendUnavailable (cyclic_fits).
  LineSolver(const LineMatrix& m, Axis axis, const Layout3& layout, const SolverOptions& options = {},
             bool cyclic = false);
  /// Whether a cyclic line of this axis and layout gets a segmented kernel.
  static bool cyclic_fits(Axis axis, const Layout3& layout, const SolverOptions& options = {});
  LineSolver(LineSolver&&) = default;

  /// d <- A^{-1} d along the axis; with acc != nullptr the solution is added
  /// into acc (same layout) instead of being written to d (fused update).
  /// The long-line kernel keeps its reduced rows in a scratch of this
  /// solver: calls on one solver must be ordered (one stream, or synchronised).
  void solve(T* d, T* acc, cudaStream_t stream) const;

  /// Whether the Douglas RHS can be computed inside this x solve (single-line
  /// tiles of the warp kernel), and that fused solve: w = A^{-1} rhs(u).
  bool can_fuse_rhs() const;
  bool cyclic() const { return view_.ring != 0; }
  void solve_rhs_fused(const T* u, T* w, const RhsCoefficients<T>& kc, cudaStream_t stream) const;
  /// d <- A^{-1} d in the fused kernel's segments: where it takes a tile plan
  /// of its own (x lines of 33-64 rows), the warp kernel with that plan, so
  /// that a fusing stepper's Rhs and SolveX phases compose bit for bit to its
  /// RhsSolveX (the stepper contract); solve(d) otherwise.
  void solve_like_fused(T* d, cudaStream_t stream) const;
  /// How the fused solve launches ("rhs fused into x: 8 lines x 31 planes a block, ...").
  std::string describe_fused() const;

  Kind kind() const { return kind_; }
  int seg_len() const { return I_; }
  int segments() const { return S_; }
  std::string describe() const;

 private:
  Axis axis_;
  Layout3 layout_;
  Kind kind_ = Kind::Generic;
  int I_ = 0, S_ = 0;
  int G_ = 0;  // lanes: lines a tile (LineKernelPlan::G)
  DeviceBuffer<T> tables_;
  std::vector<T> host_tables_;  // the plan's tables as uploaded (SegmentConsts are made from them)
  unsigned interior_mask_ = 0;  // interior_segment_mask of host_tables_
  PlanView<T> view_{};
  // Lanes, fp32 16-line tiles of I = kOddLongI: the pair build (two lines a
  // lane, kernels::launch_lanes_pairs) where the layout allows it
  // (SolverOptions::lanes_pairs); its tables are host_tables_ doubled.
  bool pairs_ = false;
  DeviceBuffer<FloatPair> pair_tables_;
  std::vector<FloatPair> pair_host_tables_;
  PlanView<FloatPair> pair_view_{};
  kernels::LinesGeom lines_geom() const;  // the lanes / generic / long kernels' geometry of layout_
  kernels::WarpGeom warp_geom(int S) const;  // the warp kernel's tiles of 32 / S x lines of layout_
  int fused_planes_ = 0;  // SolverOptions::fused_planes
  // The fused kernel's compact tables (CompactTables; S = 0: none).
  CompactTables fused_compact_{};
  DeviceBuffer<T> fused_tables_;
  // The fused kernel's tile plan (x lines of 33-64 rows: kernels::kFusedTileS
  // segments of kFusedTileI rows); fused_tile_
  // false: the fused kernel takes view_.
  bool fused_tile_ = false;
  DeviceBuffer<T> fused_tile_tables_;
  PlanView<T> fused_tile_view_{};
  bool fused_layout() const;  // the fused kernel's conditions on the plan and the rows
  kernels::FusedGeom fused_geom(const T* u) const;
  kernels::FusedLaunch fused_shape() const;
  const T* gen_a_ = nullptr;  // generic Thomas tables (inside tables_)
  const T* gen_cp_ = nullptr;
  const T* gen_inv_ = nullptr;
  kernels::ShortTables<T> short_{};  // Short: the Thomas factor by value
  // Long: the reduced rows ([2S][lines]), the solver of their 2S-row lines,
  // and whether segments 1 .. S-2 share segment 1's tables.
  DeviceBuffer<T> red_;
  std::unique_ptr<LineSolver<T>> reduced_;
  bool long_uniform_ = false;
};

}  // namespace adi::cuda
